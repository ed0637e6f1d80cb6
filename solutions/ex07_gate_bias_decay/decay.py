"""ex07 reference: how a retention gate's bias sets the decay of ∂s_T/∂s_0 (the answer key, item 7; lecture 16).

With every weight zero and the retention gate fixed by its bias (LSTM f = σ(b_f); GRU z = σ(b_z) in
ex05's convention h_new = z*h + (1 - z)*candidate), zero inputs from zero states give
∂s_T/∂s_0 = retain^T · I. With other weights the full Jacobian is what autograd measures.
"""

import math
from typing import Callable

import torch
from torch import Tensor


def constant_gate_params(kind: str, retain: float, d_x: int, d_h: int) -> dict[str, Tensor]:
    """ex05 step parameters (float64) with every W/U zero and the retention gate's bias logit(retain).

    kind "lstm": W_i, W_f, W_o, W_c (d_h, d_x + d_h), b_i, b_f, b_o, b_c (d_h,), σ(b_f) = retain.
    kind "gru": W_z, W_r, W_h (d_h, d_x), U_z, U_r, U_h (d_h, d_h), b_z, b_r, b_h (d_h,), σ(b_z) = retain.
    Other biases are zero. Raises ValueError unless 0 < retain < 1 and kind is "lstm" or "gru".
    """
    if kind not in ("lstm", "gru"):
        raise ValueError(f'kind must be "lstm" or "gru", got {kind!r}')
    if not 0 < retain < 1:
        raise ValueError(f"retain must lie strictly between 0 and 1, got {retain!r}")
    bias = math.log(retain / (1 - retain))  # σ⁻¹(retain)
    zeros = lambda *shape: torch.zeros(*shape, dtype=torch.float64)  # noqa: E731
    if kind == "lstm":
        params = {f"W_{g}": zeros(d_h, d_x + d_h) for g in "ifoc"} | {f"b_{g}": zeros(d_h) for g in "ifoc"}
        params["b_f"] = torch.full((d_h,), bias, dtype=torch.float64)
    else:
        params = {f"W_{g}": zeros(d_h, d_x) for g in "zrh"} | {f"U_{g}": zeros(d_h, d_h) for g in "zrh"}
        params |= {f"b_{g}": zeros(d_h) for g in "zrh"}
        params["b_z"] = torch.full((d_h,), bias, dtype=torch.float64)
    return params


def state_jacobian_norm(kind: str, step: Callable, params: dict[str, Tensor], T: int, d_x: int) -> float:
    """Spectral norm of ∂s_T/∂s_0 after T steps of `step` on zero inputs (1, d_x) from zero states.

    Inputs and states take the dtype and device of `params`.
    s = c for the LSTM (h_0 held fixed), s = h for the GRU; `step` is called like ex05's functions,
    step(x=..., h=..., [c=...,] **params), and returns a dict with "h" (and "c").
    """
    bias = params["b_f"] if kind == "lstm" else params["b_z"]
    d_h, like = bias.shape[0], {"dtype": bias.dtype, "device": bias.device}
    x = torch.zeros(1, d_x, **like)
    h0 = torch.zeros(1, d_h, **like)

    def final_state(s0: Tensor) -> Tensor:
        if kind == "lstm":
            h, c = h0, s0
            for _ in range(T):
                out = step(x=x, h=h, c=c, **params)
                h, c = out["h"], out["c"]
            return c
        h = s0
        for _ in range(T):
            h = step(x=x, h=h, **params)["h"]
        return h

    jacobian = torch.autograd.functional.jacobian(final_state, torch.zeros(1, d_h, **like))
    return torch.linalg.matrix_norm(jacobian.reshape(d_h, d_h), ord=2).item()
