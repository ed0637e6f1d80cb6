"""Benchmark of answer checking: start-up, per-answer time, the worst valid input, hostile-input rejection.

Run `python bench/bench_expr.py`. The corpus is the test suite's pairs and hostile strings. The
baseline is the naive check `sympy.simplify(a - b) == 0` on the same pairs (plain symbols, no
domains), each in a forked child with its own timeout, timed inside the child.
"""

from __future__ import annotations

import os
import select
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from test_expr import HOSTILE_SYMBOLS, PAIRS, hostile_strings  # noqa: E402

from grader.checks import Fail  # noqa: E402
from grader.grading.answers import AnswerSheet  # noqa: E402
from grader.grading.equivalence import equivalent, to_sympy  # noqa: E402
from grader.grading.expr import ExpressionError, parse  # noqa: E402

REPEATS = 21
BASELINE_TIMEOUT = 10.0
FALLBACK_SECONDS = 2.0
PATHOLOGICAL = ({name: "positive" for name in "abcdg"}, "a", "(a+b+c+d+g)^40 - ((a+b)^2 + 2*(a+b)*(c+d+g) + (c+d+g)^2)^20 + a", True)
NUMBERS = [
    (0.45257, 0.5 * 0.9051482536448664),
    ("0.5*tanh(3/2)", 0.5 * 0.9051482536448664),
    ("3/4", 0.75),
    ("ln(9)", 2.1972245773362196),
    ("σ(1)^30/0.5^30", 89015.0),
    (0.36, 0.36),
    ("0.9^20", 0.12157665459056931),
    (0.45, 0.45257),
]


def median_time(action, repeats: int = REPEATS) -> float:
    """Median wall time of `action()` in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def grade_formula(symbols: dict, reference: str, answer: str) -> None:
    """One formula answer through the public sheet API, as the engine grades it."""
    try:
        AnswerSheet(Path("answers.toml"), {"k": answer}).formula("k", reference, symbols)
    except Fail:
        pass


def grade_number(value: object, expected: float) -> None:
    try:
        AnswerSheet(Path("answers.toml"), {"k": value}).number("k", expected)
    except Fail:
        pass


def import_seconds(code: str) -> float:
    """Median wall time of a fresh interpreter running `code`."""
    return median_time(lambda: subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True), 7)


def naive_child(symbols: dict, reference: str, answer: str, write_fd: int) -> None:
    """In a forked child: simplify(a - b) == 0 with plain symbols; writes 'verdict seconds'."""
    import sympy

    table = {name: sympy.Symbol(name) for name in symbols}
    left, right = to_sympy(parse(answer, symbols), table), to_sympy(parse(reference, symbols), table)
    start = time.perf_counter()
    verdict = sympy.simplify(left - right) == 0
    os.write(write_fd, f"{int(verdict)} {time.perf_counter() - start}".encode())


def naive(symbols: dict, reference: str, answer: str) -> tuple[bool | None, float]:
    """The naive verdict and its time, or (None, timeout) if it did not finish."""
    import sympy  # noqa: F401  (loaded before forking, as the grader's fallback does)

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            naive_child(symbols, reference, answer, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    ready, _, _ = select.select([read_fd], [], [], BASELINE_TIMEOUT)
    reply = os.read(read_fd, 100).decode() if ready else ""
    os.close(read_fd)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if not reply:
        return None, BASELINE_TIMEOUT
    verdict, seconds = reply.split()
    return verdict == "1", float(seconds)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f} µs"


def main() -> None:
    bare, checks, answers = (import_seconds(code) for code in ("pass", "import grader.checks", "import grader.grading.answers"))
    print(
        f"start-up: import grader.grading.answers  {(answers - bare) * 1e3:7.1f} ms in a fresh interpreter, "
        f"of which grader.checks {(checks - bare) * 1e3:.1f} ms, expr + answers {(answers - checks) * 1e3:.1f} ms"
    )
    print(f"          sympy or torch imported by it:  {'sympy' in sys.modules or 'torch' in sys.modules}")

    formula_times = [median_time(lambda p=p: grade_formula(*p[:3])) for p in PAIRS]
    number_times = [median_time(lambda n=n: grade_number(*n)) for n in NUMBERS]
    right = sum(equivalent(parse(a, s), parse(r, s), s) is same for s, r, a, same in PAIRS)
    every = formula_times + number_times
    print(f"\nper-answer grading after start-up (median of {REPEATS} runs each; {len(PAIRS)} formulas, {len(NUMBERS)} numbers)")
    print(f"  formulas  median {us(statistics.median(formula_times))}   max {us(max(formula_times))}")
    print(f"  numbers   median {us(statistics.median(number_times))}   max {us(max(number_times))}")
    print(f"  all       median {us(statistics.median(every))}   max {us(max(every))}")
    print(f"  judged right: {right}/{len(PAIRS)}")

    hostile = hostile_strings("/tmp/bench_marker")

    def reject(text: str) -> None:
        try:
            parse(text, HOSTILE_SYMBOLS)
        except ExpressionError:
            return
        raise AssertionError(f"accepted hostile input {text[:40]!r}")

    hostile_times = [median_time(lambda t=t: reject(t), 5) for t in hostile]
    worst = max(range(len(hostile)), key=lambda i: hostile_times[i])
    print(
        f"\nhostile strings rejected ({len(hostile)}): median {us(statistics.median(hostile_times))}   "
        f"max {us(hostile_times[worst])} ({hostile[worst][:24]!r}…, {len(hostile[worst]):,} chars)"
    )

    symbols, reference, answer, _ = PATHOLOGICAL
    a, b = parse(answer, symbols), parse(reference, symbols)
    first = median_time(lambda: equivalent(a, b, symbols, fallback_seconds=FALLBACK_SECONDS), 1)
    again = median_time(lambda: equivalent(a, b, symbols, fallback_seconds=FALLBACK_SECONDS), 3)
    verdict = equivalent(a, b, symbols, fallback_seconds=FALLBACK_SECONDS)
    print(f"\nworst valid input ((a+b+c+d+g)^40 - …, sampling undecided), fallback limit {FALLBACK_SECONDS} s:")
    print(f"  first call {first:6.3f} s (includes importing sympy once), later calls {again:6.3f} s, verdict {verdict} (None = could not be verified)")

    print(f"\nbaseline: naive sympy.simplify(a - b) == 0 on the same pairs (timeout {BASELINE_TIMEOUT} s each)")
    results = [naive(*p[:3]) for p in PAIRS]
    naive_times = [seconds for _, seconds in results]
    naive_right = sum(verdict is p[3] for (verdict, _), p in zip(results, PAIRS))
    print(f"  {'':10}{'this checker':>18}{'naive sympy':>18}{'ratio':>10}")
    for name, ours, theirs in (("median", statistics.median(formula_times), statistics.median(naive_times)), ("max", max(formula_times), max(naive_times))):
        print(f"  {name:10}{ours * 1e3:15.3f} ms{theirs * 1e3:15.3f} ms{theirs / ours:9.0f}×")
    print(f"  {'right':10}{right:>15}/{len(PAIRS)}{naive_right:>15}/{len(PAIRS)}")
    wrong = [p[2] for (verdict, _), p in zip(results, PAIRS) if verdict is not p[3]]
    print(f"  naive misjudged: {', '.join(wrong) or 'none'}")
    verdict, seconds = naive(symbols, reference, answer)
    shown = f">{BASELINE_TIMEOUT:.0f} s (timed out)" if verdict is None else f"{seconds:.3f} s"
    print(f"  worst valid input: this checker {again:.3f} s (bounded), naive {shown}")


if __name__ == "__main__":
    main()
