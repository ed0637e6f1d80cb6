"""ex02 beyond its known mistakes (tests/mutants/ex02.py): partial credit, the reference, other correct forms,
a malformed sheet."""

import pytest

from conftest import ROOT, with_answers

REFERENCE = (ROOT / "solutions" / "ex02_gradient_path" / "answers.toml").read_text()


def test_partial_credit_in_the_table(grade):
    """Does one wrong entry of the scalar table cost only its share (0.5 of 2 points)?"""
    result = grade("ex02", {"answers.toml": with_answers(REFERENCE, w_up_power="26.75")})
    assert result.score == result.max_score - 0.5


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex02", {"answers.toml": REFERENCE})
    assert result.max_score == 10
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_other_correct_forms_earn_full_marks(grade):
    """Are exact expressions, rounded table values within tolerance and other notations accepted?"""
    sheet = (
        'three_step_factor = "0.85*0.75*0.6"\n'
        'const_gate_factor = "f**k"\n'
        'w_up_power = "1.07^25"\n'
        'w_down_power = 3.0105e-3\n'
        'sigma1_power = "sigma(1)^25"\n'
        'f_near_power = 0.19865\n'
        'ratio_bias1_bias0 = 1.33e4\n'           # rounded, within 2 %
        'preact_formula = "\\\\ln\\\\frac{k}{\\\\epsilon}"\n'
        'preact_value = "ln(8/0.25)"\n'
        'bias_sim = 0.4825\n'
        'only_decays = "True"\n'
        'guarantees_no_vanishing = false\n'
    )
    result = grade("ex02", {"answers.toml": sheet})
    assert result.score == result.max_score == 10, [v.feedback for v in result.checks if not v.passed]
    assert all(v.passed for v in result.checks), "a public format check refuses a correct form"


@pytest.mark.parametrize("answer", ['"0.7311^25"', '"0.731^25"', "3.97e-4"])
def test_sigma1_rounded_to_three_digits_is_accepted(grade, answer):
    """Is σ(1)^30 with σ(1) rounded as the textbook prints it accepted, as the statement's 2 % promises?"""
    result = grade("ex02", {"answers.toml": with_answers(REFERENCE, sigma1_power=answer)})
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_malformed_sheet_scores_zero_and_names_the_line(grade):
    """Does a TOML syntax error give 0 with a message naming the line, not a crash?"""
    broken = REFERENCE.replace("bias_sim = 0.48", "bias_sim = = 0.48")
    line = 1 + next(n for n, s in enumerate(REFERENCE.splitlines()) if s.startswith("bias_sim"))
    result = grade("ex02", {"answers.toml": broken})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)
