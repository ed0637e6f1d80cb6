"""Tests of grader/grading/answers/: reading answer sheets safely and judging each kind of answer."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from conftest import ROOT
from grader.checks import Fail
from grader.grading.answers import AnswerSheet, Boolean, Choice, Formula, Integer, Number, Shape, SheetError, load_sheet

EX01_H = {"o": "gate", "c_t": "real"}
EX04 = {"d_x": "positive_integer", "d_h": "positive_integer"}
H_T = 0.5 * 0.9051482536448664  # 0.5*tanh(1.5)
H_T_MISTAKES = {0.75: "forgot the tanh", 0.63515: "tanh outside the product", 0.48201: "used the old cell state"}


def write_sheet(root: Path, text: str, name: str = "answers.toml") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def sheet(**answers: object) -> AnswerSheet:
    return AnswerSheet(Path("ex01_cell_state/answers.toml"), answers, rtol=1e-3, label="ex01_cell_state/answers.toml")


def failure(check, *args: object, **kwargs: object) -> Fail:
    with pytest.raises(Fail) as caught:
        check(*args, **kwargs)
    return caught.value


# --- reading -------------------------------------------------------------------------------------


def test_sheet_is_read_with_keys_and_tolerance(tmp_path: Path) -> None:
    """Does a valid sheet load, with raw values, the given rtol and a label relative to the root?"""
    write_sheet(tmp_path, 'c_t = 1.5\nh_t = "0.5*tanh(3/2)"\nblank = ""\n', "ex01/answers.toml")
    answers = load_sheet(Path("ex01/answers.toml"), root=tmp_path, rtol=2e-3)
    assert answers.raw("c_t") == 1.5 and answers.raw("blank") is None and answers.raw("missing") is None
    assert answers.rtol == 2e-3 and answers.path.name == "answers.toml"
    answers.number("h_t", H_T)


def test_toml_error_names_file_and_line(tmp_path: Path) -> None:
    """Is a TOML syntax error a SheetError naming the file and the line?"""
    path = write_sheet(tmp_path, "c_t = 1.5\n\nh_t = 0.5 *\n")
    with pytest.raises(SheetError, match=r"answers\.toml is not valid TOML: .*line 3"):
        load_sheet(path, root=tmp_path)


def test_symlink_is_refused(tmp_path: Path) -> None:
    """Is an answer sheet that is a symlink (even to a file inside) refused?"""
    target = write_sheet(tmp_path, "c_t = 1.5\n", "real.toml")
    (tmp_path / "answers.toml").symlink_to(target)
    with pytest.raises(SheetError, match="symbolic link"):
        load_sheet(Path("answers.toml"), root=tmp_path)


def test_path_outside_root_is_refused(tmp_path: Path) -> None:
    """Is a path that resolves outside the submission refused, also through a symlinked folder?"""
    root = tmp_path / "submission"
    root.mkdir()
    write_sheet(tmp_path, "c_t = 1.5\n", "secret.toml")
    with pytest.raises(SheetError, match="outside the submission"):
        load_sheet(Path("../secret.toml"), root=root)
    (root / "linked").symlink_to(tmp_path)
    with pytest.raises(SheetError, match="outside the submission"):
        load_sheet(Path("linked/secret.toml"), root=root)


def test_oversized_sheet_is_refused(tmp_path: Path) -> None:
    """Is a sheet over 64 KiB refused before parsing?"""
    write_sheet(tmp_path, "x = 1\n" + "# padding\n" * 8000)
    with pytest.raises(SheetError, match="larger than 64 KiB"):
        load_sheet(Path("answers.toml"), root=tmp_path)


def test_non_regular_files_and_missing_files_are_refused(tmp_path: Path) -> None:
    """Are a directory, a FIFO and a missing file each refused with a SheetError?"""
    (tmp_path / "dir.toml").mkdir()
    os.mkfifo(tmp_path / "fifo.toml")
    for name in ("dir.toml", "fifo.toml"):
        with pytest.raises(SheetError, match="not a regular file"):
            load_sheet(Path(name), root=tmp_path)
    with pytest.raises(SheetError, match="not found"):
        load_sheet(Path("answers.toml"), root=tmp_path)


def test_encoding_is_checked_and_bom_tolerated(tmp_path: Path) -> None:
    """Is non-UTF-8 text refused, and a UTF-8 byte-order mark accepted?"""
    (tmp_path / "latin.toml").write_bytes('c_t = "é"\n'.encode("latin-1"))
    with pytest.raises(SheetError, match="not UTF-8"):
        load_sheet(Path("latin.toml"), root=tmp_path)
    (tmp_path / "bom.toml").write_bytes("\ufeffc_t = 1.5\n".encode("utf-8"))
    assert load_sheet(Path("bom.toml"), root=tmp_path).raw("c_t") == 1.5


def test_unknown_keys_are_reported_not_fatal() -> None:
    """Are keys no question asks for returned (sorted) while the rest still grades?"""
    answers = sheet(c_t=1.5, ct=1.5, h_T=0.45)
    assert answers.unknown_keys(["c_t", "h_t"]) == ["ct", "h_T"]
    answers.number("c_t", 1.5)


# --- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.45257, "0.45257", "0.5*tanh(3/2)", "0.5 tanh(1.5)", "tanh(1.5)/2", 0.4526])
def test_number_accepts_values_and_constant_expressions(value: object) -> None:
    """Is a right number accepted as a TOML float, a string, or an expression (rtol 1e-3)?"""
    sheet(h_t=value).number("h_t", H_T)


@pytest.mark.parametrize(("value", "expected"), [("3/4", 0.75), ("ln(9)", 2.1972245773362196), (2, 2.0), ("σ(1)", 0.7310585786300049), ("1e-3", 0.001)])
def test_number_accepts_other_written_forms(value: object, expected: float) -> None:
    """Are fractions, logs, integers, σ and scientific notation accepted as numbers?"""
    sheet(x=value).number("x", expected)


def test_number_coarse_answer_asks_for_more_digits() -> None:
    """Does a right-but-rounded answer get 'give more significant digits' without the reference?"""
    for value in (0.45, "0.45", 0.452):
        fail = failure(sheet(h_t=value).number, "h_t", H_T)
        assert "give at least 4 significant digits" in fail.en and "有效数字" in fail.zh
        assert "0.4525" not in fail.en


@pytest.mark.parametrize("value", [0.4535, "0.4535", "0.5*tanh(1.5 + 0.02)", "0.5*tanh(1.5)*1.003"])
def test_number_near_miss_with_digits_enough_is_wrong(value: object) -> None:
    """Is a wrong value within 1 % that already has 4 significant digits, or is an exact expression, told it is not
    correct – not to give more digits, which it has?"""
    fail = failure(sheet(h_t=value).number, "h_t", H_T)
    assert "is not correct" in fail.en and "不正确" in fail.zh
    assert "significant digits" not in fail.en and "有效数字" not in fail.zh


def test_number_names_both_mistakes_that_give_its_value() -> None:
    """Where two named mistakes give the same value at a student's numbers (tanh outside and the old cell state, 0.04 %
    apart), is a value within tolerance of both named as either – not as whichever the check lists first?"""
    mistakes = {0.48201: "tanh outside the product", 0.48221: "used the old cell state", 0.75: "forgot the tanh"}
    fail = failure(sheet(h_t=0.4821).number, "h_t", H_T, mistakes=mistakes)
    assert "tanh outside the product; or used the old cell state" in fail.en and "；或used the old cell state" in fail.zh
    assert [d.en for d in fail.diagnosis] == ["tanh outside the product", "used the old cell state"]


@pytest.mark.parametrize(("value", "diagnosis"), [(0.75, "forgot the tanh"), ("0.635", "tanh outside"), ("0.5*tanh(2)", "old cell state")])
def test_number_names_known_mistake_without_reference(value: object, diagnosis: str) -> None:
    """Is a known wrong value diagnosed by name, without printing the reference answer?"""
    fail = failure(sheet(h_t=value).number, "h_t", H_T, mistakes=H_T_MISTAKES)
    assert diagnosis in fail.en and "h_t" in fail.en and "answers.toml" in fail.en
    assert "0.452" not in fail.en


def test_number_wrong_value_is_plainly_wrong() -> None:
    """Is a far-off value 'not correct' (no digits hint, no reference)?"""
    fail = failure(sheet(h_t=0.3).number, "h_t", H_T)
    assert "is not correct" in fail.en and "significant" not in fail.en and "0.452" not in fail.en


def test_number_per_question_tolerance() -> None:
    """Does a per-question rtol override the sheet default (σ(1)^30/0.5^30 accepted at ±2%)?"""
    answers = sheet(ratio=88000)
    answers.number("ratio", 8.9015e4, rtol=0.02)
    with pytest.raises(Fail):
        answers.number("ratio", 8.9015e4)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("", "unanswered"),
        ("   ", "unanswered"),
        (None, "unanswered"),
        (True, "expects a number; got a boolean"),
        ([1.5], "expects a number; got an array"),
        ({"v": 1.5}, "expects a number; got a table"),
        ("o*tanh(c_t)", "asks for a number, but your answer uses the name 'o' (column 1)"),
        ("tanhh(1.5)", "uses the name 'tanhh' (column 1), which is no function or constant"),
        ("1.5,2", "thousands separators"),
        ("1/0", "no finite value"),
        (float("nan"), "not a finite number"),
        ("__import__('os')", "could not read your answer"),
    ],
)
def test_number_malformed_answers_get_their_own_message(value: object, fragment: str) -> None:
    """Does each kind of malformed or missing number get its own message, 0 points, and no crash?"""
    answers = sheet() if value is None else sheet(c_t=value)
    fail = failure(answers.number, "c_t", 1.5)
    assert fragment in fail.en and fail.share == 0.0 and fail.zh != fail.en


# --- integers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [82432, 82432.0, "82432", "4*128*(32+128+1)"])
def test_integer_accepts_exact_forms(value: object) -> None:
    """Is an exact count accepted as int, integral float, string or arithmetic?"""
    sheet(q=value).integer("q", 82432)


def test_integer_is_exact_and_names_mistakes() -> None:
    """Is an off-by-one count wrong, a known mistake named, and a fraction refused as non-integer?"""
    mistakes = {4 * 128 * 160: "no bias"}
    assert "not correct" in failure(sheet(q=82433).integer, "q", 82432).en
    assert "no bias" in failure(sheet(q="4*128*(32+128)").integer, "q", 82432, mistakes=mistakes).en
    assert "not a whole number" in failure(sheet(q="3/4").integer, "q", 1).en


# --- formulas ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["o*tanh(c_t)", "o tanh(c_t)", "tanh(c_t)·o", "o\\tanh(c_t)"])
def test_formula_accepts_equivalent_forms(value: str) -> None:
    """Are equivalent notations of h_t = o*tanh(c_t) accepted?"""
    sheet(h=value).formula("h", "o*tanh(c_t)", EX01_H)


def test_formula_names_mistake_without_reference() -> None:
    """Is o*c_t diagnosed as 'forgot the tanh' without printing the expected formula?"""
    fail = failure(sheet(h="c_t o").formula, "h", "o*tanh(c_t)", EX01_H, mistakes={"o*c_t": ("forgot the tanh", "漏了 tanh"), "tanh(o*c_t)": "tanh outside"})
    assert "forgot the tanh" in fail.en and "漏了 tanh" in fail.zh and "tanh(c_t)" not in fail.en


def test_formula_wrong_is_not_equivalent() -> None:
    """Is a wrong formula with no matching mistake 'not equivalent', without the reference?"""
    fail = failure(sheet(n="4*d_h*(d_x+d_h)").formula, "n", "4*d_h*(d_x+d_h+1)", EX04)
    assert "not equivalent" in fail.en and "d_h+1" not in fail.en


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("", "unanswered"),
        (160, "asks for a formula in d_x, d_h, but your answer is a number"),
        ("160", "asks for a formula in d_x, d_h, but your answer is a number"),
        ("4*d_k*(d_x+d_h+1)", "unknown symbol 'd_k' at column 3; this question's symbols are d_x, d_h"),
        ("4*d_h*(d_x+d_h+1", "never closed"),
        (["d_h"], "expects a formula written as a string"),
        ("ｄ_h", "U+FF44"),
    ],
)
def test_formula_malformed_answers_get_their_own_message(value: object, fragment: str) -> None:
    """Does each kind of malformed formula answer get its own clear message?"""
    fail = failure(sheet(n=value).formula, "n", "4*d_h*(d_x+d_h+1)", EX04)
    assert fragment in fail.en


def test_formula_timeout_is_could_not_be_verified(tmp_path: Path) -> None:
    """Is a formula the checker cannot settle in time a Fail 'could not be verified', not a hang or crash?"""
    write_sheet(tmp_path, 'n = "(a+b+c+d+g)^40 - ((a+b)^2 + 2*(a+b)*(c+d+g) + (c+d+g)^2)^20 + a"\n')
    answers = load_sheet(Path("answers.toml"), root=tmp_path, fallback_seconds=0.3)
    symbols = {name: "positive" for name in ("a", "b", "c", "d", "g")}
    assert "could not be verified" in failure(answers.formula, "n", "a", symbols).en


# --- choices, booleans, shapes -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0.9", " 0.9 ", 0.9, "0.90"])
def test_choice_accepts_number_forms_of_the_option(value: object) -> None:
    """Is the option "0.9" picked by the string, a TOML float, or "0.90"?"""
    sheet(s=value).choice("s", "0.9", ["0.1", "0.5", "0.9"])


def test_choice_is_case_insensitive_and_lists_options() -> None:
    """Is 'b' the option 'B', and an answer outside the options told what the options are?"""
    sheet(q=" b ").choice("q", "B", ["A", "B", "C"])
    fail = failure(sheet(q="E").choice, "q", "B", ["A", "B", "C"])
    assert "'E' is not one of the options: A, B, C" in fail.en


def test_choice_names_mistake() -> None:
    """Is a known wrong option diagnosed by name?"""
    fail = failure(sheet(s="0.1").choice, "s", "0.9", ["0.1", "0.5", "0.9"], mistakes={"0.1": "smaller retention decays faster"})
    assert "smaller retention decays faster" in fail.en


@pytest.mark.parametrize(("value", "ok"), [(True, True), ("TRUE", True), (" true ", True), (False, False), ("false", False)])
def test_boolean_accepts_toml_and_strings(value: object, ok: bool) -> None:
    """Are TOML booleans and "true"/"false" in any case judged against the expected truth value?"""
    answers = sheet(b=value)
    if ok:
        answers.boolean("b", True)
    else:
        assert "is not correct" in failure(answers.boolean, "b", True).en


@pytest.mark.parametrize("value", ["yes", 1, [True]])
def test_boolean_refuses_non_booleans(value: object) -> None:
    """Is anything but true/false told to write true or false?"""
    assert "is not true or false" in failure(sheet(b=value).boolean, "b", False).en


@pytest.mark.parametrize("value", [[2, 4, 10], "(2, 4, 10)", "[2,4,10]"])
def test_shape_accepts_arrays(value: object) -> None:
    """Is [2, 4, 10] accepted as a TOML array or a bracketed string?"""
    sheet(s=value).shape("s", [2, 4, 10])


@pytest.mark.parametrize(
    ("value", "fragment"),
    [([4, 2, 5, 1], "shape [4, 2, 5, 1] is not correct"), (["a"], "is not a shape"), ([True, 2], "is not a shape"), ("2x4x10", "is not a shape")],
)
def test_shape_wrong_or_malformed(value: object, fragment: str) -> None:
    """Is a wrong shape 'not correct' and a non-shape told how to write one?"""
    assert fragment in failure(sheet(s=value).shape, "s", [4, 2, 5]).en


# --- hostile and odd values: each fails its own key, never the grader -----------------------------

EX01_C = {"f": "gate", "c_prev": "real", "i": "gate", "g": "real"}
PREFIX = "ex01_cell_state/answers.toml, k: "

# one call of each check method on the key "k"
CHECKS = {
    "number": lambda answers: answers.number("k", 1.5),
    "integer": lambda answers: answers.integer("k", 82432),
    "formula": lambda answers: answers.formula("k", "f*c_prev + i*g", EX01_C, mistakes={"i*g": "no forget term"}),
    "choice": lambda answers: answers.choice("k", "B", ["A", "B", "0.9"]),
    "boolean": lambda answers: answers.boolean("k", True),
    "shape": lambda answers: answers.shape("k", [2, 3]),
}


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_VALUES = {
    "401-digit integer": 10**400,
    "negative 401-digit integer": -(10**400),
    "5001-digit integer": 10**5000 + 1,
    "240000-bit integer (a TOML hex literal)": 16**60_000 - 1,
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "5000 nested arrays": nested(5000),
    "long array": [1] * 50_000,
    "array of huge integers": [10**5000, 2],
    "long string": "1" * 60_000,
    "long digit shape": "(" + "9" * 499,
    "deep parentheses": "(" * 200 + "c_prev" + ")" * 200,
    "many parentheses": "(" * 10_000 + "1" + ")" * 10_000,
    "power tower": "10^10^10",
    "python power tower": "9**9**9",
    "huge power of a symbol": "c_prev^(10^10)",
    "huge literal": "9" * 30 + "e300",
    "bidi override": "f\u202e*c_prev",
    "line separator": "Q\u2028",
    "paragraph separator": "maybe\u2029",
    "lone surrogate": "\ud800",
    "escape sequence": "\x1b[2J",
    "table": {"a": 1},
    "date": datetime.date(1979, 5, 27),
    "datetime": datetime.datetime(1979, 5, 27, 7, 32, tzinfo=datetime.UTC),
    "time": datetime.time(7, 32),
    "boolean": False,
    "empty array": [],
    "negative dimensions": [-1, 3],
    "float dimensions": [2.0, 3.0],
}


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("name", HOSTILE_VALUES)
def test_hostile_value_fails_its_key_with_printable_feedback(name: str, check: str) -> None:
    """Does each huge, deep, non-finite, wrongly typed or odd-Unicode answer fail its own key with a printable message?"""
    fail = failure(CHECKS[check], sheet(k=HOSTILE_VALUES[name]))
    assert fail.en.startswith(PREFIX) and fail.zh.startswith("ex01_cell_state/answers.toml，k：")
    for message in (fail.en, fail.zh):
        assert message.isprintable() and len(message) < 1000, message


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        pytest.param(10**400, "an integer of about 401 digits is beyond the range of numbers the grader reads", id="401 digits"),
        ("1" * 600, "the answer is 600 characters long; the limit is 500"),
        ("10^10^10", "the exponent is too large"),
        ("(" * 60 + "1" + ")" * 60, "nested more than 50 levels"),
        (float("inf"), "inf is not a finite number"),
    ],
)
def test_hostile_number_says_what_is_wrong(value: object, fragment: str) -> None:
    """Does a number too large, too long, too deep or infinite say which limit it broke?"""
    assert fragment in failure(sheet(k=value).number, "k", 1.5).en


def test_huge_integer_is_compared_exactly() -> None:
    """Is an integer answer compared exactly, however large (no float rounding, no overflow)?"""
    sheet(k=2**80 + 1).integer("k", 2**80 + 1)
    assert "is not correct" in failure(sheet(k=2**80).integer, "k", 2**80 + 1).en
    assert "an integer of about 1506 digits is not correct" in failure(sheet(k=10**1505).integer, "k", 3).en


@pytest.mark.parametrize(
    ("check", "value"), [("choice", "A\u202eB"), ("boolean", "yes\u2028no"), ("shape", "\ud800"), ("number", "x\u202e"), ("formula", "\u202ef")]
)
def test_student_text_is_quoted_safely(check: str, value: str) -> None:
    """Is a student's text echoed with bidi overrides, separators and lone surrogates replaced by U+FFFD?"""
    fail = failure(CHECKS[check], sheet(k=value))
    assert not any(c in fail.en + fail.zh for c in "\u202e\u2028\u2029\ud800")
    if check in ("choice", "boolean", "shape"):
        assert "\ufffd" in fail.en


