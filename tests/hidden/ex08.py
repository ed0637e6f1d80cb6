"""Hidden checks for ex08: the delayed-copy data and the comparison protocol (10 points).

The protocol is graded with the given fake_bench (grader/inside/given/ex08.py): a simulated clock
and a "trainer" whose outputs are documented functions of what it was given (training time =
updates × batch size × unit, one prediction unit per sequence predicted, peak memory = 16 bytes per
parameter, predicted class k from the settings), so every number a correct protocol reports is known here exactly. One
real tiny run (the given tiny_bench) shows that the protocol also works when something trains.
The checks of the default comparison (training protocol, settings, parameter counts, prediction
timing, row metrics) judge one run of it (`once`), as a student who runs the comparison once would see it.
The bench records what each `train` call got – the sequences and the model's initial weights – in the
student process: student-controlled data, so every verdict compares it with what is computed here (the
splits by content; the weights of a model built here right after torch.manual_seed(seed)).
"""

import functools
import itertools

import torch

from grader.checks import (
    Fail,
    StudentError,
    Text,
    check,
    choices,
    expect_row,
    expect_tensor,
    given_code,
    inject,
    once,
    partial,
    reference_module,
    student_module,
)

protocol = student_module("protocol")
reference = reference_module("protocol")

GATES = {"rnn": 1, "gru": 3, "lstm": 4}
T, DELAY, VOCAB, D_E, D_H = 6, 2, 6, 4, 8
SIZES = {"train": 48, "val": 16, "test": 600}
SETTINGS = {"vocab": VOCAB, "d_e": D_E, "delay": DELAY, "seeds": [3, 7], "batch_size": 16, "updates": 40, "lr": 0.01}
TRAIN_UNIT, PREDICT_UNIT = 2.0**-12, 2.0**-14  # exact in binary, so simulated times add up exactly
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


def splits(reference, device) -> dict:
    return {name: list(pair) for name, pair in _splits(reference, device).items()}


@functools.cache  # the reference's data: made once per grading process, not once per check of every student
def _splits(reference, device) -> dict:
    made = reference.make_splits(SIZES, T, DELAY, VOCAB, seed=5)
    return {name: (x.to(device), y.to(device)) for name, (x, y) in made.items()}


def fake_bench(**failures):
    return inject("fake_bench", train_unit=TRAIN_UNIT, predict_unit=PREDICT_UNIT, **failures)


def fake_class(cell: str, d_h: int, seed: int, call: dict | None = None) -> int:
    """The class fake_bench's "training" makes a model predict (its documented rule), for the batch size, update
    count, data and initial weights of the recorded train call (the shared settings where there is none). A record
    altered after the call (say, to show the train split where the test split was trained on) gives another class than
    the model predicted: forging the record costs the row's test accuracy."""
    s = call or SETTINGS
    fp = given_code("ex08").fingerprint(call.get("data"), call.get("initial")) if call else 0
    return 1 + (seed + 3 * d_h + 5 * s["batch_size"] + 7 * s["updates"] + 11 * GATES[cell] + 13 * fp) % (VOCAB - 1)


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


def compare(protocol, reference, device, widths=None, bench=None) -> list[dict]:
    if widths is None and bench is None:
        return default_run(protocol, reference, device)[0]
    return _compare(protocol, reference, device, widths or {c: D_H for c in GATES}, bench or fake_bench())


def default_run(protocol, reference, device) -> tuple[list[dict], list]:
    """The one comparison five checks judge, run once per submission: its rows, and what the bench recorded."""
    return once(protocol, "comparison", lambda: _run(protocol, reference, device, {c: D_H for c in GATES}, fake_bench()))


