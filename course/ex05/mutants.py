"""ex05's known mistakes in gated.py, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, mutate, reference

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = bank(
    "ex05",
    "gated.py",
    {
        "lstm sigmoid on the candidate": ("candidate = torch.tanh(u @ W_c.T + b_c)", "candidate = torch.sigmoid(u @ W_c.T + b_c)", "sigmoid on the candidate"),
        "missing tanh on c in h": ("h_new = o * torch.tanh(c_new)", "h_new = o * c_new", "missing tanh on c"),
        "[h, x] order": ("u = torch.cat([x, h], dim=-1)", "u = torch.cat([h, x], dim=-1)", "[h, x] order: u puts h first"),
        "coupled gates": ("c_new = f * c + i * candidate", "c_new = f * c + (1 - f) * candidate", "coupled gates"),
        "swapped GRU convention": ("h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate", "swapped GRU convention"),
        "reset gate after the matmul": ("(r * h) @ U_h.T", "r * (h @ U_h.T)", "reset gate applied after the matmul"),
        "gru sigmoid on the candidate": ("candidate = torch.tanh(x @ W_h.T", "candidate = torch.sigmoid(x @ W_h.T", "sigmoid on the candidate"),
        "batch reduction": ("c_new = f * c + i * candidate", "c_new = f * c + (i * candidate).mean(0, keepdim=True)", "batch mixing"),
        "square U_z untransposed": (
            "z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)",
            "z = torch.sigmoid(x @ W_z.T + h @ U_z + b_z)",
            "W instead of Wᵀ: U_z used untransposed",
        ),
        "square U_h untransposed": ("(r * h) @ U_h.T", "(r * h) @ U_h", "W instead of Wᵀ: U_h used untransposed"),
        "W instead of W.T": ("i = torch.sigmoid(u @ W_i.T + b_i)", "i = torch.sigmoid(u @ W_i + b_i)", "W instead of Wᵀ"),
        "gru output squeezed": (
            "h_new = z * h + (1.0 - z) * candidate",
            "h_new = (z * h + (1.0 - z) * candidate).squeeze()",
            "gru_step()['h']: expected shape (1, 1)",
        ),
        "a batch of one handled apart": (
            "h_new = z * h + (1.0 - z) * candidate",
            "h_new = z * h + (1.0 - z) * candidate if len(x) > 1 else (1.0 - z) * h + z * candidate",
            "h is right in the values check",
        ),
        "detached gate": ("f = torch.sigmoid(u @ W_f.T + b_f)", "f = torch.sigmoid(u @ W_f.T + b_f).detach()", "no gradient reaches W_f"),
        "float64 constant": (
            "h_new = z * h + (1.0 - z) * candidate",
            "h_new = z * h + (torch.ones(z.shape, dtype=torch.float64) - z) * candidate",
            "expected dtype torch.float32",
        ),
        "float32 cast": ("c_new = f * c + i * candidate", "c_new = (f * c + i * candidate).float()", "expected dtype torch.float64"),
        "tanh through exp": (
            "candidate = torch.tanh(u @ W_c.T + b_c)",
            "a = u @ W_c.T + b_c\n    candidate = (torch.exp(2 * a) - 1) / (torch.exp(2 * a) + 1)",
            "NaN or infinity",
        ),
        "no shape validation": (
            "def _check_states(x: Tensor, h: Tensor) -> None:\n",
            "def _check_states(x: Tensor, h: Tensor) -> None:\n    return\n",
            "no ValueError for",
        ),
        "library cell": ("import torch\n", "import torch\n\n_cell = torch.nn.LSTMCell\n", "library recurrent cells"),
        "a private name of torch": ("import torch\n", "import torch\n\n_nn = torch._C._nn\n", "torch._C._nn"),
        "reaching through sys.modules": ("import torch\n", "import torch\n_key = __import__('sys').modules.get('grader.inside.given')\n", "must stand alone"),
    },
)
# Mistakes no known one explains (a reviewer's submissions): the values check charges them; the dependent checks judge
# the student's own step against itself, so that a cut graph still shows beside them.
MUTANTS += bank(
    "ex05",
    "gated.py",
    {
        "o computed from W_f": (
            "o = torch.sigmoid(u @ W_o.T + b_o)",
            "o = torch.sigmoid(u @ W_f.T + b_o)",
            "First wrong: the output gate o (right from its bias alone",
        ),
        # where a step no known mistake explains first goes wrong: which output, and which of its inputs make it wrong
        "i given the forget gate's bias": (
            "i = torch.sigmoid(u @ W_i.T + b_i)",
            "i = torch.sigmoid(u @ W_i.T + b_f)",
            "First wrong: the input gate i (wrong already with x",
        ),
        "f without its h columns": (
            "f = torch.sigmoid(u @ W_f.T + b_f)",
            "f = torch.sigmoid(x @ W_f[:, : x.shape[1]].T + b_f)",
            "First wrong: the forget gate f (right with the states zero, wrong once h is non-zero",
        ),
        "c without the input gate": ("c_new = f * c + i * candidate", "c_new = f * c + candidate", "First wrong: c (it does not follow from your f, i"),
        "h without the output gate": ("h_new = o * torch.tanh(c_new)", "h_new = torch.tanh(c_new)", "First wrong: h (it does not follow from your o and c)"),
        "r given the update gate's bias": (
            "r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)",
            "r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_z)",
            "First wrong: the reset gate r (wrong already with x",
        ),
        "gru h without 1 - z": (
            "h_new = z * h + (1.0 - z) * candidate",
            "h_new = z * h + candidate",
            "First wrong: h (it does not follow from your z, candidate",
        ),
        "reset gate on x as well": (
            "candidate = torch.tanh(x @ W_h.T + (r * h) @ U_h.T + b_h)",
            "candidate = torch.tanh(r * (x @ W_h.T) + (r * h) @ U_h.T + b_h)",
            "wrong values for candidate, h",
        ),
        "o computed from W_f, f detached": (
            "f = torch.sigmoid(u @ W_f.T + b_f)\n    o = torch.sigmoid(u @ W_o.T + b_o)",
            "f = torch.sigmoid(u @ W_f.T + b_f).detach()\n    o = torch.sigmoid(u @ W_f.T + b_o)",
            "differ from finite differences of its own outputs",
        ),
    },
)
# Two named mistakes in one function: both named, charged once by the values check.
TWO_LSTM = (
    "candidate = torch.tanh(u @ W_c.T + b_c)\n    c_new = f * c + i * candidate\n    h_new = o * torch.tanh(c_new)",
    "candidate = torch.sigmoid(u @ W_c.T + b_c)\n    c_new = f * c + i * candidate\n    h_new = o * c_new",
)
TWO_GRU = ("(r * h) @ U_h.T + b_h)\n    h_new = z * h + (1.0 - z) * candidate", "(r * h) @ U_h + b_h)\n    h_new = (1.0 - z) * h + z * candidate")
MUTANTS += bank(
    "ex05",
    "gated.py",
    {
        "sigmoid on the candidate, no tanh on c in h": (*TWO_LSTM, "Likely mistakes: sigmoid on the candidate"),
        "swapped GRU convention, square U_h untransposed": (*TWO_GRU, "Likely mistakes: swapped GRU convention"),
    },
)

REFERENCE = reference("ex05")["gated.py"]

# Odd but plausible behaviour the diagnosis must survive: a Fail naming the problem, never an internal error.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = bank(
    "ex05",
    "gated.py",
    {
        "batch mixing that raises on a single row": (
            "c_new = f * c + i * candidate",
            'c_new = f * c + (i * candidate).mean(0, keepdim=True)\n    if x.shape[0] == 1:\n        raise RuntimeError("needs a batch")',
            "wrong values for c, h",
        ),
        "batch mixing with float32 single rows": (
            'return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}',
            "c_new = c_new + c_new.mean(0, keepdim=True) * (x.shape[0] > 1)\n    h_new = o * torch.tanh(c_new)\n"
            '    out = {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}\n'
            "    return {k: v.float() for k, v in out.items()} if x.shape[0] == 1 else out",
            "wrong values for c, h",
        ),
    },
)

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
# name: files in the stub folder's place
DEGENERATE = {
    "zeros wired to every input": {"gated.py": returning(wired(LSTM_INPUTS), wired(GRU_INPUTS))},
    "constant outputs": {"gated.py": returning("torch.full_like(h, 0.5)", "torch.full_like(h, 0.5)")},
    "returns its input": {"gated.py": returning("h * 1 + 0 * x.sum()", "h * 1 + 0 * x.sum()")},
    "empty results": {"gated.py": mutate(mutate(REFERENCE, LSTM_RETURN, "    return {}\n"), GRU_RETURN, "    return {}\n")},
}


WRITTEN_DIFFERENTLY = """import torch
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
"""
# name: files in the reference folder's place; each earns full marks
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

LSTM_VALUES, GRU_VALUES = "lstm_step: gates, candidate, c and h match the reference", "gru_step: gates, candidate and h match"
# name of a known mistake: the one check that must charge it (its values check: the dependent checks judge the student's
# own step when no known mistake explains its values).
CHARGED_ONCE = {
    "o computed from W_f": LSTM_VALUES,
    "reset gate on x as well": GRU_VALUES,
    "sigmoid on the candidate, no tanh on c in h": LSTM_VALUES,
    "swapped GRU convention, square U_h untransposed": GRU_VALUES,
}
# name: (files in the reference folder's place, the points it costs): the values check's share of the outputs wrong
# (o and h of six: 1 of 3; candidate and h of four: 1.5 of 3), and a cut graph beside it the gradient check's point.
COSTS = {
    "o computed from W_f": ({"gated.py": mutate(REFERENCE, "u @ W_o.T + b_o", "u @ W_f.T + b_o")}, 1),
    "reset gate on x as well": ({"gated.py": mutate(REFERENCE, "tanh(x @ W_h.T + (r * h)", "tanh(r * (x @ W_h.T) + (r * h)")}, 1.5),
    "o computed from W_f, f detached": (
        {"gated.py": mutate(mutate(REFERENCE, "u @ W_o.T + b_o", "u @ W_f.T + b_o"), "u @ W_f.T + b_f)", "u @ W_f.T + b_f).detach()")},
        2,
    ),
    "sigmoid on the candidate, no tanh on c in h": ({"gated.py": mutate(REFERENCE, *TWO_LSTM)}, 1.5),
    "swapped GRU convention, square U_h untransposed": ({"gated.py": mutate(REFERENCE, *TWO_GRU)}, 1.5),
    # c rounded through float32: the values check's 1 (c and h wrong) and float32's 0.5 (float32 in, float64 out); its
    # gradients, finite differences of a rounded step being noise, are asked only to be well formed
    "c rounded through float32": ({"gated.py": mutate(REFERENCE, "c_new = f * c + i * candidate", "c_new = (f * c + i * candidate).float().double()")}, 1.5),
}

ACCEPTED = {
    "stacked weights and einsum, F.linear, addcmul, lerp": {"gated.py": WRITTEN_DIFFERENTLY},
    # no matmul at all, the GRU update as n + z (h − n), outputs in another order: right at 1 x 1 too
    "broadcast products summed over the input axis": {"gated.py": ELEMENTWISE},
}


# Smooth made-up steps that change with every input (a hostile review's): no step of this exercise, so nothing of
# the function is judged against itself – float32, extremes, gradients, given gates and ValueErrors earn nothing.
SMOOTH_MADE_UP = """import torch

