"""ex08: stand-ins for a training run, so that protocol code is graded in milliseconds.

A protocol (which runs to make, with which settings, what to report) is graded by handing it a
bench whose every output is a documented, deterministic function of what it was given. Only the
real `tiny_bench` trains anything, and only for a few updates.
"""

from __future__ import annotations

import torch
from torch import nn

from grader.inside.given import builder
from grader.inside.given.training import train_copy_model


def _cell_kind(model: nn.Module) -> str:
    """ "rnn", "gru" or "lstm" for a model laid out as embedding → rnn → head (ex08's build_model)."""
    rnn, head = getattr(model, "rnn", None), getattr(model, "head", None)
    if not isinstance(rnn, (nn.RNN, nn.GRU, nn.LSTM)) or not isinstance(head, nn.Linear) or head.bias is None:
        raise ValueError("the bench trains the model of build_model: attributes rnn (nn.RNN/GRU/LSTM) and head (nn.Linear with bias)")
    return type(rnn).__name__.lower()


class FakeBench:
    """A simulated bench for ex08: a clock, and a `train` that does no training.

    - `clock()`: simulated seconds. `train` advances it by updates × batch_size × train_unit;
      every forward call of a model that went through `train` advances it by
      (number of sequences in the batch) × predict_unit.
    - `train(model, data, *, batch_size, updates, lr, seed)` returns {"final_loss", "peak_memory"}:
      peak_memory is 16 bytes per parameter of `model` (weights, gradients and two Adam moments in
      float32); final_loss is 0.5, or NaN for a (cell, seed) listed in `diverge`; a (cell, seed)
      listed in `fail` raises RuntimeError. "Training" sets every parameter to zero and the head's
      bias to one at class k = 1 + (seed + 3·d_h + 5·batch_size + 7·updates + 11·gates + 13·fingerprint)
      mod (vocab − 1), gates = 1/3/4 for rnn/gru/lstm and `fingerprint(data, weights)` of what it was given
      (see there), so the model then predicts k at every position.
    - `record()`: what every `train` call got, in call order – the cell, hidden size and seed, the
      batch size, update count and lr, the (inputs, targets) given as `data`, and the model's weights
      as they were when it was called. The
      grader compares them with the train split (by content) and with a model it builds itself right
      after `torch.manual_seed(seed)`.
    """

    def __init__(self, train_unit: float, predict_unit: float, diverge, fail):
        self.now = 0.0
        self.train_unit, self.predict_unit = train_unit, predict_unit
        self.diverge = {(c, int(s)) for c, s in diverge}
        self.fail = {(c, int(s)) for c, s in fail}
        self.calls: list[dict] = []

    def clock(self) -> float:
        return self.now

    def train(self, model: nn.Module, data, *, batch_size: int, updates: int, lr: float, seed: int) -> dict:
        cell = _cell_kind(model)
        self.calls.append(
            {
                "cell": cell,
                "d_h": model.rnn.hidden_size,
                "seed": int(seed),
                "data": _copied(data),
                "batch_size": int(batch_size),
                "updates": int(updates),
                "lr": float(lr),
                "initial": {name: value.detach().cpu().clone() for name, value in model.state_dict().items()},
            }
        )
        fp = fingerprint(self.calls[-1]["data"], self.calls[-1]["initial"])
        if (cell, int(seed)) in self.fail:
            raise RuntimeError(f"simulated failure of the {cell} run with seed {seed}")
        self.now += int(updates) * int(batch_size) * self.train_unit
        if not getattr(model, "_fake_bench_hooked", False):
            model.register_forward_hook(self._forward_hook)
            model._fake_bench_hooked = True
        gates = {"rnn": 1, "gru": 3, "lstm": 4}[cell]
        vocab = model.head.out_features
        k = 1 + (int(seed) + 3 * model.rnn.hidden_size + 5 * int(batch_size) + 7 * int(updates) + 11 * gates + 13 * fp) % (vocab - 1)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
            model.head.bias[k] = 1.0
        loss = float("nan") if (cell, int(seed)) in self.diverge else 0.5
        return {"final_loss": loss, "peak_memory": 16 * sum(p.numel() for p in model.parameters())}

    def _forward_hook(self, module, args, output) -> None:
        self.now += args[0].shape[0] * self.predict_unit

    def record(self) -> dict:
        return {"calls": self.calls}


def fingerprint(data, weights: dict) -> int:
    """What the class a `train` call makes the model predict takes from what it was given: the sum of the targets
    (the same for any copy of the same sequences) and the head's first weight to 1e-6 (the same for a model moved to
    float64). The grader computes it from the bench's record of the call, so that a record that is not what the bench
    was given predicts another class than the run reported."""
    targets = data[1] if isinstance(data, (list, tuple)) and len(data) == 2 and isinstance(data[1], torch.Tensor) else None
    total = int(targets.long().sum().item()) if targets is not None and targets.numel() else 0
    head = weights.get("head.weight") if isinstance(weights, dict) else None
    first = float(head.reshape(-1)[0]) if isinstance(head, torch.Tensor) and head.numel() else 0.0
    return (total + round(abs(first) * 1e6)) % 1_000_003


def _copied(data):
    """The (inputs, targets) a train call got, as CPU copies; None when `data` is not a pair of tensors."""
    if isinstance(data, (list, tuple)) and len(data) == 2 and all(isinstance(t, torch.Tensor) for t in data):
        return [t.detach().cpu().clone() for t in data]
    return None


@builder
def fake_bench(*, device, train_unit: float, predict_unit: float, diverge=(), fail=()) -> FakeBench:
    """ex08: a simulated bench (see FakeBench); `diverge` and `fail` list [cell, seed] pairs."""
    return FakeBench(train_unit, predict_unit, diverge, fail)


class TinyBench:
    """A real bench for ex08: `clock` is time.perf_counter; `train` runs Adam for `updates` updates.

    `train(model, data, *, batch_size, updates, lr, seed)` with data = (inputs, targets) returns
    {"final_loss", "peak_memory"}; peak_memory is 16 bytes per parameter (on CPU torch reports no
    peak; on a GPU you would read torch.cuda.max_memory_allocated()).
    """

    def clock(self) -> float:
        import time

        return time.perf_counter()

    def train(self, model: nn.Module, data, *, batch_size: int, updates: int, lr: float, seed: int) -> dict:
        inputs, targets = data
        loss = train_copy_model(model, inputs, targets, batch_size=batch_size, updates=updates, lr=lr, seed=seed)["final_loss"]
        return {"final_loss": loss, "peak_memory": 16 * sum(p.numel() for p in model.parameters())}


@builder
def tiny_bench(*, device) -> TinyBench:
    """ex08: a real bench (see TinyBench) for one tiny training run."""
    return TinyBench()
