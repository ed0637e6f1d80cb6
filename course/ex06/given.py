"""ex06: torch cells rebuilt from weights the grader chose; library cells cannot run in ex06's process.

The cells exist only to be read (their parameters); torch_gru_step must compute the step itself.
"""

from __future__ import annotations

import torch
from torch import nn

from grader.inside.given import block_library_cells, builder


def prepare() -> None:
    block_library_cells("ex06")


@builder
def lstm_cell(*, device: torch.device, weight_ih: torch.Tensor, weight_hh: torch.Tensor, bias_ih: torch.Tensor, bias_hh: torch.Tensor) -> nn.LSTMCell:
    """An nn.LSTMCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.LSTMCell, 4, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


@builder
def gru_cell(*, device: torch.device, weight_ih: torch.Tensor, weight_hh: torch.Tensor, bias_ih: torch.Tensor, bias_hh: torch.Tensor) -> nn.GRUCell:
    """An nn.GRUCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.GRUCell, 3, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


def _cell(kind: type[nn.Module], blocks: int, device: torch.device, **state: torch.Tensor) -> nn.Module:
    rows, d_x = state["weight_ih"].shape
    cell = kind(d_x, rows // blocks, dtype=state["weight_ih"].dtype, device=device)
    with torch.no_grad():
        for name, value in state.items():
            getattr(cell, name).copy_(value)
    return cell
