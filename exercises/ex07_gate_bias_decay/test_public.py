"""Public checks for ex07 (worth no points; the graded checks are hidden). Run: grade run ex07

They check the form of the answer sheet (the course's keys, each answered in the form its question asks)
and of constant_gate_params' result, and one worked example that gives no graded value away: with a
step function that halves the state (and ignores its weights), ‖∂s_1/∂s_0‖ = 0.5. The graded checks pass the chapter's own step functions instead.
"""

import torch

from grader.checks import Number, check_sheet_form, expect_tensor, inject, require, student_module

decay = student_module("decay")

D_X, D_H = 3, 4
SHAPES = {
    "lstm": {**{f"W_{g}": (D_H, D_X + D_H) for g in "ifoc"}, **{f"b_{g}": (D_H,) for g in "ifoc"}},
    "gru": {**{f"W_{g}": (D_H, D_X) for g in "zrh"}, **{f"U_{g}": (D_H, D_H) for g in "zrh"},
            **{f"b_{g}": (D_H,) for g in "zrh"}},
}
FORMS = {"bias_for_gate": Number(digits=4), "retain_power": Number(digits=4), "bias_to_keep": Number(digits=4)}


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)


def test_constant_gate_params_keys_and_shapes(decay):
    """constant_gate_params returns exactly ex05's keyword parameters, float64, of ex05's shapes
    constant_gate_params 恰好返回 ex05 的关键字参数，float64，形状与 ex05 相同"""
    for kind, shapes in SHAPES.items():
        params = decay.constant_gate_params(kind=kind, retain=0.5, d_x=D_X, d_h=D_H)
        require(isinstance(params, dict), "constant_gate_params must return a dict", "constant_gate_params 必须返回 dict")
        require(set(params) == set(shapes), f"{kind}: the keys must be exactly {', '.join(shapes)}",
                f"{kind}：键必须恰好是 {', '.join(shapes)}")
        for key, shape in shapes.items():
            expect_tensor(params[key], name=f"constant_gate_params({kind!r}, ...)[{key!r}]", shape=shape, dtype=torch.float64)


def test_one_step_of_a_halving_step(decay, device):
    """With a step that halves the state, state_jacobian_norm measures ‖∂s_1/∂s_0‖ = 0.5
    单步函数把状态减半时，state_jacobian_norm 测得 ‖∂s_1/∂s_0‖ = 0.5"""
    for kind, shapes in SHAPES.items():
        params = {k: torch.zeros(*s, dtype=torch.float64, device=device) for k, s in shapes.items()}
        value = decay.state_jacobian_norm(kind=kind, step=inject("halving_step"), params=params, T=1, d_x=D_X)
        require(isinstance(value, float), f"state_jacobian_norm must return a float, got {type(value).__name__}",
                f"state_jacobian_norm 必须返回 float，实际为 {type(value).__name__}")
        require(abs(value - 0.5) < 1e-9, f"{kind}: with a step that halves the state, T=1 gives {value:.6g}, expected 0.5",
                f"{kind}：单步函数把状态减半时，T=1 得到 {value:.6g}，应为 0.5")
