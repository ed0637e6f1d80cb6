"""ex05 beyond its known mistakes (tests/mutants/ex05.py): hostile values, degenerate submissions, the reference."""

import re

import pytest

from conftest import ROOT, assert_named, earned, mutate
from mutants import ex05, named, submission

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


NAMED_VALUE_MISTAKES = ["batch reduction", "swapped GRU convention", "square U_h untransposed", "reset gate after the matmul",
                        "missing tanh on c in h", "lstm sigmoid on the candidate", "gru sigmoid on the candidate",
                        "[h, x] order", "coupled gates"]


@pytest.mark.parametrize("name", NAMED_VALUE_MISTAKES)
def test_a_named_mistake_costs_its_values_check_only(grade, name):
    """Does a named mistake of the values (batch mixing, a swapped convention, U untransposed, the reset gate after the
    matmul, a missing tanh, sigmoid on the candidate, [h, x] order, coupled gates) cost the values check's points alone,
    charged once – the given-gates check (which sees the same mistake with ex01's or ex03's numbers), dtype, gradients,
    extremes, ValueErrors and standing alone keeping every point?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert len(lost) == 1 and " match the reference " in next(iter(lost)), lost
    assert result.score == pytest.approx(result.max_score - sum(lost.values()))


@pytest.mark.parametrize("name", ["swapped GRU convention", "missing tanh on c in h"])
def test_the_given_gates_check_says_it_charges_nothing_again(grade, name):
    """Does the given-gates check, which sees the values check's mistake again with ex01's or ex03's numbers, say so
    and keep its point, in both languages?"""
    result = grade("ex05", submission(named("ex05", name)))
    given = next(v for v in result.checks if "gates fixed by their biases" in v.name and not v.passed)
    assert given.earned == given.points
    assert "no points are lost here" in given.feedback.en and "此处不扣分" in given.feedback.zh, given.feedback


@pytest.mark.parametrize("name", ["gru output squeezed", "a batch of one handled apart"])
def test_a_step_that_breaks_at_one_by_one_costs_the_given_gates_check_only(grade, name):
    """Does a gru_step right at batch 3 and d_h = 4 but wrong with the gates given (a batch of one, d_x = d_h = 1, where
    a stray .squeeze() drops an axis, or a single sample takes another path) cost the given-gates check's point alone?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert list(lost) == [next(v.name for v in result.checks if v.name.startswith("gru_step with gates fixed"))], lost
    assert result.score == result.max_score - 1


ELEMENTWISE = '''import torch


def _fits(x, h, c=None):
    if x.dim() != 2 or h.dim() != 2 or len(x) != len(h):
        raise ValueError("x and h must be (B, d_x) and (B, d_h) with one batch size")
    if c is not None and tuple(c.shape) != tuple(h.shape):
        raise ValueError("c must be shaped like h")


def _affine(v, W, b=None):
    """v @ W.T (+ b), written as a broadcast product summed over the input axis: exact at any size, 1 x 1 included."""
    if W.dim() != 2 or W.shape[1] != v.shape[1]:
        raise ValueError("a weight does not fit its input")
    out = (v[:, None, :] * W[None, :, :]).sum(-1)
    if b is not None:
        if tuple(b.shape) != (W.shape[0],):
            raise ValueError("a bias does not fit")
        out = out + b
    return out


def lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    _fits(x, h, c)
    if W_i.shape[0] != h.shape[1] or any(W.shape != W_i.shape for W in (W_f, W_o, W_c)):
        raise ValueError("the weights must be (d_h, d_x + d_h)")
    u = torch.hstack([x, h])
    i, f, o = (_affine(u, W, b).sigmoid() for W, b in ((W_i, b_i), (W_f, b_f), (W_o, b_o)))
    g = _affine(u, W_c, b_c).tanh()
    c_next = c * f + g * i
    return {"h": c_next.tanh() * o, "c": c_next, "candidate": g, "o": o, "f": f, "i": i}


def gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    _fits(x, h)
    if any(U.shape != (h.shape[1], h.shape[1]) for U in (U_z, U_r, U_h)) or any(W.shape[0] != h.shape[1] for W in (W_z, W_r, W_h)):
        raise ValueError("W_* must be (d_h, d_x) and U_* (d_h, d_h)")
    z = (_affine(x, W_z, b_z) + _affine(h, U_z)).sigmoid()
    r = (_affine(x, W_r, b_r) + _affine(h, U_r)).sigmoid()
    n = (_affine(x, W_h, b_h) + _affine(h * r, U_h)).tanh()
    return {"z": z, "r": r, "candidate": n, "h": n + z * (h - n)}
'''


def test_correct_work_written_elementwise_earns_full_marks(grade):
    """Does a correct gated.py with no matmul at all (broadcast products summed over the input axis, hstack, the GRU
    update as n + z (h − n), outputs in another order) earn all 14, the given-gates checks at 1 x 1 included?"""
    result = grade("ex05", {"gated.py": ELEMENTWISE})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


STATEMENT = (ROOT / "exercises" / "ex05_gated_steps" / "README.md").read_text()
# The right-hand sides of the statement's equations (`h = o ⊙ tanh(c)`, `h_new = z ⊙ h + (1 − z) ⊙ candidate`, ...),
# without spaces: what a student writes in gated.py.
EQUATIONS = {"".join(span.split(" = ", 1)[1].split()) for span in re.findall(r"`([^`\n]+ = [^`\n]+)`", STATEMENT)}


def test_feedback_never_prints_the_statements_equations(grade):
    """Does no failed check of any known mistake, in either language, print the right-hand side of one of the
    statement's equations – the feedback names the mistake, never the formula to write?"""
    assert {"o⊙tanh(c)", "z⊙h+(1−z)⊙candidate", "f⊙c_prev+i⊙candidate"} <= EQUATIONS, EQUATIONS
    printed = []
    for mutant in ex05.MUTANTS:
        result = grade("ex05", submission(mutant))
        for v in result.checks:
            if not v.passed:
                for language in ("en", "zh"):
                    text = "".join((v.title.render(language) + v.feedback.render(language)).split())
                    printed += [(mutant.name, v.name, rhs) for rhs in EQUATIONS if rhs in text]
    assert not printed, printed