def training_calls(protocol, reference, device) -> list[dict]:
    """What the bench recorded of each bench.train call in the default comparison, checked to be plain data."""
    _, records = default_run(protocol, reference, device)
    record = records[0] if records else None
    calls = record.get("calls") if isinstance(record, dict) else None
    malformed = Fail(
        "the bench's record of its train calls came back malformed (was the bench altered?)", "bench 对 train 调用的记录格式错误（bench 被改动了吗？）"
    )
    if not isinstance(calls, list):
        raise malformed
    for call in calls:
        if not (
            isinstance(call, dict)
            and call.get("cell") in GATES
            and type(call.get("d_h")) is int
            and type(call.get("seed")) is int
            and isinstance(call.get("initial"), dict)
            and type(call.get("batch_size")) is int
            and type(call.get("updates")) is int
            and type(call.get("lr")) is float
            and all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in call["initial"].items())
            and (
                call.get("data") is None
                or (isinstance(call["data"], list) and len(call["data"]) == 2 and all(isinstance(t, torch.Tensor) for t in call["data"]))
            )
        ):
            raise malformed
    return calls


def _compare(protocol, reference, device, widths: dict, bench) -> list[dict]:
    return _run(protocol, reference, device, widths, bench)[0]


def _run(protocol, reference, device, widths: dict, bench) -> tuple[list[dict], list]:
    """The rows of run_comparison, and the records of the injected bench (its train calls)."""
    try:
        value, records = protocol.run_comparison.recorded(bench, splits(reference, device), widths, SETTINGS)
    except StudentError as e:
        if "simulated failure" in e.en:
            raise e.with_hint(
                Text(
                    ' Hint: a run that raises must be caught and reported as a row with status "failed"; the comparison goes on.',
                    '。提示：抛出异常的运行应被捕获，并作为状态为 "failed" 的一行报告；比较继续进行。',
                )
            ) from None
        raise
    return rows_of(value, "run_comparison"), records


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


def recorded_call(calls: list[dict], row: dict) -> dict | None:
    """The bench's record of the train call of the row's run (cell, d_h and seed), if there was one."""
    return next((c for c in calls if (c["cell"], c["d_h"], c["seed"]) == (row["cell"], row["d_h"], row["seed"])), None)


def trained_time(call: dict | None) -> float:
    """The fake bench's training time for a recorded call (updates × batch size × unit), or for the shared settings."""
    got = call or SETTINGS
    return got["updates"] * got["batch_size"] * TRAIN_UNIT


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


def accuracy_is(value, k: int, targets: torch.Tensor) -> bool:
    """Whether `value` is the share of `targets` equal to class k, computed in float64 or float32."""
    return close(value, (targets == k).double().mean().item(), rtol=ACC_RTOL)


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
    """make_splits: exact sizes, no sequence repeated or shared between splits, reproducible, ValueError when impossible
    make_splits：规模准确，序列不重复、不跨集合共享，可复现，无法满足时抛出 ValueError"""
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

    def seeded():
        again = protocol.make_splits(sizes, t, delay, vocab, 4)
        if not isinstance(again, dict) or set(again) != set(sizes):
            raise Fail(
                "make_splits called again with the same seed did not return a dict with keys train, val, test",
                "以相同种子再次调用 make_splits 没有返回键为 train、val、test 的 dict",
            )
        again = {k: pair(again[k], f"make_splits()[{k!r}] (same seed again)", (n, t)) for k, n in sizes.items()}
        if not all(torch.equal(again[k][0], data[k][0]) for k in sizes):
            raise Fail("the same seed gave different splits", "相同种子得到了不同的划分")

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

    partial([valid, no_repeats, disjoint, working(seeded), working(impossible)])


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
CELLS = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}


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
            torch.manual_seed(seed)
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
    rows = complete(compare(protocol, reference, device))
    calls = training_calls(protocol, reference, device)
    made = {name: {(tuple(a), tuple(b)) for a, b in zip(x.tolist(), y.tolist())} for name, (x, y) in _splits(reference, device).items()}
    inputs = {name: {a for a, _ in got} for name, got in made.items()}
    runs = [(r["cell"], r["seed"]) for r in rows]  # the runs reported (which ought to be: the checks on all runs and settings)
    by_run = {run: [c for c in calls if (c["cell"], c["seed"]) == run] for run in runs}
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

    unexplained = [
        run for run in runs if by_run[run] and not explains(by_run[run][0], next(r for r in rows if (r["cell"], r["seed"]) == run), _splits(reference, device))
    ]
    if unexplained:  # the record is believed only where it explains what the run reported
        where = ", ".join(map(str, unexplained))
        raise Fail(
            f"the run(s) {where}: the bench's record of the train call does not explain the test accuracy the run reported (was the record altered?)",
            f"运行 {where}：bench 对 train 调用的记录无法解释该运行报告的测试准确率（记录被改动了吗？）",
        )
    partial([data, seeding])


