"""ex07: how a retention gate's bias sets the decay of ∂s_T/∂s_0. Fill in both functions; see README.md.

The step functions follow ex05: lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c) and
gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h) with h_new = z*h + (1 - z)*candidate.
The grader passes the course's own step function as `step`, so your ex05 does not matter here.
"""

from typing import Callable

import torch
from torch import Tensor


def constant_gate_params(kind: str, retain: float, d_x: int, d_h: int) -> dict[str, Tensor]:
    """ex05 step parameters (float64) with every W/U zero and the retention gate fixed at `retain`.

    kind "lstm": W_i, W_f, W_o, W_c (d_h, d_x + d_h), b_i, b_f, b_o, b_c (d_h,), with σ(b_f) = retain.
    kind "gru": W_z, W_r, W_h (d_h, d_x), U_z, U_r, U_h (d_h, d_h), b_z, b_r, b_h (d_h,), with σ(b_z) = retain.
    Every other bias is zero. Raises ValueError unless 0 < retain < 1 and kind is "lstm" or "gru".
    """
    raise NotImplementedError("ex07: implement constant_gate_params")


def state_jacobian_norm(kind: str, step: Callable, params: dict[str, Tensor], T: int, d_x: int) -> float:
    """Spectral norm (largest singular value) of ∂s_T/∂s_0, measured with autograd.

    Runs `step` T times on zero inputs x of shape (1, d_x) from zero states (dtype and device of `params`),
    calling it with keyword arguments: step(x=x, h=h, c=c, **params) for "lstm", step(x=x, h=h, **params)
    for "gru"; each call returns a dict with "h" (and "c"). s = c for the LSTM (h_0 held fixed), s = h for
    the GRU, so the Jacobian is (d_h, d_h). Returns a float.
    """
    raise NotImplementedError("ex07: implement state_jacobian_norm")
