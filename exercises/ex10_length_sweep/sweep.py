"""ex10: a dependency-length sweep whose final choices rest on validation results only (answer key item 10).

Fill in every function; README.md states the contract. Every check fails with NotImplementedError
until you do.
"""

import math  # noqa: F401 - you will likely need math.isfinite

TAIL = 8  # every sequence of length T = length + TAIL has TAIL scored positions, whatever the length


def length_data(make_splits, lengths: list, sizes: dict, vocab: int, seed: int) -> list:
    """[make_splits(sizes, length + TAIL, length, vocab, seed) for each length]: one rule for every length."""
    raise NotImplementedError("ex10: implement length_data")


def run_sweep(train_fn, models: list, lengths: list, lrs: list, seeds: list) -> list[dict]:
    """One row per train_fn(model, length, lr, seed) call over the full grid; diverged and failed runs keep their rows.

    A row: model, length, lr, seed, status, val_acc, test_acc, and final_loss, train_seconds,
    predict_seconds, peak_memory, grad_norm, updates as train_fn returned them (all None when it raised).
    """
    raise NotImplementedError("ex10: implement run_sweep")


def select_lr(rows: list[dict]) -> dict:
    """{(model, length): the lr with the highest mean validation accuracy}; ties go to the smaller lr."""
    raise NotImplementedError("ex10: implement select_lr")


def summarize(rows: list[dict]) -> list[dict]:
    """Per (model, length): the validation-chosen lr, its mean val/test accuracy, and runs, diverged, failed:
    how many rows that (model, length) has over all lrs, and how many of them diverged / failed."""
    raise NotImplementedError("ex10: implement summarize")
