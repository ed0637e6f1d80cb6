"""Hidden checks for ex08: the delayed-copy data and the comparison protocol (10 points).

The protocol is graded with the given fake_bench (grader/inside/given/ex08.py): a simulated clock
and a "trainer" whose outputs are documented functions of what it was given (training time =
updates × batch size × unit, one prediction unit per sequence predicted, peak memory = 16 bytes per
parameter, predicted class k from the settings), so every number a correct protocol reports is known here exactly. One
real tiny run (the given tiny_bench) shows that the protocol also works when something trains.
The four checks of the default comparison (settings, parameter counts, prediction timing, row
metrics) judge one run of it (`once`), as a student who runs the comparison once would see it.
"""

import functools

import torch

from grader.checks import Fail, StudentError, Text, check, choices, expect_row, expect_tensor, inject, once, partial, reference_module, student_module

protocol = student_module("protocol")
reference = reference_module("protocol")

GATES = {"rnn": 1, "gru": 3, "lstm": 4}
T, DELAY, VOCAB, D_E, D_H = 6, 2, 6, 4, 8
SIZES = {"train": 48, "val": 16, "test": 600}
SETTINGS = {"vocab": VOCAB, "d_e": D_E, "delay": DELAY, "seeds": [3, 7], "batch_size": 16, "updates": 40, "lr": 0.01}
TRAIN_UNIT, PREDICT_UNIT = 2.0 ** -12, 2.0 ** -14  # exact in binary, so simulated times add up exactly
PREDICT = 512
ROW_KEYS = ("cell", "d_h", "seed", "status", "params", "batch_size", "updates", "lr", "cell_calls",
            "test_acc", "train_time", "predict_time", "peak_memory")
# What the checks hash, sort, index or compare must be plain values; test_acc and the times go through number().
INT, NUMBER = dict(kinds=(int,)), dict(kinds=(int, float), none=True)
ROW_KINDS = {"cell": dict(among=tuple(GATES)), "d_h": INT, "seed": INT, "status": dict(kinds=(str,)),
             "params": NUMBER, "batch_size": NUMBER, "updates": NUMBER, "lr": NUMBER, "cell_calls": NUMBER}


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


def fake_class(cell: str, d_h: int, seed: int) -> int:
    """The class fake_bench's "training" makes a model predict (its documented rule)."""
    s = SETTINGS
    return 1 + (seed + 3 * d_h + 5 * s["batch_size"] + 7 * s["updates"] + 11 * GATES[cell]) % (VOCAB - 1)