def _s(*ts):
    tot = 0
    for t in ts:
        tot = tot + t.sum() * 0.01
    return tot

def lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    v = torch.sigmoid(x.sum(1, keepdim=True) + h.sum(1, keepdim=True) + c.sum(1, keepdim=True)
                      + _s(W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c)) * torch.ones_like(h)
    return {k: v for k in ("i", "f", "o", "candidate", "c", "h")}

def gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    v = torch.sigmoid(x.sum(1, keepdim=True) + h.sum(1, keepdim=True)
                      + _s(W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h)) * torch.ones_like(h)
    return {k: v for k in ("z", "r", "candidate", "h")}
"""
DEGENERATE |= {"a smooth made-up step for every output": {"gated.py": SMOOTH_MADE_UP}}
# One gate of each step right, the rest made up: the values check's share for those gates, and nothing more.
ONE_GATE_ONLY = mutate(
    mutate(
        REFERENCE,
        """    f = torch.sigmoid(u @ W_f.T + b_f)
    o = torch.sigmoid(u @ W_o.T + b_o)
    candidate = torch.tanh(u @ W_c.T + b_c)
    c_new = f * c + i * candidate
    h_new = o * torch.tanh(c_new)
    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}
""",
        """    junk = i * torch.sigmoid(c + 0.01 * (W_f.sum() + W_o.sum() + W_c.sum() + b_f.sum() + b_o.sum() + b_c.sum()))
    return {"i": i, "f": junk, "o": junk, "candidate": junk, "c": junk, "h": junk}
""",
    ),
    """    r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)
    candidate = torch.tanh(x @ W_h.T + (r * h) @ U_h.T + b_h)
    h_new = z * h + (1.0 - z) * candidate
    return {"z": z, "r": r, "candidate": candidate, "h": h_new}
""",
    """    junk = z * torch.sigmoid(0.01 * (W_r.sum() + U_r.sum() + W_h.sum() + U_h.sum() + b_r.sum() + b_h.sum()))
    return {"z": z, "r": junk, "candidate": junk, "h": junk}
""",
)
COSTS |= {"one gate right, the rest made up": ({"gated.py": ONE_GATE_ONLY}, 14 - 1.25)}
