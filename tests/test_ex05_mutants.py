"""ex05 beyond its known mistakes and tables (tests/mutants/ex05.py): what a mistake in one step costs the other, what
a named mistake of the values costs the checks that depend on them."""

import pytest

from conftest import ROOT, mutate
from mutants import named, submission

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()


def test_one_wrong_line_in_gru_step_costs_gru_step_only(grade):
    """Does a gru_step that raises (a wrong line) cost gru_step's checks only, lstm_step keeping every point of its own?"""
    result = grade("ex05", {"gated.py": mutate(REFERENCE, "(r * h) @ U_h.T", "(r * h) @ W_h.T")})
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert lost and all(name.startswith("gru_step") for name in lost), lost
    assert sum(v.earned for v in result.checks if v.name.startswith("lstm_step")) == 7, lost


def test_a_hanging_lstm_step_costs_lstm_step_only(grade):
    """Does an lstm_step that hangs on float32 inputs (its float64 values right) cost lstm_step's later checks only,
    gru_step keeping every share?"""
    source = mutate(REFERENCE, "    _check_states(x, h)\n    if c.shape", "    while x.dtype == torch.float32:\n        pass\n"
                                                                       "    _check_states(x, h)\n    if c.shape")
    result = grade("ex05", {"gated.py": source})
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert all(name.startswith("lstm_step") for name in lost), lost
    assert result.score == result.max_score - 3, lost  # float32, gradients, extremes, ValueErrors, standing alone


@pytest.mark.parametrize("name", ["batch reduction", "swapped GRU convention", "square U_h untransposed", "reset gate after the matmul"])
def test_a_named_mistake_costs_its_values_check_only(grade, name):
    """Does a named mistake of the values (batch mixing, a swapped convention, U untransposed, the reset gate after the
    matmul) keep every point of the checks that depend on the values – dtype, gradients, extremes, ValueErrors, standing
    alone – which judge the step the function computes?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = [v.name for v in result.checks if v.earned < v.points]
    assert lost and all(" match the reference " in n or " reproduces ex0" in n for n in lost), lost
