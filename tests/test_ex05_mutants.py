"""The ex05 mutant bank: each known mistake must lose points and be named in the feedback."""

import pytest

from conftest import ROOT, mutate, assert_named

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = {
    "lstm sigmoid on the candidate": (
        "candidate = torch.tanh(u @ W_c.T + b_c)", "candidate = torch.sigmoid(u @ W_c.T + b_c)", "sigmoid on the candidate"),
    "missing tanh on c in h": ("h_new = o * torch.tanh(c_new)", "h_new = o * c_new", "missing tanh on c"),
    "[h, x] order": ("u = torch.cat([x, h], dim=-1)", "u = torch.cat([h, x], dim=-1)", "x first (as the answer key does)"),
    "swapped GRU convention": (
        "h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate", "swapped GRU convention"),
    "reset gate after the matmul": ("(r * h) @ U_h.T", "r * (h @ U_h.T)", "reset gate applied after the matmul"),
    "gru sigmoid on the candidate": (
        "candidate = torch.tanh(x @ W_h.T", "candidate = torch.sigmoid(x @ W_h.T", "sigmoid on the candidate"),
    "batch reduction": (
        "c_new = f * c + i * candidate", "c_new = f * c + (i * candidate).mean(0, keepdim=True)", "batch mixing"),
    "W instead of W.T": ("i = torch.sigmoid(u @ W_i.T + b_i)", "i = torch.sigmoid(u @ W_i + b_i)", "multiply by W.T"),
    "detached gate": ("f = torch.sigmoid(u @ W_f.T + b_f)", "f = torch.sigmoid(u @ W_f.T + b_f).detach()", "no gradient reaches W_f"),
    "float64 constant": (
        "h_new = z * h + (1.0 - z) * candidate",
        "h_new = z * h + (torch.ones(z.shape, dtype=torch.float64) - z) * candidate",
        "expected dtype torch.float32"),
    "float32 cast": ("c_new = f * c + i * candidate", "c_new = (f * c + i * candidate).float()", "expected dtype torch.float64"),
    "tanh through exp": (
        "candidate = torch.tanh(u @ W_c.T + b_c)",
        "a = u @ W_c.T + b_c\n    candidate = (torch.exp(2 * a) - 1) / (torch.exp(2 * a) + 1)",
        "NaN or infinity"),
    "no shape validation": (
        "def _check_states(x: Tensor, h: Tensor) -> None:\n",
        "def _check_states(x: Tensor, h: Tensor) -> None:\n    return\n",
        "no ValueError for"),
    "library cell": ("import torch\n", "import torch\n\n_cell = torch.nn.LSTMCell\n", "library recurrent cells"),
    "reaching through sys.modules": (
        "import torch\n", "import torch\n_key = __import__('sys').modules.get('grader.inside.given')\n", "must stand alone"),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_is_caught_and_named(grade, name):
    """Does this known mistake lose points, with its diagnosis in the feedback?"""
    old, new, diagnosis = MUTANTS[name]
    result = grade("ex05", {"gated.py": mutate(REFERENCE, old, new)})
    assert_named(result, diagnosis)


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


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex05", {"gated.py": REFERENCE})
    assert result.max_score == 14
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]
