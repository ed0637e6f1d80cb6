"""ex07's hidden checks run step functions built from torch's library cells, so a wrong ex05 costs nothing here.

They take ex05's keyword parameters and return what ex05's steps return for the state, but they are
not ex05's answer: they call torch.lstm_cell / torch.gru_cell, which ex05's process refuses at the
dispatcher, so a step relayed from ex07's process computes nothing there. PyTorch's GRU applies r
after U_h (r ⊙ (h U_hᵀ)), ex05's before it ((r ⊙ h) U_hᵀ); ex07's checks measure Jacobians through this
same step on both sides, and with constant gates (every U zero) the two agree.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from grader.inside.given import builder


@builder
def lstm_step(*, device) -> Callable:
    """step(x=, h=, c=, W_i=, W_f=, W_o=, W_c=, b_i=, b_f=, b_o=, b_c=) -> {"h", "c"}; W_* (d_h, d_x + d_h) act on [x, h]."""

    def step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
        d_x = x.shape[1]
        weights = torch.cat([W_i, W_f, W_c, W_o])  # torch's gate order: input, forget, cell, output
        bias = torch.cat([b_i, b_f, b_c, b_o])
        h_new, c_new = torch.lstm_cell(x, (h, c), weights[:, :d_x], weights[:, d_x:], bias, torch.zeros_like(bias))
        return {"h": h_new, "c": c_new}

    return step


@builder
def gru_step(*, device) -> Callable:
    """step(x=, h=, W_z=, U_z=, W_r=, U_r=, W_h=, U_h=, b_z=, b_r=, b_h=) -> {"h"}, h_new = z ⊙ h + (1 − z) ⊙ candidate."""

    def step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
        bias = torch.cat([b_r, b_z, b_h])  # torch's gate order: reset, update, new
        h_new = torch.gru_cell(x, h, torch.cat([W_r, W_z, W_h]), torch.cat([U_r, U_z, U_h]), bias, torch.zeros_like(bias))
        return {"h": h_new}

    return step
