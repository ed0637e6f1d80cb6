"""Public course code that the grader builds inside a student process in place of an `Inject` argument.

Where one exercise builds on another (ex07 runs a step function, ex06 maps a torch cell), the
grader injects this code rather than the student's own earlier work, so one mistake is not charged
twice. Everything here is what the chapter itself shows – the answer key's step functions (seed 004
item 5) and torch cells rebuilt from weights the grader chose – never a hidden check or an
expected value. It runs in the student process, so nothing it reports is trusted.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from grader.wire import Inject

BUILDERS: dict[str, Callable] = {}


def builder(fn: Callable) -> Callable:
    BUILDERS[fn.__name__] = fn
    return fn


def build(inject: Inject, device: torch.device):
    """The object an `Inject` stands for; ValueError for a name the course does not define."""
    if inject.name not in BUILDERS:
        raise ValueError(f"unknown injected helper {inject.name!r}")
    return BUILDERS[inject.name](device=device, **inject.args)


def _answer_key_lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    u = torch.cat([x, h], dim=-1)
    i = torch.sigmoid(u @ W_i.T + b_i)
    f = torch.sigmoid(u @ W_f.T + b_f)
    o = torch.sigmoid(u @ W_o.T + b_o)
    candidate = torch.tanh(u @ W_c.T + b_c)
    c_new = f * c + i * candidate
    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": o * torch.tanh(c_new)}


def _answer_key_gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)
    r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)
    candidate = torch.tanh(x @ W_h.T + (r * h) @ U_h.T + b_h)
    return {"z": z, "r": r, "candidate": candidate, "h": z * h + (1.0 - z) * candidate}


@builder
def lstm_step(*, device) -> Callable:
    """The chapter's LSTM step (seed 004 item 5), keyword parameters W_i … b_c."""
    return _answer_key_lstm_step


@builder
def gru_step(*, device) -> Callable:
    """The chapter's GRU step (seed 004 item 5), h_new = z*h + (1 - z)*candidate."""
    return _answer_key_gru_step


@builder
def lstm_cell(*, device, weight_ih, weight_hh, bias_ih, bias_hh) -> nn.LSTMCell:
    """An nn.LSTMCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.LSTMCell, 4, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


@builder
def gru_cell(*, device, weight_ih, weight_hh, bias_ih, bias_hh) -> nn.GRUCell:
    """An nn.GRUCell holding exactly these weights (their dtype), parameters requiring grad."""
    return _cell(nn.GRUCell, 3, device, weight_ih=weight_ih, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh)


def _cell(kind: type, blocks: int, device, **state) -> nn.Module:
    rows, d_x = state["weight_ih"].shape
    cell = kind(d_x, rows // blocks, dtype=state["weight_ih"].dtype, device=device)
    with torch.no_grad():
        for name, value in state.items():
            getattr(cell, name).copy_(value)
    return cell


# -- ex08 / ex10: stand-ins for a training run, so that protocol code is graded in milliseconds ---------
#
# A protocol (which runs to make, with which settings, what to report) is graded by handing it a
# trainer whose every output is a documented, deterministic function of what it was given. Only the
# real `tiny_bench` / `tiny_copy_trainer` train anything, and only for a few dozen updates.


def _cell_kind(model: nn.Module) -> str:
    """"rnn", "gru" or "lstm" for a model laid out as embedding → rnn → head (ex08's build_model)."""
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
      bias to one at class k = 1 + (seed + 3·d_h + 5·batch_size + 7·updates + 11·gates) mod (vocab − 1),
      gates = 1/3/4 for rnn/gru/lstm, so the model then predicts k at every position.
    """

    def __init__(self, train_unit: float, predict_unit: float, diverge, fail):
        self.now = 0.0
        self.train_unit, self.predict_unit = train_unit, predict_unit
        self.diverge = {(c, int(s)) for c, s in diverge}
        self.fail = {(c, int(s)) for c, s in fail}

    def clock(self) -> float:
        return self.now

    def train(self, model: nn.Module, data, *, batch_size: int, updates: int, lr: float, seed: int) -> dict:
        cell = _cell_kind(model)
        if (cell, int(seed)) in self.fail:
            raise RuntimeError(f"simulated failure of the {cell} run with seed {seed}")
        self.now += int(updates) * int(batch_size) * self.train_unit
        if not getattr(model, "_fake_bench_hooked", False):
            model.register_forward_hook(self._forward_hook)
            model._fake_bench_hooked = True
        gates = {"rnn": 1, "gru": 3, "lstm": 4}[cell]
        vocab = model.head.out_features
        k = 1 + (int(seed) + 3 * model.rnn.hidden_size + 5 * int(batch_size) + 7 * int(updates) + 11 * gates) % (vocab - 1)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
            model.head.bias[k] = 1.0
        loss = float("nan") if (cell, int(seed)) in self.diverge else 0.5
        return {"final_loss": loss, "peak_memory": 16 * sum(p.numel() for p in model.parameters())}

    def _forward_hook(self, module, args, output) -> None:
        self.now += args[0].shape[0] * self.predict_unit


@builder
def fake_bench(*, device, train_unit: float, predict_unit: float, diverge=(), fail=()) -> FakeBench:
    """ex08: a simulated bench (see FakeBench); `diverge` and `fail` list [cell, seed] pairs."""
    return FakeBench(train_unit, predict_unit, diverge, fail)


def _accuracy(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, delay: int) -> float:
    """Share of positions t >= delay where the model's most likely token is the target."""
    with torch.no_grad():
        predicted = model(inputs).argmax(-1)
    return (predicted[:, delay:] == targets[:, delay:]).double().mean().item()


def _train_copy_model(model: nn.Module, inputs, targets, *, batch_size: int, updates: int, lr: float, seed: int) -> float:
    """Adam on cross-entropy over every position, batches drawn with torch.Generator().manual_seed(seed); the last loss.

    Adam is written out (betas 0.9, 0.999, eps 1e-8) because torch.optim's first use imports
    torch._dynamo, which costs about a second in every fresh student process.
    """
    g = torch.Generator().manual_seed(int(seed))
    params = [p for p in model.parameters() if p.requires_grad]
    moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    loss = torch.tensor(float("nan"))
    for step in range(1, int(updates) + 1):
        rows = torch.randint(0, inputs.shape[0], (int(batch_size),), generator=g).to(inputs.device)
        logits = model(inputs[rows])
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets[rows].reshape(-1))
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, grad, (m, v) in zip(params, grads, moments):
                m.mul_(0.9).add_(grad, alpha=0.1)
                v.mul_(0.999).addcmul_(grad, grad, value=0.001)
                p.sub_(lr * (m / (1 - 0.9 ** step)) / ((v / (1 - 0.999 ** step)).sqrt() + 1e-8))
    return loss.item()


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
        loss = _train_copy_model(model, inputs, targets, batch_size=batch_size, updates=updates, lr=lr, seed=seed)
        return {"final_loss": loss, "peak_memory": 16 * sum(p.numel() for p in model.parameters())}


