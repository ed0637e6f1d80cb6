"""Public checks for ex06 (worth no points; the graded checks are hidden). Run: grade run ex06

The cells are built by the grader from weights chosen here (`inject`), exactly as in the hidden
checks. These check keys, shapes and dtypes, and one worked example: with every weight and bias of
an nn.GRUCell zero, both gates are σ(0) = 0.5 and n = tanh(0) = 0, so h' = h / 2.
"""

import torch

from grader.checks import Text, assert_close, expect_tensor, inject, require, student_module

parity = student_module("parity")

B, D_X, D_H = 2, 3, 4
LSTM_KEYS = ("W_i", "W_f", "W_o", "W_c", "b_i", "b_f", "b_o", "b_c")


def weights(blocks: int, device, *, zero: bool = False) -> dict:
    g = torch.Generator().manual_seed(0)
    shapes = {"weight_ih": (blocks * D_H, D_X), "weight_hh": (blocks * D_H, D_H),
              "bias_ih": (blocks * D_H,), "bias_hh": (blocks * D_H,)}
    make = lambda s: torch.zeros(*s, dtype=torch.float64) if zero else torch.randn(*s, generator=g, dtype=torch.float64)  # noqa: E731
    return {k: make(s).to(device) for k, s in shapes.items()}


def test_lstm_mapping_keys_and_shapes(parity, device):
    """lstm_params_from_torch returns W_i … b_c as float64 tensors of ex05's shapes
    lstm_params_from_torch 返回 ex05 形状的 float64 张量 W_i … b_c"""
    mapping = parity.lstm_params_from_torch(cell=inject("lstm_cell", **weights(4, device)))
    require(isinstance(mapping, dict), "lstm_params_from_torch must return a dict", "lstm_params_from_torch 必须返回 dict")
    for key in LSTM_KEYS:
        require(key in mapping, f"lstm_params_from_torch's result has no key {key!r}",
                f"lstm_params_from_torch 的结果缺少键 {key!r}")
        shape = (D_H, D_X + D_H) if key.startswith("W") else (D_H,)
        expect_tensor(mapping[key], name=f"lstm_params_from_torch()[{key!r}]", shape=shape, dtype=torch.float64)


def test_gru_step_shape_and_zero_cell(parity, device):
    """torch_gru_step(x, h, gru_params_from_torch(cell)) is (B, d_h) float64; an all-zero cell gives h / 2
    torch_gru_step(x, h, gru_params_from_torch(cell)) 为 (B, d_h) 的 float64；全零单元给出 h / 2"""
    params = parity.gru_params_from_torch(cell=inject("gru_cell", **weights(3, device, zero=True)))
    require(isinstance(params, dict), "gru_params_from_torch must return a dict of tensors",
            "gru_params_from_torch 必须返回由张量组成的 dict")
    x = torch.ones(B, D_X, dtype=torch.float64, device=device)
    h = torch.arange(B * D_H, dtype=torch.float64, device=device).reshape(B, D_H) / 4
    out = parity.torch_gru_step(x=x, h=h, params=params)
    assert_close(out, h / 2, name=Text("torch_gru_step with an all-zero cell", "全零单元的 torch_gru_step"), rtol=1e-12, atol=1e-12)
