"""The ex02 mutant bank: each known mistake on the answer sheet loses points and is named."""


import pytest

from conftest import ROOT, assert_named, with_answers

REFERENCE = (ROOT / "solutions" / "ex02_gradient_path" / "answers.toml").read_text()


# name: (key, the wrong answer as TOML, words the feedback must contain)
MUTANTS = {
    "summed gates": ("three_step_factor", "2.2", "added the gates"),
    "summed gates as arithmetic": ("three_step_factor", '"0.9 + 0.8 + 0.5"', "added the gates"),
    "forgotten share 1 - f": ("three_step_factor", '"0.1*0.2*0.5"', "share forgotten"),
    "f times k": ("const_gate_factor", '"f k"', "multiplied f by k"),
    "1 - f to the k": ("const_gate_factor", '"(1 - f)^k"', "share forgotten"),
    "off-by-one power": ("const_gate_factor", '"f^(k-1)"', "off by one"),
    "exponential approximation": ("const_gate_factor", '"exp(-k(1-f))"', "approximation"),
    "number where a formula is asked": ("const_gate_factor", "0.36", "formula"),
    "1.05 times 30": ("w105_k30", "31.5", "multiplied f by k"),
    "0.95 from the k = 30 column": ("w095_k100", "0.2146", "other number of steps"),
    "sigma(0) instead of sigma(1)": ("sigma1_k30", '"0.5^30"', "σ(0) = 0.5"),
    "sigma(1) rounded to 0.73": ("sigma1_k30", '"0.73^30"', "rounded"),
    "bias as the gate value": ("sigma1_k30", "1", "took the bias 1 as the gate value"),
    "sigma(1)^30 clearly off": ("sigma1_k30", "1.2e-4", "is not correct"),
    "0.99 times 100": ("f099_k100", "99", "multiplied f by k"),
    "too few digits": ("f099_k100", "0.37", "significant digits"),
    "inverted ratio": ("ratio_bias1_bias0_k30", "1.1234e-5", "inverted the ratio"),
    "one-step ratio": ("ratio_bias1_bias0_k30", '"sigma(1)/0.5"', "ratio after one step"),
    "ratio with 0.73": ("ratio_bias1_bias0_k30", '"(0.73/0.5)^30"', "rounded"),
    "ln(epsilon/k) sign error": ("preact_formula", '"ln(epsilon/k)"', "sign error"),
    "log10 instead of ln": ("preact_formula", '"ln(k/ε)/ln(10)"', "log10"),
    "forgot the logarithm": ("preact_formula", '"k/eps"', "forgot the logarithm"),
    "gate value instead of pre-activation": ("preact_formula", '"1 - epsilon/k"', "gate value f"),
    "epsilon in the numerator": ("preact_formula", '"\\\\ln(k \\\\cdot \\\\epsilon)"', "denominator"),
    "unknown symbol": ("preact_formula", '"ln(T/epsilon)"', "'T'"),
    "negative pre-activation": ("preact_k100_eps01", "-6.9078", "sign error"),
    "log10 value": ("preact_k100_eps01", '"log(1000)/log(10)"', "log10"),
    "k missing from the value": ("preact_k100_eps01", '"ln(1/0.1)"', "or k is missing"),
    "exact logit": ("preact_k100_eps01", '"ln(0.9^0.01/(1 - 0.9^0.01))"', "exact logit"),
    "bias 1 instead of 2": ("bias2_k10", "0.0436", "another forget bias"),
    "bias 0 instead of 2": ("bias2_k10", "9.77e-4", "another forget bias"),
    "simulation off by one": ("bias2_k10", '"sigma(2)^11"', "off by one"),
    "direct path can amplify": ("only_decays", "false", "cannot exceed 1"),
    "gating guarantees no vanishing": ("guarantees_no_vanishing", "true", "only mitigates"),
    "statement as a word": ("guarantees_no_vanishing", '"no"', "not true or false"),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_mistake_is_caught_and_named(grade, name):
    """Does this known mistake lose points, with its diagnosis in the feedback?"""
    key, wrong, diagnosis = MUTANTS[name]
    result = grade("ex02", {"answers.toml": with_answers(REFERENCE, **{key: wrong})})
    assert_named(result, diagnosis)


def test_partial_credit_in_the_table(grade):
    """Does one wrong entry of the scalar table cost only its share (0.5 of 2 points)?"""
    result = grade("ex02", {"answers.toml": with_answers(REFERENCE, w105_k30="31.5")})
    assert result.score == result.max_score - 0.5


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex02", {"answers.toml": REFERENCE})
    assert result.max_score == 10
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_other_correct_forms_earn_full_marks(grade):
    """Are exact expressions, rounded table values within tolerance and other notations accepted?"""
    sheet = (
        'three_step_factor = "0.9*0.8*0.5"\n'
        'const_gate_factor = "f**k"\n'
        'w105_k30 = "1.05^30"\n'
        'w095_k100 = 5.9205e-3\n'
        'sigma1_k30 = "sigma(1)^30"\n'
        'f099_k100 = 0.36603\n'
        'ratio_bias1_bias0_k30 = 9e4\n'           # the textbook's "about 9×10^4", within 2 %
        'preact_formula = "\\\\ln\\\\frac{k}{\\\\epsilon}"\n'
        'preact_k100_eps01 = "ln(100/0.1)"\n'
        'bias2_k10 = 0.2810\n'                    # lecture 16's printout
        'only_decays = "True"\n'
        'guarantees_no_vanishing = false\n'
    )
    result = grade("ex02", {"answers.toml": sheet})
    assert result.score == result.max_score == 10, [v.feedback for v in result.checks if not v.passed]
    assert all(v.passed for v in result.checks), "a public format check refuses a correct form"


@pytest.mark.parametrize("answer", ['"0.7311^30"', '"0.731^30"', "8.29e-5"])
def test_sigma1_rounded_to_three_digits_is_accepted(grade, answer):
    """Is σ(1)^30 with σ(1) rounded as the textbook prints it accepted, as the statement's 2 % promises?"""
    result = grade("ex02", {"answers.toml": with_answers(REFERENCE, sigma1_k30=answer)})
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_malformed_sheet_scores_zero_and_names_the_line(grade):
    """Does a TOML syntax error give 0 with a message naming the line, not a crash?"""
    broken = REFERENCE.replace("bias2_k10 = 0.28", "bias2_k10 = = 0.28")
    line = 1 + next(n for n, s in enumerate(REFERENCE.splitlines()) if s.startswith("bias2_k10"))
    result = grade("ex02", {"answers.toml": broken})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)
