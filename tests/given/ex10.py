"""ex10's hidden checks: one real tiny train_fn on delayed-copy data the grader made.

It builds ex08's model and measures ex08's accuracy – ex08's answers – so it lives with the hidden
checks, reaches only ex10's student process while it is graded, and never ships in a student bundle.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
from torch import nn

from grader.inside.given import builder
from grader.inside.given.training import train_copy_model


def accuracy(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, delay: int) -> float:
    """Share of positions t >= delay where the model's most likely token is the target."""
    with torch.no_grad():
        predicted = model(inputs).argmax(-1)
    return (predicted[:, delay:] == targets[:, delay:]).double().mean().item()


class CopyModel(nn.Module):
    def __init__(self, cell: str, vocab: int, d_e: int, d_h: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_e)
        self.rnn = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell](d_e, d_h, batch_first=True)
        self.head = nn.Linear(d_h, vocab)

    def forward(self, x):
        return self.head(self.rnn(self.embedding(x))[0])


@builder
def tiny_copy_trainer(*, device, data, vocab: int, d_e: int, d_h: int, batch_size: int, updates: int) -> Callable:
    """ex10: a real train_fn(model, length, lr, seed) on delayed-copy data the grader made.

    `data[str(length)]` holds "train", "val" and "test" as (inputs, targets). It builds
    embedding → nn.GRU/nn.LSTM → head with torch.manual_seed(seed), runs Adam for `updates`
    updates and returns val_acc and test_acc (positions t >= length), the last loss, and what
    answer-key item 10 reports: train_seconds, predict_seconds (the validation batch), peak_memory
    (16 bytes per parameter: weights, gradients, two Adam moments), grad_norm and updates.
    """

    def train_fn(model, length, lr, seed) -> dict:
        splits = data[str(int(length))]
        torch.manual_seed(int(seed))
        net = CopyModel(model, vocab, d_e, d_h)
        started = time.perf_counter()
        trained = train_copy_model(net, *splits["train"], batch_size=batch_size, updates=updates, lr=lr, seed=seed)
        train_seconds = time.perf_counter() - started
        started = time.perf_counter()
        val_acc = accuracy(net, *splits["val"], int(length))
        predict_seconds = time.perf_counter() - started
        return {
            "val_acc": val_acc,
            "test_acc": accuracy(net, *splits["test"], int(length)),
            "train_seconds": train_seconds,
            "predict_seconds": predict_seconds,
            "peak_memory": 16 * sum(p.numel() for p in net.parameters()),
        } | trained

    return train_fn
