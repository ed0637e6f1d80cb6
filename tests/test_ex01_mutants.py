"""The ex01 mutant bank: each known mistake on the answer sheet loses points and is named."""

import subprocess
import sys

import pytest

from conftest import ROOT, mutate, assert_named

REFERENCE = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = {
    "h without tanh": ("h_t = 0.4525741268224332", "h_t = 0.75", "forgot the tanh"),
    "tanh outside": ("h_t = 0.4525741268224332", 'h_t = "tanh(0.5*1.5)"', "tanh outside"),
    "old cell state": ("h_t = 0.4525741268224332", 'h_t = "0.5 tanh(2)"', "old cell state"),
    "coupled gate value": ("c_t = 1.5", "c_t = 1.52", "coupled gate"),
    "forget-gate term dropped": ("c_t = 1.5", 'c_t = "0.25*(-0.4)"', "the forget-gate term is missing"),
    "coupled gate, forget-gate term dropped": ("c_t = 1.5", "c_t = -0.08", "two mistakes"),
    "old state not scaled by f": ("c_t = 1.5", 'c_t = "2 + 0.25*(-0.4)"', "the forget gate is missing"),
    "terms multiplied": ("c_t = 1.5", "c_t = -0.16", "multiplied the two terms"),
    "coupled gate formula": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f c_prev + (1 - f) g"', "coupled gate"),
    "formula without the forget-gate term": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "i g"',
                                             "the forget-gate term is missing"),
    "formula with an unscaled old state": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "c_prev + i g"',
                                           "the forget gate is missing"),
    "formula with the terms multiplied": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f c_prev i g"',
                                          "multiplied the two terms"),
    "formula without tanh": ('h_t_formula = "o*tanh(c_t)"', 'h_t_formula = "o c_t"', "forgot the tanh"),
    "formula tanh outside": ('h_t_formula = "o*tanh(c_t)"', 'h_t_formula = "\\\\tanh(o \\\\cdot c_t)"', "tanh outside"),
    "too coarse": ("h_t = 0.4525741268224332", "h_t = 0.45", "significant digits"),
    "number for a formula": ('h_t_formula = "o*tanh(c_t)"', "h_t_formula = 0.45257", "formula"),
    "unknown symbol": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f*c_old + i*g"', "c_old"),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_mistake_is_caught_and_named(grade, name):
    """Does this known mistake lose points, with its diagnosis in the feedback?"""
    old, new, diagnosis = MUTANTS[name]
    result = grade("ex01", {"answers.toml": mutate(REFERENCE, old, new)})
    assert_named(result, diagnosis)


def test_equivalent_forms_earn_full_marks(grade):
    """Are other correct forms (implicit products, Unicode, LaTeX, exact expressions) accepted?"""
    sheet = (
        'c_t = "0.8*2 + 0.25*(-0.4)"\n'
        'h_t = "0.5 tanh(3/2)"\n'
        'c_t_formula = "i g + f·c_prev"\n'
        'h_t_formula = "\\\\tanh(c_t) \\\\cdot o"\n'
    )
    result = grade("ex01", {"answers.toml": sheet})
    assert result.score == result.max_score == 6, [v.feedback for v in result.checks if not v.passed]


def test_malformed_sheet_costs_points_and_names_the_line(grade):
    """Does a TOML syntax error give 0 with a message naming the line, not a crash?"""
    result = grade("ex01", {"answers.toml": REFERENCE.replace("c_t = 1.5", "c_t = = 1.5")})
    assert result.score == 0
    assert all("line" in v.feedback for v in result.checks if v.points)


def test_quiz_grading_does_not_import_torch():
    """Does grading ex01 from the command line leave torch unimported (quiz grading stays light)?"""
    code = (
        "import sys; from click.testing import CliRunner; from grader.cli import main; "
        f"r = CliRunner().invoke(main, ['run', 'ex01', '-s', {str(ROOT / 'solutions')!r}, '--json']); "
        "assert r.exit_code == 0, r.output; assert '\"score\": 6.0' in r.output, r.output; "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_mistyped_key_is_named_by_the_public_check(grade):
    """Does a mistyped key fail the public key check, naming both the lost and the unknown key?"""
    result = grade("ex01", {"answers.toml": REFERENCE.replace("c_t = 1.5", "c_tt = 1.5")})
    public = [v for v in result.checks if v.visible and not v.passed]
    assert any("missing key(s) c_t," in v.feedback and "unknown key(s) c_tt" in v.feedback for v in public), public
    assert result.score == result.max_score - 1  # only c_t itself is lost