def explains(call: dict, row: dict, splits: dict) -> bool:
    """Whether the class the recorded call makes the model predict gives the row's test accuracy as some way of
    measuring it would: on any split's first n sequences (all of them, or the 512 predicted), from position delay, one
    off it, or 0 – each a mistake of its own for the row-metrics check to charge, never a reason to doubt the record.
    A record rewritten after the call gives another class, whose shares none of these are."""
    got = number(row.get("test_acc"))
    if row.get("status") != "ok" or got is None:
        return True  # no accuracy to explain
    k = fake_class(call["cell"], call["d_h"], call["seed"], call)
    for _, y in splits.values():
        for start in (DELAY, DELAY - 1, DELAY + 1, 0):
            hits = (y[:, start:].cpu() == k).double().sum(1).cumsum(0)  # of the first 1, 2, … n sequences
            shares = hits / (torch.arange(1, len(y) + 1, dtype=torch.float64) * (y.shape[1] - start))
            if bool(((shares - got).abs() <= ACC_RTOL).any()):
                return True
    return False


@check(points=1)
def test_shared_settings(protocol, reference, device):
    """Every model runs with the same seed set, batch size, update count and learning rate
    所有模型使用相同的随机种子集合、批量大小、更新次数与学习率"""
    rows = compare(protocol, reference, device)
    calls = training_calls(protocol, reference, device)
    problems = []
    for cell in GATES:
        mine = [r for r in rows if r["cell"] == cell]
        if [r["seed"] for r in mine] != SETTINGS["seeds"]:
            problems.append((f"the {cell} runs use seeds {[r['seed'] for r in mine]}, not the shared seed set", f"{cell} 的运行使用的种子不是共享的种子集合"))
        for key in ("batch_size", "updates", "lr"):
            if any(r[key] != SETTINGS[key] for r in mine):
                problems.append((f"the {cell} rows report a different {key} from the shared settings", f"{cell} 的行报告的 {key} 与共享设置不同"))
        trained = [recorded_call(calls, r) for r in mine]
        if not mine or None in trained:
            problems.append(
                (
                    f"the {cell} runs count once each trains with bench.train (see the check on the training protocol)",
                    f"{cell} 的每次运行都用 bench.train 训练后才计分（见训练协议检查）",
                )
            )
        elif any(c[k] != SETTINGS[k] for c in trained for k in ("batch_size", "updates")):
            problems.append(
                (
                    f"the {cell} runs were trained with a different batch size or update count than the others",
                    f"{cell} 的训练使用了与其他模型不同的批量大小或更新次数",
                )
            )
        elif any(c["lr"] != SETTINGS["lr"] for c in trained):
            problems.append((f"the {cell} runs were trained with a different lr than the others", f"{cell} 的训练使用了与其他模型不同的学习率"))
    if problems:
        raise Fail("settings differ across models: " + "; ".join(p[0] for p in problems), "各模型的设置不一致：" + "；".join(p[1] for p in problems))


@check(points=1)
def test_parameter_counts(protocol, reference, device):
    """Reported parameter counts are the modules' own, sum(p.numel() for p in model.parameters())
    报告的参数量是模块自身的 sum(p.numel() for p in model.parameters())"""
    rows = complete(compare(protocol, reference, device))
    for r in rows:
        expected = total_params(r["cell"], D_H)
        actual = number(r["peak_memory"]) / 16 if number(r["peak_memory"]) else None  # the bench saw this many
        if actual is not None and actual != expected:
            raise Fail(
                f"the {r['cell']} model is not Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)",
                f"{r['cell']} 模型不是 Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)",
            )
        if r["params"] != expected:
            recurrent = GATES[r["cell"]] * D_H * (D_E + D_H + 2)
            known = {
                GATES[r["cell"]] * D_H * (D_E + D_H + 1) + expected - recurrent: "one bias per block (PyTorch has two)",
                recurrent: "the recurrent layer alone (embedding and head left out)",
            }
            why = known.get(r["params"], "")
            raise Fail(
                f"the {r['cell']} row reports {r['params']} parameters, which is not the module's own count; "
                f"count them with sum(p.numel() for p in model.parameters()){' – this looks like ' + why if why else ''}",
                f"{r['cell']} 行报告的参数量不是模块自身的参数量；请用 sum(p.numel() for p in model.parameters()) 统计",
            )