@builder
def tiny_bench(*, device) -> TinyBench:
    """ex08: a real bench (see TinyBench) for one tiny training run."""
    return TinyBench()


class _CopyModel(nn.Module):
    def __init__(self, cell: str, vocab: int, d_e: int, d_h: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_e)
        self.rnn = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell](d_e, d_h, batch_first=True)
        self.head = nn.Linear(d_h, vocab)

    def forward(self, x):
        return self.head(self.rnn(self.embedding(x))[0])


@builder
def scripted_trainer(*, device, runs) -> Callable:
    """ex10: train_fn(model, length, lr, seed) that returns a scripted outcome and trains nothing.

    `runs` lists one dict per (model, length, lr, seed): either val_acc, test_acc and final_loss
    (returned as they are, NaN or infinite losses included), or "raise": a message, raised as
    RuntimeError. A call the script does not list raises KeyError.
    """
    script = {(r["model"], int(r["length"]), float(r["lr"]), int(r["seed"])): r for r in runs}

    def train_fn(model, length, lr, seed) -> dict:
        run = script.get((model, int(length), float(lr), int(seed)))
        if run is None:
            raise KeyError(f"no scripted run for model={model!r}, length={length!r}, lr={lr!r}, seed={seed!r}")
        if "raise" in run:
            raise RuntimeError(run["raise"])
        return {"val_acc": run["val_acc"], "test_acc": run["test_acc"], "final_loss": run["final_loss"]}

    return train_fn


@builder
def tiny_copy_trainer(*, device, data, vocab: int, d_e: int, d_h: int, batch_size: int, updates: int) -> Callable:
    """ex10: a real train_fn(model, length, lr, seed) on delayed-copy data the grader made.

    `data[str(length)]` holds "train", "val" and "test" as (inputs, targets). It builds
    embedding → nn.GRU/nn.LSTM → head with torch.manual_seed(seed), runs Adam for `updates`
    updates and returns val_acc and test_acc (positions t >= length) and the last loss.
    """

    def train_fn(model, length, lr, seed) -> dict:
        splits = data[str(int(length))]
        torch.manual_seed(int(seed))
        net = _CopyModel(model, vocab, d_e, d_h)
        loss = _train_copy_model(net, *splits["train"], batch_size=batch_size, updates=updates, lr=lr, seed=seed)
        return {"val_acc": _accuracy(net, *splits["val"], int(length)),
                "test_acc": _accuracy(net, *splits["test"], int(length)), "final_loss": loss}

    return train_fn


@builder
def split_recorder(*, device) -> Callable:
    """ex10: make_splits(sizes, T, delay, vocab, seed) that makes no data and returns its arguments as a dict."""

    def make_splits(sizes, T, delay, vocab, seed) -> dict:
        return {"sizes": dict(sizes), "T": T, "delay": delay, "vocab": vocab, "seed": seed}

    return make_splits
