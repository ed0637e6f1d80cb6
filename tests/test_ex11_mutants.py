"""ex11 beyond its known misconceptions (tests/mutants/ex11.py): one item's share, other correct forms, the reference,
a malformed sheet."""

import pytest

from conftest import ROOT, with_answers

REFERENCE = (ROOT / "solutions" / "ex11_concepts" / "answers.toml").read_text()


def test_one_wrong_item_costs_only_its_share(grade):
    """Does one wrong true/false item cost 0.25 of its part's 2 points, not the whole part?"""
    result = grade("ex11", {"answers.toml": with_answers(REFERENCE, tf_h_only_state="true")})
    assert result.score == pytest.approx(result.max_score - 0.25)


def test_other_correct_forms_earn_full_marks(grade):
    """Are equivalent forms accepted: "3/4", negative indices, shapes as strings, lower-case options?"""
    sheet = with_answers(REFERENCE, gru_lstm_ratio='"3/4"', fwd_last_layer_index="-2", bwd_final_time_index="-7",
                       h_n_shape='"(4, 6, 12)"', q2_gru='"3*160*(48+160+1)"', sigma_1='"1/(1+exp(-1))"',
                       choice_greff_2015='" a "', tf_h_only_state='"False"', tf_gru_no_cell_state='"TRUE"')
    result = grade("ex11", {"answers.toml": sheet})
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]
    assert all(v.passed for v in result.checks), "a public format check refuses a correct form"


def test_malformed_sheet_scores_zero_and_names_the_line(grade):
    """Does a TOML syntax error give 0 with a message naming the line, not a crash?"""
    broken = REFERENCE.replace("output_shape = [6, 7, 24]", "output_shape [6, 7, 24]")
    line = 1 + next(n for n, s in enumerate(REFERENCE.splitlines()) if s.startswith("output_shape"))
    result = grade("ex11", {"answers.toml": broken})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)
