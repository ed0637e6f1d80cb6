"""ex07 beyond its known mistakes (tests/mutants/ex07.py): what a sheet mistake costs, the closed form, the reference,
other correct forms, degenerate submissions."""

import pytest

from conftest import ROOT, earned, mutate
from mutants import ex07, named, submission

FOLDER = ROOT / "solutions" / "ex07_gate_bias_decay"
CODE = (FOLDER / "decay.py").read_text()
SHEET = (FOLDER / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex07_gate_bias_decay" / "answers.toml").read_text()


@pytest.mark.parametrize("mutant", ex07.SHEET_MUTANTS, ids=lambda m: m.name)
def test_sheet_mutant_costs_one_point(grade, mutant):
    """Does this known mistake on the sheet cost exactly its key's point (its diagnosis: tests/test_mutants.py)?"""
    result = grade("ex07", submission(mutant))
    assert result.score == result.max_score - 1, [v.feedback for v in result.checks if not v.passed]


def test_closed_form_keeps_the_constant_gate_point(grade):
    """Does retain ** T pass with constant gates but lose both random-weight points (graded independently)?"""
    result = grade("ex07", submission(named("ex07", "closed-form shortcut retain ** T")))
    assert result.score == result.max_score - 2


def test_other_correct_forms_earn_full_marks(grade):
    """Are exact expressions and a tensor-valued norm accepted?"""
    sheet = 'bias_for_gate = "ln(0.85/0.15)"\nretain_power = "0.8^15"\nslowest_decay = "0.90"\n'
    code = mutate(CODE, "ord=2).item()", "ord=2)")
    result = grade("ex07", {"decay.py": code, "answers.toml": sheet})
    assert result.score == result.max_score == 8, [v.feedback for v in result.checks if not v.passed]


ZERO_PARAMS = '''import torch

def constant_gate_params(kind, retain, d_x, d_h):
    if kind not in ("lstm", "gru") or not 0 < retain < 1:
        raise ValueError("kind must be lstm or gru and 0 < retain < 1")
    zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)
    if kind == "lstm":
        return {**{f"W_{g}": zeros(d_h, d_x + d_h) for g in "ifoc"}, **{f"b_{g}": zeros(d_h) for g in "ifoc"}}
    return {**{f"W_{g}": zeros(d_h, d_x) for g in "zrh"}, **{f"U_{g}": zeros(d_h, d_h) for g in "zrh"},
            **{f"b_{g}": zeros(d_h) for g in "zrh"}}
'''
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The first three
# validate retain and kind as asked, yet their ValueError cases earn nothing: no bias is computed from retain.
DEGENERATE = {
    "zeros": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return 0.0\n",
    "constant norm": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return 1.0\n",
    "returns its input": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return float(T)\n",
    "empty results": ("def constant_gate_params(kind, retain, d_x, d_h):\n    return {}\n\n"
                      "def state_jacobian_norm(kind, step, params, T, d_x):\n    return 0.0\n"),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_submission_earns_nothing(grade, name):
    """Does a decay.py that computes nothing (zero biases, a constant or its input as the norm, {}) earn nothing?"""
    assert earned(grade("ex07", {"decay.py": DEGENERATE[name], "answers.toml": STUB_SHEET})) == {}
