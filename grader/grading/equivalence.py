"""Whether a student's formula equals the expected one: sampling, then sympy where sampling cannot decide.

Both ASTs (`grader.grading.expr`) are evaluated at seeded random points of each symbol's declared
domain, with a running bound on rounding error so that cancellation cannot fake agreement; a point
counts where the expected answer is defined, and an answer undefined there is wrong there. Only when
sampling cannot decide is sympy consulted, in a forked child that is killed after a time limit. sympy is
imported lazily, only for that fallback.
"""

from __future__ import annotations

import math
import os
import random
import resource
import select
import signal
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from grader.grading.expr import SAFETY, BinOp, Call, Const, Domain, Expr, Neg, Num, Sym, UndefinedError, check_symbols, evaluate_bounded, free_symbols

if TYPE_CHECKING:
    import sympy  # untyped: its expressions are Any to mypy, named here for the reader

# --- equivalence ---------------------------------------------------------------------------------

_SEED = 20_241_107
_POINTS_NEEDED = 8  # agreeing points that decide "equivalent"
_MAX_TRIES = 64  # sampled points before sampling gives up
_ATOL = 1e-12

Outcome = Literal["agree", "disagree", "unsure", "outside"]


def _sample(domain: str, rng: random.Random) -> float:
    """A random value from a declared domain."""
    if domain == "real":
        return rng.uniform(-4.0, 4.0)
    if domain == "positive":
        return math.exp(rng.uniform(math.log(0.05), math.log(20.0)))
    if domain == "gate":
        return rng.uniform(0.01, 0.99)
    return float(rng.randint(1, 50))


def _compare_at(answer: Expr, expected: Expr, point: Mapping[str, float], rtol: float) -> Outcome:
    """What one point says, judged on the expected answer's domain.

    "outside": the expected answer is undefined here, so the point says nothing; "disagree": the answer
    differs, or is certainly undefined where the expected answer is defined; "unsure": floating point cannot
    tell (an overflow, or rounding noise larger than the tolerance).
    """
    try:
        ve, ee = evaluate_bounded(expected, point)
    except UndefinedError:
        return "outside"
    try:
        va, ea = evaluate_bounded(answer, point)
    except UndefinedError as e:
        return "disagree" if e.certain else "unsure"
    tolerance = rtol * max(abs(va), abs(ve)) + _ATOL
    noise = SAFETY * (ea + ee)
    if abs(va - ve) > tolerance + noise:
        return "disagree"
    return "agree" if noise <= tolerance else "unsure"


def _sampling_verdict(answer: Expr, expected: Expr, symbols: Mapping[str, str], rtol: float) -> bool | None:
    """Decide by evaluation at seeded random points; None when sampling cannot settle it.

    One disagreeing point refutes. Agreement needs enough agreeing points and no unsure one: a region where
    floating point cannot tell must not hide a region where the answer is wrong, so it leaves the case to sympy.
    """
    names = sorted(free_symbols(answer) | free_symbols(expected))
    undeclared = [n for n in names if n not in symbols]
    if undeclared:
        raise ValueError(f"expressions use undeclared symbols {undeclared}")
    rng = random.Random(_SEED)
    needed = _POINTS_NEEDED if names else 1
    agreed, unsure = 0, False
    for _ in range(_MAX_TRIES if names else 1):
        outcome = _compare_at(answer, expected, {n: _sample(symbols[n], rng) for n in names}, rtol)
        if outcome == "disagree":
            return False
        agreed += outcome == "agree"
        unsure = unsure or outcome == "unsure"
        if agreed >= needed and not unsure:
            return True
    return None


def equivalent(answer: Expr, expected: Expr, symbols: Mapping[str, Domain], *, rtol: float = 1e-9, fallback_seconds: float = 2.0) -> bool | None:
    """Whether `answer` equals `expected` wherever `expected` is defined on the symbols' domains; None if it
    could not be verified in time.

    An answer undefined where the expected one is defined is wrong there (`0*sqrt(c)` hides nothing).
    Sampling decides almost every case in microseconds; sympy runs only when it cannot, in a child
    process limited to `fallback_seconds` (0 disables the fallback).
    """
    check_symbols(symbols)
    verdict = _sampling_verdict(answer, expected, symbols, rtol)
    if verdict is not None:
        return verdict
    return _symbolic_verdict(answer, expected, symbols, fallback_seconds)