@check(points=1)
def test_prediction_timing(protocol, reference, device):
    """Prediction time is measured on exactly 512 test sequences
    预测时间恰好在 512 个测试序列上测量"""
    for r in complete(compare(protocol, reference, device)):
        got = number(r["predict_time"])
        if got is None:
            raise Fail(f"the {r['cell']} row has no prediction time", f"{r['cell']} 行没有预测时间")
        sequences = got / PREDICT_UNIT
        if not abs(sequences - PREDICT) <= 1e-6:  # NaN is wrong too
            what = {500.0: "500 sequences", float(SIZES["test"]): "all test sequences"}.get(round(sequences, 6), f"{sequences:g} sequences")
            raise Fail(
                f"the prediction time covers {what}, not exactly 512: time model(test_inputs[:512]) and nothing else",
                f"预测时间覆盖了 {what}，而不是恰好 512 个序列：只计时 model(test_inputs[:512])",
            )


@check(points=1)
def test_all_runs_reported(protocol, reference, device):
    """Every run is reported: a NaN loss gives status "diverged", a raising run "failed" with test_acc None
    报告所有运行：损失为 NaN 时状态为 "diverged"，抛出异常的运行为 "failed" 且 test_acc 为 None"""
    seeds = seeds_trained(protocol, reference, device)
    diverged, failed = ("gru", seeds["gru"][1]), ("lstm", seeds["lstm"][0])
    rows = compare(protocol, reference, device, bench=fake_bench(diverge=[list(diverged)], fail=[list(failed)]))
    runs = by_run(rows)
    problems = []
    if diverged not in runs:
        problems.append(
            (f"dropped the diverged run (gru, seed {diverged[1]}): every run keeps its row", f"删除了发散的运行 (gru, 种子 {diverged[1]})：每次运行都要保留")
        )
    elif runs[diverged]["status"] != "diverged":
        problems.append(('a run whose final loss is NaN or infinite must have status "diverged"', '最终损失为 NaN 或无穷大的运行状态应为 "diverged"'))
    if failed not in runs:
        problems.append(
            (f"dropped the failed run (lstm, seed {failed[1]}): every run keeps its row", f"删除了失败的运行 (lstm, 种子 {failed[1]})：每次运行都要保留")
        )
    elif runs[failed]["status"] != "failed" or runs[failed]["test_acc"] is not None:
        problems.append(('a run that raised must have status "failed" and test_acc None', '抛出异常的运行状态应为 "failed"，test_acc 为 None'))
    others = [r for key, r in runs.items() if key not in (diverged, failed)]
    if len(rows) != len(runs) or len(others) != 4 or any(r["status"] != "ok" for r in others):
        problems.append(
            ('expected exactly one row per (cell, seed), the four healthy ones with status "ok"', '每个 (cell, seed) 应恰好一行，其余四次正常运行状态为 "ok"')
        )
    if problems:
        raise Fail("; ".join(p[0] for p in problems), "；".join(p[1] for p in problems))


def seeds_trained(protocol, reference, device) -> dict:
    """The seeds each cell trained with in the default comparison, in order; the shared seeds where they are not known.
    The failing and diverging runs are chosen among them, so that seeds that differ (charged by the check on shared
    settings) do not read as dropped runs."""
    try:
        calls = training_calls(protocol, reference, device)
    except Fail:  # the comparison or its record failed: judged by the checks on it
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


