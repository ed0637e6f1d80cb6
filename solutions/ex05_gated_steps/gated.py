"""ex05 reference: one step of an LSTM and of a GRU (the answer key, item 5; textbook §2.3.2–2.3.3).

Rows are samples: x is (B, d_x), states are (B, d_h). LSTM weights act on u = [x, h];
GRU weights W_* act on x and U_* on h. The GRU uses h_new = z*h + (1 - z)*candidate.
"""

import torch
from torch import Tensor


def _check_states(x: Tensor, h: Tensor) -> None:
    if x.ndim != 2 or h.ndim != 2:
        raise ValueError(f"x and h must be 2-D (batch, features), got {tuple(x.shape)} and {tuple(h.shape)}")
    if x.shape[0] != h.shape[0]:
        raise ValueError(f"x and h have different batch sizes: {x.shape[0]} and {h.shape[0]}")


def _check_weight(name: str, w: Tensor, shape: tuple[int, ...]) -> None:
    if tuple(w.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}, got {tuple(w.shape)}")


def lstm_step(
    x: Tensor, h: Tensor, c: Tensor,
    W_i: Tensor, W_f: Tensor, W_o: Tensor, W_c: Tensor,
    b_i: Tensor, b_f: Tensor, b_o: Tensor, b_c: Tensor,
) -> dict[str, Tensor]:
    """One LSTM step.

    x: (B, d_x); h, c: (B, d_h); W_*: (d_h, d_x + d_h) acting on [x, h]; b_*: (d_h,).
    Returns {"i", "f", "o", "candidate", "c", "h"}, each (B, d_h).
    """
    _check_states(x, h)
    if c.shape != h.shape:
        raise ValueError(f"c must have the shape of h {tuple(h.shape)}, got {tuple(c.shape)}")
    d_h, d = h.shape[1], x.shape[1] + h.shape[1]
    for name, w in (("W_i", W_i), ("W_f", W_f), ("W_o", W_o), ("W_c", W_c)):
        _check_weight(name, w, (d_h, d))
    for name, b in (("b_i", b_i), ("b_f", b_f), ("b_o", b_o), ("b_c", b_c)):
        _check_weight(name, b, (d_h,))
    u = torch.cat([x, h], dim=-1)
    i = torch.sigmoid(u @ W_i.T + b_i)
    f = torch.sigmoid(u @ W_f.T + b_f)
    o = torch.sigmoid(u @ W_o.T + b_o)
    candidate = torch.tanh(u @ W_c.T + b_c)
    c_new = f * c + i * candidate
    h_new = o * torch.tanh(c_new)
    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}


def gru_step(
    x: Tensor, h: Tensor,
    W_z: Tensor, U_z: Tensor, W_r: Tensor, U_r: Tensor, W_h: Tensor, U_h: Tensor,
    b_z: Tensor, b_r: Tensor, b_h: Tensor,
) -> dict[str, Tensor]:
    """One GRU step, h_new = z*h + (1 - z)*candidate.

    x: (B, d_x); h: (B, d_h); W_*: (d_h, d_x); U_*: (d_h, d_h); b_*: (d_h,).
    Returns {"z", "r", "candidate", "h"}, each (B, d_h).
    """
    _check_states(x, h)
    d_x, d_h = x.shape[1], h.shape[1]
    for name, w in (("W_z", W_z), ("W_r", W_r), ("W_h", W_h)):
        _check_weight(name, w, (d_h, d_x))
    for name, w in (("U_z", U_z), ("U_r", U_r), ("U_h", U_h)):
        _check_weight(name, w, (d_h, d_h))
    for name, b in (("b_z", b_z), ("b_r", b_r), ("b_h", b_h)):
        _check_weight(name, b, (d_h,))
    z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)
    r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)
    candidate = torch.tanh(x @ W_h.T + (r * h) @ U_h.T + b_h)
    h_new = z * h + (1.0 - z) * candidate
    return {"z": z, "r": r, "candidate": candidate, "h": h_new}
