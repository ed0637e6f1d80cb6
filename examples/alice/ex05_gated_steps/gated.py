"""ex05 – Alice's hand-in (an example submission, written from the statement, not from the answer key).

Her mistakes, as the grader finds them: gru_step applies the reset gate after the matmul, as the PyTorch
docs of nn.GRUCell write it, and neither step checks the weights' shapes.
"""

import torch
from torch import Tensor


def lstm_step(
    x: Tensor, h: Tensor, c: Tensor,
    W_i: Tensor, W_f: Tensor, W_o: Tensor, W_c: Tensor,
    b_i: Tensor, b_f: Tensor, b_o: Tensor, b_c: Tensor,
) -> dict[str, Tensor]:
    # rows are samples, so x and h need the same number of rows
    if x.dim() != 2 or h.dim() != 2:
        raise ValueError("x and h should be matrices (batch, features)")
    if x.size(0) != h.size(0):
        raise ValueError("x and h need the same batch size")
    if c.shape != h.shape:
        raise ValueError("c and h must have the same shape")

    xh = torch.cat((x, h), dim=1)  # [x, h], the order in the statement
    gate_i = torch.sigmoid(xh @ W_i.t() + b_i)
    gate_f = torch.sigmoid(xh @ W_f.t() + b_f)
    gate_o = torch.sigmoid(xh @ W_o.t() + b_o)
    g = torch.tanh(xh @ W_c.t() + b_c)

    c_next = gate_f * c + gate_i * g
    h_next = gate_o * torch.tanh(c_next)
    return {"i": gate_i, "f": gate_f, "o": gate_o, "candidate": g, "c": c_next, "h": h_next}


def gru_step(
    x: Tensor, h: Tensor,
    W_z: Tensor, U_z: Tensor, W_r: Tensor, U_r: Tensor, W_h: Tensor, U_h: Tensor,
    b_z: Tensor, b_r: Tensor, b_h: Tensor,
) -> dict[str, Tensor]:
    if x.dim() != 2 or h.dim() != 2:
        raise ValueError("x and h should be matrices (batch, features)")
    if x.size(0) != h.size(0):
        raise ValueError("x and h need the same batch size")

    z = torch.sigmoid(x @ W_z.t() + h @ U_z.t() + b_z)
    r = torch.sigmoid(x @ W_r.t() + h @ U_r.t() + b_r)
    h_tilde = torch.tanh(x @ W_h.t() + r * (h @ U_h.t()) + b_h)
    # z keeps the old state, 1 - z lets the candidate in (this exercise's convention)
    h_next = z * h + (1 - z) * h_tilde
    return {"z": z, "r": r, "candidate": h_tilde, "h": h_next}
