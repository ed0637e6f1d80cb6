"""ex07's known mistakes, in decay.py and on the answer sheet, and its tables of other submissions
(tests/test_submission_tables.py)."""

from mutants import bank, mutate, reference, submission

CLOSED_FORM = """    bias = params["b_f"] if kind == "lstm" else params["b_z"]
    return float(torch.sigmoid(bias).max()) ** T
"""

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = bank(
    "ex07",
    "decay.py",
    {
        "closed-form shortcut retain ** T": ('    bias = params["b_f"] if kind == "lstm" else params["b_z"]\n', CLOSED_FORM, "closed-form shortcut"),
        "Frobenius norm": (
            "matrix_norm(jacobian.reshape(d_h, d_h), ord=2)",
            "matrix_norm(jacobian.reshape(d_h, d_h))",
            "Frobenius norm instead of the spectral norm",
        ),
        "nuclear norm": ("matrix_norm(jacobian.reshape(d_h, d_h), ord=2)", 'matrix_norm(jacobian.reshape(d_h, d_h), ord="nuc")', "nuclear norm"),
        "largest entry": ("torch.linalg.matrix_norm(jacobian.reshape(d_h, d_h), ord=2)", "jacobian.abs().max()", "largest entry"),
        "gradient of the sum": (
            "torch.linalg.matrix_norm(jacobian.reshape(d_h, d_h), ord=2)",
            "jacobian.reshape(d_h, d_h).sum(0).norm()",
            "gradient of sum(s_T)",
        ),
        "Jacobian w.r.t. h for the LSTM": ("h, c = h0, s0", "h, c = s0, h0", "w.r.t. h instead of c"),
        "h_T instead of c_T for the LSTM": ("            return c\n", "            return h\n", "∂h_T/∂c_0 instead of ∂c_T/∂c_0"),
        "one step too few": ("for _ in range(T):\n                out", "for _ in range(T - 1):\n                out", "off by one step"),
        "retain as the bias": ("bias = math.log(retain / (1 - retain))", "bias = retain", "retain itself used as the bias"),
        "sigmoid instead of logit": ("bias = math.log(retain / (1 - retain))", "bias = 1 / (1 + math.exp(-retain))", "σ applied to retain"),
        "logit sign (LSTM)": ('params["b_f"] = torch.full((d_h,), bias', 'params["b_f"] = torch.full((d_h,), -bias', "logit sign"),
        "GRU retain via the (1 - z) convention": ('params["b_z"] = torch.full((d_h,), bias', 'params["b_z"] = torch.full((d_h,), -bias', "(1 − z) convention"),
        "log10 logit": ("bias = math.log(retain / (1 - retain))", "bias = math.log10(retain / (1 - retain))", "log10"),
        "bias in the wrong gate": ('params["b_f"] = torch.full', 'params["b_i"] = torch.full', "the bias went to b_i"),
        "non-zero weights": (
            'zeros(d_h, d_x + d_h) for g in "ifoc"',
            'torch.ones(d_h, d_x + d_h, dtype=torch.float64) for g in "ifoc"',
            "every W/U must be zero",
        ),
        "float32 parameters": (
            "zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)",
            "zeros = lambda *shape: torch.zeros(*shape)",
            "float64 tensor",
        ),
        "no range check": ("    if not 0 < retain < 1:\n        raise", "    if False:\n        raise", "no ValueError for"),
    },
)

