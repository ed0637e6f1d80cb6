"""The ex03 mutant bank: each known mistake on the answer sheet loses points and is named."""


import pytest

from conftest import ROOT, assert_named, with_answers

REFERENCE = (ROOT / "solutions" / "ex03_gru_arithmetic" / "answers.toml").read_text()


# name: ({key: the wrong answer as TOML}, words the feedback must contain)
MUTANTS = {
    "textbook convention where the answer key's is asked": ({"h_t": "0.2"}, "swapped GRU convention"),
    "answer-key convention where the textbook's is asked": ({"h_t_other_convention": '"0.75*2 + 0.25*(-0.4)"'},
                                                            "swapped GRU convention"),
    "(1 - z) direct factor": ({"direct_factor": "0.25"}, "(1 − z) factor of the textbook's convention"),
    "ratio instead of derivative": ({"direct_factor": "0.7"}, "ratio of values"),
    "derivative with respect to z": ({"direct_factor": "2.4"}, "∂h_t/∂z"),
    "identity path": ({"direct_factor": "1"}, "not an identity"),
    "candidate sign dropped": ({"h_t": "1.6"}, "sign was dropped"),
    "candidate sign dropped, textbook convention": ({"h_t_other_convention": "0.8"}, "sign was dropped"),
    "candidate term missing": ({"h_t": "1.5"}, "candidate term is missing"),
    "same weight on both terms": ({"h_t_other_convention": "1.2"}, "same weight"),
    "text instead of a number": ({"h_t": '"about one"'}, "asks for a number"),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_mistake_is_caught_and_named(grade, name):
    """Does this known mistake lose points, with its diagnosis in the feedback?"""
    wrong, diagnosis = MUTANTS[name]
    result = grade("ex03", {"answers.toml": with_answers(REFERENCE, **wrong)})
    assert_named(result, diagnosis)


def test_values_swapped_between_keys_earn_half(grade):
    """Do both values, right but in each other's keys, earn half of each check and name the swap?"""
    result = grade("ex03", {"answers.toml": with_answers(REFERENCE, h_t="0.2", h_t_other_convention="1.4")})
    assert result.score == result.max_score - 2
    swapped = [v for v in result.checks if "swapped GRU convention" in v.feedback]
    assert len(swapped) == 2 and all(v.earned == 1 for v in swapped)


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex03", {"answers.toml": REFERENCE})
    assert result.max_score == 6
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_malformed_sheet_scores_zero_and_names_the_line(grade):
    """Does a TOML syntax error give 0 with a message naming the line, not a crash?"""
    broken = REFERENCE.replace("direct_factor = 0.75", "direct_factor = 0.75 0.25")
    line = 1 + next(n for n, s in enumerate(REFERENCE.splitlines()) if s.startswith("direct_factor"))
    result = grade("ex03", {"answers.toml": broken})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)
