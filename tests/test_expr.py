"""Tests of grader/grading/expr.py and equivalence.py: the safe parser, evaluation and equivalence of student formulas."""

from __future__ import annotations

import ast
import builtins
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.grading.equivalence import equivalent
from grader.grading.expr import BinOp, Call, ExpressionError, Num, Sym, UndefinedError, UnknownSymbolError, evaluate, free_symbols, parse, quote

REPO = Path(__file__).resolve().parents[1]

EX01_C = {"f": "gate", "c_prev": "real", "i": "gate", "g": "real"}
EX01_H = {"o": "gate", "c_t": "real"}
EX02_GATE = {"f": "gate", "k": "positive_integer"}
EX02_PRE = {"k": "positive", "epsilon": "positive"}
EX03 = {"z": "gate", "h_prev": "real", "h_tilde": "real"}
EX04 = {"d_x": "positive_integer", "d_h": "positive_integer"}
HOSTILE_SYMBOLS = {**EX01_C, **EX01_H, "x": "real"}

MARKER = "/tmp/grader_expr_marker_{}"


def hostile_strings(marker: str) -> list[str]:
    """Code injection, resource exhaustion, look-alikes and unsupported LaTeX, all to be rejected."""
    touch = f"touch {marker}"
    return [
        f"__import__('os').system('{touch}')",
        "().__class__.__base__.__subclasses__()",
        "().__class__.__bases__[0].__subclasses__()[0]",
        "[].__class__.__mro__[1].__subclasses__()",
        f"lambda: __import__('os').system('{touch}')",
        "(lambda x: x)(1)",
        f"f\"{{__import__('os').system('{touch}')}}\"",
        f"exec(\"import os; os.system('{touch}')\")",
        "eval('1+1')",
        "compile('1', '', 'eval')",
        f"open('{marker}', 'w').write('x')",
        "__builtins__",
        "globals()",
        "getattr(1, '__class__')",
        "[x for x in ().__class__.__base__.__subclasses__()]",
        "import os",
        f"os.system('{touch}')",
        "sympify('1')",
        "x.__class__",
        "x[0]",
        "1 if x else 2",
        "1; import os",
        "1 # comment",
        "'1'",
        "$(id)",
        "`id`",
        "@x",
        "x := 2",
        "9**9**9**9",
        "10**10**10",
        "2^2^2^2^2^2",
        "2**-99999",
        "x^(10^10)",
        "(" * 10_000 + "1" + ")" * 10_000,
        "(" * 60 + "1" + ")" * 60,
        "-" * 400 + "1",
        "1+" * 200 + "1",
        "x" * 1_000_000,
        "9" * 5_000,
        "1" * 40,
        "1e999999",
        "9" * 30 + "e300",
        "ｅｘｐ(1)",  # full-width look-alikes
        "\u0435xp(1)",  # Cyrillic е
        "ex\u0440(1)",  # Cyrillic р
        "exp\u200d(1)",  # zero-width joiner
        "e\u200bxp(1)",  # zero-width space
        "exp(1)\u202e",  # right-to-left override
        "𝐞𝐱𝐩(1)",  # mathematical bold
        "1\x00+1",
        "\x00",
        "\\x41",
        "\\u0065xp(1)",
        "\\input{/etc/passwd}",
        "\\def\\x{1}",
        f"\\write18{{{touch}}}",
        "\\immediate\\write18{ls}",
        "\\newcommand{\\x}{1}",
        "\\catcode`\\^=7",
        "\\\\",
    ]


