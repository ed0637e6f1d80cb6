"""ex06 reference: map torch's LSTMCell/GRUCell parameters onto the chapter's equations (the answer key, item 6).

PyTorch stacks the LSTM gates as i, f, g, o and the GRU gates as r, z, n along dim 0 of weight_ih,
weight_hh, bias_ih and bias_hh. nn.GRUCell applies the reset gate after the recurrent matmul, with
b_hn inside it: n = tanh(x W_inᵀ + b_in + r ⊙ (h W_hnᵀ + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h.
"""

import torch
from torch import Tensor, nn


def lstm_params_from_torch(cell: nn.LSTMCell) -> dict[str, Tensor]:
    """The keyword parameters W_i … b_c of ex05's lstm_step that make it compute `cell`.

    W_*: (d_h, d_x + d_h) acting on [x, h]; b_*: (d_h,). Gradients flow back to the cell's parameters.
    """
    weight = torch.cat([cell.weight_ih, cell.weight_hh], dim=1)  # columns [x | h]
    bias = cell.bias_ih + cell.bias_hh  # two bias vectors act as one
    gates = ("i", "f", "c", "o")  # PyTorch stacks i, f, g (the candidate, ex05's c), o
    params = {f"W_{g}": w for g, w in zip(gates, weight.chunk(4, dim=0))}
    params |= {f"b_{g}": b for g, b in zip(gates, bias.chunk(4))}
    return params


def gru_params_from_torch(cell: nn.GRUCell) -> dict[str, Tensor]:
    """The parameters torch_gru_step needs to compute `cell`: W_* (d_h, d_x), U_* (d_h, d_h), biases (d_h,)."""
    gates = ("r", "z", "n")  # PyTorch stacks r, z, n
    W = dict(zip(gates, cell.weight_ih.chunk(3, dim=0)))
    U = dict(zip(gates, cell.weight_hh.chunk(3, dim=0)))
    b_ih = dict(zip(gates, cell.bias_ih.chunk(3)))
    b_hh = dict(zip(gates, cell.bias_hh.chunk(3)))
    return {
        "W_r": W["r"], "U_r": U["r"], "b_r": b_ih["r"] + b_hh["r"],
        "W_z": W["z"], "U_z": U["z"], "b_z": b_ih["z"] + b_hh["z"],
        "W_n": W["n"], "U_n": U["n"], "b_in": b_ih["n"], "b_hn": b_hh["n"],
    }


def torch_gru_step(x: Tensor, h: Tensor, params: dict[str, Tensor]) -> Tensor:
    """One nn.GRUCell step from gru_params_from_torch's parameters. x: (B, d_x); h: (B, d_h) -> (B, d_h)."""
    p = params
    r = torch.sigmoid(x @ p["W_r"].T + h @ p["U_r"].T + p["b_r"])
    z = torch.sigmoid(x @ p["W_z"].T + h @ p["U_z"].T + p["b_z"])
    n = torch.tanh(x @ p["W_n"].T + p["b_in"] + r * (h @ p["U_n"].T + p["b_hn"]))
    return (1.0 - z) * n + z * h
