"""ex05's known mistakes in gated.py."""

from . import bank

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = bank("ex05", "gated.py", {
    "lstm sigmoid on the candidate": (
        "candidate = torch.tanh(u @ W_c.T + b_c)", "candidate = torch.sigmoid(u @ W_c.T + b_c)", "sigmoid on the candidate"),
    "missing tanh on c in h": ("h_new = o * torch.tanh(c_new)", "h_new = o * c_new", "missing tanh on c"),
    "[h, x] order": ("u = torch.cat([x, h], dim=-1)", "u = torch.cat([h, x], dim=-1)", "[h, x] order: u puts h first"),
    "coupled gates": ("c_new = f * c + i * candidate", "c_new = f * c + (1 - f) * candidate", "coupled gates"),
    "swapped GRU convention": (
        "h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate", "swapped GRU convention"),
    "reset gate after the matmul": ("(r * h) @ U_h.T", "r * (h @ U_h.T)", "reset gate applied after the matmul"),
    "gru sigmoid on the candidate": (
        "candidate = torch.tanh(x @ W_h.T", "candidate = torch.sigmoid(x @ W_h.T", "sigmoid on the candidate"),
    "batch reduction": (
        "c_new = f * c + i * candidate", "c_new = f * c + (i * candidate).mean(0, keepdim=True)", "batch mixing"),
    "square U_z untransposed": ("z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)", "z = torch.sigmoid(x @ W_z.T + h @ U_z + b_z)",
                                "W instead of Wᵀ: U_z used untransposed"),
    "square U_h untransposed": ("(r * h) @ U_h.T", "(r * h) @ U_h", "W instead of Wᵀ: U_h used untransposed"),
    "W instead of W.T": ("i = torch.sigmoid(u @ W_i.T + b_i)", "i = torch.sigmoid(u @ W_i + b_i)", "W instead of Wᵀ"),
    "gru output squeezed": ("h_new = z * h + (1.0 - z) * candidate", "h_new = (z * h + (1.0 - z) * candidate).squeeze()",
                            "gru_step()['h']: expected shape (1, 1)"),
    "a batch of one handled apart": (
        "h_new = z * h + (1.0 - z) * candidate",
        "h_new = z * h + (1.0 - z) * candidate if len(x) > 1 else (1.0 - z) * h + z * candidate",
        "h is right in the values check"),
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
    "a private name of torch": ("import torch\n", "import torch\n\n_nn = torch._C._nn\n", "torch._C._nn"),
    "reaching through sys.modules": (
        "import torch\n", "import torch\n_key = __import__('sys').modules.get('grader.inside.given')\n", "must stand alone"),
})