def test_sheet_values_tomllib_cannot_build_fail_only_their_key(tmp_path: Path) -> None:
    """Do a 5001-digit integer and 5000 nested arrays fail their own keys while the other answers still grade?"""
    write_sheet(
        tmp_path,
        f"c_t = 1.5\nh_t = {'9' * 5001}\nc_t_formula = {'[' * 5000}{']' * 5000}\nh_t_formula = {'{a = ' * 20}1{'}' * 20}\n[extra]\nx = {'[' * 30}{']' * 30}\n",
    )
    answers = load_sheet(Path("answers.toml"), root=tmp_path)
    answers.number("c_t", 1.5)
    assert "more than 4300 digits" in failure(answers.number, "h_t", 0.45).en
    assert "nested more than 8 levels deep" in failure(answers.formula, "c_t_formula", "f", {"f": "gate"}).en
    assert "h_t_formula: the value is nested" in failure(answers.formula, "h_t_formula", "o", {"o": "gate"}).en
    assert answers.unknown_keys(["c_t", "h_t", "c_t_formula", "h_t_formula"]) == ["extra", "extra.x"]


def test_brackets_and_digits_in_strings_and_comments_are_text(tmp_path: Path) -> None:
    """Are brackets and long digit runs inside strings and comments not mistaken for nesting or numbers?"""
    write_sheet(
        tmp_path, f'k = "[[[[[[[[[[[[" # [[[[[[[[[[[[\nm = \'\'\'\n[[[[[[[[[[[[\n{"9" * 5000}\'\'\'\ns = [[1], [2]] # ]]]]\nt = """a\\"""[[[[[[[[[[[[""" \n'
    )
    answers = load_sheet(Path("answers.toml"), root=tmp_path)
    assert answers.raw("k") == "[[[[[[[[[[[[" and answers.raw("s") == [[1], [2]]
    assert answers.raw("t") == 'a"""[[[[[[[[[[[[' and answers.raw("m").endswith("9")
    assert "5,013 characters long" in failure(answers.choice, "m", "A", ["A"]).en


