"""Fuzz tests of what a student hands in: no answer sheet makes a check raise anything but Fail (grader/grading/answers/),
and no zip, notebook or entry name makes the batch raise anything but a refusal of that entry (grader/submissions).

Seeded (derandomize) and sized to run in seconds; the sympy fallback is off (fallback_seconds=0), since it runs
in a killed child whose only output is one verdict byte, and its time bound has its own tests.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import os
import tomllib
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_answers import CHECKS, EX01_C, nested

from conftest import ROOT, cli
from grader.failures import Fail
from grader.grading.answers import AnswerSheet, Boolean, Choice, Formula, Integer, Number, Shape, SheetError, load_sheet
from grader.grading.answers.reading import MAX_SHEET_BYTES

pytestmark = pytest.mark.slow  # fuzzing

FUZZ = settings(max_examples=400, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- answers as a student might type them ----------------------------------------------------------

TOKENS = [
    "f",
    "c_prev",
    "i",
    "g",
    "o",
    "c_t",
    "k",
    "x",
    "d_{h}",
    "1",
    "2",
    "0",
    "0.5",
    ".5",
    "1e-3",
    "1e300",
    "9" * 31,
    "+",
    "-",
    "*",
    "/",
    "^",
    "**",
    "(",
    ")",
    "{",
    "}",
    " ",
    "exp",
    "ln",
    "log",
    "sqrt",
    "tanh",
    "sigma",
    "abs",
    "pi",
    "e",
    "σ",
    "ε",
    "π",
    "·",
    "×",
    "−",
    "÷",
    "²",
    "⁻¹",
    "\\frac",
    "\\ln",
    "\\cdot",
    "\\left(",
    "\\right)",
    "\\sqrt",
    "\\tanh",
    "0*sqrt(c_prev)",
    "10^10^10",
    "9**9**9",
    "(" * 60,
    ")" * 60,
    "true",
    "false",
    "A",
    "B",
    "[2, 3]",
    "(2,3)",
    ",",
    "=",
    "|",
    "\u202e",
    "\u2028",
    "\u2029",
    "\u200b",
    "\x00",
    "\x1b[2J",
    "ｅｘｐ",
]
UNICODE = st.characters(exclude_categories=("Cs",))  # any character UTF-8 (hence TOML) can hold
GRAMMAR_TEXT = st.lists(st.one_of(st.sampled_from(TOKENS), UNICODE), max_size=40).map("".join)
TEXT = st.one_of(GRAMMAR_TEXT, st.text(UNICODE, max_size=30), st.integers(0, 70_000).map(lambda n: "1" * n), st.integers(0, 3000).map(lambda n: "(" * n))
BIG_INTS = st.tuples(st.integers(0, 6000), st.sampled_from([1, -1])).map(lambda p: p[1] * 10 ** p[0])
NUMBERS = st.one_of(st.integers(), BIG_INTS, st.floats(allow_nan=True, allow_infinity=True))
DATES = st.one_of(st.dates(), st.times(), st.datetimes(timezones=st.just(datetime.UTC)))
SCALARS = st.one_of(TEXT, NUMBERS, st.booleans(), DATES)
VALUES = st.one_of(
    st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=12),
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
    st.sampled_from(["true", "false", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "1_000", "0o17", "0b101", "1e999", "-0.0", "6e-324"]),
)
TOML_VALUES = st.one_of(
    st.recursive(
        TOML_SCALARS,
        lambda inner: (
            st.lists(inner, max_size=5).map(lambda v: "[" + ", ".join(v) + "]")
            | st.lists(inner, max_size=3).map(lambda v: "{" + ", ".join(f"a{n} = {x}" for n, x in enumerate(v)) + "}")
        ),
        max_leaves=12,
    ),
    st.tuples(st.integers(1, 6000), st.sampled_from("[{")).map(lambda p: ("[" * p[0] + "]" * p[0]) if p[1] == "[" else ("{a = " * p[0] + "1" + "}" * p[0])),
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


# --- hand-ins: zips, notebooks and entry names (grader/submissions, grader/batch/roster.py's discover) ------------

HANDIN = settings(FUZZ, max_examples=150)
METHODS = st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
ENTRY_NAMES = st.one_of(
    st.sampled_from(
        [
            "ex01_cell_state/answers.toml",
            "ex01_cell_state/./answers.toml",
            "EX01_CELL_STATE/answers.toml",
            "top/ex01_cell_state/answers.toml",
            "ex01.ipynb",
            "a/",
            "a",
            "./",
            "__MACOSX/x",
            "x" * 300,
        ]
    ),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20),
)
ZIP_ENTRIES = st.lists(st.tuples(ENTRY_NAMES, st.binary(max_size=3000), METHODS), min_size=1, max_size=5)
DAMAGE = st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(1, 255)), max_size=4)


def zip_bytes(entries, damage, utf8_flag: bool) -> bytes:
    """A zip of `entries` (written with zipfile), then its bytes damaged and, optionally, every entry's UTF-8 flag set."""
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names
        with zipfile.ZipFile(out, "w") as zf:
            for name, data, method in entries:
                zf.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    data = bytearray(out.getvalue())
    for at, flip in damage:
        data[at % len(data)] ^= flip
    if utf8_flag:
        for signature, flag in ((b"PK\x03\x04", 7), (b"PK\x01\x02", 9)):
            at = 0
            while (at := data.find(signature, at)) >= 0:
                data[at + flag] |= 0x08
                at += 4
    return bytes(data)


