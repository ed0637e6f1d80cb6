"""ex10: the train_fn a sweep is handed, and a stand-in for make_splits.

`trainer` is a handle on a trainer that stays in the grader: each call `train_fn(model, length, lr,
seed)` is answered there (scripted outcomes, or a real tiny training run) and recorded there, so what
a run returns is known only by calling it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from grader.inside.given import builder

if TYPE_CHECKING:
    import torch

    from grader.inside.runtime import RemoteHandle


@builder
def trainer(*, device: torch.device, service: RemoteHandle) -> Callable[[str, int, float, int], dict[str, object]]:
    """ex10: train_fn(model, length, lr, seed) -> dict, answered by the grader; a run that fails raises RuntimeError."""

    def train_fn(model: str, length: int, lr: float, seed: int) -> dict[str, object]:
        outcome: dict[str, object] = service.call("train", model=model, length=length, lr=lr, seed=seed)
        return outcome

    return train_fn


@builder
def split_recorder(*, device: torch.device) -> Callable[[Mapping[str, int], int, int, int, int], dict[str, object]]:
    """ex10: make_splits(sizes, T, delay, vocab, seed) that makes no data and returns its arguments as a dict."""

    def make_splits(sizes: Mapping[str, int], T: int, delay: int, vocab: int, seed: int) -> dict[str, object]:
        return {"sizes": dict(sizes), "T": T, "delay": delay, "vocab": vocab, "seed": seed}

    return make_splits
