"""ex06: reproduce nn.LSTMCell and nn.GRUCell exactly. Fill in the three functions; see README.md.

Rows are samples: x is (B, d_x), h is (B, d_h). Look up how PyTorch stacks the gates in weight_ih,
weight_hh, bias_ih and bias_hh, and where nn.GRUCell applies its reset gate. Keep float64 in,
float64 out, and keep gradients flowing back to the cell's parameters (no .detach(), .data, .item(),
torch.no_grad() or new tensors built from values).
"""

import torch
from torch import Tensor, nn


def lstm_params_from_torch(cell: nn.LSTMCell) -> dict[str, Tensor]:
    """The keyword parameters of ex05's lstm_step that make it compute exactly what `cell` computes.

    Returns {"W_i", "W_f", "W_o", "W_c", "b_i", "b_f", "b_o", "b_c"}: each W_* is (d_h, d_x + d_h) and acts
    on u = [x, h] (x first); each b_* is (d_h,). W_c, b_c belong to the candidate (PyTorch's g).
    Built from cell.weight_ih (4·d_h, d_x), cell.weight_hh (4·d_h, d_h), cell.bias_ih, cell.bias_hh (4·d_h,).
    """
    raise NotImplementedError("ex06: implement lstm_params_from_torch")


def gru_params_from_torch(cell: nn.GRUCell) -> dict[str, Tensor]:
    """The parameters torch_gru_step needs to compute exactly what `cell` computes.

    Returns a dict whose keys you choose and whose values are tensors (no lists), sliced or combined from
    cell.weight_ih (3·d_h, d_x), cell.weight_hh (3·d_h, d_h), cell.bias_ih and cell.bias_hh (3·d_h,).
    """
    raise NotImplementedError("ex06: implement gru_params_from_torch")


def torch_gru_step(x: Tensor, h: Tensor, params: dict[str, Tensor]) -> Tensor:
    """One step of nn.GRUCell, written out: x (B, d_x), h (B, d_h), params from gru_params_from_torch.

    Returns the new hidden state (B, d_h), equal to cell(x, h) up to float64 rounding.
    Do not call nn.GRUCell, torch.gru_cell or torch._VF.
    """
    raise NotImplementedError("ex06: implement torch_gru_step")
