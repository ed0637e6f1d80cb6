"""ex06's known mistakes in parity.py, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, mutate, reference

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = bank(
    "ex06",
    "parity.py",
    {
        "lstm gate order i, f, o, g": ('gates = ("i", "f", "c", "o")', 'gates = ("i", "f", "o", "c")', "gate order i, f, o, g"),
        "lstm gate order f, i, g, o": ('gates = ("i", "f", "c", "o")', 'gates = ("f", "i", "c", "o")', "another order"),
        "lstm bias_hh dropped": ("bias = cell.bias_ih + cell.bias_hh", "bias = cell.bias_ih", "bias_hh dropped"),
        "lstm bias_ih dropped": ("bias = cell.bias_ih + cell.bias_hh", "bias = cell.bias_hh", "bias_ih dropped"),
        "lstm [h, x] order": ("[cell.weight_ih, cell.weight_hh]", "[cell.weight_hh, cell.weight_ih]", "[h, x] order"),
        "lstm float32 mapping": ("bias = cell.bias_ih + cell.bias_hh", "bias = (cell.bias_ih + cell.bias_hh).float()", "float32 precision"),
        "lstm rounded through float32": (
            "weight = torch.cat([cell.weight_ih, cell.weight_hh], dim=1)",
            "weight = torch.cat([cell.weight_ih, cell.weight_hh], dim=1).float().double()",
            "float32 precision",
        ),
        "lstm detached mapping": ("[cell.weight_ih, cell.weight_hh]", "[cell.weight_ih, cell.weight_hh.detach()]", "no gradient reaches cell.weight_hh"),
        "lstm mapping rebuilt from values": (
            "bias = cell.bias_ih + cell.bias_hh",
            "bias = torch.tensor((cell.bias_ih + cell.bias_hh).tolist(), dtype=torch.float64)",
            "no gradient reaches cell.bias_ih",
        ),
        "gru r and z swapped": ('gates = ("r", "z", "n")', 'gates = ("z", "r", "n")', "r and z swapped"),
        "gru reset before the matmul": (
            'r * (h @ p["U_n"].T + p["b_hn"])',
            '(r * h) @ p["U_n"].T + p["b_hn"]',
            "reset gate applied before the recurrent matmul",
        ),
        "gru b_hn outside r": ('r * (h @ p["U_n"].T + p["b_hn"])', 'r * (h @ p["U_n"].T) + p["b_hn"]', "b_hn outside r"),
        "gru swapped convention": ("return (1.0 - z) * n + z * h", "return z * n + (1.0 - z) * h", "swapped GRU convention"),
        "gru b_hn dropped": ('"b_hn": b_hh["n"]', '"b_hn": 0 * b_hh["n"]', "b_hn dropped"),
        "gru all of bias_hh dropped": (
            "b_hh = dict(zip(gates, cell.bias_hh.chunk(3)))",
            "b_hh = dict(zip(gates, (0 * cell.bias_hh).chunk(3)))",
            "bias_hh dropped",
        ),
        "gru float32 step": ("return (1.0 - z) * n + z * h", "return ((1.0 - z) * n + z * h).float()", "float32 precision"),
        "gru computed in float32": ("p = params", "p = {k: v.float() for k, v in params.items()}\n    x, h = x.float(), h.float()", "float32 precision"),
        "gru detached parameters": ('"W_n": W["n"]', '"W_n": W["n"].detach()', "part of the gradient w.r.t. cell.weight_ih is missing"),
        "reaching through sys.modules": ("import torch\n", "import sys\n\nimport torch\n\n_loaded = sys.modules\n", "sys.modules"),
        "gru detached input": ("p = params", "p = params\n    x = x.detach()", "no gradient reaches x"),
    },
)
MUTANTS += bank(
    "ex06",
    "parity.py",
    {
        "gru U_z untransposed": ('h @ p["U_z"].T', 'h @ p["U_z"]', "U used untransposed"),
        "gru every U untransposed": (
            'h @ p["U_r"].T + p["b_r"])\n    z = torch.sigmoid(x @ p["W_z"].T + h @ p["U_z"].T + p["b_z"])\n'
            '    n = torch.tanh(x @ p["W_n"].T + p["b_in"] + r * (h @ p["U_n"].T',
            'h @ p["U_r"] + p["b_r"])\n    z = torch.sigmoid(x @ p["W_z"].T + h @ p["U_z"] + p["b_z"])\n'
            '    n = torch.tanh(x @ p["W_n"].T + p["b_in"] + r * (h @ p["U_n"]',
            "recurrent blocks of the reset gate, the update gate and the candidate",
        ),
    },
)
# A mistake no known one explains with a .detach() on one slice beside it (a reviewer's submissions): the value check
# charges the first, the gradient check, comparing with finite differences of the student's own functions, the second.
LSTM_B_LINE = 'params |= {f"b_{g}": b for g, b in zip(gates, bias.chunk(4))}'
LSTM_B_SUBTRACTED = LSTM_B_LINE.replace("bias.chunk", "(cell.bias_ih - cell.bias_hh).chunk")
GRU_Z_N_LINES = 'h @ p["U_z"].T + p["b_z"])\n    n = torch.tanh(x @ p["W_n"].T + p["b_in"] + r * (h @ p["U_n"].T'
UNKNOWN_PLUS_DETACH = {
    "lstm biases subtracted, W_o detached": (
        LSTM_B_LINE,
        LSTM_B_SUBTRACTED + '\n    params["W_o"] = params["W_o"].detach()',
        "finite differences of your own functions' outputs",
    ),
    "gru update gate given b_r, h detached in the candidate": (
        GRU_Z_N_LINES,
        GRU_Z_N_LINES.replace('p["b_z"]', 'p["b_r"]').replace("r * (h @", "r * (h.detach() @"),
        "finite differences of your own functions' outputs",
    ),
}
MUTANTS += bank(
    "ex06",
    "parity.py",
    UNKNOWN_PLUS_DETACH
    | {
        "lstm biases subtracted": (
            LSTM_B_LINE,
            LSTM_B_SUBTRACTED,
            "b_i, b_f, b_o, b_c: it combines the right blocks of bias_ih and bias_hh, but not as the cell does",
        ),
        "gru update gate given b_r": ('h @ p["U_z"].T + p["b_z"]', 'h @ p["U_z"].T + p["b_r"]', "First wrong: the update gate, its bias in bias_ih"),
    },
)
# Mistakes no known one is, located without the answer: what each wrong LSTM entry holds, the first GRU block whose
# setting (the rest of the cell zero) makes the step differ. A view that interleaves the gate blocks is the cell's own
# entries rearranged: the value check charges it, and the gradient checks judge the mapping on its own terms.
LSTM_CHUNKS = 'params = {f"W_{g}": w for g, w in zip(gates, weight.chunk(4, dim=0))}\n    ' + LSTM_B_LINE
GRU_CHUNKS = (
    "W = dict(zip(gates, cell.weight_ih.chunk(3, dim=0)))\n    U = dict(zip(gates, cell.weight_hh.chunk(3, dim=0)))\n"
    "    b_ih = dict(zip(gates, cell.bias_ih.chunk(3)))\n    b_hh = dict(zip(gates, cell.bias_hh.chunk(3)))"
)
INTERLEAVED = {
    "lstm blocks interleaved by a view": (
        LSTM_CHUNKS,
        LSTM_CHUNKS.replace("weight.chunk(4, dim=0)", "weight.view(-1, 4, weight.shape[1]).unbind(1)").replace("bias.chunk(4)", "bias.view(-1, 4).unbind(1)"),
        "come from several of PyTorch's gate blocks, interleaved",
    ),
    "gru blocks interleaved by a view": (
        GRU_CHUNKS,
        GRU_CHUNKS.replace("cell.weight_ih.chunk(3, dim=0)", "cell.weight_ih.view(-1, 3, cell.weight_ih.shape[1]).unbind(1)")
        .replace("cell.weight_hh.chunk(3, dim=0)", "cell.weight_hh.view(-1, 3, cell.weight_hh.shape[1]).unbind(1)")
        .replace("cell.bias_ih.chunk(3)", "cell.bias_ih.view(-1, 3).unbind(1)")
        .replace("cell.bias_hh.chunk(3)", "cell.bias_hh.view(-1, 3).unbind(1)"),
        "First wrong: the update gate, its bias in bias_ih",
    ),
}
UNKNOWN_LOCATED = INTERLEAVED | {
    "lstm h columns in reversed rows": ("[cell.weight_ih, cell.weight_hh]", "[cell.weight_ih, cell.weight_hh.flip(0)]", "its columns acting on h are wrong"),
    "gru candidate through a sigmoid": ("n = torch.tanh(", "n = torch.sigmoid(", "look at the candidate's activation"),
    "gru reset gate through a tanh": ("r = torch.sigmoid(", "r = torch.tanh(", "First wrong: the reset gate"),
    "gru candidate reads x through W_z": ('x @ p["W_n"].T', 'x @ p["W_z"].T', "First wrong: the update gate, how x enters it"),
}
MUTANTS += bank("ex06", "parity.py", UNKNOWN_LOCATED)

ZERO_LSTM_MAPPING = """
def lstm_params_from_torch(cell):
    d_h, d_x = cell.weight_hh.shape[1], cell.weight_ih.shape[1]
    zero = 0 * sum(p.sum() for p in cell.parameters())  # wired to every parameter: a gradient reaches each
    return {**{f"W_{g}": torch.zeros(d_h, d_x + d_h, dtype=torch.float64) + zero for g in "ifoc"},
            **{f"b_{g}": torch.zeros(d_h, dtype=torch.float64) + zero for g in "ifoc"}}
