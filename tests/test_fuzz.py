"""Fuzz tests of grader/grading/answers.py: no answer sheet a student can write makes a check raise anything but Fail.

Seeded (derandomize) and sized to run in seconds; the sympy fallback is off (fallback_seconds=0), since it runs
in a killed child whose only output is one verdict byte, and its time bound has its own tests.
"""

from __future__ import annotations

import datetime
import math
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.failures import Fail
from grader.grading.answers import (MAX_SHEET_BYTES, AnswerSheet, Boolean, Choice, Formula, Integer, Number, Shape,
                                    SheetError, load_sheet)
from test_answers import CHECKS, EX01_C, nested

FUZZ = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- answers as a student might type them ----------------------------------------------------------

TOKENS = [
    "f", "c_prev", "i", "g", "o", "c_t", "k", "x", "d_{h}", "1", "2", "0", "0.5", ".5", "1e-3", "1e300", "9" * 31,
    "+", "-", "*", "/", "^", "**", "(", ")", "{", "}", " ", "exp", "ln", "log", "sqrt", "tanh", "sigma", "abs",
    "pi", "e", "σ", "ε", "π", "·", "×", "−", "÷", "²", "⁻¹", "\\frac", "\\ln", "\\cdot", "\\left(", "\\right)",
    "\\sqrt", "\\tanh", "0*sqrt(c_prev)", "10^10^10", "9**9**9", "(" * 60, ")" * 60, "true", "false", "A", "B",
    "[2, 3]", "(2,3)", ",", "=", "|", "\u202e", "\u2028", "\u2029", "\u200b", "\x00", "\x1b[2J", "ｅｘｐ",
]
UNICODE = st.characters(exclude_categories=("Cs",))  # any character UTF-8 (hence TOML) can hold
GRAMMAR_TEXT = st.lists(st.one_of(st.sampled_from(TOKENS), UNICODE), max_size=40).map("".join)
TEXT = st.one_of(GRAMMAR_TEXT, st.text(UNICODE, max_size=30),
                 st.integers(0, 70_000).map(lambda n: "1" * n), st.integers(0, 3000).map(lambda n: "(" * n))
BIG_INTS = st.tuples(st.integers(0, 6000), st.sampled_from([1, -1])).map(lambda p: p[1] * 10 ** p[0])
NUMBERS = st.one_of(st.integers(), BIG_INTS, st.floats(allow_nan=True, allow_infinity=True))
DATES = st.one_of(st.dates(), st.times(), st.datetimes(timezones=st.just(datetime.timezone.utc)))
SCALARS = st.one_of(TEXT, NUMBERS, st.booleans(), DATES)
VALUES = st.one_of(
    st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4), inner,
                                                                                       max_size=3), max_leaves=12),
    st.integers(1, 6000).map(nested),
    st.text(st.characters(), max_size=10),  # lone surrogates too, which only a Python value can hold
)


FORMS = (Number(), Number(digits=4), Integer(), Formula(EX01_C), Choice(("A", "B", "0.9")), Boolean(), Shape())


def judged(answers: AnswerSheet) -> None:
    """Every check and form check of key "k" and the key check: each returns, or raises Fail with printable feedback."""
    forms = [lambda sheet, form=form: sheet.form("k", form) for form in FORMS]
    for check in [*CHECKS.values(), *forms, lambda sheet: sheet.expect_keys(["k"])]:
        try:
            check(answers)
        except Fail as fail:
            for message in (fail.en, fail.zh):
                assert message.isprintable() and message.encode("utf-8"), ascii(message)


@FUZZ
@given(VALUES)
def test_any_value_is_judged_or_fails_with_printable_feedback(value: object) -> None:
    """Does every check judge any TOML-typed value (huge, deep, non-finite, odd Unicode) with Fail at worst?"""
    judged(AnswerSheet(Path("answers.toml"), {"k": value}, fallback_seconds=0))


# --- answer sheets as TOML text --------------------------------------------------------------------


def basic_string(text: str) -> str:
    """`text` as a TOML basic string (control characters and DEL escaped)."""
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or c in '"\\\x7f' else c for c in text)
    return f'"{escaped}"'


def toml_float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


TOML_SCALARS = st.one_of(
    TEXT.map(basic_string),
    st.text(st.characters(exclude_categories=("Cs", "Cc"), exclude_characters="'"), max_size=20).map(lambda t: f"'{t}'"),
    GRAMMAR_TEXT.map(lambda t: '"""' + basic_string(t)[1:-1] + '"""'),
    st.integers().map(str),
    st.tuples(st.sampled_from(["", "-", "+"]), st.integers(1, 6000)).map(lambda p: p[0] + "9" * p[1]),
    st.integers(1, 20_000).map(lambda n: "0x" + "f" * n),
    st.floats(allow_nan=True, allow_infinity=True).map(toml_float),
    st.sampled_from(["true", "false", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "1_000", "0o17", "0b101",
                     "1e999", "-0.0", "6e-324"]),
)
TOML_VALUES = st.one_of(
    st.recursive(TOML_SCALARS, lambda inner: st.lists(inner, max_size=5).map(lambda v: "[" + ", ".join(v) + "]")
                 | st.lists(inner, max_size=3).map(lambda v: "{" + ", ".join(f"a{n} = {x}" for n, x in enumerate(v)) + "}"),
                 max_leaves=12),
    st.tuples(st.integers(1, 6000), st.sampled_from("[{")).map(
        lambda p: ("[" * p[0] + "]" * p[0]) if p[1] == "[" else ("{a = " * p[0] + "1" + "}" * p[0])),
)
KEYS = st.one_of(st.just("k"), st.text(UNICODE, max_size=12).map(basic_string))


@FUZZ
@given(st.lists(st.tuples(KEYS, TOML_VALUES), min_size=1, max_size=3))
def test_any_toml_sheet_loads_or_is_refused_with_printable_feedback(tmp_path_factory, entries) -> None:
    """Does a sheet of any TOML values load (whatever tomllib itself reads), and every check judge it with Fail at worst?"""
    text = "".join(f"{key} = {value}\n" for key, value in entries)
    root = tmp_path_factory.mktemp("sheet")
    (root / "answers.toml").write_text(text, encoding="utf-8")
    try:
        answers = load_sheet(Path("answers.toml"), root=root, fallback_seconds=0)
    except SheetError as e:
        assert e.en.isprintable() and e.zh.isprintable(), ascii(e.en)
        if len(text.encode("utf-8")) > MAX_SHEET_BYTES:
            return
        try:
            tomllib.loads(text)
        except (ValueError, RecursionError):
            return  # tomllib refuses it too (a syntax error, a duplicate key, a value it cannot build)
        raise AssertionError(f"a sheet tomllib reads was refused: {e.en}") from None
    judged(answers)