ZIPS = st.builds(zip_bytes, ZIP_ENTRIES, DAMAGE, st.booleans())


@HANDIN
@given(ZIPS)
def test_any_zip_unpacks_inside_its_folder_or_is_refused(tmp_path_factory, data: bytes) -> None:
    """Does unpacking any zip (corrupt streams, damaged headers, odd names and flags) give a folder or ArchiveRefused, nothing else?"""
    from grader.submissions.archive import ArchiveRefused, unpack

    root = tmp_path_factory.mktemp("zip")
    (root / "s.zip").write_bytes(data)
    (root / "dest").mkdir()
    try:
        folder = unpack(root / "s.zip", root / "dest")
    except ArchiveRefused as e:
        assert str(e).startswith("s.zip: ") and str(e).isprintable(), ascii(str(e))
        return
    assert folder.resolve().is_relative_to((root / "dest").resolve())
    assert all(p.resolve().is_relative_to(root.resolve()) for p in (root / "dest").rglob("*"))


CELL_SOURCES = st.one_of(
    GRAMMAR_TEXT.map(lambda t: f"c_t = {t}"),
    st.sampled_from(
        [
            "c_t = 0x" + "f" * 4000,
            "c_t = 1" + "0" * 5000,
            "c_t = [" * 300 + "]" * 300,
            "c_t = -0x" + "f" * 5000,
            "h_t = " + "1+" * 20000 + "1",
            "c_t = (1, [2, {3: 4}])",
            "%matplotlib inline",
            "c_t = 1\nimport os",
            "def f(:\n",
            "return 1",
            "c_t = '\\ud800'",
            "c_t: int = 3",
            "c_t = h_t = 0.5",
            "x\x00 = 1",
        ]
    ),
    st.text(UNICODE, max_size=40),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=15,
)
CELLS = st.fixed_dictionaries(
    {
        "cell_type": st.sampled_from(["code", "code", "markdown", "raw", "bogus"]),
        "source": st.one_of(CELL_SOURCES, st.lists(CELL_SOURCES, max_size=3), JSON),
        "metadata": st.one_of(
            st.just({}), st.just({"grader": {"file": "params.py"}}), st.just({"grader": "x"}), st.just({"nbgrader": {"grade": True, "solution": False}}), JSON
        ),
    },
    optional={"outputs": st.just([]), "execution_count": st.none(), "id": st.text(max_size=8)},
)


def notebook_text(cells: list, metadata: object, version: object, depth: int) -> str:
    """A notebook's JSON; with `depth`, its metadata nested that deep (as text: json.dumps would recurse)."""
    text = json.dumps({"nbformat": version, "nbformat_minor": 5, "metadata": metadata, "cells": cells})
    return text.replace('"metadata": ', '"metadata": ' + '{"a": ' * depth, 1).replace(', "cells"', "}" * depth + ', "cells"', 1)


