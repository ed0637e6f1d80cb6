"""ex08: the bench a protocol trains with, as the student process holds it.

A protocol (which runs to make, with which settings, what to report) is graded by handing it a
bench whose clock and training stay in the grader: `bench.clock()` and `bench.train(...)` are calls
of the grader, which keeps the clock, decides what each run returns and records every call. Only
what the grader itself saw happen counts: a run trains only through `bench.train`, a time is a
difference of two readings of `bench.clock()`, and a prediction is a call of the trained model.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

import torch
from torch import nn

from grader.inside.given import builder

if TYPE_CHECKING:
    from grader.inside.runtime import RemoteHandle


def _cell_kind(model: nn.Module) -> str:
    """ "rnn", "gru" or "lstm" for a model laid out as embedding → rnn → head (ex08's build_model)."""
    rnn, head = getattr(model, "rnn", None), getattr(model, "head", None)
    if not isinstance(rnn, (nn.RNN, nn.GRU, nn.LSTM)) or not isinstance(head, nn.Linear) or head.bias is None:
        raise ValueError("the bench trains the model of build_model: attributes rnn (nn.RNN/GRU/LSTM) and head (nn.Linear with bias)")
    return type(rnn).__name__.lower()


class Bench:
    """ex08's bench: `clock()` in seconds, and `train(model, data, *, batch_size, updates, lr, seed)`.

    - `clock()`: the grader's clock. The simulated bench's is simulated: `train` advances it by
      updates × batch_size × a unit; a forward call of a trained model, `model(x)`, advances it by
      (sequences in x) × another unit – once the grader has checked that the logits are the model's.
      The real bench's is time.perf_counter in the grader.
    - `train(...)` sends the grader the run's cell, hidden size, seed, settings, `data` (the
      (inputs, targets) pair) and the model's weights as they are now; the grader trains (the real
      bench: Adam on `data`, a few updates) or "trains" (the simulated bench: weights of its own
      choosing), and the model gets the trained weights. It returns {"final_loss", "peak_memory"}
      (16 bytes per parameter); the final loss may be NaN or infinite, and a run may raise
      RuntimeError, as real runs do.
    - Every later call `model(x)` is reported to the grader with x and the logits it gave.
    """

    def __init__(self, service: RemoteHandle):
        self._service = service

    def clock(self) -> float:
        return float(self._service.call("clock"))

    def train(self, model: nn.Module, data: Sequence[torch.Tensor], *, batch_size: int, updates: int, lr: float, seed: int) -> dict[str, float]:
        cell = _cell_kind(model)
        got = self._service.call(
            "train",
            cell=cell,
            d_h=int(model.rnn.hidden_size),
            seed=int(seed),
            data=_copied(data),
            batch_size=int(batch_size),
            updates=int(updates),
            lr=float(lr),
            initial={name: value.detach().cpu() for name, value in model.state_dict().items()},
        )
        with torch.no_grad():
            for name, value in model.state_dict().items():
                value.copy_(got["weights"][name])
        model._bench_run = got["run"]
        if not getattr(model, "_bench_hooked", False):
            model.register_forward_hook(self._report)
            model._bench_hooked = True
        return {"final_loss": got["final_loss"], "peak_memory": got["peak_memory"]}

    def _report(self, module: nn.Module, args: tuple[object, ...], output: object) -> None:
        inputs = args[0] if args else None
        self._service.call(
            "forward",
            run=module._bench_run,
            inputs=inputs.detach().cpu() if isinstance(inputs, torch.Tensor) else None,
            logits=output.detach().cpu() if isinstance(output, torch.Tensor) else None,
        )


def _copied(data: object) -> list[torch.Tensor] | None:
    """The (inputs, targets) a train call got, as CPU tensors; None when `data` is not a pair of tensors."""
    if isinstance(data, (list, tuple)) and len(data) == 2 and all(isinstance(t, torch.Tensor) for t in data):
        return [t.detach().cpu() for t in data]
    return None


@builder
def bench(*, device: torch.device, service: RemoteHandle) -> Bench:
    """ex08: a bench whose clock and training are the grader's (simulated, or real and tiny)."""
    return Bench(service)


@builder
def known_model(*, device: torch.device, cell: str, vocab: int, d_e: int, d_h: int, weights: dict[str, torch.Tensor], service: RemoteHandle) -> nn.Module:
    """ex08: the submission's own build_model(cell, vocab, d_e, d_h) with weights the grader chose; its calls are
    reported to the grader as a trained model's are. A model that cannot be built raises its error when called."""
    try:
        model = sys.modules["protocol"].build_model(cell, vocab, d_e, d_h)
        own = model.state_dict()
        if set(own) != set(weights):
            raise ValueError("its parameters are not those of embedding, rnn and head")
        with torch.no_grad():
            for name, value in own.items():
                value.copy_(weights[name])
        model = model.to(device)
    except Exception as e:  # noqa: BLE001 – the submission's error, shown where the model is used
        return _Unbuilt(f"build_model({cell!r}, {vocab}, {d_e}, {d_h}): {type(e).__name__}: {e}")
    model._bench_run = 0
    model.register_forward_hook(Bench(service)._report)
    return model


@builder
def lookup_model(*, device: torch.device, inputs: torch.Tensor, logits: torch.Tensor) -> nn.Module:
    """ex08: a model that answers each sequence of `inputs` with its row of `logits` (both chosen by the grader), so
    that `accuracy` is judged on known logits; any other sequence raises."""
    return _Lookup(inputs, logits)


class _Lookup(nn.Module):  # type: ignore[misc]  # torch is not read by mypy here (pyproject.toml), so nn.Module is Any
    def __init__(self, inputs: torch.Tensor, logits: torch.Tensor):
        super().__init__()
        self.rows = {tuple(x): row for x, row in zip(inputs.tolist(), logits)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            return torch.stack([self.rows[tuple(r)] for r in x.tolist()]).to(x.device)
        except KeyError:
            raise ValueError("this model answers only for the sequences the grader sent") from None


class _Unbuilt(nn.Module):  # type: ignore[misc]  # torch is not read by mypy here (pyproject.toml), so nn.Module is Any
    def __init__(self, why: str):
        super().__init__()
        self.why = why

    def forward(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(self.why)
