"""ex05 beyond its known mistakes (tests/mutants/ex05.py): hostile values, degenerate submissions, the reference."""

import pytest

from conftest import ROOT, assert_named, earned, mutate
from mutants import named, submission

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


WRITTEN_DIFFERENTLY = '''import torch
from torch.nn import functional as F


def _shapes(x, h, c=None):
    if x.ndim != 2 or h.ndim != 2 or x.shape[0] != h.shape[0] or (c is not None and c.shape != h.shape):
        raise ValueError("x, h (and c) must be 2-D with one batch size, c shaped like h")


def lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    _shapes(x, h, c)
    d_h = h.shape[1]
    if any(w.shape != (d_h, x.shape[1] + d_h) for w in (W_i, W_f, W_o, W_c)) or any(b.shape != (d_h,) for b in (b_i, b_f, b_o, b_c)):
        raise ValueError("a weight does not fit")
    W = torch.stack([W_i, W_f, W_o, W_c])                    # (4, d_h, d_x + d_h)
    u = torch.cat((x, h), dim=1)
    pre = torch.einsum("bk,gdk->gbd", u, W) + torch.stack([b_i, b_f, b_o, b_c])[:, None, :]
    i, f, o = torch.sigmoid(pre[:3])
    g = torch.tanh(pre[3])
    c_new = torch.addcmul(f * c, i, g)
    return dict(i=i, f=f, o=o, candidate=g, c=c_new, h=o * c_new.tanh())


def gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    _shapes(x, h)
    d_x, d_h = x.shape[1], h.shape[1]
    if any(w.shape != (d_h, d_x) for w in (W_z, W_r, W_h)) or any(u.shape != (d_h, d_h) for u in (U_z, U_r, U_h)):
        raise ValueError("a weight does not fit")
    z = torch.sigmoid(F.linear(x, W_z, b_z) + F.linear(h, U_z))
    r = torch.sigmoid(F.linear(x, W_r, b_r) + F.linear(h, U_r))
    n = torch.tanh(F.linear(x, W_h, b_h) + F.linear(r * h, U_h))
    return {"z": z, "r": r, "candidate": n, "h": torch.lerp(n, h, z)}
'''


def test_correct_work_written_differently_earns_full_marks(grade):
    """Does a correct gated.py written another way (stacked weights and einsum, F.linear, addcmul, lerp) earn all 14?"""
    result = grade("ex05", {"gated.py": WRITTEN_DIFFERENTLY})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


@pytest.mark.parametrize("name", ["batch reduction", "swapped GRU convention", "square U_h untransposed", "reset gate after the matmul"])
def test_a_named_mistake_costs_its_values_check_only(grade, name):
    """Does a named mistake of the values (batch mixing, a swapped convention, U untransposed, the reset gate after the
    matmul) keep every point of the checks that depend on the values – dtype, gradients, extremes, ValueErrors, standing
    alone – which judge the step the function computes?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = [v.name for v in result.checks if v.earned < v.points]
    assert lost and all(" match the reference " in n or " reproduces ex0" in n for n in lost), lost