def test_long_dotted_key_refuses_the_sheet(tmp_path: Path) -> None:
    """Is a key of 30,000 dotted parts (quadratic in tomllib) refused by its length, naming the line?"""
    write_sheet(tmp_path, "c_t = 1.5\n" + "a" + ".a" * 30_000 + " = 1\n")
    with pytest.raises(SheetError, match="line 2: a key or table name is longer than 200 characters"):
        load_sheet(Path("answers.toml"), root=tmp_path)


def test_unknown_keys_are_listed_safely_and_bounded() -> None:
    """Are unknown keys echoed without unsafe characters, at most ten of them named?"""
    answers = sheet(c_t=1.5, **{f"k\u202e{n}": 1 for n in range(30)})
    fail = failure(answers.expect_keys, ["c_t"])
    assert "\u202e" not in fail.en and "and 20 more" in fail.en and fail.en.isprintable()


@pytest.mark.slow
def test_ex01_formulas_wrong_for_negative_values_lose_their_points(grade) -> None:
    """Do ex01's formula checks refuse formulas wrong for negative values that hide it behind 0*sqrt(...)?"""
    sheet_text = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text(encoding="utf-8")
    sheet_text = sheet_text.replace('"f*c_prev + i*g"', '"f*abs(c_prev) + i*g + 0*sqrt(c_prev)"')
    sheet_text = sheet_text.replace('"o*tanh(c_t)"', '"o*tanh(abs(c_t)) + 0*sqrt(c_t)"')
    result = grade("ex01", {"answers.toml": sheet_text})
    failed = {v.name: v.feedback for v in result.checks if not v.passed}
    assert result.score == result.max_score - 3, failed
    assert all("not equivalent" in feedback for feedback in failed.values()), failed