def rows_of(value, fn: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise Fail(f"{fn} must return a list of dicts (one per run); got {type(value).__name__}",
                   f"{fn} 应返回 dict 列表（每次运行一行）；实际为 {type(value).__name__}")
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
    return tuple(expect_tensor(v, name=f"{fn}: {what}", shape=shape, dtype=torch.int64).cpu()
                 for v, what in zip(value, ("inputs", "targets")))


def compare(protocol, reference, device, widths=None, bench=None) -> list[dict]:
    if widths is None and bench is None:  # the one comparison four checks judge: run once per submission
        return once(protocol, "comparison", lambda: _compare(protocol, reference, device, {c: D_H for c in GATES}, fake_bench()))
    return _compare(protocol, reference, device, widths or {c: D_H for c in GATES}, bench or fake_bench())


def _compare(protocol, reference, device, widths: dict, bench) -> list[dict]:
    try:
        value = protocol.run_comparison(bench, splits(reference, device), widths, SETTINGS)
    except StudentError as e:
        if "simulated failure" in e.en:
            raise e.with_hint(Text(" Hint: a run that raises must be caught and reported as a row with status \"failed\";"
                                   " the comparison goes on.",
                                   "。提示：抛出异常的运行应被捕获，并作为状态为 \"failed\" 的一行报告；比较继续进行。")) from None
        raise
    return rows_of(value, "run_comparison")


def complete(rows: list[dict], widths: dict | None = None) -> list[dict]:
    """`rows` itself, after checking it holds exactly one row per (cell, seed): what the rows report counts for every run."""
    widths = widths or {cell: D_H for cell in GATES}
    runs = sorted((r["cell"], r["seed"]) for r in rows)
    if runs != sorted((cell, seed) for cell in widths for seed in SETTINGS["seeds"]):
        raise Fail(f"run_comparison must report exactly one row per (cell, seed), {len(widths) * len(SETTINGS['seeds'])} "
                   f"rows here; got {len(rows)}: what the rows report is checked on every run",
                   f"run_comparison 应为每个 (cell, seed) 恰好报告一行，此处应有 {len(widths) * len(SETTINGS['seeds'])} 行，"
                   f"实际为 {len(rows)} 行：各行报告的内容要在每次运行上检查")
    return rows


def by_run(rows: list[dict]) -> dict:
    return {(r["cell"], r["seed"]): r for r in rows}


def number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def close(value, expected: float) -> bool:
    got = number(value)
    return got is not None and abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


# -- the data ----------------------------------------------------------------------------------------

@check(points=1.5)
def test_delayed_copy(protocol, reference):
    """make_delayed_copy: int64 (n, T), tokens 1..vocab−1, targets shifted by delay, reproducible by seed
    make_delayed_copy：int64 (n, T)，token 为 1..vocab−1，targets 平移 delay，按随机种子可复现"""
    n, t, delay, vocab = 200, 10, 3, 5
    x, y = pair(protocol.make_delayed_copy(n, t, delay, vocab, 11), "make_delayed_copy", (n, t))

    def tokens():
        if (x == 0).any():
            raise Fail("inputs contain the blank token 0; input tokens are 1..vocab−1 (0 only marks 'nothing to copy yet')",
                       "inputs 中出现了空白符 0；输入 token 应为 1..vocab−1（0 只表示“尚无可复制内容”）")
        if (x < 0).any() or (x >= vocab).any():
            raise Fail("inputs contain tokens outside 1..vocab−1", "inputs 中有超出 1..vocab−1 的 token")
        if not (x == vocab - 1).any():
            raise Fail("token vocab−1 never appears: torch.randint's upper bound is exclusive, use randint(1, vocab, ...)",
                       "token vocab−1 从未出现：torch.randint 的上界不含在内，应写 randint(1, vocab, ...)")

    def shift():
        if len(x.unique()) < 2:
            raise Fail("the shift counts once the inputs vary: on constant inputs it cannot be seen",
                       "输入有变化后平移才计分：在常数输入上看不出平移")
        expected = torch.zeros_like(x)
        expected[:, delay:] = x[:, :-delay]
        if torch.equal(y, expected):
            return
        for wrong in (delay - 1, delay + 1):
            other = torch.zeros_like(x)
            other[:, wrong:] = x[:, : t - wrong]
            if torch.equal(y, other):
                raise Fail(f"targets are shifted by delay {'−' if wrong < delay else '+'} 1: delay off by one; "
                           "targets[:, t] = inputs[:, t − delay] for t ≥ delay",
                           f"targets 的平移量为 delay {'−' if wrong < delay else '+'} 1：延迟差了一位；"
                           "应为 t ≥ delay 时 targets[:, t] = inputs[:, t − delay]")
        if not (y[:, :delay] == 0).all():
            raise Fail("targets before position delay must be the blank 0", "位置 delay 之前的 targets 应为空白符 0")
        raise Fail("targets are not inputs shifted right by delay", "targets 不是 inputs 右移 delay 位的结果")

    def seeded():
        again = pair(protocol.make_delayed_copy(n, t, delay, vocab, 11), "make_delayed_copy (seed 11 again)", (n, t))
        other = pair(protocol.make_delayed_copy(n, t, delay, vocab, 12), "make_delayed_copy (seed 12)", (n, t))
        if not (torch.equal(again[0], x) and torch.equal(again[1], y)):
            raise Fail("the same seed gave different tensors: draw from torch.Generator().manual_seed(seed)",
                       "相同种子得到不同张量：应从 torch.Generator().manual_seed(seed) 抽样")
        if torch.equal(other[0], x):
            raise Fail("a different seed gave the same inputs: the seed is ignored", "不同种子得到相同的 inputs：种子没有被使用")

    partial([tokens, shift, seeded])


@check(points=1.5)
def test_splits(protocol):
    """make_splits: exact sizes, no sequence repeated or shared between splits, reproducible, ValueError when impossible
    make_splits：规模准确，序列不重复、不跨集合共享，可复现，无法满足时抛出 ValueError"""
    sizes, t, delay, vocab = {"train": 40, "val": 20, "test": 20}, 7, 2, 3  # 80 of only 2**7 = 128 sequences
    got = protocol.make_splits(sizes, t, delay, vocab, 4)
    if not isinstance(got, dict) or set(got) != set(sizes):
        raise Fail("make_splits must return a dict with the keys of sizes: train, val, test",
                   "make_splits 应返回与 sizes 同键（train、val、test）的 dict")
    data = {name: pair(got[name], f"make_splits()[{name!r}]", (n, t)) for name, n in sizes.items()}

    def valid():
        for name, (x, y) in data.items():
            if (x < 1).any() or (x >= vocab).any():
                raise Fail(f"{name} inputs contain tokens outside 1..vocab−1", f"{name} 的 inputs 含有 1..vocab−1 之外的 token")
            if not (torch.equal(y[:, delay:], x[:, :-delay]) and (y[:, :delay] == 0).all()):
                raise Fail(f"{name} targets are not the inputs shifted by delay", f"{name} 的 targets 不是 inputs 平移 delay 的结果")
        if not any((x == vocab - 1).any() for x, _ in data.values()):
            raise Fail("token vocab−1 never appears in the splits: draw tokens from 1..vocab−1, both ends included",
                       "各划分中从未出现 token vocab−1：应从 1..vocab−1（两端都包含）中抽取 token")

    def working(part):
        """A property of the splits (reproducible, refusing the impossible) counts once they hold valid sequences."""
        def gated():
            try:
                valid()
            except Fail:
                raise Fail("reproducibility and the ValueError count once the splits hold valid delayed-copy sequences",
                           "各划分包含有效的延迟复制序列后，可复现性与 ValueError 才计分") from None
            part()
        return gated

    def no_repeats():
        for name, (x, _) in data.items():
            if len({tuple(r) for r in x.tolist()}) < len(x):
                raise Fail(f"repeated sequences: a sequence appears twice in the {name} split",
                           f"序列重复：{name} 中同一序列出现了两次")

    def disjoint():
        names = list(data)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if {tuple(r) for r in data[a][0].tolist()} & {tuple(r) for r in data[b][0].tolist()}:
                    raise Fail(f"overlapping splits: a sequence is in both {a} and {b}",
                               f"划分重叠：同一序列同时出现在 {a} 与 {b} 中")

    def seeded():
        again = protocol.make_splits(sizes, t, delay, vocab, 4)
        if not isinstance(again, dict) or set(again) != set(sizes):
            raise Fail("make_splits called again with the same seed did not return a dict with keys train, val, test",
                       "以相同种子再次调用 make_splits 没有返回键为 train、val、test 的 dict")
        again = {k: pair(again[k], f"make_splits()[{k!r}] (same seed again)", (n, t)) for k, n in sizes.items()}
        if not all(torch.equal(again[k][0], data[k][0]) for k in sizes):
            raise Fail("the same seed gave different splits", "相同种子得到了不同的划分")

    def impossible():
        try:
            protocol.make_splits({"train": 100, "val": 20, "test": 20}, t, delay, vocab, 4)
        except StudentError as e:
            if e.raised("ValueError"):
                return
            raise Fail("asking for 140 distinct sequences where only 128 exist must raise ValueError, not "
                       f"{e.types[0] if e.types else 'fail'}", "只存在 128 个不同序列却要求 140 个时应抛出 ValueError") from None
        raise Fail("asking for 140 distinct sequences where only 128 exist must raise ValueError",
                   "只存在 128 个不同序列却要求 140 个时应抛出 ValueError")

    partial([valid, no_repeats, disjoint, working(seeded), working(impossible)])


# -- the protocol, with the simulated bench --------------------------------------------------------

@check(points=1)
def test_shared_settings(protocol, reference, device):
    """Every model runs with the same seed set, batch size, update count and learning rate
    所有模型使用相同的随机种子集合、批量大小、更新次数与学习率"""
    rows = compare(protocol, reference, device)
    problems = []
    for cell in GATES:
        mine = [r for r in rows if r["cell"] == cell]
        if [r["seed"] for r in mine] != SETTINGS["seeds"]:
            problems.append((f"the {cell} runs use seeds {[r['seed'] for r in mine]}, not the shared seed set",
                             f"{cell} 的运行使用的种子不是共享的种子集合"))
        for key in ("batch_size", "updates", "lr"):
            if any(r[key] != SETTINGS[key] for r in mine):
                problems.append((f"the {cell} rows report a different {key} from the shared settings",
                                 f"{cell} 的行报告的 {key} 与共享设置不同"))
        expected = SETTINGS["updates"] * SETTINGS["batch_size"] * TRAIN_UNIT
        if any(not close(r["train_time"], expected) for r in mine):
            problems.append((f"the {cell} runs were trained with a different batch size or update count than the others "
                             "(the bench's training time is updates × batch size × its unit)",
                             f"{cell} 的训练使用了与其他模型不同的批量大小或更新次数（模拟训练时间 = 更新次数 × 批量 × 单位）"))
    if problems:
        raise Fail("settings differ across models: " + "; ".join(p[0] for p in problems),
                   "各模型的设置不一致：" + "；".join(p[1] for p in problems))


@check(points=1)
def test_parameter_counts(protocol, reference, device):
    """Reported parameter counts are the modules' own, sum(p.numel() for p in model.parameters())
    报告的参数量是模块自身的 sum(p.numel() for p in model.parameters())"""
    rows = complete(compare(protocol, reference, device))
    for r in rows:
        expected = total_params(r["cell"], D_H)
        actual = number(r["peak_memory"]) / 16 if number(r["peak_memory"]) else None  # the bench saw this many
        if actual is not None and actual != expected:
            raise Fail(f"the {r['cell']} model is not Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)",
                       f"{r['cell']} 模型不是 Embedding(vocab, d_e) → {r['cell'].upper()}(d_e, d_h) → Linear(d_h, vocab)")
        if r["params"] != expected:
            recurrent = GATES[r["cell"]] * D_H * (D_E + D_H + 2)
            known = {GATES[r["cell"]] * D_H * (D_E + D_H + 1) + expected - recurrent: "one bias per block (PyTorch has two)",
                     recurrent: "the recurrent layer alone (embedding and head left out)"}
            why = known.get(r["params"], "")
            raise Fail(f"the {r['cell']} row reports {r['params']} parameters, which is not the module's own count; "
                       f"count them with sum(p.numel() for p in model.parameters()){' – this looks like ' + why if why else ''}",
                       f"{r['cell']} 行报告的参数量不是模块自身的参数量；请用 sum(p.numel() for p in model.parameters()) 统计")


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
            raise Fail(f"the prediction time covers {what}, not exactly 512: time model(test_inputs[:512]) and nothing else",
                       f"预测时间覆盖了 {what}，而不是恰好 512 个序列：只计时 model(test_inputs[:512])")


@check(points=1)
def test_all_runs_reported(protocol, reference, device):
    """Every run is reported: a NaN loss gives status "diverged", a raising run "failed" with test_acc None
    报告所有运行：损失为 NaN 时状态为 "diverged"，抛出异常的运行为 "failed" 且 test_acc 为 None"""
    rows = compare(protocol, reference, device, bench=fake_bench(diverge=[["gru", 7]], fail=[["lstm", 3]]))
    runs = by_run(rows)
    problems = []
    if ("gru", 7) not in runs:
        problems.append(("dropped the diverged run (gru, seed 7): every run keeps its row", "删除了发散的运行 (gru, 种子 7)：每次运行都要保留"))
    elif runs[("gru", 7)]["status"] != "diverged":
        problems.append(("a run whose final loss is NaN or infinite must have status \"diverged\"", "最终损失为 NaN 或无穷大的运行状态应为 \"diverged\""))
    if ("lstm", 3) not in runs:
        problems.append(("dropped the failed run (lstm, seed 3): every run keeps its row", "删除了失败的运行 (lstm, 种子 3)：每次运行都要保留"))
    elif runs[("lstm", 3)]["status"] != "failed" or runs[("lstm", 3)]["test_acc"] is not None:
        problems.append(("a run that raised must have status \"failed\" and test_acc None", "抛出异常的运行状态应为 \"failed\"，test_acc 为 None"))
    others = [r for key, r in runs.items() if key not in (("gru", 7), ("lstm", 3))]
    if len(rows) != len(runs) or len(others) != 4 or any(r["status"] != "ok" for r in others):
        problems.append(("expected exactly one row per (cell, seed), the four healthy ones with status \"ok\"",
                         "每个 (cell, seed) 应恰好一行，其余四次正常运行状态为 \"ok\""))
    if problems:
        raise Fail("; ".join(p[0] for p in problems), "；".join(p[1] for p in problems))


@check(points=1)
def test_row_metrics(protocol, reference, device):
    """Test accuracy (positions t ≥ delay), training time, peak memory and recurrent-cell calls are right
    测试准确率（t ≥ delay 的位置）、训练时间、峰值内存与循环单元调用次数正确"""
    test_y = reference.make_splits(SIZES, T, DELAY, VOCAB, seed=5)["test"][1]
    problems = []
    for r in complete(compare(protocol, reference, device)):
        k = fake_class(r["cell"], D_H, r["seed"])
        if not close(r["test_acc"], (test_y[:, DELAY:] == k).double().mean().item()):
            blanks = close(r["test_acc"], (test_y == k).double().mean().item())
            problems.append(("test_acc: counted the blank positions t < delay; score only positions t ≥ delay" if blanks
                             else "test_acc is not the share of positions t ≥ delay predicted right on the test split",
                             "test_acc：把 t < delay 的空白位置也算进去了；只统计 t ≥ delay 的位置" if blanks
                             else "test_acc 不是测试集上 t ≥ delay 位置的预测正确率"))
        if not close(r["train_time"], SETTINGS["updates"] * SETTINGS["batch_size"] * TRAIN_UNIT):
            problems.append(("train_time must time bench.train alone, with bench.clock()", "train_time 应只对 bench.train 计时，并使用 bench.clock()"))
        if not close(r["peak_memory"], 16 * total_params(r["cell"], D_H)):
            problems.append(("peak_memory must be the bench's reported peak_memory", "peak_memory 应为 bench 报告的 peak_memory"))
        if r["cell_calls"] != SETTINGS["updates"] * SETTINGS["batch_size"] * T:
            problems.append(("cell_calls must be updates × batch_size × T (one cell call per sequence per time step)",
                             "cell_calls 应为 updates × batch_size × T（每个序列每个时间步调用一次循环单元）"))
    if problems:
        unique = list(dict.fromkeys(problems))
        raise Fail("; ".join(p[0] for p in unique), "；".join(p[1] for p in unique),
                   share=max(0.0, 1 - 0.25 * len(unique)))


@check(points=0.5)
def test_two_tables(protocol, reference, device):
    """comparison_tables: one table at equal d_h, one at the parameter-matched widths
    comparison_tables：一张表用相同 d_h，一张表用参数量匹配的宽度"""
    matched = matched_widths(total_params("lstm", D_H))
    got = protocol.comparison_tables(fake_bench(), splits(reference, device), SETTINGS, D_H, matched)
    if not isinstance(got, dict) or set(got) != {"equal_width", "matched_params"}:
        raise Fail('comparison_tables must return {"equal_width": rows, "matched_params": rows}',
                   'comparison_tables 应返回 {"equal_width": rows, "matched_params": rows}')
    for name, widths in (("equal_width", {c: D_H for c in GATES}), ("matched_params", matched)):
        rows = rows_of(got[name], f"comparison_tables()[{name!r}]")
        if sorted((r["cell"], r["d_h"]) for r in rows) != sorted((c, w) for c, w in widths.items() for _ in SETTINGS["seeds"]):
            raise Fail(f"the {name} table does not run each cell at its {'equal' if name == 'equal_width' else 'matched'} width for every seed",
                       f"{name} 表没有让每个模型在其{'相同' if name == 'equal_width' else '匹配'}宽度下以每个种子运行")
        if not all(close(r["train_time"], SETTINGS["updates"] * SETTINGS["batch_size"] * TRAIN_UNIT) for r in rows):
            raise Fail(f"the {name} table holds rows of runs that were not trained with the bench (see the check on shared settings)",
                       f"{name} 表中有未经 bench 训练的运行行（见共享设置检查）")


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
            raise Fail(f"the real {r['cell']} run did not give status \"ok\", a test accuracy in [0, 1] and positive times",
                       f"{r['cell']} 的真实运行没有给出状态 \"ok\"、[0, 1] 内的测试准确率和正的时间")
        if r["params"] != total_params(r["cell"], D_H):
            raise Fail(f"the real {r['cell']} run reports a wrong parameter count", f"{r['cell']} 的真实运行报告的参数量不对")


# -- the answer sheet --------------------------------------------------------------------------------

MISCONCEPTIONS = {
    "equal_width_shows": {
        "A": ("took equal width for equal cost: answer-key item 4 lists what one d_h does not hold equal",
              "把相同宽度当成了相同成本：参考答案第 4 题列出了同一个 d_h 不能使之相同的量"),
        "B": ("credited the gap to the extra parameters: one table cannot say which of the differences between the cells "
              "caused it",
              "把差距归因于多出的参数：一张表无法说明差距由模型之间的哪一处不同造成"),
        "C": ("dismissed the equal-width table: a table is read for what it holds fixed, and this one holds something fixed",
              "否定了相同宽度的表：一张表要按它固定了什么来解读，而这张表确实固定了某个量"),
    },
    "equal_params_shows": {
        "B": ("close parameter counts do not mean close running times or memory (answer-key item 9)",
              "参数量接近不等于运行时间或内存接近（参考答案第 9 题）"),
        "C": ("matching the budget does not leave the gates as the only difference between GRU and LSTM",
              "参数预算匹配之后，GRU 与 LSTM 之间的差别并不只剩下门"),
        "D": ("a wider state does not guarantee better accuracy; the result depends on the task, optimisation and data",
              "更宽的状态不保证更高的准确率；结果取决于任务、优化与数据"),
    },
}


@check(points=1)
def test_choices(answers, reference_answers):
    """What equal widths and equal parameter counts can and cannot show (answer-key items 4, 8 and 9)
    相同宽度与相同参数量能说明什么、不能说明什么（参考答案第 4、8、9 题）"""
    choices(answers, reference_answers, MISCONCEPTIONS)
