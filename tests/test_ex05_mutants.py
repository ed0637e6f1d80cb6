"""ex05 beyond its known mistakes (tests/mutants/ex05.py): hostile values, degenerate submissions, the reference."""

import pytest

from conftest import ROOT, assert_named, earned, mutate

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()


# Odd but plausible behaviour the diagnosis must survive: a Fail naming the problem, never an internal error.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = {
    "batch mixing that raises on a single row": (
        "c_new = f * c + i * candidate",
        "c_new = f * c + (i * candidate).mean(0, keepdim=True)\n    if x.shape[0] == 1:\n"
        "        raise RuntimeError(\"needs a batch\")",
        "wrong values for c, h"),
    "batch mixing with float32 single rows": (
        'return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}',
        'c_new = c_new + c_new.mean(0, keepdim=True) * (x.shape[0] > 1)\n    h_new = o * torch.tanh(c_new)\n'
        '    out = {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}\n'
        '    return {k: v.float() for k, v in out.items()} if x.shape[0] == 1 else out',
        "wrong values for c, h"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_value_fails_cleanly(grade, name):
    """Does this odd but plausible behaviour lose points with a clear message, and no internal grader error?"""
    old, new, diagnosis = HOSTILE[name]
    result = grade("ex05", {"gated.py": mutate(REFERENCE, old, new)})
    assert_named(result, diagnosis)


LSTM_RETURN = '    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}\n'
GRU_RETURN = '    return {"z": z, "r": r, "candidate": candidate, "h": h_new}\n'
LSTM_INPUTS, GRU_INPUTS = "x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c", "x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h"


def returning(lstm: str, gru: str) -> str:
    """The reference, its shape validation kept, with both steps returning these expressions for every output."""
    source = mutate(REFERENCE, LSTM_RETURN, f"    return {{k: {lstm} for k in ('i', 'f', 'o', 'candidate', 'c', 'h')}}\n")
    return mutate(source, GRU_RETURN, f"    return {{k: {gru} for k in ('z', 'r', 'candidate', 'h')}}\n")


def wired(inputs: str) -> str:
    """Zeros of the right shape that depend on every input, so that a gradient reaches each of them."""
    return f"torch.zeros_like(h) + 0 * sum(t.sum() for t in ({inputs}))"


# Submissions that compute nothing, each with the reference's shape validation (so they raise every ValueError
# the statement asks for): each earns nothing – no gradient, dtype, finiteness, validation or library-cell point.
DEGENERATE = {
    "zeros wired to every input": returning(wired(LSTM_INPUTS), wired(GRU_INPUTS)),
    "constant outputs": returning("torch.full_like(h, 0.5)", "torch.full_like(h, 0.5)"),
    "returns its input": returning("h * 1 + 0 * x.sum()", "h * 1 + 0 * x.sum()"),
    "empty results": mutate(mutate(REFERENCE, LSTM_RETURN, "    return {}\n"), GRU_RETURN, "    return {}\n"),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_submission_earns_nothing(grade, name):
    """Does a gated.py that computes nothing (zeros, constants, its input, empty dicts) earn nothing?"""
    assert earned(grade("ex05", {"gated.py": DEGENERATE[name]})) == {}


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex05", {"gated.py": REFERENCE})
    assert result.max_score == 14
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


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
