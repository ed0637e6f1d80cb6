"""Public checks for ex05 (worth no points; the graded checks are hidden). Run: grade run ex05

They check the keys and shapes of each step and one worked example each, with every number non-zero and distinct
(sin of a ramp): no gate sits at σ(0) = 0.5 and no U_* is symmetric, so the conventions the statement warns about
– [h, x] order, the GRU's swapped update, the reset gate's place, Wᵀ, the candidate's tanh, tanh(c) in h, the
input gate's own place – each change the worked example's outputs.
"""

import math

import torch

from grader.checks import Text, assert_close, expect_tensor, require, student_module

gated = student_module("gated")

B, D_X, D_H = 2, 3, 2
# The worked examples' outputs, rounded to 8 decimals: row b of each output is the b-th inner list.
LSTM_EXAMPLE = {
    "i": [[0.52653241, 0.28727387], [0.74684501, 0.60153998]],
    "f": [[0.37425022, 0.2062088], [0.81025378, 0.6442437]],
    "o": [[0.34036048, 0.36634725], [0.61935578, 0.55720117]],
    "candidate": [[-0.19833368, 0.6386242], [-0.72853857, -0.33237559]],
    "c": [[-0.15756184, -0.000957], [-0.81674687, 0.26024676]],
    "h": [[-0.0531884, -0.00035059], [-0.41700938, 0.14182236]],
}
GRU_EXAMPLE = {
    "z": [[0.14914057, 0.64184587], [0.40043667, 0.14304517]],
    "r": [[0.20962536, 0.43792095], [0.4732748, 0.49320144]],
    "candidate": [[0.06178769, -0.41258374], [0.29926304, 0.90903388]],
    "h": [[0.15266605, -0.4033955], [-0.1746419, 0.76830399]],
}


def numbers(*shape, phase, device):
    """0.9 sin(1.3 k + phase) for k = 1, 2, ...: distinct numbers in (−0.9, 0.9), filled row by row."""
    k = torch.arange(1, math.prod(shape) + 1, dtype=torch.float64, device=device)
    return (0.9 * torch.sin(1.3 * k + phase)).reshape(shape)


def lstm_example(device) -> dict:
    inputs = {"x": numbers(B, D_X, phase=0, device=device), "h": numbers(B, D_H, phase=1, device=device), "c": numbers(B, D_H, phase=2, device=device)}
    for k, gate in enumerate("ifoc"):
        inputs[f"W_{gate}"] = numbers(D_H, D_X + D_H, phase=3 + k, device=device)
        inputs[f"b_{gate}"] = numbers(D_H, phase=7 + k, device=device)
    return inputs


def gru_example(device) -> dict:
    inputs = {"x": numbers(B, D_X, phase=0, device=device), "h": numbers(B, D_H, phase=1, device=device)}
    for k, gate in enumerate("zrh"):
        inputs[f"W_{gate}"] = numbers(D_H, D_X, phase=3 + k, device=device)
        inputs[f"U_{gate}"] = numbers(D_H, D_H, phase=6 + k, device=device)
        inputs[f"b_{gate}"] = numbers(D_H, phase=9 + k, device=device)
    return inputs


def worked_example(out, example: dict, fn: str, device) -> None:
    """The step's result is a dict of (B, d_h) float64 tensors with the example's keys and values (to 8 decimals)."""
    require(isinstance(out, dict), f"{fn} must return a dict", f"{fn} 必须返回 dict")
    for key in example:
        require(key in out, f"{fn}'s result has no key {key!r}", f"{fn} 的结果缺少键 {key!r}")
        expect_tensor(out[key], name=f"{fn}()[{key!r}]", shape=(B, D_H), dtype=torch.float64)
    for key, rows in example.items():
        expected = torch.tensor(rows, dtype=torch.float64, device=device)
        assert_close(out[key], expected, name=Text(f"{fn}()[{key!r}] in the worked example", f"示例中的 {fn}()[{key!r}]"), rtol=0, atol=1e-8)


def test_lstm_shapes_and_worked_example(gated, device):
    """lstm_step returns i, f, o, candidate, c, h of shape (B, d_h) with the worked example's values
    lstm_step 返回形状为 (B, d_h) 的 i、f、o、candidate、c、h，数值与示例一致"""
    worked_example(gated.lstm_step(**lstm_example(device)), LSTM_EXAMPLE, "lstm_step", device)


def test_gru_shapes_and_worked_example(gated, device):
    """gru_step returns z, r, candidate, h of shape (B, d_h) with the worked example's values
    gru_step 返回形状为 (B, d_h) 的 z、r、candidate、h，数值与示例一致"""
    worked_example(gated.gru_step(**gru_example(device)), GRU_EXAMPLE, "gru_step", device)
