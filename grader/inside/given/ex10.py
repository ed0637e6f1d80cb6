"""ex10: stand-ins for train_fn and make_splits (the hidden checks' real tiny trainer is in tests/given/ex10.py)."""

from __future__ import annotations

from collections.abc import Callable

from grader.inside.given import builder


@builder
def scripted_trainer(*, device, runs) -> Callable:
    """ex10: train_fn(model, length, lr, seed) that returns a scripted outcome and trains nothing.

    `runs` lists one dict per (model, length, lr, seed): either the outcome (val_acc, test_acc,
    final_loss, train_seconds, predict_seconds, peak_memory, grad_norm, updates: every key but the
    four of the call, returned as they are, NaN or infinite losses included), or "raise": a message,
    raised as RuntimeError. A call the script does not list raises KeyError.
    """
    script = {(r["model"], int(r["length"]), float(r["lr"]), int(r["seed"])): r for r in runs}

    def train_fn(model, length, lr, seed) -> dict:
        run = script.get((model, int(length), float(lr), int(seed)))
        if run is None:
            raise KeyError(f"no scripted run for model={model!r}, length={length!r}, lr={lr!r}, seed={seed!r}")
        if "raise" in run:
            raise RuntimeError(run["raise"])
        return {k: v for k, v in run.items() if k not in ("model", "length", "lr", "seed")}

    return train_fn


@builder
def split_recorder(*, device) -> Callable:
    """ex10: make_splits(sizes, T, delay, vocab, seed) that makes no data and returns its arguments as a dict."""

    def make_splits(sizes, T, delay, vocab, seed) -> dict:
        return {"sizes": dict(sizes), "T": T, "delay": delay, "vocab": vocab, "seed": seed}

    return make_splits