"""
# name: files in the stub folder's place. Submissions that compute nothing: each earns nothing, gradient points
# included.
DEGENERATE = {
    "zero mappings": {
        "parity.py": "import torch\n"
        + ZERO_LSTM_MAPPING
        + """
def gru_params_from_torch(cell):
    return {name: torch.zeros_like(p) + 0 * p for name, p in cell.named_parameters()}

def torch_gru_step(x, h, params):
    return torch.zeros_like(h) + 0 * (x.sum() + h.sum() + sum(p.sum() for p in params.values()))
"""
    },
    "returns its input": {
        "parity.py": "import torch\n"
        + ZERO_LSTM_MAPPING
        + """
def gru_params_from_torch(cell):
    return dict(cell.named_parameters())

def torch_gru_step(x, h, params):
    return h + 0 * (x.sum() + sum(p.sum() for p in params.values()))
"""
    },
    "constant outputs": {
        "parity.py": """import torch

def lstm_params_from_torch(cell):
    d_h, d_x = cell.weight_hh.shape[1], cell.weight_ih.shape[1]
    return {**{f"W_{g}": torch.full((d_h, d_x + d_h), 0.5, dtype=torch.float64) for g in "ifoc"},
            **{f"b_{g}": torch.full((d_h,), 0.5, dtype=torch.float64) for g in "ifoc"}}

