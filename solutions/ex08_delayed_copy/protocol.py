"""ex08 reference: the delayed-copy task and a fair RNN/GRU/LSTM comparison protocol (the answer key, item 8)."""

import math

import torch
from torch import Tensor, nn

PREDICT_SEQUENCES = 512  # prediction time is measured on exactly this many test sequences
CELLS = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}


def _shift(inputs: Tensor, delay: int) -> Tensor:
    """targets[:, t] = inputs[:, t - delay] for t >= delay, 0 (blank) before."""
    targets = torch.zeros_like(inputs)
    if delay < inputs.shape[1]:
        targets[:, delay:] = inputs[:, : inputs.shape[1] - delay]
    return targets


def make_delayed_copy(n: int, T: int, delay: int, vocab: int, seed: int) -> tuple[Tensor, Tensor]:
    """n delayed-copy sequences: inputs (n, T) int64 with tokens 1..vocab-1, targets (n, T) int64.

    Tokens come from torch.Generator().manual_seed(seed); targets[:, t] = inputs[:, t - delay] for
    t >= delay and 0 (the blank) before.
    """
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randint(1, vocab, (n, T), generator=g, dtype=torch.int64)
    return inputs, _shift(inputs, delay)


def make_splits(sizes: dict, T: int, delay: int, vocab: int, seed: int) -> dict:
    """{name: (inputs, targets)} with sizes[name] sequences each; no input sequence appears twice anywhere.

    ValueError when the splits need more distinct sequences than the (vocab - 1) ** T that exist.
    """
    total = sum(sizes.values())
    if any(n < 0 for n in sizes.values()) or total > (vocab - 1) ** T:
        raise ValueError(f"cannot draw {total} distinct sequences of length {T} over {vocab - 1} tokens")
    g = torch.Generator().manual_seed(seed)
    seen, rows = set(), []
    while len(rows) < total:
        for row in torch.randint(1, vocab, (total, T), generator=g).tolist():
            if tuple(row) not in seen:
                seen.add(tuple(row))
                rows.append(row)
                if len(rows) == total:
                    break
    inputs = torch.tensor(rows, dtype=torch.int64).reshape(total, T)
    targets = _shift(inputs, delay)
    splits, start = {}, 0
    for name, n in sizes.items():
        splits[name] = (inputs[start : start + n], targets[start : start + n])
        start += n
    return splits


class CopyModel(nn.Module):
    """Shared input encoding and output head around one recurrent layer: (B, T) int64 → logits (B, T, vocab)."""

    def __init__(self, cell: str, vocab: int, d_e: int, d_h: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_e)
        self.rnn = CELLS[cell](d_e, d_h, batch_first=True)
        self.head = nn.Linear(d_h, vocab)

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.rnn(self.embedding(x))[0])


def build_model(cell: str, vocab: int, d_e: int, d_h: int) -> nn.Module:
    """nn.Embedding(vocab, d_e) → nn.RNN/GRU/LSTM(d_e, d_h, batch_first=True) → nn.Linear(d_h, vocab)."""
    if cell not in CELLS:
        raise ValueError(f"cell must be one of {', '.join(CELLS)}, got {cell!r}")
    return CopyModel(cell, vocab, d_e, d_h)


def accuracy(model: nn.Module, inputs: Tensor, targets: Tensor, delay: int) -> float:
    """Share of positions t >= delay where the most likely token equals the target."""
    with torch.no_grad():
        predicted = model(inputs).argmax(-1)
    return (predicted[:, delay:] == targets[:, delay:]).double().mean().item()


def run_comparison(bench, splits: dict, widths: dict, settings: dict) -> list[dict]:
    """One row per (cell, seed), every cell with the same settings; no run is ever left out."""
    train_x, train_y = splits["train"]
    test_x, test_y = splits["test"]
    rows = []
    for cell, d_h in widths.items():
        for seed in settings["seeds"]:
            torch.manual_seed(seed)
            model = build_model(cell, settings["vocab"], settings["d_e"], d_h).to(train_x.device)
            row = {
                "cell": cell, "d_h": d_h, "seed": seed,
                "params": sum(p.numel() for p in model.parameters()),
                "batch_size": settings["batch_size"], "updates": settings["updates"], "lr": settings["lr"],
                "cell_calls": settings["updates"] * settings["batch_size"] * train_x.shape[1],
                "status": "failed", "test_acc": None, "train_time": None, "predict_time": None, "peak_memory": None,
            }
            rows.append(row)
            start = bench.clock()
            try:
                result = bench.train(model, (train_x, train_y), batch_size=settings["batch_size"],
                                     updates=settings["updates"], lr=settings["lr"], seed=seed)
            except Exception:
                continue
            row["train_time"] = bench.clock() - start
            row["peak_memory"] = result["peak_memory"]
            row["status"] = "ok" if math.isfinite(result["final_loss"]) else "diverged"
            start = bench.clock()
            with torch.no_grad():
                model(test_x[:PREDICT_SEQUENCES])
            row["predict_time"] = bench.clock() - start
            row["test_acc"] = accuracy(model, test_x, test_y, settings["delay"])
    return rows


def comparison_tables(bench, splits: dict, settings: dict, d_h: int, matched_widths: dict) -> dict:
    """{"equal_width": rows with every cell at d_h, "matched_params": rows at the parameter-matched widths}."""
    return {
        "equal_width": run_comparison(bench, splits, {cell: d_h for cell in matched_widths}, settings),
        "matched_params": run_comparison(bench, splits, dict(matched_widths), settings),
    }