@check(points=1)
def test_row_metrics(protocol, reference, device):
    """Test accuracy (positions t ≥ delay), training time, peak memory and recurrent-cell calls are right
    测试准确率（t ≥ delay 的位置）、训练时间、峰值内存与循环单元调用次数正确"""
    data = {name: (x.cpu(), y.cpu()) for name, (x, y) in _splits(reference, device).items()}
    test_y = data["test"][1]
    problems, named = [], []
    calls = training_calls(protocol, reference, device)
    for r in complete(compare(protocol, reference, device)):
        k = fake_class(r["cell"], D_H, r["seed"], recorded_call(calls, r))
        if not accuracy_is(r["test_acc"], k, test_y[:, DELAY:]):
            blanks = accuracy_is(r["test_acc"], k, test_y)
            other = [name for name, y in ((TRAINING_DATA, data["train"][1]), (VALIDATION_DATA, data["val"][1])) if accuracy_is(r["test_acc"], k, y[:, DELAY:])]
            if blanks:
                problems.append(
                    (
                        "test_acc: counted the blank positions t < delay; score only positions t ≥ delay",
                        "test_acc：把 t < delay 的空白位置也算进去了；只统计 t ≥ delay 的位置",
                    )
                )
            elif len(other) == 1:
                problems.append(other[0])
                named.append(other[0])
            else:
                problems.append(
                    ("test_acc is not the share of positions t ≥ delay predicted right on the test split", "test_acc 不是测试集上 t ≥ delay 位置的预测正确率")
                )
        if not close(r["train_time"], trained_time(recorded_call(calls, r))):  # the bench's time for what it was given
            problems.append(("train_time must time bench.train alone, with bench.clock()", "train_time 应只对 bench.train 计时，并使用 bench.clock()"))
        if not close(r["peak_memory"], 16 * total_params(r["cell"], D_H)):
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
    got, records = protocol.comparison_tables.recorded(fake_bench(), splits(reference, device), SETTINGS, D_H, matched)
    record = records[0] if records else None
    calls = record.get("calls") if isinstance(record, dict) else None
    trained = {(c.get("cell"), c.get("d_h"), c.get("seed")) for c in calls if isinstance(c, dict)} if isinstance(calls, list) else set()
    if not isinstance(got, dict) or set(got) != {"equal_width", "matched_params"}:
        raise Fail(
            'comparison_tables must return {"equal_width": rows, "matched_params": rows}',
            'comparison_tables 应返回 {"equal_width": rows, "matched_params": rows}',
        )
    for name, widths in (("equal_width", {c: D_H for c in GATES}), ("matched_params", matched)):
        rows = rows_of(got[name], f"comparison_tables()[{name!r}]")
        if sorted((r["cell"], r["d_h"]) for r in rows) != sorted((c, w) for c, w in widths.items() for _ in SETTINGS["seeds"]):
            raise Fail(
                f"the {name} table does not run each cell at its {'equal' if name == 'equal_width' else 'matched'} width for every seed",
                f"{name} 表没有让每个模型在其{'相同' if name == 'equal_width' else '匹配'}宽度下以每个种子运行",
            )
        if not all((r["cell"], r["d_h"], r["seed"]) in trained for r in rows):
            raise Fail(f"the {name} table holds rows of runs that were not trained with the bench", f"{name} 表中有未经 bench 训练的运行行")


@check(points=0.5)
def test_real_tiny_run(protocol, reference, device):
    """One real tiny run: three cells train on the delayed-copy task and report sane rows
    一次真实的小规模运行：三种单元在延迟复制任务上训练并报告合理的行"""
    settings = SETTINGS | {"seeds": [0], "updates": 5}  # a few real updates: the rows are checked, not what was learnt
    data = splits(reference, device)
    rows = rows_of(protocol.run_comparison(inject("tiny_bench"), data, {c: D_H for c in GATES}, settings), "run_comparison")
    if sorted(r["cell"] for r in rows) != sorted(GATES):
        raise Fail("the real run must report one row per cell", "真实运行应为每个模型报告一行")
    for r in rows:
        acc, times = number(r["test_acc"]), [number(r[k]) for k in ("train_time", "predict_time")]
        if r["status"] != "ok" or acc is None or not 0 <= acc <= 1 or any(t is None or not t > 0 for t in times):
            raise Fail(
                f'the real {r["cell"]} run did not give status "ok", a test accuracy in [0, 1] and positive times',
                f'{r["cell"]} 的真实运行没有给出状态 "ok"、[0, 1] 内的测试准确率和正的时间',
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