def gru_params_from_torch(cell):
    return {"weight_ih": cell.weight_ih}

def torch_gru_step(x, h, params):
    return torch.full_like(h, 0.5)
"""
    },
    "empty results": {
        "parity.py": """import torch

def lstm_params_from_torch(cell):
    return {}

def gru_params_from_torch(cell):
    return {}

def torch_gru_step(x, h, params):
    return torch.zeros_like(h)
"""
    },
}

GRU_VALUES = "torch_gru_step(x, h, gru_params_from_torch(cell)) equals nn.GRUCell"
# name of a known mistake: the one check that must charge it. A wrong value is charged by its value check alone: the
# gradient checks compare with the named mistake's gradients (or, float32, only ask that gradients reach every input),
# and the written-out point needs only a step computed without library cells.
CHARGED_ONCE = {
    name: GRU_VALUES
    for name in (
        "gru r and z swapped",
        "gru reset before the matmul",
        "gru b_hn outside r",
        "gru swapped convention",
        "gru b_hn dropped",
        "gru all of bias_hh dropped",
        "gru float32 step",
        "gru computed in float32",
        "gru U_z untransposed",
        "gru every U untransposed",
    )
} | {name: "lstm_params_from_torch: ex05's lstm_step on the mapping" for name in ("lstm float32 mapping", "lstm rounded through float32")}

PARITY = reference("ex06")["parity.py"]
# name: (files in the reference folder's place, the points it costs). A wrong line of torch_gru_step that is no known
# mistake costs the GRU value check's 3 points alone: the gradient checks then only ask that gradients reach every
# input and parameter, and the written-out point stays.
COSTS = {
    "sigmoid on the GRU candidate": ({"parity.py": mutate(PARITY, "n = torch.tanh(", "n = torch.sigmoid(")}, 3),
    "the update gate given the reset gate's bias": ({"parity.py": mutate(PARITY, 'h @ p["U_z"].T + p["b_z"]', 'h @ p["U_z"].T + p["b_r"]')}, 3),
    # the LSTM value check's share: the W's right, the b's wrong, 1 of 2 points
    "lstm biases subtracted": ({"parity.py": mutate(PARITY, LSTM_B_LINE, LSTM_B_SUBTRACTED)}, 1),
} | {  # the same with a .detach() on one slice beside it: the gradient check's 2 points too
    name: ({"parity.py": mutate(PARITY, old, new)}, cost) for (name, (old, new, _)), cost in zip(UNKNOWN_PLUS_DETACH.items(), (1 + 2, 3 + 2))
}
LSTM_VALUES = "lstm_params_from_torch: ex05's lstm_step on the mapping"
CHARGED_ONCE |= {"lstm biases subtracted": LSTM_VALUES, "gru update gate given b_r": GRU_VALUES} | {
    name: LSTM_VALUES if name.startswith("lstm") else GRU_VALUES for name in UNKNOWN_LOCATED
}


# Smooth made-up mappings and step (a hostile review's): every tensor made up, so the gradients are judged against
# nothing of the student's own and earn nothing, nor does the written-out point.
SMOOTH_MADE_UP = """import torch
from torch import nn


def _t(cell):
    return 0.01 * (cell.weight_ih.sum() + cell.weight_hh.sum() + cell.bias_ih.sum() + cell.bias_hh.sum())


def lstm_params_from_torch(cell):
    d_h = cell.hidden_size
    d = cell.input_size + d_h
    s = _t(cell)
    one = torch.ones(d_h, d, dtype=cell.weight_ih.dtype, device=cell.weight_ih.device)
    params = {f"W_{g}": torch.tanh(s) * one for g in "ifoc"}
    params |= {f"b_{g}": torch.tanh(s) * one[:, 0] for g in "ifoc"}
    return params


def gru_params_from_torch(cell):
    return {"W": cell.weight_ih, "U": cell.weight_hh, "b1": cell.bias_ih, "b2": cell.bias_hh}


def torch_gru_step(x, h, params):
    s = 0.01 * sum(p.sum() for p in params.values())
    return torch.tanh(x.sum(1, keepdim=True) + h + s)
"""
DEGENERATE |= {"smooth made-up mappings and step": {"parity.py": SMOOTH_MADE_UP}}
