"""ex10 reference: a dependency-length sweep whose final choices rest on validation results only (the answer key, item 10)."""

import math

TAIL = 8  # every sequence of length T = length + TAIL has TAIL scored positions, whatever the length
# What every row reports as train_fn measured it (answer key item 10), beside the pinned keys.
MEASURED = ("val_acc", "test_acc", "final_loss", "train_seconds", "predict_seconds", "peak_memory", "grad_norm", "updates")


def length_data(make_splits, lengths: list, sizes: dict, vocab: int, seed: int) -> list:
    """[make_splits(sizes, length + TAIL, length, vocab, seed) for each length]: one rule for every length."""
    return [make_splits(sizes, length + TAIL, length, vocab, seed) for length in lengths]


def run_sweep(train_fn, models: list, lengths: list, lrs: list, seeds: list) -> list[dict]:
    """One row per train_fn(model, length, lr, seed) call over the full grid; diverged and failed runs keep their rows.

    A row: model, length, lr, seed, status, val_acc, test_acc, and final_loss, train_seconds,
    predict_seconds, peak_memory, grad_norm, updates as train_fn returned them (all None when it raised).
    """
    rows = []
    for model in models:
        for length in lengths:
            for lr in lrs:
                for seed in seeds:
                    row = {"model": model, "length": length, "lr": lr, "seed": seed}
                    try:
                        result = train_fn(model, length, lr, seed)
                    except Exception:
                        rows.append(row | {"status": "failed"} | {key: None for key in MEASURED})
                        continue
                    status = "ok" if math.isfinite(result["final_loss"]) else "diverged"
                    rows.append(row | {"status": status} | {key: result[key] for key in MEASURED})
    return rows


def _counted(row: dict, metric: str) -> float:
    """The row's metric, or 0 for a diverged or failed run."""
    return row[metric] if row["status"] == "ok" else 0.0


def _means(rows: list[dict], metric: str) -> dict:
    """{(model, length): {lr: mean of the metric over seeds, diverged and failed runs counting 0}}."""
    runs: dict = {}
    for row in rows:
        runs.setdefault((row["model"], row["length"]), {}).setdefault(row["lr"], []).append(_counted(row, metric))
    return {key: {lr: sum(v) / len(v) for lr, v in by_lr.items()} for key, by_lr in runs.items()}


def select_lr(rows: list[dict]) -> dict:
    """{(model, length): the lr with the highest mean validation accuracy}; ties go to the smaller lr."""
    chosen = {}
    for key, by_lr in _means(rows, "val_acc").items():
        best = None
        for lr in sorted(by_lr):
            if best is None or by_lr[lr] > by_lr[best]:
                best = lr
        chosen[key] = best
    return chosen


def summarize(rows: list[dict]) -> list[dict]:
    """Per (model, length): the validation-chosen lr, its mean val/test accuracy, and runs, diverged, failed:
    how many rows that (model, length) has over all lrs, and how many of them diverged / failed."""
    chosen = select_lr(rows)
    val, test = _means(rows, "val_acc"), _means(rows, "test_acc")
    summary = []
    for (model, length), lr in chosen.items():
        mine = [r for r in rows if (r["model"], r["length"]) == (model, length)]
        summary.append({
            "model": model, "length": length, "lr": lr,
            "val_acc": val[(model, length)][lr], "test_acc": test[(model, length)][lr],
            "runs": len(mine),
            "diverged": sum(r["status"] == "diverged" for r in mine),
            "failed": sum(r["status"] == "failed" for r in mine),
        })
    return summary
