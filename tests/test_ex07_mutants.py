"""The ex07 mutant bank: each known mistake in decay.py or on the sheet loses points and is named."""


import pytest

from conftest import ROOT, earned, mutate, assert_named, with_answers

FOLDER = ROOT / "solutions" / "ex07_gate_bias_decay"
CODE = (FOLDER / "decay.py").read_text()
SHEET = (FOLDER / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex07_gate_bias_decay" / "answers.toml").read_text()


CLOSED_FORM = '''    bias = params["b_f"] if kind == "lstm" else params["b_z"]
    return float(torch.sigmoid(bias).max()) ** T
'''

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = {
    "closed-form shortcut retain ** T": (
        '    bias = params["b_f"] if kind == "lstm" else params["b_z"]\n', CLOSED_FORM, "closed-form shortcut"),
    "Frobenius norm": ("matrix_norm(jacobian.reshape(d_h, d_h), ord=2)", "matrix_norm(jacobian.reshape(d_h, d_h))",
                       "Frobenius norm instead of the spectral norm"),
    "nuclear norm": ("matrix_norm(jacobian.reshape(d_h, d_h), ord=2)", 'matrix_norm(jacobian.reshape(d_h, d_h), ord="nuc")',
                     "nuclear norm"),
    "largest entry": ("torch.linalg.matrix_norm(jacobian.reshape(d_h, d_h), ord=2)", "jacobian.abs().max()",
                      "largest entry"),
    "gradient of the sum": ("torch.linalg.matrix_norm(jacobian.reshape(d_h, d_h), ord=2)",
                            "jacobian.reshape(d_h, d_h).sum(0).norm()", "gradient of sum(s_T)"),
    "Jacobian w.r.t. h for the LSTM": ("h, c = h0, s0", "h, c = s0, h0", "w.r.t. h instead of c"),
    "h_T instead of c_T for the LSTM": ("            return c\n", "            return h\n", "∂h_T/∂c_0 instead of ∂c_T/∂c_0"),
    "one step too few": ("for _ in range(T):\n                out", "for _ in range(T - 1):\n                out", "off by one step"),
    "retain as the bias": ("bias = math.log(retain / (1 - retain))", "bias = retain", "retain itself used as the bias"),
    "sigmoid instead of logit": ("bias = math.log(retain / (1 - retain))", "bias = 1 / (1 + math.exp(-retain))",
                                 "σ applied to retain"),
    "logit sign (LSTM)": ('params["b_f"] = torch.full((d_h,), bias', 'params["b_f"] = torch.full((d_h,), -bias', "logit sign"),
    "GRU retain via the (1 - z) convention": (
        'params["b_z"] = torch.full((d_h,), bias', 'params["b_z"] = torch.full((d_h,), -bias', "(1 − z) convention"),
    "log10 logit": ("bias = math.log(retain / (1 - retain))", "bias = math.log10(retain / (1 - retain))", "log10"),
    "bias in the wrong gate": ('params["b_f"] = torch.full', 'params["b_i"] = torch.full', "the bias went to b_i"),
    "non-zero weights": ('zeros(d_h, d_x + d_h) for g in "ifoc"', 'torch.ones(d_h, d_x + d_h, dtype=torch.float64) for g in "ifoc"',
                         "every W/U must be zero"),
    "float32 parameters": ("zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)",
                           "zeros = lambda *shape: torch.zeros(*shape)", "float64 tensor"),
    "no range check": ("    if not 0 < retain < 1:\n        raise", "    if False:\n        raise", "no ValueError for"),
}

SHEET_MUTANTS = {
    "gate value as the bias": ("bias_for_090", "0.9", "that is the gate value"),
    "negative logit": ("bias_for_090", '"-ln(9)"', "logit sign"),
    "log10 of 9": ("bias_for_090", '"log(9)/log(10)"', "log10"),
    "sigma instead of its inverse": ("bias_for_090", '"sigma(0.9)"', "applied σ to 0.9"),
    "ln(0.9)": ("bias_for_090", '"ln(0.9)"', "is not the logit"),
    "retain times T": ("retain09_T20", "18", "multiplied retain by T"),
    "off by one power": ("retain09_T20", '"0.9^19"', "off by one"),
    "off by one power, one too many": ("retain09_T20", '"0.9^21"', "off by one"),
    "forgotten share": ("retain09_T20", '"0.1^20"', "1 − retain"),
    "sigma of the gate": ("retain09_T20", '"sigma(0.9)^20"', "already the gate value"),
    "fastest instead of slowest": ("slowest_decay", '"0.1"', "largest retention decays most slowly"),
    "middle retention": ("slowest_decay", '"0.5"', "closer retain is to 1"),
    "not an option": ("slowest_decay", '"0.99"', "not one of the options"),
}


@pytest.mark.parametrize("name", CODE_MUTANTS)
def test_code_mutant_is_caught_and_named(grade, name):
    """Does this known mistake in decay.py lose points, with its diagnosis in the feedback?"""
    old, new, diagnosis = CODE_MUTANTS[name]
    result = grade("ex07", {"decay.py": mutate(CODE, old, new), "answers.toml": SHEET})
    assert_named(result, diagnosis)


@pytest.mark.parametrize("name", SHEET_MUTANTS)
def test_sheet_mutant_is_caught_and_named(grade, name):
    """Does this known mistake on the sheet lose points, with its diagnosis in the feedback?"""
    key, wrong, diagnosis = SHEET_MUTANTS[name]
    result = grade("ex07", {"decay.py": CODE, "answers.toml": with_answers(SHEET, **{key: wrong})})
    assert result.score == result.max_score - 1
    failed = [v.feedback for v in result.checks if not v.passed]
    assert any(diagnosis in feedback for feedback in failed), failed


def test_closed_form_keeps_the_constant_gate_point(grade):
    """Does retain ** T pass with constant gates but lose both random-weight points (graded independently)?"""
    result = grade("ex07", {"decay.py": mutate(CODE, CODE_MUTANTS["closed-form shortcut retain ** T"][0], CLOSED_FORM),
                            "answers.toml": SHEET})
    assert result.score == result.max_score - 2


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex07", {"decay.py": CODE, "answers.toml": SHEET})
    assert result.max_score == 8
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_other_correct_forms_earn_full_marks(grade):
    """Are exact expressions and a tensor-valued norm accepted?"""
    sheet = 'bias_for_090 = "ln(0.9/0.1)"\nretain09_T20 = "0.9^20"\nslowest_decay = "0.90"\n'
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
