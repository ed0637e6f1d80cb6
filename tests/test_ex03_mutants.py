"""ex03 beyond its known mistakes (tests/mutants/ex03.py): swapped values, the reference, a malformed sheet."""

from conftest import ROOT, with_answers

REFERENCE = (ROOT / "solutions" / "ex03_gru_arithmetic" / "answers.toml").read_text()


def test_values_swapped_between_keys_earn_half(grade):
    """Do both values, right but in each other's keys, earn half of each check and name the swap?"""
    result = grade("ex03", {"answers.toml": with_answers(REFERENCE, h_t="0.75", h_t_other_convention="2.15")})
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
    broken = REFERENCE.replace("direct_factor = 0.7 ", "direct_factor = 0.7 0.25 ")
    line = 1 + next(n for n, s in enumerate(REFERENCE.splitlines()) if s.startswith("direct_factor"))
    result = grade("ex03", {"answers.toml": broken})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)