# name: (answer in the reference, the wrong answer, words the feedback must contain)
SHEET_MUTANTS = bank(
    "ex07",
    "answers.toml",
    {
        "gate value as the bias": ("bias_for_gate = 1.7346010553881064", "bias_for_gate = 0.85", "that is the gate value"),
        "negative logit": ("bias_for_gate = 1.7346010553881064", 'bias_for_gate = "-ln(0.85/0.15)"', "logit sign"),
        "log10 of 9": ("bias_for_gate = 1.7346010553881064", 'bias_for_gate = "log(0.85/0.15)/log(10)"', "log10"),
        "sigma instead of its inverse": ("bias_for_gate = 1.7346010553881064", 'bias_for_gate = "sigma(0.85)"', "applied σ to the gate value"),
        "ln(0.9)": ("bias_for_gate = 1.7346010553881064", 'bias_for_gate = "ln(0.85)"', "is not the logit"),
        "retain times T": ("retain_power = 0.03518437208883203", "retain_power = 12", "multiplied retain by T"),
        "off by one power": ("retain_power = 0.03518437208883203", 'retain_power = "0.8^14"', "off by one"),
        "off by one power, one too many": ("retain_power = 0.03518437208883203", 'retain_power = "0.8^16"', "off by one"),
        "forgotten share": ("retain_power = 0.03518437208883203", 'retain_power = "0.2^15"', "1 − retain"),
        "sigma of the gate": ("retain_power = 0.03518437208883203", 'retain_power = "sigma(0.8)^15"', "already the gate value"),
        "bias for one step": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(0.6/0.4)"', "keeps 0.6 after one step"),
        "gate value for (e)": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "0.6^(1/30)"', "that is the gate value σ(b)"),
        "negative logit for (e)": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "-ln(0.6^(1/30)/(1 - 0.6^(1/30)))"', "logit sign"),
        "log10 for (e)": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "log10(0.6^(1/30)/(1 - 0.6^(1/30)))"', "log10 instead of ln"),
        "ln of the gate for (e)": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(0.6^(1/30))"', "is not the logit"),
        "share raised to the power T": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(0.6^30/(1 - 0.6^30))"', "raised 0.6 to the power 30"),
        "share lost for (e)": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(0.4^(1/30)/(1 - 0.4^(1/30)))"', "the share lost"),
        "one root too few": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(0.6^(1/29)/(1 - 0.6^(1/29)))"', "off by one step"),
        "the textbook's estimate": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(30/0.4)"', "estimate for a large bias"),
        "the estimate's condition solved exactly": ("bias_to_keep = 4.064398532701355", 'bias_to_keep = "ln(30/0.4 - 1)"', "estimate for a large bias"),
        "the estimate rounded": ("bias_to_keep = 4.064398532701355", "bias_to_keep = 4.317", "estimate for a large bias"),
        "log10 of the odds": ("bias_for_gate = 1.7346010553881064", 'bias_for_gate = "log10(0.85/0.15)"', "log10 instead of ln"),
    },
)

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS
MUTANTS += bank(
    "ex07",
    "decay.py",
    {
        "one step too few, LSTM and GRU": ("for _ in range(T):", "for _ in range(T - 1):", "one step too few"),
        "one step too many": ("for _ in range(T):", "for _ in range(T + 1):", "one step too many"),
    },
)

CODE = reference("ex07")["decay.py"]

# name: files in the reference folder's place; each earns full marks
ACCEPTED = {
    "exact expressions and a tensor-valued norm": {
        "answers.toml": 'bias_for_gate = "ln(0.85/0.15)"\nretain_power = "0.8^15"\nbias_to_keep = "ln(0.6^(1/30)/(1 - 0.6^(1/30)))"\n',
        "decay.py": mutate(CODE, "ord=2).item()", "ord=2)"),
    }
}

# name: (files in the reference folder's place, the points it costs). A mistake on the sheet costs exactly its key's
# point (its diagnosis: tests/test_mutants.py); retain ** T passes with constant gates but loses both random-weight
# points (graded independently).
COSTS = {m.name: (submission(m), 1) for m in SHEET_MUTANTS} | {m.name: (submission(m), 2) for m in CODE_MUTANTS if m.name == "closed-form shortcut retain ** T"}

ZERO_PARAMS = """import torch

def constant_gate_params(kind, retain, d_x, d_h):
    if kind not in ("lstm", "gru") or not 0 < retain < 1:
        raise ValueError("kind must be lstm or gru and 0 < retain < 1")
    zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)
    if kind == "lstm":
        return {**{f"W_{g}": zeros(d_h, d_x + d_h) for g in "ifoc"}, **{f"b_{g}": zeros(d_h) for g in "ifoc"}}
    return {**{f"W_{g}": zeros(d_h, d_x) for g in "zrh"}, **{f"U_{g}": zeros(d_h, d_h) for g in "zrh"},
            **{f"b_{g}": zeros(d_h) for g in "zrh"}}
"""
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The first three
# validate retain and kind as asked, yet their ValueError cases earn nothing: no bias is computed from retain.
# name: files in the stub folder's place
DEGENERATE = {
    "zeros": {"decay.py": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return 0.0\n"},
    "constant norm": {"decay.py": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return 1.0\n"},
    "returns its input": {"decay.py": ZERO_PARAMS + "\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return float(T)\n"},
    "empty results": {
        "decay.py": (
            "def constant_gate_params(kind, retain, d_x, d_h):\n    return {}\n\ndef state_jacobian_norm(kind, step, params, T, d_x):\n    return 0.0\n"
        )
    },
}

# name of a known mistake: the one check that must charge it. A mistake in state_jacobian_norm that the constant gates
# show costs that check alone; a random-weight value right but for it keeps its points.
CHARGED_ONCE = {
    name: "Constant gates retain"
    for name in (
        "Frobenius norm",
        "nuclear norm",
        "gradient of the sum",
        "Jacobian w.r.t. h for the LSTM",
        "h_T instead of c_T for the LSTM",
        "one step too few",
        "one step too few, LSTM and GRU",
        "one step too many",
    )
}