# --- symbolic fallback in a time-limited child ---------------------------------------------------

_ASSUMPTIONS: dict[str, dict[str, bool]] = {
    "real": {"real": True},
    "positive": {"positive": True},
    "gate": {"positive": True},
    "positive_integer": {"positive": True, "integer": True},
}
_CHILD_MEMORY = 2 << 30  # bytes of address space the child may add to what it inherits
_VERDICT_BYTES = {True: b"1", False: b"0", None: b"?"}


def _symbolic_verdict(a: Expr, b: Expr, symbols: Mapping[str, str], seconds: float) -> bool | None:
    """Ask sympy in a forked child, killed after `seconds`; None on timeout or any failure."""
    if seconds <= 0:
        return None
    import sympy  # noqa: F401  (loaded once here so each forked child starts with it)

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child_main(a, b, symbols, seconds, write_fd)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], seconds)
        answer = os.read(read_fd, 1) if ready else b""
    finally:
        os.close(read_fd)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return {b"1": True, b"0": False}.get(answer)


def _child_main(a: Expr, b: Expr, symbols: Mapping[str, str], seconds: float, write_fd: int) -> None:
    """Run in the forked child: limit CPU and memory, write one verdict byte, exit without cleanup."""
    verdict = None
    try:
        _lower_limit(resource.RLIMIT_CPU, math.ceil(seconds) + 1)
        with open("/proc/self/statm") as statm:
            inherited = int(statm.read().split()[0]) * resource.getpagesize()
        _lower_limit(resource.RLIMIT_AS, inherited + _CHILD_MEMORY)
        verdict = _sympy_verdict(a, b, symbols)
    except BaseException:  # noqa: BLE001 – any failure in the child is "could not be verified"
        verdict = None
    finally:
        try:
            os.write(write_fd, _VERDICT_BYTES[verdict])
        finally:
            os._exit(0)


def _lower_limit(kind: int, value: int) -> None:
    """Set a resource limit (soft and hard) to `value`, or keep a lower existing hard limit."""
    _, hard = resource.getrlimit(kind)
    limit = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (limit, limit))


def _sympy_verdict(a: Expr, b: Expr, symbols: Mapping[str, str]) -> bool | None:
    """simplify(a - b) == 0, then sympy's own `equals`, with symbols carrying their domains."""
    import sympy

    table = {name: sympy.Symbol(name, **_ASSUMPTIONS[domain]) for name, domain in symbols.items()}
    left, right = to_sympy(a, table), to_sympy(b, table)
    difference = sympy.simplify(left - right)
    if difference == 0:
        return True
    if difference.is_zero is False:
        return False
    same: bool | None = left.equals(right)
    return same


def to_sympy(expr: Expr, table: Mapping[str, sympy.Symbol]) -> sympy.Expr:
    """The sympy expression for `expr`, built with constructors (never from text); `table` maps names to Symbols."""
    import sympy

    match expr:
        case Num(value):
            return sympy.Rational(value.numerator, value.denominator)
        case Sym(name):
            return table[name]
        case Const(name):
            return sympy.pi if name == "pi" else sympy.E
        case Neg(arg):
            return sympy.Mul(-1, to_sympy(arg, table))
        case BinOp(op, left, right):
            x, y = to_sympy(left, table), to_sympy(right, table)
            if op == "+":
                return sympy.Add(x, y)
            if op == "-":
                return sympy.Add(x, sympy.Mul(-1, y))
            if op == "*":
                return sympy.Mul(x, y)
            if op == "/":
                return sympy.Mul(x, sympy.Pow(y, -1))
            return sympy.Pow(x, y)
        case Call(func, arg):
            x = to_sympy(arg, table)
            if func == "sigmoid":
                return sympy.Pow(sympy.Add(1, sympy.exp(sympy.Mul(-1, x))), -1)
            return {"exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "tanh": sympy.tanh, "abs": sympy.Abs}[func](x)
    raise TypeError(f"not an expression: {expr!r}")
