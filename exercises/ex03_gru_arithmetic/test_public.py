"""Public checks for ex03 (worth no points): answers.toml holds the course's keys, each answered in the form its
question asks. Run: grade run ex03

The form only (a number, a formula in the question's symbols, an option, the digits asked): whether an answer is
right is decided by the hidden checks. The keys and forms below are the course's, not your sheet's.
"""

from grader.checks import Number, check_sheet_form

FORMS = {
    "h_t": Number(),
    "direct_factor": Number(),
    "h_t_other_convention": Number(),
}


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)
