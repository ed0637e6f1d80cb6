"""ex03 beyond its known mistakes and tables (course/ex03/mutants.py): values swapped between keys."""

import pytest

from conftest import ROOT, with_answers

pytestmark = pytest.mark.slow  # the exercise's bank graded

REFERENCE = (ROOT / "solutions" / "ex03_gru_arithmetic" / "answers.toml").read_text()


def test_values_swapped_between_keys_earn_half(grade):
    """Do both values, right but in each other's keys, earn half of each check and name the swap?"""
    result = grade("ex03", {"answers.toml": with_answers(REFERENCE, h_t="0.75", h_t_other_convention="2.15")})
    assert result.score == result.max_score - 2
    swapped = [v for v in result.checks if "swapped GRU convention" in v.feedback]
    assert len(swapped) == 2 and all(v.earned == 1 for v in swapped)