def test_the_symbolic_fallback_has_one_budget_per_sheet(tmp_path, monkeypatch):
    """Do undecidable formulas on one sheet share one sympy budget, rather than each getting its own?"""
    import grader.grading.answers.judging as judging

    now, given = [0.0], []

    def undecided(answer, expected, symbols, *, fallback_seconds):
        given.append(fallback_seconds)
        now[0] += fallback_seconds  # as if sympy ran out the time it was allowed
        return None

    monkeypatch.setattr(judging, "equivalent", undecided)
    monkeypatch.setattr(judging.time, "monotonic", lambda: now[0])
    path = tmp_path / "answers.toml"
    path.write_text("".join(f'f{i} = "x^2"\n' for i in range(4)))
    sheet = load_sheet(path, root=tmp_path, fallback_seconds=2.0)
    for i in range(4):
        with pytest.raises(Fail, match="could not be verified"):
            sheet.formula(f"f{i}", "x", {"x": "positive"})
    assert given == [2.0, 0.0, 0.0, 0.0]


# --- forms (the public checks) -------------------------------------------------------------------


def test_a_float_keeps_the_digits_typed(tmp_path: Path) -> None:
    """Does 0.3660 count 4 significant digits though Python writes it 0.366, and 0.73 count 2?"""
    write_sheet(tmp_path, "a = 0.3660\nb = 0.73  # two\nc = 3.660e-01\nd = 1_000.5\n")
    answers = load_sheet(Path("answers.toml"), root=tmp_path)
    for key in "acd":
        answers.form(key, Number(digits=4))
    message = failure(answers.form, "b", Number(digits=4)).en
    assert "'0.73' has 2 significant digits; this question asks for at least 4" in message


