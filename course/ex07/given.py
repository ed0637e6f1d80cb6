"""ex07's public checks: a step function that teaches nothing about ex05 (it halves the state and ignores its weights).

The hidden checks inject the chapter's own step functions instead (course/ex07/given_hidden.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from grader.inside.given import builder

if TYPE_CHECKING:
    import torch


@builder
def halving_step(*, device: torch.device) -> Callable[..., dict[str, torch.Tensor]]:
    """step(x=..., h=..., [c=...], **params) -> {"h": h / 2[, "c": c / 2]}: ∂s_1/∂s_0 = I / 2 for either kind."""

    def step(x: torch.Tensor, h: torch.Tensor, c: torch.Tensor | None = None, **params: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"h": 0.5 * h} if c is None else {"h": 0.5 * h, "c": 0.5 * c}

    return step
