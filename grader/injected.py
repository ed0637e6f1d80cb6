"""Public course code that the grader builds inside a student process in place of an `Inject` argument.

Where one exercise builds on another (ex07 runs a step function, ex06 maps a torch cell), the
grader injects this code rather than the student's own earlier work, so one mistake is not charged
twice. Everything here is what the chapter itself shows – the answer key's step functions (seed 004
item 5) and torch cells rebuilt from weights the grader chose – never a hidden check or an
expected value. It runs in the student process, so nothing it reports is trusted.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from grader.wire import Inject

BUILDERS: dict[str, Callable] = {}


def builder(fn: Callable) -> Callable:
    BUILDERS[fn.__name__] = fn
    return fn


def build(inject: Inject, device: torch.device):
    """The object an `Inject` stands for; ValueError for a name the course does not define."""
    if inject.name not in BUILDERS:
        raise ValueError(f"unknown injected helper {inject.name!r}")
    return BUILDERS[inject.name](device=device, **inject.args)


def _answer_key_lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    u = torch.cat([x, h], dim=-1)
    i = torch.sigmoid(u @ W_i.T + b_i)
    f = torch.sigmoid(u @ W_f.T + b_f)
    o = torch.sigmoid(u @ W_o.T + b_o)
    candidate = torch.tanh(u @ W_c.T + b_c)
    c_new = f * c + i * candidate
    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": o * torch.tanh(c_new)}


def _answer_key_gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)
    r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)
    candidate = torch.tanh(x @ W_h.T + (r * h) @ U_h.T + b_h)
    return {"z": z, "r": r, "candidate": candidate, "h": z * h + (1.0 - z) * candidate}


@builder
def lstm_step(*, device) -> Callable:
    """The chapter's LSTM step (seed 004 item 5), keyword parameters W_i … b_c."""
    return _answer_key_lstm_step


@builder
def gru_step(*, device) -> Callable:
    """The chapter's GRU step (seed 004 item 5), h_new = z*h + (1 - z)*candidate."""
    return _answer_key_gru_step


@builder
def lstm_cell(*, device, weight_ih, weight_hh, bias_ih, bias_hh) -> nn.LSTMCell:
    """An nn.LSTMCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.LSTMCell, 4, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


@builder
def gru_cell(*, device, weight_ih, weight_hh, bias_ih, bias_hh) -> nn.GRUCell:
    """An nn.GRUCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.GRUCell, 3, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


def _cell(kind: type, blocks: int, device, **state) -> nn.Module:
    rows, d_x = state["weight_ih"].shape
    cell = kind(d_x, rows // blocks, dtype=state["weight_ih"].dtype, device=device)
    with torch.no_grad():
        for name, value in state.items():
            getattr(cell, name).copy_(value)
    return cell