@pytest.mark.parametrize(
    ("form", "wrong_but_well_formed"),
    [
        (Number(digits=4), "0.1234"),
        (Integer(), "7"),
        (Formula(EX01_C), '"f*i"'),
        (Choice(), '"d"'),
        (Boolean(), "false"),
        (Shape(), "[9, 9]"),
    ],
)
def test_form_never_judges_the_answer(tmp_path: Path, form, wrong_but_well_formed: str) -> None:
    """Does a wrong answer of the right form pass its form check (a public check gives nothing away)?"""
    write_sheet(tmp_path, f"k = {wrong_but_well_formed}\n")
    load_sheet(Path("answers.toml"), root=tmp_path).form("k", form)


def test_form_fails_as_the_graded_check_does() -> None:
    """Is a malformed answer refused by its form check with the graded check's own message?"""
    for value, form, check in [
        ("o*tanh(c_t", Formula(EX01_H), lambda s: s.formula("k", "o*tanh(c_t)", EX01_H)),
        ("C)", Choice(), lambda s: s.choice("k", "C", ["A", "B", "C", "D"])),
        ("2x3", Shape(), lambda s: s.shape("k", [2, 3])),
        ("", Boolean(), lambda s: s.boolean("k", True)),
    ]:
        assert failure(sheet(k=value).form, "k", form).message == failure(check, sheet(k=value)).message
