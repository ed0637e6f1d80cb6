"""ex08: the delayed-copy task and a fair RNN/GRU/LSTM comparison protocol (answer key item 8).

Fill in every function; README.md states the contract. Every check fails with NotImplementedError
until you do.
"""

import math  # noqa: F401 - you will likely need math.isfinite

import torch
from torch import Tensor, nn

PREDICT_SEQUENCES = 512  # prediction time is measured on exactly this many test sequences
CELLS = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}


def make_delayed_copy(n: int, T: int, delay: int, vocab: int, seed: int) -> tuple[Tensor, Tensor]:
    """n delayed-copy sequences: inputs (n, T) int64 with tokens 1..vocab-1, targets (n, T) int64.

    Tokens come from torch.Generator().manual_seed(seed); targets[:, t] = inputs[:, t - delay] for
    t >= delay and 0 (the blank) before.
    """
    raise NotImplementedError("ex08: implement make_delayed_copy")


def make_splits(sizes: dict, T: int, delay: int, vocab: int, seed: int) -> dict:
    """{name: (inputs, targets)} with sizes[name] sequences each; no input sequence appears twice anywhere.

    ValueError when the splits need more distinct sequences than the (vocab - 1) ** T that exist.
    """
    raise NotImplementedError("ex08: implement make_splits")


class CopyModel(nn.Module):
    """Shared input encoding and output head around one recurrent layer: (B, T) int64 → logits (B, T, vocab)."""

    def __init__(self, cell: str, vocab: int, d_e: int, d_h: int):
        super().__init__()
        raise NotImplementedError("ex08: implement CopyModel")

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError("ex08: implement CopyModel.forward")


def build_model(cell: str, vocab: int, d_e: int, d_h: int) -> nn.Module:
    """nn.Embedding(vocab, d_e) → nn.RNN/GRU/LSTM(d_e, d_h, batch_first=True) → nn.Linear(d_h, vocab)."""
    raise NotImplementedError("ex08: implement build_model")


def accuracy(model: nn.Module, inputs: Tensor, targets: Tensor, delay: int) -> float:
    """Share of positions t >= delay where the most likely token equals the target."""
    raise NotImplementedError("ex08: implement accuracy")


def run_comparison(bench, splits: dict, widths: dict, settings: dict) -> list[dict]:
    """One row per (cell, seed), every cell with the same settings; no run is ever left out."""
    raise NotImplementedError("ex08: implement run_comparison")


def comparison_tables(bench, splits: dict, settings: dict, d_h: int, matched_widths: dict) -> dict:
    """{"equal_width": rows with every cell at d_h, "matched_params": rows at the parameter-matched widths}."""
    raise NotImplementedError("ex08: implement comparison_tables")