@pytest.fixture
def no_code_execution(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make eval/exec/compile/ast.parse record any call, so a test can assert none happened."""
    calls: list[str] = []

    def spy(name: str):
        def refuse(*args: object, **kwargs: object) -> None:
            calls.append(name)
            raise AssertionError(f"{name} was called")

        return refuse

    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, spy(name))
    monkeypatch.setattr(ast, "parse", spy("ast.parse"))
    return calls


def test_there_are_enough_hostile_strings() -> None:
    """Does the hostile corpus hold at least 40 distinct strings?"""
    assert len(set(hostile_strings("m"))) >= 40


@pytest.mark.parametrize("index", range(len(hostile_strings("m"))))
def test_hostile_string_is_rejected_without_side_effect(index: int, tmp_path: Path, no_code_execution: list[str]) -> None:
    """Is each hostile string rejected with ExpressionError, running no code and creating no file?"""
    marker = tmp_path / "marker"
    text = hostile_strings(str(marker))[index]
    with pytest.raises(ExpressionError) as caught:
        parse(text, HOSTILE_SYMBOLS)
    assert str(caught.value) and caught.value.zh
    assert not marker.exists()
    assert no_code_execution == []


def test_source_never_calls_dynamic_evaluation() -> None:
    """Do expr.py, equivalence.py and answers/ avoid eval/exec/compile, sympify, parse_expr, lambdify and ast?"""
    forbidden = re.compile(
        r"(?<![.\w])(eval|exec|compile)\s*\(|\bsympify\b|\bparse_expr\b|\blambdify\b"
        r"|^\s*(import|from) ast\b",
        re.MULTILINE,
    )
    grading = REPO / "grader" / "grading"
    for path in (grading / "expr.py", grading / "equivalence.py", *sorted((grading / "answers").glob("*.py"))):
        assert forbidden.search(path.read_text(encoding="utf-8")) is None, path.name


def test_import_is_light() -> None:
    """Does importing grader.grading.answers leave torch and sympy unimported?"""
    code = "import grader.grading.answers, sys; assert 'torch' not in sys.modules and 'sympy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


# --- messages ------------------------------------------------------------------------------------


def test_unknown_symbol_message_names_symbol_column_and_known_symbols() -> None:
    """Does an unknown symbol's message say which, where, and what the question's symbols are?"""
    with pytest.raises(UnknownSymbolError) as caught:
        parse("4*d_k*(d_x+1)", EX04)
    assert "unknown symbol 'd_k' at column 3; this question's symbols are d_x, d_h" in str(caught.value)
    assert caught.value.name == "d_k" and caught.value.column == 3


def test_look_alike_message_names_character_and_column() -> None:
    """Is a Cyrillic look-alike reported by code point and column?"""
    with pytest.raises(ExpressionError) as caught:
        parse("o*tanh(c_\u0435)", EX01_H)
    assert "U+0435" in str(caught.value) and "column 10" in str(caught.value)


def test_deep_nesting_is_reported_as_depth() -> None:
    """Is nesting beyond the limit reported as too deep (not a RecursionError)?"""
    with pytest.raises(ExpressionError, match="nested more than 50 levels"):
        parse("(" * 60 + "x" + ")" * 60, {"x": "real"})


def test_long_answer_is_reported_with_its_length() -> None:
    """Is a 1 MB answer rejected by its length before any scanning?"""
    with pytest.raises(ExpressionError, match="1,000,000 characters long; the limit is 500"):
        parse("x" * 1_000_000, {"x": "real"})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("20,608", "thousands separators"),
        ("h_t = o*tanh(c_t)", "without 'name ='"),
        ("o*tanh(c_t", "'(' is never closed at column 7"),
        ("o*tanh(c_t))", "')' has no matching opening bracket at column 12"),
        ("2 3", "operator is missing before the number '3' at column 3"),
        ("o*tanh", "function 'tanh' needs an argument at column 3"),
        ("\\frac12", "\\frac must be written \\frac{a}{b}"),
        ("o*", "ends where a number, symbol or '(' was expected at column 3"),
        ("", "empty"),
        ("foo(c_t)", "unknown function or symbol 'foo' at column 1"),
        ("o^1001", "exponent is too large"),
        ("10^300^2", "exponent is too large"),
        ("(10^300)^2", "number is too large"),
        ("9" * 30 + "e300", "number '999999999999999999999999999999 [...]' is too large at column 1"),
    ],
)
def test_error_message_says_what_and_where(text: str, fragment: str) -> None:
    """Does each kind of malformed answer get its own message with the column?"""
    with pytest.raises(ExpressionError) as caught:
        parse(text, EX01_H)
    assert fragment in str(caught.value)


def test_bad_symbol_table_is_a_programming_error() -> None:
    """Is a symbol table with an unknown domain or a reserved name refused with ValueError?"""
    with pytest.raises(ValueError, match="domain"):
        parse("x", {"x": "complex"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="distinct"):
        parse("e", {"e": "real"})


# --- syntax --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "same_as", "symbols"),
    [
        ("d_h(d_x+1)", "d_h*(d_x+1)", EX04),
        ("d_h (d_x + d_h + 1)", "d_h*(d_x+d_h+1)", EX04),
        ("2d_h", "2*d_h", EX04),
        ("4 d_h", "4*d_h", EX04),
        ("4d_h^2", "4*(d_h^2)", EX04),
        ("d_h²", "d_h^2", EX04),
        ("d_h**2", "d_h^2", EX04),
        ("d_{h}", "d_h", EX04),
        ("o tanh(c_t)", "o*tanh(c_t)", EX01_H),
        ("o\\tanh c_t", "o*tanh(c_t)", EX01_H),
        ("o \\cdot \\tanh\\left( c_t \\right)", "o*tanh(c_t)", EX01_H),
        ("o × tanh(c_t)", "o*tanh(c_t)", EX01_H),
        ("σ(c_t)", "sigmoid(c_t)", EX01_H),
        ("\\sigma(c_t)", "sigma(c_t)", EX01_H),
        ("−o", "-o", EX01_H),
        ("o ÷ c_t", "o/c_t", EX01_H),
        ("\\frac{o}{c_t}", "o/c_t", EX01_H),
        ("{o}^{c_t}", "o^c_t", EX01_H),
        ("\\ln\\frac{k}{\\epsilon}", "ln(k/epsilon)", EX02_PRE),
        ("ln(k/ε)", "ln(k/epsilon)", EX02_PRE),
        ("ln(k/eps)", "ln(k/\\varepsilon)", EX02_PRE),
    ],
)
def test_notations_parse_to_the_same_tree(text: str, same_as: str, symbols: dict) -> None:
    """Do implicit products, Unicode and LaTeX forms read as the plain ASCII formula?"""
    assert parse(text, symbols) == parse(same_as, symbols)


def test_parse_builds_the_expected_tree() -> None:
    """Is 'd_h(d_x+1)' a product (not a call) and 'tanh(c)' a call?"""
    assert parse("d_h(d_x+1)", EX04) == BinOp("*", Sym("d_h"), BinOp("+", Sym("d_x"), Num(1)))
    assert parse("tanh(c_t)", EX01_H) == Call("tanh", Sym("c_t"))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("-2^2", -4.0),
        ("2^-1", 0.5),
        ("2^3^2", 512.0),
        ("1e-3", 1e-3),
        (".5", 0.5),
        ("1/2/4", 0.125),
        ("3/4", 0.75),
        ("2⁻¹", 0.5),
        ("0.5*tanh(3/2)", 0.5 * math.tanh(1.5)),
        ("σ(1)", 1 / (1 + math.exp(-1))),
        ("ln 9", math.log(9)),
        ("log10(32)", math.log10(32)),  # read as ln(32)/ln(10): base-10 logs are a mistake to name, not a typo
        ("e^2", math.e**2),
        ("2pi", 2 * math.pi),
        ("sqrt{16}", 4.0),
        ("abs(-3)", 3.0),
        ("\\sqrt{2}\\sqrt{2}", 2.0),
    ],
)
def test_constant_expressions_evaluate(text: str, value: float) -> None:
    """Do constant answers evaluate to their value (rel 1e-12)?"""
    assert evaluate(parse(text, {}), {}) == pytest.approx(value, rel=1e-12)


def test_evaluate_uses_given_values_and_free_symbols_lists_names() -> None:
    """Does evaluation substitute symbols, and free_symbols list exactly the names used?"""
    expr = parse("f*c_prev + i*g", EX01_C)
    assert evaluate(expr, {"f": 0.8, "c_prev": 2, "i": 0.25, "g": -0.4}) == pytest.approx(1.5, rel=1e-12)
    assert free_symbols(expr) == {"f", "c_prev", "i", "g"}
    assert free_symbols(parse("ln 2", {})) == set()


@pytest.mark.parametrize("text", ["1/0", "ln(0)", "sqrt(-1)", "(-8)^(1/3)", "exp(1000)", "log(-1)"])
def test_undefined_values_raise_undefined_error(text: str) -> None:
    """Is a value with no finite real result an UndefinedError (not a crash or nan)?"""
    with pytest.raises(UndefinedError):
        evaluate(parse(text, {}), {})


# --- equivalence ---------------------------------------------------------------------------------

PAIRS: list[tuple[dict, str, str, bool]] = [
    # ex01: c_t = f*c_prev + i*g
    (EX01_C, "f*c_prev + i*g", "c_prev f + g i", True),
    (EX01_C, "f*c_prev + i*g", "f c_prev + i g", True),
    (EX01_C, "f*c_prev + i*g", "f·c_prev + i×g", True),
    (EX01_C, "f*c_prev + i*g", "i*g + f*c_prev", True),
    (EX01_C, "f*c_prev + i*g", "(1-f)*c_prev + i*g", False),
    (EX01_C, "f*c_prev + i*g", "f*c_prev + (1-f)*g", False),
    (EX01_C, "f*c_prev + i*g", "f*c_prev*i*g", False),
    (EX01_C, "f*c_prev + i*g", "f*(c_prev + i*g)", False),
    # ex01: h_t = o*tanh(c_t)
    (EX01_H, "o*tanh(c_t)", "o tanh(c_t)", True),
    (EX01_H, "o*tanh(c_t)", "tanh(c_t)·o", True),
    (EX01_H, "o*tanh(c_t)", "o\\tanh(c_t)", True),
    (EX01_H, "o*tanh(c_t)", "o \\cdot \\tanh\\left(c_t\\right)", True),
    (EX01_H, "o*tanh(c_t)", "o*(exp(2c_t)-1)/(exp(2c_t)+1)", True),
    (EX01_H, "o*tanh(c_t)", "o*(1 - 2/(e^(2*c_t)+1))", True),
    (EX01_H, "o*tanh(c_t)", "o*(2σ(2c_t) - 1)", True),
    (EX01_H, "o*tanh(c_t)", "o*c_t", False),
    (EX01_H, "o*tanh(c_t)", "tanh(o*c_t)", False),
    (EX01_H, "o*tanh(c_t)", "o*tanh(c_t)^2", False),
    (EX01_H, "o*tanh(c_t)", "tanh(c_t)", False),
    (EX01_H, "o*tanh(c_t)", "σ(o)*tanh(c_t)", False),
    # undefined on part of the expected answer's domain: wrong there, however it is multiplied away
    (EX01_C, "f*c_prev + i*g", "f*abs(c_prev) + i*g + 0*sqrt(c_prev)", False),
    (EX01_C, "f*c_prev + i*g", "f*c_prev + i*abs(g) + 0*ln(g)", False),
    (EX01_H, "o*tanh(c_t)", "o*tanh(abs(c_t)) + 0*sqrt(c_t)", False),
    (EX01_H, "o*tanh(c_t)", "o*tanh(c_t) + 0*ln(c_t)", False),
    (EX01_H, "o*tanh(c_t)", "o*tanh(c_t) + 0/(c_t-c_t)", False),
    # equivalent wherever the expected answer is defined on the domain
    (EX01_H, "o*tanh(c_t)", "exp(ln(o))*tanh(c_t)", True),
    (EX01_H, "o*tanh(c_t)", "sqrt(o^2) tanh(c_t)", True),
    ({"x": "real"}, "ln(x)", "ln(abs(x))", True),
    ({"x": "real"}, "sqrt(x)", "sqrt(abs(x))", True),
    # ex02: const_gate_factor = f^k
    (EX02_GATE, "f^k", "f**k", True),
    (EX02_GATE, "f^k", "exp(k ln f)", True),
    (EX02_GATE, "f^k", "e^{k\\ln f}", True),
    (EX02_GATE, "f^k", "f^(k-1)*f", True),
    (EX02_GATE, "f^k", "(f^2)^(k/2)", True),
    (EX02_GATE, "f^k", "k*f", False),
    (EX02_GATE, "f^k", "f^(k-1)", False),
    (EX02_GATE, "f^k", "1-(1-f)^k", False),
    # ex02: preact_formula = ln(k/epsilon)
    (EX02_PRE, "ln(k/epsilon)", "\\ln\\frac{k}{\\epsilon}", True),
    (EX02_PRE, "ln(k/epsilon)", "log(k)-log(ε)", True),
    (EX02_PRE, "ln(k/epsilon)", "ln k - ln eps", True),
    (EX02_PRE, "ln(k/epsilon)", "-ln(epsilon/k)", True),
    (EX02_PRE, "ln(k/epsilon)", "ln(k) + ln(1/ε)", True),
    (EX02_PRE, "ln(k/epsilon)", "ln(epsilon/k)", False),
    (EX02_PRE, "ln(k/epsilon)", "k/epsilon", False),
    (EX02_PRE, "ln(k/epsilon)", "ln(k*epsilon)", False),
    (EX02_PRE, "ln(k/epsilon)", "ln(k)/ln(epsilon)", False),
    # ex03: h_t = z*h_prev + (1-z)*h_tilde (PyTorch convention)
    (EX03, "z*h_prev + (1-z)*h_tilde", "h_tilde + z*(h_prev - h_tilde)", True),
    (EX03, "z*h_prev + (1-z)*h_tilde", "z h_prev + (1 − z) h_tilde", True),
    (EX03, "z*h_prev + (1-z)*h_tilde", "(1-z)*h_prev + z*h_tilde", False),
    (EX03, "z*h_prev + (1-z)*h_tilde", "z*h_prev + z*h_tilde", False),
    # ex04: parameter counts
    (EX04, "4*d_h*(d_x+d_h+1)", "4d_h^2+4d_h d_x+4d_h", True),
    (EX04, "4*d_h*(d_x+d_h+1)", "4 d_h (d_x + d_h + 1)", True),
    (EX04, "4*d_h*(d_x+d_h+1)", "4(d_h d_x + d_h² + d_h)", True),
    (EX04, "4*d_h*(d_x+d_h+1)", "d_h(d_x+d_h+1)*4", True),
    (EX04, "4*d_h*(d_x+d_h+1)", "4*d_h*(d_x+d_h)", False),
    (EX04, "4*d_h*(d_x+d_h+1)", "3*d_h*(d_x+d_h+1)", False),
    (EX04, "4*d_h*(d_x+d_h+1)", "4*d_h*(d_x+d_h+2)", False),
    (EX04, "4*d_h*(d_x+d_h+1)", "4*(d_x+d_h+1)^2", False),
    (EX04, "d_h*(d_x+d_h+1)", "d_h d_x + d_h^2 + d_h", True),
    (EX04, "3*d_h*(d_x+d_h+1)", "3d_h^2 + 3d_h d_x + 3d_h", True),
    (EX04, "3*d_h*(d_x+d_h+1)", "3/4 * 4*d_h*(d_x+d_h+1)", True),
    # constants (ex02 table, ex07, ex11)
    ({}, "σ(1)", "1/(1+e^(-1))", True),
    ({}, "\\sigma(1)", "sigmoid(1)", True),
    ({}, "σ(1)", "tanh(1)", False),
    ({}, "0.5*tanh(3/2)", "tanh(1.5)/2", True),
    ({}, "ln 9", "2 ln(3)", True),
    ({}, "sqrt(4)", "2", True),
    ({}, "0.9^20", "0.9^21", False),
]


def test_there_are_enough_pairs() -> None:
    """Are at least 40 equivalent and non-equivalent pairs covered, both kinds?"""
    assert len(PAIRS) >= 40
    assert sum(p[3] for p in PAIRS) >= 15 and sum(not p[3] for p in PAIRS) >= 15


@pytest.mark.parametrize(("symbols", "reference", "answer", "same"), PAIRS)
def test_pair_is_judged_right_by_sampling_alone(symbols: dict, reference: str, answer: str, same: bool) -> None:
    """Is each pair judged right by numeric sampling alone (no symbolic fallback needed)?"""
    verdict = equivalent(parse(answer, symbols), parse(reference, symbols), symbols, fallback_seconds=0)
    assert verdict is same


def test_equivalence_is_deterministic() -> None:
    """Does the same pair always get the same verdict (seeded sampling)?"""
    a, b = parse("f^k", EX02_GATE), parse("exp(k ln f)", EX02_GATE)
    assert {equivalent(a, b, EX02_GATE, fallback_seconds=0) for _ in range(5)} == {True}


@pytest.mark.slow
def test_cancellation_noise_is_not_agreement() -> None:
    """Is an answer whose value is lost to rounding (floats give 0 for it) undecided by sampling, then refuted?"""
    symbols = {"a": "positive_integer", "b": "positive_integer"}
    noisy, zero = parse("(a+b)^80 + 1 - (a+b)^80", symbols), parse("0", symbols)
    assert equivalent(noisy, zero, symbols, fallback_seconds=0) is None
    assert equivalent(noisy, zero, symbols) is False
    assert equivalent(noisy, parse("1", symbols), symbols) is True


def test_rounding_noise_cannot_hide_a_wrong_region() -> None:
    """Does a term whose rounding noise is unbounded where the answer is wrong (c_prev < 0) leave the case undecided by sampling, and not right?"""
    wrong = parse("f*abs(c_prev) + i*g + c_prev^(0.1+1.9) - c_prev^2", EX01_C)
    expected = parse("f*c_prev + i*g", EX01_C)
    assert equivalent(wrong, expected, EX01_C, fallback_seconds=0) is None
    assert equivalent(wrong, expected, EX01_C) is not True


def test_integer_exponent_up_to_rounding_is_not_undefined() -> None:
    """Is c^((0.1+0.2)*10), an integer power whose float exponent is 3.0000000000000004, left to sympy rather than wrong for c < 0?"""
    symbols = {"c": "real"}
    answer, expected = parse("c^((0.1+0.2)*10)", symbols), parse("c^3", symbols)
    assert equivalent(answer, expected, symbols, fallback_seconds=0) is None
    assert equivalent(answer, expected, symbols) is True


@pytest.mark.parametrize("text", ["exp(1)\u202e", "o\u2028", "x\ud800", "\\fo\u202eo", "tanh(\u2029)", "c_t\x1b[2J"])
def test_messages_show_student_text_safely(text: str) -> None:
    """Does an error message about an answer with bidi overrides, line separators, lone surrogates or escapes print safely?"""
    with pytest.raises(ExpressionError) as caught:
        parse(text, EX01_H)
    for message in (caught.value.en, caught.value.zh):
        assert message.isprintable() and not any(c in message for c in "\u202e\u2028\u2029\ud800\x1b")


def test_quote_replaces_unsafe_characters() -> None:
    """Does quote() mark a student's text as quoted, on one line, with unsafe characters replaced?"""
    assert quote("ab\u202ec\u2028d\ud800") == "'ab\ufffdc\ufffdd\ufffd'"
    assert quote("σ(1)") == "'σ(1)'" and quote("x" * 40, 5) == "'xxxxx [...]'"


def test_fallback_decides_when_no_point_is_defined() -> None:
    """When no sampled point is defined, does the sympy fallback decide?"""
    symbols = {"x": "positive"}
    assert equivalent(parse("ln(-x)", symbols), parse("log(-x)", symbols), symbols) is True


def test_pathological_input_is_could_not_be_verified() -> None:
    """Is a valid input that sampling cannot decide and sympy cannot finish in time 'could not be verified' (None)?"""
    symbols = {name: "positive" for name in ("a", "b", "c", "d", "g")}
    hard = parse("(a+b+c+d+g)^40 - ((a+b)^2 + 2*(a+b)*(c+d+g) + (c+d+g)^2)^20 + a", symbols)
    assert equivalent(hard, parse("a", symbols), symbols, fallback_seconds=0.3) is None
