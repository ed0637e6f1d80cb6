"""Hidden checks for ex08: the delayed-copy data and the comparison protocol (10 points).

The protocol is graded with a bench that stays here (`SimulatedBench`, a `Service`): the student
process holds only the given `Bench` (course/ex08/given.py), whose `clock` and `train` are
calls of this process, and whose trained model reports each call `model(x)` with its logits. So the
clock, the units, the runs that diverge or fail, the weights "training" hands out and the record of
every call never enter the student process, and a row counts only for what the bench saw happen: a
run trained through `bench.train`, a time that is the difference of two clock readings around it, a
test accuracy of predictions the trained model verifiably made on the test split (its logits checked
against the model's, computed here). One real tiny run (`RealBench`: Adam for a few updates, run
here on the weights sent) shows the protocol also works when something trains; one check runs the
submission's own build_model and accuracy on a model whose weights are chosen here. The checks of the
default comparison judge one run of it (`once`), as a student who runs the comparison once would see it.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import time
import zlib
from typing import NamedTuple

import torch

from grader.checks import (
    Fail,
    Refusal,
    Service,
    StudentError,
    Text,
    check,
    choices,
    course_part,
    expect_row,
    expect_tensor,
    inject,
    once,
    partial,
    reference_module,
    remembered,
    student_module,
)

protocol = student_module("protocol")
TRAINING = course_part("ex08", "training.py", near=__file__)  # the real training loop: run here, never in a student process
reference = reference_module("protocol")

GATES = {"rnn": 1, "gru": 3, "lstm": 4}
T, DELAY, VOCAB, D_E, D_H = 6, 2, 6, 4, 8
SIZES = {"train": 48, "val": 16, "test": 600}
SETTINGS = {"vocab": VOCAB, "d_e": D_E, "delay": DELAY, "seeds": [3, 7], "batch_size": 16, "updates": 40, "lr": 0.01}
PREDICT = 512
ROW_KEYS = ("cell", "d_h", "seed", "status", "params", "batch_size", "updates", "lr", "cell_calls", "test_acc", "train_time", "predict_time", "peak_memory")
# What the checks hash, sort, index or compare must be plain values; test_acc and the times go through number().
INT, NUMBER = dict(kinds=(int,)), dict(kinds=(int, float), none=True)
ROW_KINDS = {
    "cell": dict(among=tuple(GATES)),
    "d_h": INT,
    "seed": INT,
    "status": dict(kinds=(str,)),
    "params": NUMBER,
    "batch_size": NUMBER,
    "updates": NUMBER,
    "lr": NUMBER,
    "cell_calls": NUMBER,
}


def total_params(cell: str, d_h: int) -> int:
    """sum(p.numel()) of Embedding(VOCAB, D_E) → nn.RNN/GRU/LSTM(D_E, d_h) → Linear(d_h, VOCAB)."""
    return VOCAB * D_E + GATES[cell] * d_h * (D_E + d_h + 2) + d_h * VOCAB + VOCAB


def matched_widths(target: int) -> dict:
    """ex09's rule, computed here so that ex09's grade does not matter: closest total, ties to the smaller width."""
    return {cell: min(range(1, 257), key=lambda d: (abs(total_params(cell, d) - target), d)) for cell in GATES}


def splits(reference, device, test: int = SIZES["test"]) -> dict:
    """The splits as the protocol gets them, the test split cut to its first `test` sequences."""
    return {name: [x[:test], y[:test]] if name == "test" else [x, y] for name, (x, y) in _splits(reference, device).items()}


# The test sequences of the comparisons a check judges by which runs their rows report (statuses, tables), not by what
# they measured: each run's two predictions then cost a fraction of 512 and 600 sequences' in both processes (their
# logits computed, sent, hashed and verified). A check of what a run measured keeps the whole split: an accuracy on
# sequences beyond the 512 timed shows the model was called for it.
BRIEF = 16


@functools.cache  # the reference's data: made once per grading process, not once per check of every student
def _splits(reference, device) -> dict:
    made = reference.make_splits(SIZES, T, DELAY, VOCAB, seed=5)
    return {name: (x.to(device), y.to(device)) for name, (x, y) in made.items()}


def rows_of(value, fn: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise Fail(
            f"{fn} must return a list of dicts (one per run); got {type(value).__name__}",
            f"{fn} 应返回 dict 列表（每次运行一行）；实际为 {type(value).__name__}",
        )
    for r in value:
        missing = [k for k in ROW_KEYS if k not in r]
        if missing:
            raise Fail(f"{fn}: a row lacks key(s) {', '.join(missing)}", f"{fn}：某一行缺少键 {', '.join(missing)}")
    for i, r in enumerate(value):
        expect_row(r, ROW_KINDS, name=f"{fn}: row {i}")
    return value


def pair(value, fn: str, shape: tuple) -> tuple:
    """The (inputs, targets) a data function returned, as int64 CPU tensors of `shape`."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise Fail(f"{fn} must return a pair (inputs, targets)", f"{fn} 应返回 (inputs, targets)")
    return tuple(expect_tensor(v, name=f"{fn}: {what}", shape=shape, dtype=torch.int64).cpu() for v, what in zip(value, ("inputs", "targets")))


def default_run(protocol, reference, device) -> tuple[list[dict], Bench]:
    """The one comparison five checks judge, run once per submission: its rows, and the bench it ran on."""
    return once(protocol, "comparison", lambda: run(protocol, splits(reference, device), {c: D_H for c in GATES}, SimulatedBench()))


def run(protocol, data: dict, widths: dict, bench: Bench) -> tuple[list[dict], Bench]:
    """The rows of run_comparison on `data` and `bench`, and the bench (what it saw happen)."""
    try:
        value = protocol.run_comparison(inject("bench", service=bench), data, widths, SETTINGS)
    except StudentError as e:
        if "simulated failure" in e.en:
            raise e.with_hint(
                Text(
                    ' Hint: a run that raises must be caught and reported as a row with status "failed"; the comparison goes on.',
                    '。提示：抛出异常的运行应被捕获，并作为状态为 "failed" 的一行报告；比较继续进行。',
                )
            ) from None
        raise
    return rows_of(value, "run_comparison"), bench


def complete(rows: list[dict]) -> list[dict]:
    """`rows` itself, after checking every cell has rows and no (cell, seed) is reported twice: what the rows report is
    then checked on every row (which runs are reported, and with which seeds, is judged by the checks on all runs and
    on shared settings, so that a mistake there is charged once)."""
    runs = [(r["cell"], r["seed"]) for r in rows]
    if {cell for cell, _ in runs} != set(GATES) or len(set(runs)) != len(runs):
        raise Fail(
            f"run_comparison must report one row per (cell, seed), for every cell: what the rows report is checked on each of them; got {len(rows)} row(s)",
            f"run_comparison 应为每个模型的每个 (cell, seed) 报告一行：各行报告的内容要逐行检查；实际为 {len(rows)} 行",
        )
    return rows


UNTRAINED = (
    "the row's run never trained with bench.train: what a row reports counts only for a run the bench saw (see the check on the training protocol)",
    "该行的运行从未用 bench.train 训练：只有 bench 见到的运行，其行报告的内容才计分（见训练协议检查）",
)


def trained_runs(bench: Bench, rows: list[dict]) -> list[tuple[dict, dict]]:
    """Each row with the bench's record of its run's train call; Fail where a row's run never trained."""
    found = [(r, run_of(bench, r)) for r in rows]
    missing = [f"({r['cell']}, {r['seed']})" for r, c in found if c is None]
    if missing:
        raise Fail(f"the run(s) {', '.join(missing)}: {UNTRAINED[0]}", f"运行 {', '.join(missing)}：{UNTRAINED[1]}")
    return [(r, c) for r, c in found if c is not None]


