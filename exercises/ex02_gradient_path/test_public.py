"""Public checks for ex02 (worth no points): answers.toml holds the course's keys, each answered in the form its
question asks. Run: grade run ex02

The form only (a number, a formula in the question's symbols, an option, the digits asked): whether an answer is
right is decided by the hidden checks. The keys and forms below are the course's, not your sheet's.
"""

from grader.checks import Boolean, Formula, Number, check_sheet_form

FORMS = {
    "three_step_factor": Number(),
    "const_gate_factor": Formula({"f": "gate", "k": "positive_integer"}),
    "w_up_power": Number(digits=4),
    "w_down_power": Number(digits=4),
    "sigma1_power": Number(),  # within 2 %: the textbook's rounded values are accepted
    "f_near_power": Number(digits=4),
    "ratio_bias1_bias0": Number(),  # within 2 %
    "preact_formula": Formula({"k": "positive_integer", "epsilon": "gate"}),
    "preact_value": Number(digits=4),
    "bias_sim": Number(digits=4),
    "only_decays": Boolean(),
    "guarantees_no_vanishing": Boolean(),
}


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)
