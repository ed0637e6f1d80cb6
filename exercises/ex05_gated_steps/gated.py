"""ex05: one step of an LSTM and of a GRU. Fill in both functions; see README.md.

Rows are samples: x is (B, d_x), states are (B, d_h). LSTM weights act on u = [x, h];
GRU weights W_* act on x and U_* on h. The GRU uses h_new = z*h + (1 - z)*candidate.
Do not use nn.LSTMCell, nn.GRUCell, torch.lstm_cell, torch.gru_cell or torch._VF, and import
only torch, math and typing.
"""

import torch
from torch import Tensor


def lstm_step(
    x: Tensor, h: Tensor, c: Tensor,
    W_i: Tensor, W_f: Tensor, W_o: Tensor, W_c: Tensor,
    b_i: Tensor, b_f: Tensor, b_o: Tensor, b_c: Tensor,
) -> dict[str, Tensor]:
    """One LSTM step.

    x: (B, d_x); h, c: (B, d_h); W_*: (d_h, d_x + d_h) acting on [x, h]; b_*: (d_h,).
    Returns {"i", "f", "o", "candidate", "c", "h"}, each (B, d_h).
    Raises ValueError when x or h is not 2-D, c.shape != h.shape, batch sizes differ,
    or a weight's shape does not fit.
    """
    raise NotImplementedError("ex05: implement lstm_step")


def gru_step(
    x: Tensor, h: Tensor,
    W_z: Tensor, U_z: Tensor, W_r: Tensor, U_r: Tensor, W_h: Tensor, U_h: Tensor,
    b_z: Tensor, b_r: Tensor, b_h: Tensor,
) -> dict[str, Tensor]:
    """One GRU step, h_new = z*h + (1 - z)*candidate.

    x: (B, d_x); h: (B, d_h); W_*: (d_h, d_x); U_*: (d_h, d_h); b_*: (d_h,).
    Returns {"z", "r", "candidate", "h"}, each (B, d_h).
    Raises ValueError when x or h is not 2-D, batch sizes differ, or a weight's shape does not fit.
    """
    raise NotImplementedError("ex05: implement gru_step")
