"""Public checks for ex05 (worth no points; the graded checks are hidden). Run: grade run ex05

They check shapes and one worked example with all weights zero, where every gate is σ(0) = 0.5
and every candidate is tanh(0) = 0.
"""

import torch

from grader.checks import Text, assert_close, expect_tensor, require, student_module

gated = student_module("gated")

B, D_X, D_H = 2, 3, 4


def zeros(*shape, device):
    return torch.zeros(*shape, dtype=torch.float64, device=device)


def test_lstm_shapes_and_zero_weights(gated, device):
    """lstm_step returns i, f, o, candidate, c, h of shape (B, d_h); with zero weights c = c_prev / 2
    lstm_step 返回形状为 (B, d_h) 的 i、f、o、candidate、c、h；权重为零时 c = c_prev / 2"""
    c_prev = torch.arange(B * D_H, dtype=torch.float64, device=device).reshape(B, D_H) / 4
    inputs = {"x": torch.ones(B, D_X, dtype=torch.float64, device=device), "h": zeros(B, D_H, device=device), "c": c_prev}
    inputs |= {f"W_{g}": zeros(D_H, D_X + D_H, device=device) for g in "ifoc"}
    inputs |= {f"b_{g}": zeros(D_H, device=device) for g in "ifoc"}
    out = gated.lstm_step(**inputs)
    require(isinstance(out, dict), "lstm_step must return a dict", "lstm_step 必须返回 dict")
    for key in ("i", "f", "o", "candidate", "c", "h"):
        require(key in out, f"lstm_step's result has no key {key!r}", f"lstm_step 的结果缺少键 {key!r}")
        expect_tensor(out[key], name=f"lstm_step()[{key!r}]", shape=(B, D_H), dtype=torch.float64)
    assert_close(out["c"], c_prev / 2, name=Text("c with zero weights", "权重为零时的 c"), rtol=1e-12, atol=1e-12)


def test_gru_shapes_and_zero_weights(gated, device):
    """gru_step returns z, r, candidate, h of shape (B, d_h); with zero weights h = h_prev / 2
    gru_step 返回形状为 (B, d_h) 的 z、r、candidate、h；权重为零时 h = h_prev / 2"""
    h_prev = torch.arange(B * D_H, dtype=torch.float64, device=device).reshape(B, D_H) / 4
    inputs = {"x": torch.ones(B, D_X, dtype=torch.float64, device=device), "h": h_prev}
    inputs |= {f"W_{g}": zeros(D_H, D_X, device=device) for g in "zrh"}
    inputs |= {f"U_{g}": zeros(D_H, D_H, device=device) for g in "zrh"}
    inputs |= {f"b_{g}": zeros(D_H, device=device) for g in "zrh"}
    out = gated.gru_step(**inputs)
    require(isinstance(out, dict), "gru_step must return a dict", "gru_step 必须返回 dict")
    for key in ("z", "r", "candidate", "h"):
        require(key in out, f"gru_step's result has no key {key!r}", f"gru_step 的结果缺少键 {key!r}")
        expect_tensor(out[key], name=f"gru_step()[{key!r}]", shape=(B, D_H), dtype=torch.float64)
    assert_close(out["h"], h_prev / 2, name=Text("h with zero weights", "权重为零时的 h"), rtol=1e-12, atol=1e-12)