def by_run(rows: list[dict]) -> dict:
    return {(r["cell"], r["seed"]): r for r in rows}


def number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def close(value, expected: float, rtol: float = 1e-9) -> bool:
    got = number(value)
    return got is not None and abs(got - expected) <= rtol * max(1.0, abs(expected))


# An accuracy is a share k/n of positions; a float32 mean gives it to about 6e-8 (2⁻²⁴) relative, and two shares of
# one split differ by at least 1/n (1/3600 here), so 1e-6 accepts float32's rounding and no other share.
ACC_RTOL = 1e-6


# -- the benches: kept here, called by the student process --------------------------------------------

CELLS = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}
TRAIN_UNIT, PREDICT_UNIT = 2.0**-12, 2.0**-14  # exact in binary, so simulated times add up exactly; never sent
CLOCK_START = 1000.0
WEIGHTS_KEY = "ex08 bench weights"  # with each run's own numbers, seeds the weights the simulated bench hands out


# What a bench takes from the student process, bounded so that its work and memory here are: the widths ex09's rule gives
# here (at most 20), the splits' sizes, the steps of a sequence; calls beyond these counts are refused.
MAX_D_H, MAX_SEQUENCES, MAX_STEPS, MAX_WEIGHTS = 64, 1024, 16, 200_000
MAX_TRAIN_CALLS, MAX_FORWARDS, MAX_READINGS = 32, 256, 10_000


class CopyModel(torch.nn.Module):
    """ex08's model, here: embedding → rnn → head, the logits of every position."""

    def __init__(self, cell: str, d_h: int):
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCAB, D_E)
        self.rnn = CELLS[cell](D_E, d_h, batch_first=True)
        self.head = torch.nn.Linear(d_h, VOCAB)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.rnn(self.embedding(x))[0])


def copy_model(cell: str, d_h: int, weights: dict, dtype: torch.dtype = torch.float64) -> CopyModel | None:
    """ex08's model with these weights (in float64, unless said); None when they are not the weights of its parts."""
    model = CopyModel(cell, d_h).to(dtype)
    own = model.state_dict()
    if set(weights) != set(own) or any(weights[k].shape != v.shape for k, v in own.items()):
        return None
    model.load_state_dict({k: v.to(dtype) for k, v in weights.items()})
    return model