NOTEBOOKS = st.one_of(
    st.builds(
        notebook_text,
        st.lists(CELLS, max_size=4),
        st.one_of(st.just({}), JSON),
        st.sampled_from([4, 4, 4, 3, "4"]),
        st.one_of(st.just(0), st.integers(1, 3000)),
    ),
    JSON.map(json.dumps),
    st.integers(1, 100_000).map(lambda n: "[" * n + "]" * n),
    st.text(max_size=50),
).map(lambda text: text.encode("utf-8", errors="surrogatepass"))


@HANDIN
@given(NOTEBOOKS, st.sampled_from(["ex01", "ex04", "ex05"]))
def test_any_notebook_gives_each_file_or_a_problem(data: bytes, exercise_id: str) -> None:
    """Does any notebook (random JSON, cells, nesting, huge numbers, surrogates) give every student file or a printable problem?"""
    from grader.course import load_course
    from grader.submissions import notebook
    from grader.submissions.workspace import HANDIN_FILE_BYTES

    exercise = load_course(ROOT).exercise(exercise_id)
    files, problems = notebook.student_files(data, exercise, f"{exercise_id}.ipynb", limit=HANDIN_FILE_BYTES)
    assert sorted([*files, *problems]) == sorted(exercise.student_files)
    assert all(p.isprintable() for p in problems.values()), problems
    if "answers.toml" in files:
        tomllib.loads(files["answers.toml"].decode("utf-8"))  # what the answer sheet reader gets is TOML


NAMES = st.binary(min_size=1, max_size=255).filter(lambda b: b"/" not in b and b"\0" not in b and not b.startswith(b"."))


@HANDIN
@given(st.lists(NAMES, min_size=1, max_size=4, unique=True))
def test_any_entry_names_give_safe_distinct_ids(tmp_path_factory, names: list[bytes]) -> None:
    """Do entries named by any bytes get printable ids of at most MAX_ID_BYTES that name files and journal rows, distinct unless one student?"""
    from grader.batch.roster import MAX_ID_BYTES, discover
    from grader.export.files import write_atomic
    from grader.store.journal import Journal

    root = tmp_path_factory.mktemp("class")
    for name in names:
        os.mkdir(os.fsencode(root) + b"/" + name)
    students = discover(root)
    assert sum(1 + len(s.others) for s in students) == len(names)
    (root.parent / f"{root.name}-out").mkdir()
    journal = Journal(root.parent / f"{root.name}-out")
    try:
        for s in students:
            assert s.id.isprintable() and len(s.id.encode("utf-8")) <= MAX_ID_BYTES, ascii(s.id)
            assert bool(s.others) == bool(s.refused)
            write_atomic(root.parent / f"{root.name}-out" / "reports" / f"{s.id}.json", "{}")
            assert journal.key_of(s.id) is None  # SQLite takes the id as text
    finally:
        journal.close()


CLASS = settings(FUZZ, max_examples=3)


@CLASS
@given(
    st.lists(st.one_of(ZIPS.map(lambda d: ("zip", d)), NOTEBOOKS.map(lambda d: ("ipynb", d))), min_size=1, max_size=6),
    st.lists(NAMES, min_size=6, max_size=6, unique=True),
)
def test_a_class_with_any_entries_grades_the_good_student_and_exits_0(tmp_path_factory, entries, names) -> None:
    """Does `grade batch` over a good student and random zips and notebooks (random names) exit 0 with the good student's marks?"""
    import csv

    root = tmp_path_factory.mktemp("class")
    ada = root / "ada" / "ex01_cell_state"
    ada.mkdir(parents=True)
    (ada / "answers.toml").write_text((ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text())
    for (kind, data), name in zip(entries, names):
        base = os.fsencode(root) + b"/" + name
        if kind == "zip":
            Path(os.fsdecode(base + b".zip")).write_bytes(data)
        else:
            os.mkdir(base)
            Path(os.fsdecode(base + b"/ex01.ipynb")).write_bytes(data)
    out = root.parent / f"{root.name}-out"
    done = cli(ROOT, "batch", str(root), "--out", str(out), "--exercises", "ex01", "--workers", "1")
    assert done.returncode == 0, done.stderr
    grades = {r["student"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert grades["ada"]["total"] == "6" and len(grades) >= 2
