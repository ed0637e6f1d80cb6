"""ex10: a dependency-length sweep whose final choices rest on validation results only (answer key item 10).

Fill in every function but select_lr_table (given: it lets the grader receive select_lr's result);
README.md states the contract. Every check fails with NotImplementedError until you do.
"""

import math  # noqa: F401 - you will likely need math.isfinite

TAIL = 8  # every sequence of length T = length + TAIL has TAIL scored positions, whatever the length


def length_data(make_splits, lengths: list, sizes: dict, vocab: int, seed: int) -> list:
    """[make_splits(sizes, length + TAIL, length, vocab, seed) for each length]: one rule for every length."""
    raise NotImplementedError("ex10: implement length_data")


def run_sweep(train_fn, models: list, lengths: list, lrs: list, seeds: list) -> list[dict]:
    """One row per train_fn(model, length, lr, seed) call over the full grid; diverged and failed runs keep their rows."""
    raise NotImplementedError("ex10: implement run_sweep")


def select_lr(rows: list[dict]) -> dict:
    """{(model, length): the lr with the highest mean validation accuracy}; ties go to the smaller lr."""
    raise NotImplementedError("ex10: implement select_lr")


def select_lr_table(rows: list[dict]) -> list[dict]:
    """select_lr's result as plain data for the grader: [{"model", "length", "lr"}, ...]. Leave as it is."""
    chosen = select_lr(rows)
    if not isinstance(chosen, dict) or not all(isinstance(k, tuple) and len(k) == 2 for k in chosen):
        raise TypeError("select_lr must return a dict keyed by (model, length) tuples")
    return [{"model": model, "length": length, "lr": lr} for (model, length), lr in chosen.items()]


def summarize(rows: list[dict]) -> list[dict]:
    """Per (model, length): the validation-chosen lr, its mean val/test accuracy, and runs, diverged, failed:
    how many rows that (model, length) has over all lrs, and how many of them diverged / failed."""
    raise NotImplementedError("ex10: implement summarize")