def logits_of(model: CopyModel, inputs: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(inputs)


@remembered  # a trained model's logits on the test split: computed once per grading process for the same weights
def model_logits(cell: str, d_h: int, weights: dict, inputs: torch.Tensor) -> torch.Tensor | None:
    """The logits of ex08's model with these weights on `inputs` (int8 tokens: a quarter of int64's bytes to digest), in
    float32 (what a reported call's logits are compared with); None when they are not the weights of its parts or when
    they are not all finite (no reported logits then match them within a tolerance: torch.allclose's test)."""
    model = copy_model(cell, d_h, weights, torch.float32)
    logits = None if model is None else logits_of(model, inputs.long())
    return logits if logits is not None and bool(torch.isfinite(logits).all()) else None


def tokens(x) -> torch.Tensor | None:
    """`x` as int64 on the CPU when it is an integer tensor (n, T) of tokens 0..VOCAB−1 within the bench's bounds."""
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.is_floating_point() or x.is_complex() or x.dtype == torch.bool:
        return None
    if not (1 <= x.shape[0] <= MAX_SEQUENCES and 1 <= x.shape[1] <= MAX_STEPS and 0 <= x.min().item() and x.max().item() < VOCAB):
        return None
    return x.long().cpu()


def token_pair(data) -> list[torch.Tensor] | None:
    """A train call's `data` as (inputs, targets) of int64 tokens of one shape; None when it is not that."""
    if not (isinstance(data, list) and len(data) == 2):
        return None
    x, y = tokens(data[0]), tokens(data[1])
    return [x, y] if x is not None and y is not None and x.shape == y.shape else None


def plain_call(cell=None, d_h=None, seed=None, data=None, batch_size=None, updates=None, lr=None, initial=None) -> dict:
    """A train call as the student process sent it, checked to be plain values within the bench's bounds (Refusal if
    not); `data` that is no pair of token tensors is kept as None, for the check on the training protocol to name."""
    ok = (
        cell in GATES
        and all(type(v) is int for v in (d_h, seed, batch_size, updates))
        and 1 <= d_h <= MAX_D_H
        and abs(seed) < 2**31
        and 1 <= batch_size <= 1024
        and 1 <= updates <= 10_000
        and type(lr) is float
        and math.isfinite(lr)
        and isinstance(initial, dict)
        and len(initial) <= 64
        and all(isinstance(k, str) and isinstance(v, torch.Tensor) and v.is_floating_point() for k, v in initial.items())
        and sum(v.numel() for v in initial.values()) <= MAX_WEIGHTS
    )
    if not ok:
        raise Refusal("bench.train got arguments it cannot take (was the bench altered?)")
    initial = {k: v.cpu() for k, v in initial.items()}
    return {"cell": cell, "d_h": d_h, "seed": seed, "data": token_pair(data), "batch_size": batch_size, "updates": updates, "lr": lr, "initial": initial}


class Bench(Service):
    """A bench the grader keeps: its clock, and every event the student process caused, numbered in order.

    `readings` holds each clock reading (event number, value); `moves` each train call and each reported call of a
    trained model (event number, "train" or "forward", its index); `calls` what each train call got (its run is its
    index) and what it gave back; `forwards` each reported call of a trained model: its run, whether its logits are
    the model's own (`verified`) and, where they are, its inputs and the tokens it predicted. Read, never changed, once
    the student's call is over: `once` hands every check the one bench."""

    methods = frozenset({"clock", "train", "forward"})

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.forwards: list[dict] = []
        self.readings: list[tuple[int, float]] = []
        self.moves: list[tuple[int, str, int]] = []
        self.events = 0

    def __deepcopy__(self, memo: dict) -> Bench:
        return self

    def event(self) -> int:
        self.events += 1
        return self.events

    def clock(self) -> float:
        if len(self.readings) >= MAX_READINGS:
            raise Refusal(f"bench.clock() was read more than {MAX_READINGS:,} times")
        value = self.now()
        self.readings.append((self.event(), value))
        return value

    def now(self) -> float:
        raise NotImplementedError

    def train(self, **sent) -> dict:
        if len(self.calls) >= MAX_TRAIN_CALLS:
            raise Refusal(f"the bench trains at most {MAX_TRAIN_CALLS} runs")
        call = plain_call(**sent)
        call["run"] = len(self.calls)
        self.calls.append(call)
        self.moves.append((self.event(), "train", call["run"]))
        outcome = self.trained(call)
        call["outcome"] = outcome
        if "raise" in outcome:
            raise Refusal(outcome["raise"])
        return {"run": call["run"], **outcome}

    def trained(self, call: dict) -> dict:
        raise NotImplementedError

    def forward(self, run=None, inputs=None, logits=None) -> None:
        if len(self.forwards) >= MAX_FORWARDS:
            raise Refusal(f"the bench follows at most {MAX_FORWARDS} calls of trained models")
        call = self.calls[run] if type(run) is int and 0 <= run < len(self.calls) else None
        weights = (call or {}).get("outcome", {}).get("weights")
        x = tokens(inputs)
        ok = weights is not None and x is not None and isinstance(logits, torch.Tensor) and logits.is_floating_point()
        x = x.to(torch.int8) if ok else None
        # float32 is enough to tell the model's logits from others at this tolerance, at half float64's cost
        expected = model_logits(call["cell"], call["d_h"], weights, x) if ok and logits.shape == (*x.shape, VOCAB) else None
        got = logits.detach().cpu().float() if expected is not None else None
        # expected is finite (model_logits), so a NaN or an infinity in got is never close to it: no finiteness test of its own
        verified = got is not None and torch.allclose(got, expected, rtol=1e-3, atol=1e-4)
        kept = {"inputs": x, "predicted": got.argmax(-1).to(torch.int8)} if verified else {"inputs": None, "predicted": None}
        self.forwards.append({"run": run, "verified": verified} | kept)
        self.moves.append((self.event(), "forward", len(self.forwards) - 1))
        if verified:
            self.advanced(len(x))

    def advanced(self, sequences: int) -> None:
        """A verified prediction of `sequences` sequences happened (the simulated clock moves)."""


class SimulatedBench(Bench):
    """The simulated bench: a clock that train moves by updates × batch size × TRAIN_UNIT and a verified prediction by
    sequences × PREDICT_UNIT; "training" hands out weights drawn from the run's own numbers, so what the trained model
    predicts is known here and found out there only by calling it. `diverge` lists (cell, seed, loss) – NaN or
    infinite – and `fail` (cell, seed) runs that raise."""

    def __init__(self, diverge=(), fail=()) -> None:
        super().__init__()
        self.time = CLOCK_START
        self.diverge = {(c, s): loss for c, s, loss in diverge}
        self.fail = set(fail)

    def now(self) -> float:
        return self.time

    def trained(self, call: dict) -> dict:
        cell, seed = call["cell"], call["seed"]
        if (cell, seed) in self.fail:
            return {"raise": f"simulated failure of the {cell} run with seed {seed}"}
        self.time += call["updates"] * call["batch_size"] * TRAIN_UNIT
        g = torch.Generator().manual_seed(zlib.crc32(f"{WEIGHTS_KEY} {cell} {call['d_h']} {seed} {call['run']}".encode()))
        weights = {k: torch.randn(v.shape, generator=g, dtype=torch.float64).to(v.dtype) for k, v in call["initial"].items()}
        return {
            "weights": weights,
            "final_loss": self.diverge.get((cell, seed), 0.5),
            "peak_memory": 16 * sum(v.numel() for v in call["initial"].values()),
        }

    def advanced(self, sequences: int) -> None:
        self.time += sequences * PREDICT_UNIT


class RealBench(Bench):
    """The real bench: time.perf_counter here, and a few updates of Adam on the data sent, run here on ex08's model
    with the weights sent (the shared training loop of course/ex08/training.py)."""

    def now(self) -> float:
        return time.perf_counter()

    def trained(self, call: dict) -> dict:
        return real_training(*(call[k] for k in ("cell", "d_h", "initial", "data", "batch_size", "updates", "lr", "seed")))


@remembered  # the same weights and data train the same: once per grading process, not once a student who sends them
def real_training(cell: str, d_h: int, initial: dict, data: list | None, batch_size: int, updates: int, lr: float, seed: int) -> dict:
    """RealBench's outcome of a train call: Adam from the `initial` weights sent, on `data`."""
    model = copy_model(cell, d_h, initial)
    if model is None or data is None:
        return {"raise": "the real bench trains ex08's model (embedding → rnn → head) on (inputs, targets) of tokens 0..vocab−1"}
    if not (batch_size <= 64 and updates <= 20 and 0 < lr <= 1):
        return {"raise": "the real bench runs 1 to 20 updates of 1 to 64 sequences, at an lr in (0, 1]"}
    done = TRAINING.train_copy_model(model, *data, batch_size=batch_size, updates=updates, lr=lr, seed=seed)
    weights = {k: v.to(initial[k].dtype) for k, v in model.state_dict().items()}
    return {"weights": weights, "final_loss": done["final_loss"], "peak_memory": 16 * sum(v.numel() for v in weights.values())}


class KnownModel(Bench):
    """A model the grader knows (its weights), built in the student process by the submission's own build_model: its
    forward calls are reported and verified as a trained model's are."""

    methods = frozenset({"forward"})

    def __init__(self, cell: str, d_h: int, weights: dict) -> None:
        super().__init__()
        self.calls = [{"run": 0, "cell": cell, "d_h": d_h, "outcome": {"weights": weights}}]


def run_of(bench: Bench, row: dict) -> dict | None:
    """The bench's record of the train call of the row's run (cell, d_h and seed): the last, if there were several."""
    found = [c for c in bench.calls if (c["cell"], c["d_h"], c["seed"]) == (row["cell"], row["d_h"], row["seed"])]
    return found[-1] if found else None


def intervals(bench: Bench, value) -> list[tuple[int, int]]:
    """Pairs of clock readings (their event numbers) whose difference is `value`: where a reported time can have come
    from (the first 100 found)."""
    got = number(value)
    if got is None or not math.isfinite(got) or got < 0:
        return []
    values = [v for _, v in bench.readings]  # a clock never goes back: sorted
    tolerance = 1e-9 * max(1.0, got)
    found: list[tuple[int, int]] = []
    for b, (j, later) in enumerate(bench.readings):
        lo = bisect.bisect_left(values, later - got - tolerance, 0, b)
        hi = min(bisect.bisect_right(values, later - got + tolerance, 0, b), lo + 100 - len(found))
        found += [(bench.readings[a][0], j) for a in range(lo, hi)]
        if len(found) >= 100:
            break
    return found


def moves_between(bench: Bench, span: tuple[int, int]) -> list[tuple[str, dict]]:
    """What moved the clock between two events: each train call and each verified call of a trained model."""
    i, j = span
    return [
        (kind, bench.calls[k] if kind == "train" else bench.forwards[k])
        for place, kind, k in bench.moves
        if i < place < j and (kind == "train" or bench.forwards[k]["verified"])
    ]


class Predicted(NamedTuple):
    """What a run's trained model verifiably predicted: `rows[index[code(x)]]` are the tokens it predicted for a
    sequence x of T tokens."""

    index: dict[int, int]
    rows: torch.Tensor


POWERS = VOCAB ** torch.arange(T)  # a sequence of T tokens 0..VOCAB−1 as one int64, its code


def codes(x: torch.Tensor) -> list[int]:
    """The code of each sequence (a row of T tokens) of `x`: ints, not tuples, so that a lookup allocates no containers."""
    return (x.long() @ POWERS).tolist()


def predictions(bench: Bench, run: int) -> Predicted:
    """What the run's trained model predicted for each sequence of T tokens it was verifiably called on (argmax of the
    logits it reported; the last call's, where a sequence was called twice)."""
    made = [f for f in bench.forwards if f["verified"] and f["run"] == run and f["inputs"].shape[1] == T]
    if not made:
        return Predicted({}, torch.empty(0, T, dtype=torch.int8))
    keys = [k for f in made for k in codes(f["inputs"])]
    return Predicted(dict(zip(keys, range(len(keys)))), torch.cat([f["predicted"] for f in made]))


def predicted_for(made: Predicted, x: torch.Tensor) -> torch.Tensor:
    """The predictions for the leading sequences of `x` (n, T) that were predicted, up to the first that was not."""
    found = list(map(made.index.get, codes(x)))
    return made.rows[found[: found.index(None)] if None in found else found]


def share_right(made: Predicted, x: torch.Tensor, y: torch.Tensor, start: int) -> float | None:
    """The share of positions t ≥ start of (x, y) that the predictions get right; None where a sequence was not predicted."""
    rows = predicted_for(made, x)
    if len(rows) < len(x):
        return None
    return (rows[:, start:] == y[:, start:].cpu()).double().mean().item()


# -- the data ----------------------------------------------------------------------------------------


@check(points=1)
def test_delayed_copy(protocol, reference):
    """make_delayed_copy: int64 (n, T), tokens 1..vocab−1, targets shifted by delay, reproducible by seed
    make_delayed_copy：int64 (n, T)，token 为 1..vocab−1，targets 平移 delay，按随机种子可复现"""
    n, t, delay, vocab = 200, 10, 3, 5
    x, y = pair(protocol.make_delayed_copy(n, t, delay, vocab, 11), "make_delayed_copy", (n, t))

    def tokens():
        if (x == 0).any():
            raise Fail(
                "inputs contain the blank token 0; input tokens are 1..vocab−1 (0 only marks 'nothing to copy yet')",
                "inputs 中出现了空白符 0；输入 token 应为 1..vocab−1（0 只表示“尚无可复制内容”）",
            )
        if (x < 0).any() or (x >= vocab).any():
            raise Fail("inputs contain tokens outside 1..vocab−1", "inputs 中有超出 1..vocab−1 的 token")
        if not (x == vocab - 1).any():
            raise Fail(
                "token vocab−1 never appears: torch.randint's upper bound is exclusive, use randint(1, vocab, ...)",
                "token vocab−1 从未出现：torch.randint 的上界不含在内，应写 randint(1, vocab, ...)",
            )

    def shift():
        if len(x.unique()) < 2:
            raise Fail("the shift counts once the inputs vary: on constant inputs it cannot be seen", "输入有变化后平移才计分：在常数输入上看不出平移")
        expected = torch.zeros_like(x)
        expected[:, delay:] = x[:, :-delay]
        if torch.equal(y, expected):
            return
        for wrong in (delay - 1, delay + 1):
            other = torch.zeros_like(x)
            other[:, wrong:] = x[:, : t - wrong]
            if torch.equal(y, other):
                raise Fail(
                    f"targets are shifted by delay {'−' if wrong < delay else '+'} 1: delay off by one; targets[:, t] = inputs[:, t − delay] for t ≥ delay",
                    f"targets 的平移量为 delay {'−' if wrong < delay else '+'} 1：延迟差了一位；应为 t ≥ delay 时 targets[:, t] = inputs[:, t − delay]",
                )
        if not (y[:, :delay] == 0).all():
            raise Fail("targets before position delay must be the blank 0", "位置 delay 之前的 targets 应为空白符 0")
        raise Fail("targets are not inputs shifted right by delay", "targets 不是 inputs 右移 delay 位的结果")

    def seeded():
        again = pair(protocol.make_delayed_copy(n, t, delay, vocab, 11), "make_delayed_copy (seed 11 again)", (n, t))
        other = pair(protocol.make_delayed_copy(n, t, delay, vocab, 12), "make_delayed_copy (seed 12)", (n, t))
        if not (torch.equal(again[0], x) and torch.equal(again[1], y)):
            raise Fail(
                "the same seed gave different tensors: draw from torch.Generator().manual_seed(seed)",
                "相同种子得到不同张量：应从 torch.Generator().manual_seed(seed) 抽样",
            )
        if torch.equal(other[0], x):
            raise Fail("a different seed gave the same inputs: the seed is ignored", "不同种子得到相同的 inputs：种子没有被使用")

    partial([tokens, shift, seeded])


@check(points=1)
def test_splits(protocol):
    """make_splits: exact sizes, no sequence repeated or shared between splits, reproducible, ValueError when impossible, splits alike
    make_splits：规模准确，序列不重复、不跨集合共享，可复现，无法满足时抛出 ValueError，各划分分布一致"""
    sizes, t, delay, vocab = {"train": 40, "val": 20, "test": 20}, 7, 2, 3  # 80 of only 2**7 = 128 sequences
    got = protocol.make_splits(sizes, t, delay, vocab, 4)
    if not isinstance(got, dict) or set(got) != set(sizes):
        raise Fail("make_splits must return a dict with the keys of sizes: train, val, test", "make_splits 应返回与 sizes 同键（train、val、test）的 dict")
    data = {name: pair(got[name], f"make_splits()[{name!r}]", (n, t)) for name, n in sizes.items()}

    def valid():
        for name, (x, y) in data.items():
            if (x < 1).any() or (x >= vocab).any():
                raise Fail(f"{name} inputs contain tokens outside 1..vocab−1", f"{name} 的 inputs 含有 1..vocab−1 之外的 token")
            if not (torch.equal(y[:, delay:], x[:, :-delay]) and (y[:, :delay] == 0).all()):
                raise Fail(f"{name} targets are not the inputs shifted by delay", f"{name} 的 targets 不是 inputs 平移 delay 的结果")
        if not any((x == vocab - 1).any() for x, _ in data.values()):
            raise Fail(
                "token vocab−1 never appears in the splits: draw tokens from 1..vocab−1, both ends included",
                "各划分中从未出现 token vocab−1：应从 1..vocab−1（两端都包含）中抽取 token",
            )

    def working(part):
        """A property of the splits (reproducible, refusing the impossible) counts once they hold valid sequences."""

        def gated():
            try:
                valid()
            except Fail:
                raise Fail(
                    "reproducibility and the ValueError count once the splits hold valid delayed-copy sequences",
                    "各划分包含有效的延迟复制序列后，可复现性与 ValueError 才计分",
                ) from None
            part()

        return gated

    def no_repeats():
        for name, (x, _) in data.items():
            if len({tuple(r) for r in x.tolist()}) < len(x):
                raise Fail(f"repeated sequences: a sequence appears twice in the {name} split", f"序列重复：{name} 中同一序列出现了两次")

    def disjoint():
        names = list(data)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if {tuple(r) for r in data[a][0].tolist()} & {tuple(r) for r in data[b][0].tolist()}:
                    raise Fail(f"overlapping splits: a sequence is in both {a} and {b}", f"划分重叠：同一序列同时出现在 {a} 与 {b} 中")

    def split_with(seed, called, called_zh, shown):
        got = protocol.make_splits(sizes, t, delay, vocab, seed)
        if not isinstance(got, dict) or set(got) != set(sizes):
            raise Fail(
                f"make_splits called {called} did not return a dict with keys train, val, test",
                f"{called_zh}调用 make_splits 没有返回键为 train、val、test 的 dict",
            )
        return {k: pair(got[k], f"make_splits()[{k!r}] ({shown})", (n, t)) for k, n in sizes.items()}

    def seeded():
        again = split_with(4, "again with the same seed", "以相同种子再次", "same seed again")
        if not all(torch.equal(again[k][0], data[k][0]) for k in sizes):
            raise Fail("the same seed gave different splits", "相同种子得到了不同的划分")
        other = split_with(5, "with another seed", "以另一个种子", "another seed")
        if all(torch.equal(other[k][0], data[k][0]) for k in sizes):
            raise Fail("a different seed gave the same splits: the seed is ignored", "不同种子得到了相同的划分：种子没有被使用")

    def impossible():
        try:
            protocol.make_splits({"train": 100, "val": 20, "test": 20}, t, delay, vocab, 4)
        except StudentError as e:
            if e.raised("ValueError"):
                return
            raise Fail(
                f"asking for 140 distinct sequences where only 128 exist must raise ValueError, not {e.types[0] if e.types else 'fail'}",
                "只存在 128 个不同序列却要求 140 个时应抛出 ValueError",
            ) from None
        raise Fail("asking for 140 distinct sequences where only 128 exist must raise ValueError", "只存在 128 个不同序列却要求 140 个时应抛出 ValueError")

    def fair():
        """Sequences go to the splits in the order they are drawn (or shuffled): each split then holds every token at
        each position about as often as the others. Sorting (torch.unique(dim=0) does) gives the train split the
        sequences that start with small tokens and the test split those that start with large ones."""
        big = {"train": 300, "val": 100, "test": 100}  # of 4**8 = 65,536 sequences: one draw's shares differ by < 0.25
        got = protocol.make_splits(big, 8, 2, 5, 6)
        if not isinstance(got, dict) or set(got) != set(big):
            raise Fail("make_splits must return a dict with the keys of sizes: train, val, test", "make_splits 应返回与 sizes 同键（train、val、test）的 dict")
        shares = {}
        for name, n in big.items():
            x, _ = pair(got[name], f"make_splits()[{name!r}]", (n, 8))
            shares[name] = torch.stack([(x == token).double().mean(0) for token in range(1, 5)])  # (token, position)
        apart = max((shares[a] - shares[b]).abs().max().item() for a in big for b in big)
        if apart > 0.25:
            raise Fail(
                "the splits hold different tokens at the same position (sorted sequences?): assign sequences to the splits "
                "in the order they are drawn, or shuffled – torch.unique(dim=0) sorts them",
                "各划分在同一位置上的 token 分布不同（序列被排序了？）：应按抽取顺序（或打乱后）把序列分入各划分——torch.unique(dim=0) 会对序列排序",
            )

    partial([valid, no_repeats, disjoint, working(seeded), working(impossible), working(fair)])


# -- the protocol, with the simulated bench --------------------------------------------------------

TRAINED_ON_TEST = (
    "trained on test sequences: bench.train gets the train split only; the test split is for the final measurement",
    "用测试序列训练：bench.train 只能拿到训练集；测试集只用于最后的测量",
)
TRAINED_ON_VAL = (
    "trained on validation sequences: bench.train gets the train split only; validation is for choosing",
    "用验证序列训练：bench.train 只能拿到训练集；验证集用于选择",
)
NOT_SEEDED = (
    "initial weights not built under torch.manual_seed(seed): each (cell, seed) run calls torch.manual_seed(seed) "
    "right before building its model, so every model starts from its own seed's weights",
    "初始权重不是在 torch.manual_seed(seed) 之下建立的：每个 (cell, seed) 运行都应在建模型之前调用 torch.manual_seed(seed)，使每个模型都从它自己种子的权重开始",
)


@functools.cache
def seeded_weights(cell: str, d_h: int, seed: int) -> tuple[dict, ...]:
    """The initial weights of ex08's model built here right after torch.manual_seed(seed), for each order in which
    its three parts can be made (the statement fixes the parts, not the order of an __init__)."""
    makers = {
        "embedding": lambda: torch.nn.Embedding(VOCAB, D_E),
        "rnn": lambda: CELLS[cell](D_E, d_h, batch_first=True),
        "head": lambda: torch.nn.Linear(d_h, VOCAB),
    }
    builds = []
    with torch.random.fork_rng(devices=[]):  # the grading process's own random state is left as it was
        for order in itertools.permutations(makers):
            # the CPU generator alone, which these builds draw from, as torch.manual_seed seeds it: torch.manual_seed
            # would also queue seeds for the GPUs, each with a formatted stack (about 1.7 ms a call under pytest)
            torch.random.default_generator.manual_seed(seed)
            parts = {name: makers[name]() for name in order}
            builds.append({f"{name}.{k}": v.detach().clone() for name, m in parts.items() for k, v in m.state_dict().items()})
    return tuple(builds)


def seeded(call: dict) -> bool:
    """Whether a recorded train call's model started from the weights built here under its seed."""
    got = call["initial"]  # a model moved to float64 after its seeded build keeps its float32 values exactly
    return any(
        set(got) == set(build)
        and all(got[k].shape == v.shape and got[k].is_floating_point() and torch.equal(got[k].cpu().to(v.dtype), v) for k, v in build.items())
        for build in seeded_weights(call["cell"], call["d_h"], call["seed"])
    )


def pairs(data) -> set | None:
    """The (input, target) sequence pairs of `data`, as tuples; None when it is not (inputs, targets) of shape (n, T)."""
    if data is None:
        return None
    x, y = data
    if x.ndim != 2 or x.shape[1] != T or y.shape != x.shape or x.is_floating_point() or y.is_floating_point():
        return None
    return {(tuple(a), tuple(b)) for a, b in zip(x.tolist(), y.tolist())}


@check(points=1)
def test_training_protocol(protocol, reference, device):
    """Each run trains once, on the train split only, a model built right after torch.manual_seed(seed)
    每次运行只训练一次、只用训练集，模型在 torch.manual_seed(seed) 之后立即构建"""
    rows, bench = default_run(protocol, reference, device)
    rows = complete(rows)
    made = {name: {(tuple(a), tuple(b)) for a, b in zip(x.tolist(), y.tolist())} for name, (x, y) in _splits(reference, device).items()}
    inputs = {name: {a for a, _ in got} for name, got in made.items()}
    runs = [(r["cell"], r["seed"]) for r in rows]  # the runs reported (which ought to be: the checks on all runs and settings)
    by_run = {run: [c for c in bench.calls if (c["cell"], c["seed"]) == run] for run in runs}
    missing = [run for run, mine in by_run.items() if not mine]

    def data():
        problems: dict = {}  # (en, zh) of what is wrong -> the runs it is wrong for
        if missing:
            problems[
                (
                    "bench.train was never called for it (with that run's seed): every (cell, seed) trains",
                    "它从未（以该运行的种子）调用 bench.train：每个 (cell, seed) 都要训练",
                )
            ] = missing
        for run, mine in by_run.items():
            if len(mine) > 1:
                problems.setdefault(
                    ("bench.train was called more than once: one training run per (cell, seed)", "bench.train 被调用了不止一次：每个 (cell, seed) 只训练一次"),
                    [],
                ).append(run)
            for call in mine:
                why = wrong_data(call["data"])
                if why:
                    problems.setdefault(why, []).append(run)
        if problems:
            runs_en = {why: ", ".join(dict.fromkeys(map(str, where))) for why, where in problems.items()}
            raise Fail(
                "; ".join(f"the run(s) {runs_en[why]}: {why[0]}" for why in problems),
                "；".join(f"运行 {runs_en[why]}：{why[1]}" for why in problems),
                diagnosis=[why for why in problems if why in (TRAINED_ON_TEST, TRAINED_ON_VAL)],
            )

    def wrong_data(data) -> tuple[str, str] | None:
        got = pairs(data)
        if got is None:
            return (
                "bench.train got no (inputs, targets) pair of int64 tensors (n, T)",
                "交给 bench.train 的不是 (inputs, targets)（形状 (n, T) 的 int64 张量）",
            )
        seen = {a for a, _ in got}
        if seen & inputs["test"]:
            return TRAINED_ON_TEST
        if seen & inputs["val"]:
            return TRAINED_ON_VAL
        if seen != inputs["train"]:
            return ('it did not train on the whole train split, splits["train"]', '没有在整个训练集 splits["train"] 上训练')
        if got != made["train"]:
            return ("bench.train got the train inputs with targets that are not theirs", "交给 bench.train 的训练输入配上了不属于它们的 targets")
        return None

    def seeding():
        if missing:
            raise Fail("the seeded build counts once every run trains with bench.train", "每次运行都用 bench.train 训练后，按种子建模型才计分")
        wrong = ", ".join(str(run) for run, mine in by_run.items() if not seeded(mine[0]))
        if wrong:
            raise Fail(f"the run(s) {wrong}: {NOT_SEEDED[0]}", f"运行 {wrong}：{NOT_SEEDED[1]}", diagnosis=NOT_SEEDED)

    partial([data, seeding])


@check(points=1)
def test_shared_settings(protocol, reference, device):
    """Every model runs with the same seed set, batch size, update count and learning rate
    所有模型使用相同的随机种子集合、批量大小、更新次数与学习率"""
    rows, bench = default_run(protocol, reference, device)
    problems = []
    for cell in GATES:
        mine = [r for r in rows if r["cell"] == cell]
        if [r["seed"] for r in mine] != SETTINGS["seeds"]:
            problems.append((f"the {cell} runs use seeds {[r['seed'] for r in mine]}, not the shared seed set", f"{cell} 的运行使用的种子不是共享的种子集合"))
        for key in ("batch_size", "updates", "lr"):
            if any(r[key] != SETTINGS[key] for r in mine):
                problems.append((f"the {cell} rows report a different {key} from the shared settings", f"{cell} 的行报告的 {key} 与共享设置不同"))
        trained = [run_of(bench, r) for r in mine]
        if not mine or None in trained:
            problems.append(
                (
                    f"the {cell} runs count once each trains with bench.train (see the check on the training protocol)",
                    f"{cell} 的每次运行都用 bench.train 训练后才计分（见训练协议检查）",
                )
            )
        elif any(c[k] != SETTINGS[k] for c in trained if c for k in ("batch_size", "updates")):
            problems.append(
                (
                    f"the {cell} runs were trained with a different batch size or update count than the others",
                    f"{cell} 的训练使用了与其他模型不同的批量大小或更新次数",
                )
            )
        elif any(c["lr"] != SETTINGS["lr"] for c in trained if c):
            problems.append((f"the {cell} runs were trained with a different lr than the others", f"{cell} 的训练使用了与其他模型不同的学习率"))
    if problems:
        raise Fail("settings differ across models: " + "; ".join(p[0] for p in problems), "各模型的设置不一致：" + "；".join(p[1] for p in problems))


# -- the model and accuracy, on a model the grader knows ---------------------------------------------

KNOWN_CELL = "gru"
BLANKS = (
    "test_acc: counted the blank positions t < delay; score only positions t ≥ delay",
    "test_acc：把 t < delay 的空白位置也算进去了；只统计 t ≥ delay 的位置",
)


@functools.cache
def known_weights() -> dict:
    """Weights of ex08's model (the GRU at D_H) drawn here: what the submission's build_model is loaded with."""
    g = torch.Generator().manual_seed(zlib.crc32(b"ex08 known model"))
    return {k: torch.randn(v.shape, generator=g) for k, v in CopyModel(KNOWN_CELL, D_H).state_dict().items()}


@functools.cache  # the reference's data and the known model's logits on it: once per grading process, as _splits
def known_data(reference) -> tuple[torch.Tensor, torch.Tensor]:
    return reference.make_delayed_copy(64, T, DELAY, VOCAB, 9)


@functools.cache
def known_logits(reference) -> torch.Tensor:
    """The known model's logits on the known data, in float32: what the lookup model answers accuracy with."""
    return logits_of(copy_model(KNOWN_CELL, D_H, known_weights()), known_data(reference)[0]).float()


def accuracies(protocol, reference, device) -> tuple[object, object, KnownModel]:
    """Once per submission: accuracy(model, x, y, DELAY) for the submission's own build_model loaded with known weights
    (its calls reported to the probe, whose verified ones show model(x) right), and for a model that answers each
    sequence of x with logits sent from here (so accuracy is judged on logits known here, whatever model(x) does)."""

    def measure():
        probe = KnownModel(KNOWN_CELL, D_H, known_weights())
        x, y = (t.to(device) for t in known_data(reference))
        built = inject("known_model", cell=KNOWN_CELL, vocab=VOCAB, d_e=D_E, d_h=D_H, weights=known_weights(), service=probe)
        try:
            on_built: object = protocol.accuracy(built, x, y, DELAY)
        except StudentError as e:
            on_built = e
        lookup = inject("lookup_model", inputs=x, logits=known_logits(reference).to(device))
        return on_built, protocol.accuracy(lookup, x, y, DELAY), probe

    return once(protocol, "known model", measure)


def known_hits(reference) -> torch.Tensor:
    """Which positions of the known data the known model gets right."""
    return known_logits(reference).argmax(-1) == known_data(reference)[1]


def counts_blanks(protocol, reference, device) -> bool:
    """Whether the submission's accuracy counts the blank positions (charged by the check of accuracy alone)."""
    try:
        _, value, _ = accuracies(protocol, reference, device)
    except StudentError:
        return False
    hits = known_hits(reference)
    return close(value, hits.double().mean().item(), ACC_RTOL) and not close(value, hits[:, DELAY:].double().mean().item(), ACC_RTOL)


@check(points=1)
def test_model_and_accuracy(protocol, reference, device):
    """build_model's model gives the logits of its parts, and accuracy scores positions t ≥ delay (on models the grader knows)
    build_model 的模型给出其各部分的 logits，accuracy 只统计 t ≥ delay 的位置（在评分程序已知的模型上）"""
    on_built, value, probe = accuracies(protocol, reference, device)
    try:
        trained = [f for f in default_run(protocol, reference, device)[1].forwards if f["verified"]]
    except (Fail, StudentError):  # the comparison failed: judged by the checks on it
        trained = []

    def forward():
        if any(f["verified"] for f in probe.forwards) or trained:
            return
        if isinstance(on_built, StudentError):
            raise on_built
        if not probe.forwards:
            raise Fail(
                "accuracy never called the model as model(inputs): measure what the model predicts by calling it",
                "accuracy 从未以 model(inputs) 的方式调用模型：应调用模型来得到它的预测",
            )
        raise Fail(
            "model(x) does not give the logits of head(rnn(embedding(x))) at every position, (B, T, vocab)",
            "model(x) 给出的不是每个位置上 head(rnn(embedding(x))) 的 logits，形状应为 (B, T, vocab)",
        )

    def scored():
        hits = known_hits(reference)
        if close(value, hits[:, DELAY:].double().mean().item(), ACC_RTOL):
            return
        if close(value, hits.double().mean().item(), ACC_RTOL):
            raise Fail(*BLANKS)
        raise Fail(
            "accuracy is not the share of positions t ≥ delay where the argmax of the logits equals the target",
            "accuracy 不是 t ≥ delay 的位置中 logits 的 argmax 等于目标的比例",
        )

    partial([forward, scored])


# -- what each row reports ---------------------------------------------------------------------------


@check(points=0.5)
def test_parameter_counts(protocol, reference, device):
    """Reported parameter counts are the modules' own, sum(p.numel() for p in model.parameters())
    报告的参数量是模块自身的 sum(p.numel() for p in model.parameters())"""
    rows, bench = default_run(protocol, reference, device)
    for r, call in trained_runs(bench, complete(rows)):
        own = sum(v.numel() for v in call["initial"].values())  # the model the bench was given
        if own != total_params(r["cell"], r["d_h"]):
            raise Fail(
                f"the {r['cell']} model is not Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)",
                f"{r['cell']} 模型不是 Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)",
            )
        if r["params"] != own:
            recurrent = GATES[r["cell"]] * r["d_h"] * (D_E + r["d_h"] + 2)
            known = {
                GATES[r["cell"]] * r["d_h"] * (D_E + r["d_h"] + 1) + own - recurrent: "one bias per block (PyTorch has two)",
                recurrent: "the recurrent layer alone (embedding and head left out)",
            }
            why = known.get(r["params"], "")
            raise Fail(
                f"the {r['cell']} row reports {r['params']} parameters, which is not the module's own count; "
                f"count them with sum(p.numel() for p in model.parameters()){' – this looks like ' + why if why else ''}",
                f"{r['cell']} 行报告的参数量不是模块自身的参数量；请用 sum(p.numel() for p in model.parameters()) 统计",
            )


@check(points=0.5)
def test_prediction_timing(protocol, reference, device):
    """Prediction time is measured with bench.clock() around a prediction of exactly 512 test sequences
    预测时间用 bench.clock() 对恰好 512 个测试序列的一次预测计时"""
    rows, bench = default_run(protocol, reference, device)
    test_x = _splits(reference, device)["test"][0].cpu()
    for r, call in trained_runs(bench, complete(rows)):
        spans = intervals(bench, r["predict_time"])
        if not spans:
            raise Fail(
                f"the {r['cell']} row's prediction time is not the difference of two readings of bench.clock()",
                f"{r['cell']} 行的预测时间不是 bench.clock() 两次读数之差",
            )
        found = [prediction_in(bench, call, span, test_x) for span in spans]
        if None not in found:
            what = found[0]
            assert what is not None
            raise Fail(
                f"the {r['cell']} row's prediction time covers {what.en}, not exactly the first 512 test sequences: time "
                "model(test_inputs[:512]) and nothing else (a call counts once its logits are the model's: see the check of the model and accuracy)",
                f"{r['cell']} 行的预测时间覆盖了 {what.zh}，而不是恰好前 512 个测试序列："
                "只计时 model(test_inputs[:512])（logits 是模型自己的输出时，调用才计入）",
            )


def prediction_in(bench: Bench, call: dict, span: tuple[int, int], test_x: torch.Tensor) -> Text | None:
    """What the clock timed between two readings, for a prediction of the run's trained model: None where it is exactly
    its verified call(s) on the first 512 test sequences, else what it covers."""
    moved = moves_between(bench, span)
    if any(kind == "train" or got["run"] != call["run"] for kind, got in moved):
        return Text("other work too (a training run or another model's prediction)", "其他工作（一次训练或另一个模型的预测）")
    inputs = [got["inputs"] for _, got in moved]
    expected = test_x[:PREDICT]
    if inputs and all(x.shape[1] == expected.shape[1] for x in inputs) and torch.equal(torch.cat(inputs).long(), expected):
        return None
    rows = sum(len(x) for x in inputs)
    named = {
        500: Text("500 sequences", "500 个序列"),
        SIZES["test"]: Text("all test sequences", "全部测试序列"),
        0: Text("no verified call of the trained model", "零次经核实的训练后模型调用"),
    }
    return named.get(rows, Text(f"{rows} sequences", f"{rows} 个序列"))


@check(points=1)
def test_all_runs_reported(protocol, reference, device):
    """Every run is reported: a NaN or infinite loss gives status "diverged", a raising run "failed" with test_acc None
    报告所有运行：损失为 NaN 或无穷大时状态为 "diverged"，抛出异常的运行为 "failed" 且 test_acc 为 None"""
    seeds = seeds_trained(protocol, reference, device)
    nan, inf, failed = ("gru", seeds["gru"][1]), ("rnn", seeds["rnn"][0]), ("lstm", seeds["lstm"][0])
    bench = SimulatedBench(diverge=[(*nan, float("nan")), (*inf, float("inf"))], fail=[failed])
    rows, _ = run(protocol, splits(reference, device, BRIEF), {c: D_H for c in GATES}, bench)
    runs = by_run(rows)
    problems = []
    for diverged, loss in ((nan, "NaN"), (inf, "infinite")):
        if diverged not in runs:
            problems.append(
                (
                    f"dropped the diverged run ({diverged[0]}, seed {diverged[1]}): every run keeps its row",
                    f"删除了发散的运行 ({diverged[0]}, 种子 {diverged[1]})：每次运行都要保留",
                )
            )
        elif runs[diverged]["status"] != "diverged":
            problems.append((f'a run whose final loss is {loss} must have status "diverged"', f'最终损失为 {loss} 的运行状态应为 "diverged"'))
    if failed not in runs:
        problems.append(
            (f"dropped the failed run (lstm, seed {failed[1]}): every run keeps its row", f"删除了失败的运行 (lstm, 种子 {failed[1]})：每次运行都要保留")
        )
    elif runs[failed]["status"] != "failed" or runs[failed]["test_acc"] is not None:
        problems.append(('a run that raised must have status "failed" and test_acc None', '抛出异常的运行状态应为 "failed"，test_acc 为 None'))
    others = [r for key, r in runs.items() if key not in (nan, inf, failed)]
    if len(rows) != len(runs) or len(others) != 3 or any(r["status"] != "ok" for r in others):
        problems.append(
            ('expected exactly one row per (cell, seed), the three healthy ones with status "ok"', '每个 (cell, seed) 应恰好一行，其余三次正常运行状态为 "ok"')
        )
    if any(run_of(bench, r) is None for r in rows):
        problems.append(("rows of runs the bench never saw: every row is a run of bench.train", "有 bench 从未见过的运行行：每一行都应是一次 bench.train 运行"))
    if problems:
        raise Fail("; ".join(p[0] for p in problems), "；".join(p[1] for p in problems))


def seeds_trained(protocol, reference, device) -> dict:
    """The seeds each cell trained with in the default comparison, in order; the shared seeds where they are not known.
    The failing and diverging runs are chosen among them, so that seeds that differ (charged by the check on shared
    settings) do not read as dropped runs."""
    try:
        _, bench = default_run(protocol, reference, device)
        calls = bench.calls
    except (Fail, StudentError):  # the comparison failed: judged by the checks on it
        calls = []
    seeds = {cell: list(dict.fromkeys(c["seed"] for c in calls if c["cell"] == cell)) for cell in GATES}
    return {cell: got if len(got) == len(SETTINGS["seeds"]) else SETTINGS["seeds"] for cell, got in seeds.items()}


TRAINING_DATA = (
    "test accuracy measured on training data: test_acc is accuracy on the test split, which training never saw",
    "测试准确率是在训练数据上测的：test_acc 是在测试集上的准确率，训练从未见过测试集",
)
VALIDATION_DATA = (
    "test accuracy measured on validation data: test_acc is accuracy on the test split",
    "测试准确率是在验证数据上测的：test_acc 是在测试集上的准确率",
)
NOT_MEASURED = (
    "test_acc must measure the trained model on the whole test split by calling it, model(test_inputs): the bench saw no such call "
    "whose logits are the model's (see the check of the model and accuracy)",
    "test_acc 应通过调用训练后的模型 model(test_inputs) 在整个测试集上测量：bench 没有见到这样的、logits 为模型自身输出的调用（见模型与 accuracy 的检查）",
)


def acc_problem(value, bench: Bench, call: dict, data: dict, blanks_charged: bool) -> tuple[str, str] | None:
    """What is wrong with a row's test accuracy, judged by what the run's trained model verifiably predicted."""
    made = predictions(bench, call["run"])
    test_x, test_y = data["test"]
    right = share_right(made, test_x, test_y, DELAY)
    if right is not None and close(value, right, ACC_RTOL):
        return None
    if right is not None and close(value, share_right(made, test_x, test_y, 0), ACC_RTOL):
        return None if blanks_charged else BLANKS
    for why, (x, y) in ((TRAINING_DATA, data["train"]), (VALIDATION_DATA, data["val"])):
        other = share_right(made, x, y, DELAY)
        if other is not None and close(value, other, ACC_RTOL):
            return why
    if right is None:
        return NOT_MEASURED
    return ("test_acc is not the share of positions t ≥ delay predicted right on the test split", "test_acc 不是测试集上 t ≥ delay 位置的预测正确率")


def measured(value, bench: Bench, call: dict, data: dict) -> bool:
    """Whether `value` is a share the run's trained model verifiably gave, measured some way: on a split's first n
    predicted sequences, from position delay, one off it, or 0 (each a mistake of its own for the row-metrics check)."""
    got = number(value)
    if got is None:
        return False
    made = predictions(bench, call["run"])
    for x, y in data.values():
        rows = predicted_for(made, x)
        n = len(rows)
        if n == 0:
            continue
        for start in (DELAY, DELAY - 1, DELAY + 1, 0):
            hits = (rows[:, start:] == y[:n, start:]).double().sum(1).cumsum(0)
            shares = hits / (torch.arange(1, n + 1, dtype=torch.float64) * (y.shape[1] - start))
            if bool(((shares - got).abs() <= ACC_RTOL).any()):
                return True
    return False


def trained_alone(bench: Bench, call: dict, value) -> bool:
    """Whether `value` is the difference of two clock readings with the run's train call, and nothing else, between."""
    return any([(kind, got.get("run")) for kind, got in moves_between(bench, span)] == [("train", call["run"])] for span in intervals(bench, value))


@check(points=1)
def test_row_metrics(protocol, reference, device):
    """Test accuracy (positions t ≥ delay), training time, peak memory and recurrent-cell calls are right
    测试准确率（t ≥ delay 的位置）、训练时间、峰值内存与循环单元调用次数正确"""
    data = {name: (x.cpu(), y.cpu()) for name, (x, y) in _splits(reference, device).items()}
    rows, bench = default_run(protocol, reference, device)
    blanks_charged = counts_blanks(protocol, reference, device)
    problems, named = [], []
    for r, call in trained_runs(bench, complete(rows)):
        why = acc_problem(r["test_acc"], bench, call, data, blanks_charged)
        if why:
            problems.append(why)
            if why in (TRAINING_DATA, VALIDATION_DATA):
                named.append(why)
        if not trained_alone(bench, call, r["train_time"]):
            problems.append(("train_time must time bench.train alone, with bench.clock()", "train_time 应只对 bench.train 计时，并使用 bench.clock()"))
        if not close(r["peak_memory"], call["outcome"]["peak_memory"]):
            problems.append(("peak_memory must be the bench's reported peak_memory", "peak_memory 应为 bench 报告的 peak_memory"))
        if r["cell_calls"] != SETTINGS["updates"] * SETTINGS["batch_size"] * T:
            problems.append(
                (
                    "cell_calls must be updates × batch_size × T (one cell call per sequence per time step)",
                    "cell_calls 应为 updates × batch_size × T（每个序列每个时间步调用一次循环单元）",
                )
            )
    if problems:
        unique = list(dict.fromkeys(problems))
        raise Fail(
            "; ".join(p[0] for p in unique), "；".join(p[1] for p in unique), share=max(0.0, 1 - 0.25 * len(unique)), diagnosis=list(dict.fromkeys(named))
        )


@check(points=0.5)
def test_two_tables(protocol, reference, device):
    """comparison_tables: one table at equal d_h, one at the parameter-matched widths
    comparison_tables：一张表用相同 d_h，一张表用参数量匹配的宽度"""
    matched = matched_widths(total_params("lstm", D_H))
    bench, settings = SimulatedBench(), SETTINGS | {"seeds": SETTINGS["seeds"][:1]}  # one seed: the tables, not the seeds, are judged here
    got = protocol.comparison_tables(inject("bench", service=bench), splits(reference, device, BRIEF), settings, D_H, matched)
    trained = {(c["cell"], c["d_h"], c["seed"]) for c in bench.calls}
    if not isinstance(got, dict) or set(got) != {"equal_width", "matched_params"}:
        raise Fail(
            'comparison_tables must return {"equal_width": rows, "matched_params": rows}',
            'comparison_tables 应返回 {"equal_width": rows, "matched_params": rows}',
        )
    for name, widths in (("equal_width", {c: D_H for c in GATES}), ("matched_params", matched)):
        rows = rows_of(got[name], f"comparison_tables()[{name!r}]")
        if sorted((r["cell"], r["d_h"]) for r in rows) != sorted((c, w) for c, w in widths.items() for _ in settings["seeds"]):
            raise Fail(
                f"the {name} table does not run each cell at its {'equal' if name == 'equal_width' else 'matched'} width for every seed",
                f"{name} 表没有让每个模型在其{'相同' if name == 'equal_width' else '匹配'}宽度下以每个种子运行",
            )
        if not all((r["cell"], r["d_h"], r["seed"]) in trained for r in rows):
            raise Fail(f"the {name} table holds rows of runs that were not trained with the bench", f"{name} 表中有未经 bench 训练的运行行")


@check(points=0.5)
def test_real_tiny_run(protocol, reference, device):
    """One real tiny run: three cells train on the delayed-copy task and report what really happened
    一次真实的小规模运行：三种单元在延迟复制任务上训练，并报告真实发生的结果"""
    settings = SETTINGS | {"seeds": [0], "updates": 5, "lr": 0.1}  # a few real updates, enough to predict tokens other than the blank
    bench = RealBench()
    data = {name: (x.cpu(), y.cpu()) for name, (x, y) in _splits(reference, device).items()}
    value = protocol.run_comparison(inject("bench", service=bench), splits(reference, device), {c: D_H for c in GATES}, settings)
    rows = rows_of(value, "run_comparison")
    if sorted(r["cell"] for r in rows) != sorted(GATES):
        raise Fail("the real run must report one row per cell", "真实运行应为每个模型报告一行")
    for r, call in trained_runs(bench, rows):
        if "raise" in call["outcome"] or r["status"] != "ok":
            raise Fail(f'the real {r["cell"]} run did not train and report status "ok"', f'{r["cell"]} 的真实运行没有完成训练并报告状态 "ok"')
        if not (measured(r["test_acc"], bench, call, data) and trained_alone(bench, call, r["train_time"]) and predicted_alone(bench, call, r["predict_time"])):
            raise Fail(
                f"the real {r['cell']} run reports a test accuracy or times that nothing measured: report what the trained "
                "model predicts on the test split, and differences of bench.clock() readings around its training and its prediction",
                f"{r['cell']} 的真实运行报告的测试准确率或时间并非测量所得：应报告训练后模型在测试集上的预测结果，"
                "以及 bench.clock() 在其训练与预测前后读数之差",
            )


def predicted_alone(bench: Bench, call: dict, value) -> bool:
    """Whether `value` is the difference of two clock readings with verified calls of the run's trained model, and
    nothing else, between (how many sequences is the prediction-timing check's to judge)."""
    return any(
        (moved := moves_between(bench, span)) and all(kind == "forward" and got["run"] == call["run"] for kind, got in moved)
        for span in intervals(bench, value)
    )


# -- the answer sheet --------------------------------------------------------------------------------

MISCONCEPTIONS = {
    "equal_width_shows": {
        "A": (
            "took equal width for equal cost: answer-key item 4 lists what one d_h does not hold equal",
            "把相同宽度当成了相同成本：参考答案第 4 题列出了同一个 d_h 不能使之相同的量",
        ),
        "B": (
            "credited the gap to the extra parameters: one table cannot say which of the differences between the cells caused it",
            "把差距归因于多出的参数：一张表无法说明差距由模型之间的哪一处不同造成",
        ),
        "C": (
            "dismissed the equal-width table: a table is read for what it holds fixed, and this one holds something fixed",
            "否定了相同宽度的表：一张表要按它固定了什么来解读，而这张表确实固定了某个量",
        ),
    },
    "equal_params_shows": {
        "B": ("close parameter counts do not mean close running times or memory (answer-key item 9)", "参数量接近不等于运行时间或内存接近（参考答案第 9 题）"),
        "C": (
            "matching the budget does not leave the gates as the only difference between GRU and LSTM",
            "参数预算匹配之后，GRU 与 LSTM 之间的差别并不只剩下门",
        ),
        "D": (
            "took equal widths for the fair comparison: at one d_h the cells still differ in gates, parameters and multiply-adds, "
            "so each table is read for what it holds fixed (answer-key items 4 and 9)",
            "把相同宽度当成了公平的比较：同一个 d_h 下模型之间的门数、参数量和乘加次数仍有差别，每张表都要按它固定了什么来解读（参考答案第 4、9 题）",
        ),
    },
}


@check(points=1)
def test_choices(answers, reference_answers):
    """What equal widths and equal parameter counts can and cannot show (answer-key items 4, 8 and 9)
    相同宽度与相同参数量能说明什么、不能说明什么（参考答案第 4、8、9 题）"""
    choices(answers, reference_answers, MISCONCEPTIONS)
