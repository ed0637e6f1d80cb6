"""Hidden checks for ex10: the dependency-length sweep and validation-only selection (10 points).

run_sweep is graded with a trainer that stays here (`ScriptedTrainer`, a `Service`: the student process holds only
the given train_fn of course/ex10/given.py, whose calls are answered and recorded here), which returns the
outcomes scripted below for three seeds, none at its own index: validation and test accuracies that disagree, one learning rate that
diverges (NaN and infinite losses) with a spuriously high accuracy, one run that raises, and an exact tie. A row that
holds another seed's outcome is charged by the full grid check alone (its status is judged by the outcome it holds).
select_lr and summarize get the reference run_sweep's rows, so a run_sweep mistake is not charged twice, and rows of
control (model, length) pairs, made the same way (complete rows, as the statement defines them): two where every rule
picks the same lr (a constant choice earns nothing), and one per known selection mistake where that mistake alone
picks another lr (every other known mistake picks the right one there, so each costs one judged pair). A mistake is
named only when the submission's choice agrees with it there too, so that no other explanation fits; summarize's test
accuracy averaged as the submission's own select_lr averages (a mistake the selection checks charged) is not charged
again. One lr pooled over lengths is charged by the check on mean validation accuracy alone: the failure and tie checks
ask such a select_lr about each pair's rows alone, and summarize and the real sweep judge it at the lrs it chose.
select_lr returns a dict keyed by (model, length) tuples, as the statement asks.
One real tiny sweep (`RealTrainer`: ex08's model trained here for a few updates) shows the code also works when something
trains, and that its rows hold what the runs returned; it charges a
mistake only where the submission gets its scripted twin right (run_sweep on the plain control runs, select_lr on the
control rows), so that the grid, status and selection checks charge theirs once, and it counts once the rows come
from train_fn at all.
"""

from __future__ import annotations

import functools
import math
import statistics
import time

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
    expect_kind,
    inject,
    once,
    partial,
    quoted,
    reference_module,
    remembered,
    student_module,
)

sweep = student_module("sweep")
TRAINING = course_part("ex08", "training.py", near=__file__)  # the real training loop: run here, never in a student process
reference = reference_module("sweep")

# Three seeds, none equal to its index in the list: the mean over seeds differs from their median, and a run_sweep that
# passes train_fn the index instead of the seed gets another seed's outcome.
MODELS, LENGTHS, LRS, SEEDS = ["gru", "lstm"], [4, 16], [0.1, 0.01, 0.001], [1, 2, 0]
NAN, INF = float("nan"), float("inf")

# (model, length): {lr: [(val_acc, test_acc, final_loss) per seed]}; a string instead raises.
SCRIPT = {
    # test disagrees with validation: selection on test, or on any mix giving test a weight above 2%, picks 0.1
    ("gru", 4): {0.1: [(0.79, 0.95, 0.3)] * 3, 0.01: [(0.85, 0.45, 0.2), (0.75, 0.45, 0.2), (0.8, 0.45, 0.2)], 0.001: [(0.5, 0.5, 0.9)] * 3},
    ("gru", 16): {0.1: [(0.625, 0.6, 0.5)] * 3, 0.01: [(0.5, 0.8, 0.5), (1.0, 0.8, 0.4), (0.75, 0.8, 0.5)], 0.001: [(0.75, 0.7, 0.5)] * 3},
    ("lstm", 4): {0.1: [(0.7, 0.7, 0.4)] * 3, 0.01: [(0.8, 0.75, 0.3)] * 3, 0.001: [(0.9, 0.9, 0.3), "out of memory", (0.9, 0.9, 0.3)]},
    # a diverged lr with a spuriously high accuracy: only counting it picks 0.1
    ("lstm", 16): {
        0.1: [(0.99, 0.99, NAN), (0.99, 0.99, INF), (0.99, 0.99, NAN)],
        0.01: [(0.6, 0.6, 0.6), (0.7, 0.6, 0.6), (0.65, 0.6, 0.6)],
        0.001: [(0.55, 0.5, 0.7)] * 3,
    },
}
# What each row must keep as train_fn returned it (answer key item 10: every combination's report).
MEASURED = ("val_acc", "test_acc", "final_loss", "train_seconds", "predict_seconds", "peak_memory", "grad_norm", "updates")


def measured(n: int, o: tuple) -> dict:
    """Run n's scripted outcome: the accuracies and loss of SCRIPT, and report fields distinct per run."""
    return {
        "val_acc": o[0],
        "test_acc": o[1],
        "final_loss": o[2],
        "train_seconds": 1.5 + 0.25 * n,
        "predict_seconds": 0.01 * (n + 1),
        "peak_memory": 4096 * (n + 1),
        "grad_norm": 0.5 + n / 8,
        "updates": 200 - n,
    }


RUNS = [
    {"model": m, "length": length, "lr": lr, "seed": seed} | ({"raise": o} if isinstance(o, str) else measured(n, o))
    for n, (m, length, lr, seed, o) in enumerate(
        (m, length, lr, seed, o) for (m, length), by_lr in SCRIPT.items() for lr, outcomes in by_lr.items() for seed, o in zip(SEEDS, outcomes)
    )
]
DIVERGED = {(r["model"], r["length"], r["lr"], r["seed"]) for r in RUNS if not math.isfinite(r.get("final_loss", 0.0))}
INFINITE = {(r["model"], r["length"], r["lr"], r["seed"]) for r in RUNS if math.isinf(r.get("final_loss", 0.0))}
(FAILED,) = [(r["model"], r["length"], r["lr"], r["seed"]) for r in RUNS if "raise" in r]
# The statuses are judged on the same script with every seed of the failing run's (model, length, lr) raising, as every
# seed of the diverging lr diverges: whichever seed a run_sweep passes, what it does with a failure is seen, and only
# for runs that happened.
FAILING = {(*FAILED[:3], s) for s in SEEDS}
STATUS_RUNS = [
    {k: v for k, v in r.items() if k not in MEASURED} | {"raise": "out of memory"} if (r["model"], r["length"], r["lr"], r["seed"]) in FAILING else r
    for r in RUNS
]


# Control (model, length) pairs, scripted as SCRIPT is; their rows are what the reference run_sweep makes of them.
CONTROL_SCRIPT = {
    # plain: nothing tied, diverged or failed, seeds and test agreeing with validation: every rule picks one lr
    ("gru", 8): {0.1: [(0.8, 0.8, 0.3)] * 3, 0.01: [(0.6, 0.6, 0.4)] * 3, 0.001: [(0.4, 0.4, 0.5)] * 3},
    ("lstm", 8): {0.1: [(0.3, 0.3, 0.6)] * 3, 0.01: [(0.5, 0.5, 0.5)] * 3, 0.001: [(0.7, 0.7, 0.4)] * 3},
    # a failed run beside two good ones: only leaving it out of the mean picks 0.1 (the best seed and the median do not)
    ("gru", 32): {
        0.1: [(0.8, 0.8, 0.3), "out of memory", (0.8, 0.8, 0.3)],
        0.01: [(0.85, 0.85, 0.3), (0.85, 0.85, 0.3), (0.6, 0.6, 0.4)],
        0.001: [(0.3, 0.3, 0.6)] * 3,
    },
    # the same with a diverged run of low accuracy: only leaving it out of the mean picks 0.1 (counting it does not)
    ("lstm", 64): {
        0.1: [(0.8, 0.8, 0.3), (0.2, 0.2, INF), (0.8, 0.8, 0.3)],
        0.01: [(0.85, 0.85, 0.3), (0.85, 0.85, 0.3), (0.6, 0.6, 0.4)],
        0.001: [(0.3, 0.3, 0.6)] * 3,
    },
    # seeds that disagree: only the best seed instead of the mean picks 0.1
    ("lstm", 32): {
        0.1: [(0.9, 0.9, 0.3), (0.3, 0.3, 0.5), (0.3, 0.3, 0.5)],
        0.01: [(0.7, 0.6, 0.3), (0.7, 0.8, 0.3), (0.7, 0.7, 0.3)],
        0.001: [(0.2, 0.2, 0.7)] * 3,
    },
    # seeds that disagree otherwise: only the median over seeds instead of the mean picks 0.1
    ("gru", 128): {
        0.1: [(0.9, 0.9, 0.3), (0.8, 0.8, 0.3), (0.1, 0.1, 0.5)],
        0.01: [(0.95, 0.95, 0.3), (0.7, 0.7, 0.3), (0.7, 0.7, 0.3)],
        0.001: [(0.2, 0.2, 0.7)] * 3,
    },
    # an exact tie: only breaking it towards the larger lr picks 0.01
    ("gru", 64): {0.1: [(0.4, 0.4, 0.5)] * 3, 0.01: [(0.6, 0.6, 0.4)] * 3, 0.001: [(0.6, 0.6, 0.4)] * 3},
    # every rule picks 0.1, which has a failed (or a diverged) run: summarize's mean test accuracy there tells the rules
    # apart (the mean, leaving the run out, counting the diverged run, the best seed and the median all differ)
    ("lstm", 128): {0.1: [(0.9, 0.8, 0.3), "out of memory", (0.9, 0.6, 0.3)], 0.01: [(0.3, 0.3, 0.6)] * 3, 0.001: [(0.2, 0.2, 0.7)] * 3},
    ("gru", 256): {0.1: [(0.9, 0.8, 0.3), (0.95, 0.1, NAN), (0.9, 0.6, 0.3)], 0.01: [(0.3, 0.3, 0.6)] * 3, 0.001: [(0.2, 0.2, 0.7)] * 3},
}
PLAIN = [("gru", 8), ("lstm", 8)]
CONTROL_RUNS = [
    {"model": m, "length": length, "lr": lr, "seed": seed} | ({"raise": o} if isinstance(o, str) else measured(100 + n, o))
    for n, (m, length, lr, seed, o) in enumerate(
        (m, length, lr, seed, o) for (m, length), by_lr in CONTROL_SCRIPT.items() for lr, outcomes in by_lr.items() for seed, o in zip(SEEDS, outcomes)
    )
]


class ScriptedTrainer(Service):
    """train_fn's outcomes, kept here: `runs` lists one dict per (model, length, lr, seed), either the outcome (every
    key but the four of the call, returned as it is, NaN or infinite losses included) or "raise": a message, raised as
    RuntimeError there. A call the script does not list raises too. `calls` records every run that happened (a call the
    script answered, with its outcome or its failure), in order."""

    methods = frozenset({"train"})

    def __init__(self, runs: list[dict]):
        self.script = {(r["model"], r["length"], r["lr"], r["seed"]): r for r in runs}
        self.calls: list[tuple] = []

    def train(self, *, model, length, lr, seed) -> dict:
        call = (model, length, lr, seed)
        if not (isinstance(model, str) and len(model) <= 20 and all(type(v) in (int, float) for v in call[1:])):
            raise Refusal(f"train_fn takes a model name and three numbers, not {', '.join(type(v).__name__ for v in call)}")
        if len(self.calls) >= 1000:
            raise Refusal("train_fn runs at most 1,000 times in one sweep")
        run = self.script.get(call)
        if run is None:  # not a run of the sweep: refused, and no run happened
            raise Refusal(f"no run for model={model!r}, length={length!r}, lr={lr!r}, seed={seed!r}")
        self.calls.append(call)
        if "raise" in run:
            raise Refusal(run["raise"])
        return {k: v for k, v in run.items() if k not in ("model", "length", "lr", "seed")}

    def __call__(self, model, length, lr, seed) -> dict:
        """The same outcomes as a train_fn here, for the reference's run_sweep."""
        return self.train(model=model, length=length, lr=lr, seed=seed)


# The reference's rows of a script never change: each is made once per grading process, not once per check of every
# student, and only read (a check that needs other rows makes new ones).


@functools.cache
def expected_rows(reference) -> list[dict]:
    return reference.run_sweep(ScriptedTrainer(RUNS), MODELS, LENGTHS, LRS, SEEDS)


@functools.cache
def status_rows(reference) -> list[dict]:
    """The reference's rows of the statuses check's script (every seed of the failing lr raising)."""
    return reference.run_sweep(ScriptedTrainer(STATUS_RUNS), MODELS, LENGTHS, LRS, SEEDS)


@functools.cache
def control_rows(reference) -> list[dict]:
    """The rows the reference run_sweep makes of the control script: rows as the statement defines them."""
    train_fn = ScriptedTrainer(CONTROL_RUNS)
    return [r for m, length in CONTROL_SCRIPT for r in reference.run_sweep(train_fn, [m], [length], LRS, SEEDS)]


# What the checks hash or compare must be plain values (a missing key reads as None and simply matches nothing).
TEXT, INT, NUMBER = dict(kinds=(str,)), dict(kinds=(int,)), dict(kinds=(int, float))
ROW_KINDS = {"model": TEXT, "length": INT, "lr": NUMBER, "seed": INT, "status": TEXT}
SUMMARY_KINDS = {"model": TEXT, "length": INT, "lr": NUMBER, "runs": NUMBER, "diverged": NUMBER, "failed": NUMBER}
CALL_KINDS = {"T": NUMBER, "delay": NUMBER, "vocab": NUMBER, "seed": NUMBER, "sizes": dict(kinds=(dict,))}


def expect_plain(row: dict, kinds: dict, *, name: Text) -> None:
    """Fail unless each of these keys of `row` is missing, None or of its kind."""
    for k, kind in kinds.items():
        expect_kind(row.get(k), name=Text(f"{name.en}[{k!r}]", f"{name.zh}[{k!r}]"), none=True, **kind)


def key(row: dict) -> tuple:
    return row.get("model"), row.get("length"), row.get("lr"), row.get("seed")


def student_rows(sweep, runs=RUNS, models=MODELS, lengths=LENGTHS, trainer: ScriptedTrainer | None = None) -> list[dict]:
    """run_sweep's rows for the scripted `runs` over this grid (answered by `trainer`, a fresh one by default), after
    checking they are a list of plain dicts."""
    try:
        rows = sweep.run_sweep(inject("trainer", service=trainer or ScriptedTrainer(runs)), models, lengths, LRS, SEEDS)
    except StudentError as e:
        if "out of memory" in e.en:
            raise e.with_hint(
                Text(
                    ' Hint: a run that raises must be caught and kept as a row with status "failed".',
                    '。提示：抛出异常的运行应被捕获，并保留为状态 "failed" 的一行。',
                )
            ) from None
        raise
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise Fail("run_sweep must return a list of dicts, one per run", "run_sweep 应返回 dict 列表，每次运行一行")
    for i, r in enumerate(rows):
        expect_plain(r, ROW_KINDS, name=Text(f"run_sweep: row {i}", f"run_sweep：第 {i} 行"))
    return rows


def same(a, b) -> bool:
    """Equal numbers (NaN equals NaN), or both None."""
    if a is None or b is None:
        return a is None and b is None
    return isinstance(a, (int, float)) and (a == b or (math.isnan(a) and math.isnan(b)))


# -- run_sweep -------------------------------------------------------------------------------------


def holding(rows: list[dict], expected: dict) -> list[tuple]:
    """The runs whose rows (every one with that key) hold every measured value as train_fn returned it."""
    got = {}
    for r in rows:
        got.setdefault(key(r), []).append(r)
    return [k for k, r in expected.items() if k in got and all(m in g and same(g[m], r[m]) for g in got[k] for m in MEASURED)]


def outcome_of(row: dict, expected: dict) -> tuple | None:
    """The run whose measured values `row` holds: its own, else another seed's of its (model, length, lr), else None."""
    holds = [
        k
        for k in [key(row)] + [(*key(row)[:3], s) for s in SEEDS if s != row.get("seed")]
        if k in expected and all(m in row and same(row[m], expected[k][m]) for m in MEASURED)
    ]
    return holds[0] if holds else None


ANOTHER_SEED = (
    "another seed's outcome: call train_fn with each run's own seed, which reaches the model's initialisation there",
    "另一个种子的结果：调用 train_fn 时应传入每次运行自己的种子，种子在那里决定模型的初始化",
)


@check(points=2)
def test_full_grid(sweep, reference):
    """run_sweep: one row per (model, length, lr, seed), each with the values train_fn returned
    run_sweep：每个 (model, length, lr, seed) 一行，各行带有 train_fn 返回的值"""
    trainer = ScriptedTrainer(RUNS)
    rows = student_rows(sweep, trainer=trainer)
    expected = {key(r): r for r in expected_rows(reference)}
    present = {key(r) for r in rows} & set(expected)
    called = set(trainer.calls)  # a row holds what train_fn returned only for a run train_fn was called for
    held = [k for k in holding(rows, expected) if k in called]
    # runs whose every row holds another seed's outcome: train_fn was called, with the wrong seed (charged by values)
    # rows that hold another seed's outcome of a run train_fn was called for: the seed passed wrong (named); they count
    # for the grid only where train_fn ran once for every seed of their (model, length, lr) (its index passed, say), so
    # that each stands for a run that happened – copies of fewer runs do not
    copied = [k for k in present - set(held) if all(outcome_of(r, expected) in called - {k} for r in rows if key(r) == k)]
    reseeded = [k for k in copied if len({c[3] for c in called if c[:3] == k[:3]}) >= len(SEEDS)]

    def grid():
        missing = [k for k in expected if k not in present]
        if missing:
            raise Fail(
                f"{len(missing)} of the {len(expected)} runs have no row (e.g. {missing[0]}): every call keeps its row",
                f"{len(expected)} 次运行中有 {len(missing)} 次没有对应的行（例如 {missing[0]}）：每次调用都要保留一行",
            )
        if len(rows) != len(expected):
            raise Fail("rows repeated or invented: exactly one row per (model, length, lr, seed)", "行重复或多出：每个 (model, length, lr, seed) 恰好一行")
        if len(held) + len(reseeded) < len(expected) / 2:
            raise Fail(
                "most rows do not hold what train_fn returned: the grid counts rows of runs that were called",
                "大多数行没有保存 train_fn 返回的值：网格只统计确实调用过的运行的行",
            )

    def values():
        wrong = [k for k in expected if k in present and k not in held]
        if not present or wrong:
            example = f"the row {wrong[0]} does not" if wrong else "no row does"
            example_zh = f"行 {wrong[0]} 的" if wrong else "没有任何一行的"
            seeds = [k for k in wrong if k in copied]
            named = (
                (f" The row {seeds[0]} holds another seed's outcome: {ANOTHER_SEED[0]}", f"行 {seeds[0]} 保存的是另一个种子的结果：{ANOTHER_SEED[1]}")
                if seeds
                else ("", "")
            )
            raise Fail(
                f"{example} hold {', '.join(MEASURED)} as train_fn returned them (None when it raised).{named[0]}",
                f"{example_zh} {', '.join(MEASURED)} 不是 train_fn 返回的值（抛出异常时应为 None）。{named[1]}",
                share=len(held) / len(present) if present else 0.0,
                diagnosis=ANOTHER_SEED if seeds else (),
            )

    partial([grid, values])


@check(points=1.5)
def test_statuses(sweep, reference):
    """Diverged (NaN or infinite loss) and failed (raised) runs keep their rows with the right status
    发散（损失为 NaN 或无穷大）与失败（抛出异常）的运行保留其行，状态正确"""
    trainer = ScriptedTrainer(STATUS_RUNS)
    got = {key(r): r for r in student_rows(sweep, STATUS_RUNS, trainer=trainer)}
    expected = {key(r): r for r in status_rows(reference)}
    never = Text(
        "statuses count for runs train_fn was called for: no {} run {} was called",
        "状态只对调用过 train_fn 的运行计分：{}运行 {} 一次也没有被调用",
    )
    # each row's status is judged by the outcome it holds: another seed's outcome is the full grid check's to charge
    source = {k: outcome_of(r, expected) or k for k, r in got.items()}
    shown = {"diverged": {k for k in got if source[k] in DIVERGED}, "failed": {k for k in got if k in FAILING}}

    def ran(run: tuple) -> bool:
        return any(c[:3] == run[:3] for c in trainer.calls)

    def diverged():
        for k in sorted(DIVERGED):
            if not ran(k):
                raise Fail(never.en.format("diverged", k[:3]), never.zh.format("发散的", k[:3]))
            if k not in got:
                raise Fail(f"dropped the diverged run {k}: diverged runs stay in the results", f"删除了发散的运行 {k}：发散的运行必须保留在结果中")
        for k in sorted(shown["diverged"]):
            if got[k].get("status") != "diverged":
                loss = "an infinite" if source[k] in INFINITE else "a NaN"
                raise Fail(
                    f'the run {k} has {loss} final loss, so its status is "diverged" (use math.isfinite)',
                    f'运行 {k} 的最终损失为{"无穷大" if source[k] in INFINITE else " NaN"}，状态应为 "diverged"（请用 math.isfinite）',
                )

    def failed():
        if not ran(FAILED):
            raise Fail(never.en.format("failing", FAILED[:3]), never.zh.format("失败的", FAILED[:3]))
        dropped = sorted(FAILING - set(got))
        if dropped:
            raise Fail(f"dropped the failed run {dropped[0]}: failed runs stay in the results", f"删除了失败的运行 {dropped[0]}：失败的运行必须保留在结果中")
        if any(got[k].get("status") != "failed" or got[k].get("val_acc") is not None or got[k].get("test_acc") is not None for k in shown["failed"]):
            raise Fail(
                'a run that raised has status "failed" and val_acc = test_acc = None (not 0: nothing was measured)',
                '抛出异常的运行状态为 "failed"，val_acc 与 test_acc 为 None（不是 0：什么也没测到）',
            )

    def healthy():
        if len({r.get("status") for r in got.values()}) < 2:
            raise Fail(
                "statuses count once they tell runs apart: this sweep has ok, diverged and failed runs",
                "状态能区分不同运行后才计分：这次扫描中有正常、发散和失败的运行",
            )
        if any(r.get("status") != "ok" for k, r in got.items() if k not in shown["diverged"] | shown["failed"]):
            raise Fail('runs with a finite loss have status "ok"', '损失有限的运行状态应为 "ok"')

    partial([diverged, failed, healthy])


# -- select_lr and summarize, on the reference's rows ------------------------------------------------


def _scores(rows, *, metric="val_acc", zero_diverged=True, drop_failed=False, drop_diverged=False, over_seeds="mean", **_) -> dict:
    """{(model, length): {lr: the metric over seeds}} by an averaging rule, right or wrong (an lr none of whose runs is
    left is left out), computed here to name the student's mistake."""
    runs = {}
    for r in rows:
        if (drop_failed and r["status"] == "failed") or (drop_diverged and r["status"] == "diverged"):
            continue
        zero = r["status"] == "failed" or (zero_diverged and r["status"] == "diverged")
        runs.setdefault((r["model"], r["length"]), {}).setdefault(r["lr"], []).append(0.0 if zero else r[metric])
    over = {"mean": lambda v: sum(v) / len(v), "best": max, "median": statistics.median}[over_seeds]
    return {k: {lr: over(v) for lr, v in by_lr.items()} for k, by_lr in runs.items()}


def _variant(rows, *, larger=False, pooled=False, **options) -> dict:
    """A selection rule, right or wrong: the lr of the highest score (`_scores`), ties to the smaller (or larger) lr;
    `pooled` ("lengths" or "all"): one lr for every length of a model (or for every pair), scored on their runs pooled."""
    if pooled:
        blind = [r | {"length": None} | ({"model": None} if pooled == "all" else {}) for r in rows]
        one = _variant(blind, larger=larger, **options)
        return {(r["model"], r["length"]): one[(None if pooled == "all" else r["model"], None)] for r in rows}
    chosen = {}
    for k, means in _scores(rows, **options).items():
        best = max(means.values())
        ties = [lr for lr, m in means.items() if m == best]
        chosen[k] = max(ties) if larger else min(ties)
    return chosen


TEST_SELECTION = ("selected on test accuracy; the choice must use validation accuracy only", "用测试准确率做了选择；选择只能依据验证准确率")
BEST_SEED = (
    "the best seed instead of the mean over seeds; an lr is judged by its mean validation accuracy over all seeds",
    "用了最好的种子而不是各种子的均值；学习率按它在所有种子上的平均验证准确率来评判",
)
MEDIAN = (
    "the median over seeds instead of the mean; an lr is judged by its mean validation accuracy over all seeds",
    "用了各种子的中位数而不是均值；学习率按它在所有种子上的平均验证准确率来评判",
)
# Each known selection mistake, as a _variant rule, and the (model, length) where it alone picks another lr: every
# other known mistake picks the right lr there, so that each costs one judged pair, and a choice that agrees with a
# mistake there and where it is judged is explained by that mistake alone.
SELECTION_MISTAKES = {
    TEST_SELECTION: (dict(metric="test_acc"), ("gru", 4)),
    ("a diverged run's accuracy was counted; a diverged run counts as 0 in the mean", "计入了发散运行的准确率；发散的运行在均值中记为 0"): (
        dict(zero_diverged=False),
        ("lstm", 16),
    ),
    ("the failed run was left out of the mean; a failed run counts as 0", "失败的运行没有计入均值；失败的运行应记为 0"): (dict(drop_failed=True), ("gru", 32)),
    ("the diverged run was left out of the mean; a diverged run counts as 0", "发散的运行没有计入均值；发散的运行应记为 0"): (
        dict(drop_diverged=True),
        ("lstm", 64),
    ),
    ("a tie went to the larger lr; ties go to the smaller lr", "平局选了较大的学习率；平局应选较小的学习率"): (dict(larger=True), ("gru", 64)),
    BEST_SEED: (dict(over_seeds="best"), ("lstm", 32)),
    MEDIAN: (dict(over_seeds="median"), ("gru", 128)),
}


def mistaken(chosen: dict, k: tuple, rows: list[dict]):
    """The one known selection mistake that explains the choice `chosen[k]`: its rule picks that lr there, and the
    submission's choice agrees with it where it alone picks another lr; None when none, or more than one, does."""
    found = []
    for name, (options, alone) in SELECTION_MISTAKES.items():
        picked = _variant(rows, **options)
        if chosen.get(k) == picked[k] and chosen.get(alone) == picked[alone]:
            found.append(name)
    return found[0] if len(found) == 1 else None


def student_choice(sweep, rows) -> dict:
    """select_lr's choice for `rows`, after checking it is {(model, length): lr}."""
    chosen = sweep.select_lr(rows)
    if not isinstance(chosen, dict):
        raise Fail(
            f"select_lr must return a dict keyed by (model, length) tuples; got {type(chosen).__name__}",
            f"select_lr 应返回以 (model, length) 元组为键的 dict；实际为 {type(chosen).__name__}",
        )
    for k, lr in chosen.items():
        if not (isinstance(k, tuple) and len(k) == 2):
            shown = quoted(repr(k), limit=40)
            raise Fail(
                f"select_lr: the key {shown} is not a (model, length) tuple; key the dict by (model, length) tuples",
                f"select_lr：键 {shown} 不是 (model, length) 元组；dict 应以 (model, length) 元组为键",
            )
        expect_kind(k[0], name=Text("select_lr: a key's model", "select_lr：键中的 model"), kinds=(str,))
        expect_kind(k[1], name=Text("select_lr: a key's length", "select_lr：键中的 length"), kinds=(int,))
        expect_kind(lr, name=f"select_lr()[({quoted(k[0], limit=20)}, {k[1]})]", kinds=(int, float))
    return chosen


SWEEP_ROWS = "the reference's and the control rows"  # what the selection checks and summarize's check give select_lr


def asked_once(sweep, name: str, rows: list[dict]) -> dict:
    """student_choice(sweep, rows) for the rows `name` names, asked once per submission where select_lr gives a choice
    (each check that asks judges that one); where it fails, each check that asks asks again, as when every check called
    select_lr itself (one that timed out is then not run again, and says so)."""
    failed: list[Fail] = []

    def ask() -> dict | None:
        try:
            return student_choice(sweep, rows)
        except Fail as failure:  # a StudentError too: select_lr raised
            failed.append(failure)
            return None

    chosen = once(sweep, f"select_lr's choice for {name}", ask)
    if failed:
        raise failed[0]
    return student_choice(sweep, rows) if chosen is None else chosen


POOLED = (
    "one lr pooled over lengths: choose each (model, length)'s lr from that pair's own runs",
    "把各长度的结果合并，只选了一个学习率：每个 (model, length) 的学习率应只根据该组合自己的运行来选",
)


def pools_lengths(chosen: dict, rows: list[dict]) -> bool:
    """Whether the choice is one lr for every length of a model (or for every pair) that a rule, right or a known
    mistake's, picks from their runs pooled, where the right choice is not: one lr pooled over lengths."""
    right = _variant(rows)
    rules = [{}] + [options for options, _ in SELECTION_MISTAKES.values()]
    return any(chosen.get(k) != lr for k, lr in right.items()) and any(
        all(chosen.get(k) == lr for k, lr in _variant(rows, pooled=pooled, **options).items()) for pooled in ("lengths", "all") for options in rules
    )


def choice_per_pair(sweep, rows: list[dict]) -> dict:
    """select_lr's choice for each (model, length) asked with that pair's rows alone, where pooling over lengths has
    nothing to pool: the rule it chooses by within a pair."""
    pairs: dict = {}
    for r in rows:
        pairs.setdefault((r["model"], r["length"]), []).append(r)
    return {k: student_choice(sweep, mine).get(k) for k, mine in pairs.items()}


def plain_choice(chosen: dict, right: dict) -> None:
    """Fail unless the choice is right on the plain control pairs, where every rule agrees: the gate against a constant."""
    wrong = [c for c in PLAIN if chosen.get(c) != right[c]]
    if wrong:
        raise Fail(
            f"select_lr for {wrong[0]}, where nothing is tied, diverged or failed, is not the lr with the "
            "highest mean validation accuracy: this check counts once it is",
            f"select_lr 对没有平局、发散或失败的 {wrong[0]} 选出的不是平均验证准确率最高的学习率：选对之后本项才计分",
        )


def judged(sweep, reference, keys: list[tuple], *, charges_pooling: bool = False) -> None:
    """select_lr on the reference's rows and the control rows, judged at `keys` (partial: per key). One lr pooled over
    lengths is charged where `charges_pooling` (the check on mean validation accuracy); the other checks judge such a
    select_lr on each pair's rows alone (choice_per_pair), so that it is charged once."""
    rows = expected_rows(reference) + control_rows(reference)
    chosen = asked_once(sweep, SWEEP_ROWS, rows)
    right = _variant(rows)
    pooled = pools_lengths(chosen, rows)
    if pooled and charges_pooling:
        raise Fail(f"select_lr: {POOLED[0]}", f"select_lr：{POOLED[1]}", diagnosis=POOLED)
    if pooled:
        chosen = choice_per_pair(sweep, rows)
    plain_choice(chosen, right)

    def at(k):
        if chosen.get(k) == right[k]:
            return
        why = mistaken(chosen, k, rows)
        if why is not None:
            raise Fail(f"select_lr for {k}: {why[0]}", f"select_lr 对 {k}：{why[1]}", diagnosis=why)
        raise Fail(
            f"select_lr for {k}: not the lr with the highest mean validation accuracy over seeds", f"select_lr 对 {k}：不是各种子平均验证准确率最高的学习率"
        )

    partial([lambda k=k: at(k) for k in keys])
    if pooled:
        raise Fail(
            "select_lr chooses one lr for all lengths, which the check on mean validation accuracy charges; here it was "
            "judged on each (model, length)'s rows alone: no points are lost here",
            "select_lr 对所有长度只选一个学习率，该错误由平均验证准确率的检查扣分；此处改为分别只用每个 (model, length) 的行来评判：此处不扣分",
            share=1.0,
        )


@check(points=1.5)
def test_selection_uses_validation(sweep, reference):
    """select_lr picks the lr with the best mean validation accuracy over seeds, even where test accuracy or one seed disagrees
    select_lr 选出各种子平均验证准确率最高的学习率，即使测试准确率或某个种子的结论不同"""
    judged(sweep, reference, [("gru", 4), ("lstm", 32), ("gru", 128)], charges_pooling=True)
    blind_to_test(sweep, reference)


def blind_to_test(sweep, reference) -> None:
    """Fail where select_lr's choice changes when only the rows' test accuracies change (rising with the lr, then
    falling): it looks at test_acc, as a tie broken or a near one tipped by test accuracy does, which the rows alone
    do not show."""
    rows = expected_rows(reference) + control_rows(reference)
    chosen = asked_once(sweep, SWEEP_ROWS, rows)
    lrs = sorted({r["lr"] for r in rows})
    for rank in (lrs.index, lambda lr: len(lrs) - 1 - lrs.index(lr)):
        moved = [r if r["test_acc"] is None else r | {"test_acc": rank(r["lr"]) / (len(lrs) - 1)} for r in rows]
        if student_choice(sweep, moved) != chosen:
            raise Fail(
                f"select_lr: {TEST_SELECTION[0]}: its choice changed where only the rows' test accuracies did",
                f"select_lr：{TEST_SELECTION[1]}：只改变各行的测试准确率，它的选择就变了",
                diagnosis=(TEST_SELECTION,),
            )


@check(points=1)
def test_failures_count_as_zero(sweep, reference):
    """In select_lr's means, a diverged or failed run counts as 0
    在 select_lr 的平均值中，发散或失败的运行记为 0"""
    judged(sweep, reference, [("lstm", 16), ("gru", 32), ("lstm", 64)])


@check(points=0.5)
def test_ties_go_to_the_smaller_lr(sweep, reference):
    """select_lr breaks a tie in mean validation accuracy towards the smaller lr
    平均验证准确率相同时，select_lr 取较小的学习率"""
    judged(sweep, reference, [("gru", 64)])


BEST_TEST = (
    "reported the best test accuracy over all lrs; report the test accuracy of the lr chosen on validation",
    "报告了所有学习率中最好的测试准确率；应报告按验证集选出的学习率的测试准确率",
)
# The averaging mistakes of SELECTION_MISTAKES as summarize makes them in its test accuracy: {its name there: (what
# summarize is told, the _scores rule)}. Where the submission's select_lr makes the same mistake (the selection checks
# charge it), a test accuracy averaged by that rule follows from it and is not charged again.
SUMMARY_MISTAKES = {
    name: (told, options)
    for name, told in {
        BEST_SEED: (
            "the best seed instead of the mean over seeds; report the mean test accuracy over all seeds at that lr",
            "用了最好的种子而不是各种子的均值；应报告该学习率下所有种子的平均测试准确率",
        ),
        MEDIAN: (
            "the median over seeds instead of the mean; report the mean test accuracy over all seeds at that lr",
            "用了各种子的中位数而不是均值；应报告该学习率下所有种子的平均测试准确率",
        ),
    }.items()
    | {
        name: (name[0].split(";")[0] + "; it counts as 0 in the mean test accuracy", name[1].split("；")[0] + "；在平均测试准确率中它应记为 0")
        for name in SELECTION_MISTAKES
        if name[0].startswith(("a diverged run's", "the failed run", "the diverged run"))
    }.items()
    for options in [SELECTION_MISTAKES[name][0]]
}


def charged_selection(chosen: dict, rows: list[dict]) -> set:
    """The known selection mistakes the selection checks charge the choice `chosen` with, by name."""
    right = _variant(rows)
    return {name for name, (_, alone) in SELECTION_MISTAKES.items() if chosen.get(alone) != right[alone] and mistaken(chosen, alone, rows) == name}


def own_choice(sweep, rows) -> dict:
    """The submission's own select_lr choice for `rows`, or {} when it has none to give: summarize reports the lr
    select_lr chose, so a select_lr mistake (charged by the selection checks) is not charged again here."""
    try:
        return asked_once(sweep, SWEEP_ROWS, rows)
    except Fail:  # a StudentError too: select_lr raised
        return {}


def own_rule(sweep, own: dict, rows: list[dict]) -> dict:
    """The choice that shows the rule select_lr averages by: its own, or, for one lr pooled over lengths (charged by
    the selection checks), its choice for each pair's rows alone."""
    try:
        return choice_per_pair(sweep, rows) if pools_lengths(own, rows) else own
    except Fail:  # a StudentError too: select_lr raised
        return own


@functools.cache
def reference_summary(reference) -> list[dict]:
    """The reference summarize of the reference's rows and the control rows."""
    return reference.summarize(expected_rows(reference) + control_rows(reference))


@check(points=1)
def test_summary(sweep, reference):
    """summarize reports, per (model, length), the lr chosen on validation, its mean test accuracy and the failure counts
    summarize 对每个 (model, length) 报告按验证集选出的学习率、其平均测试准确率与失败次数"""
    rows = expected_rows(reference) + control_rows(reference)
    got = sweep.summarize(rows)
    want = {(s["model"], s["length"]): s for s in reference_summary(reference)}
    if not isinstance(got, list) or not all(isinstance(s, dict) for s in got) or len(got) != len(want):
        raise Fail("summarize must return a list of dicts, one per (model, length)", "summarize 应返回 dict 列表，每个 (model, length) 一项")
    entries = {}
    for i, s in enumerate(got):
        expect_plain(s, SUMMARY_KINDS, name=Text(f"summarize: entry {i}", f"summarize：第 {i} 项"))
        k = (s.get("model"), s.get("length"))
        if k not in want:
            raise Fail(f"summarize reports an unknown (model, length) {k}", f"summarize 报告了未知的 (model, length) {k}")
        entries[k] = s
    if set(entries) != set(want):
        raise Fail("summarize must report each (model, length) once", "summarize 应对每个 (model, length) 恰好报告一次")
    chosen = {k: s.get("lr") for k, s in entries.items()}
    own = own_choice(sweep, rows)
    for k, w in want.items():
        s = entries[k]
        if s.get("lr") != w["lr"] and (s.get("lr") != own.get(k) or s.get("lr") not in LRS):
            why = mistaken(chosen, k, rows)
            if why is not None:
                raise Fail(f"summarize for {k}: {why[0]}", f"summarize 对 {k}：{why[1]}", diagnosis=why)
            raise Fail(
                f"summarize for {k}: report the lr select_lr chose (the best mean validation accuracy over seeds)",
                f"summarize 对 {k}：应报告 select_lr 选出的学习率（各种子平均验证准确率最高者）",
            )
    test = {name: _scores(rows, metric="test_acc", **options) for name, (_, options) in SUMMARY_MISTAKES.items()}
    means, carried = _scores(rows, metric="test_acc"), charged_selection(own_rule(sweep, own, rows), rows)

    def agrees(value, k, scores) -> bool:
        got = scores[k].get(chosen[k])
        return isinstance(value, (int, float)) and got is not None and math.isclose(value, got, abs_tol=1e-9)

    wrong = {}  # (model, length): the known mistakes its test accuracy agrees with
    for k in want:
        test_acc = entries[k].get("test_acc")
        if agrees(test_acc, k, means) or any(agrees(test_acc, k, test[name]) for name in carried if name in test):
            continue
        wrong[k] = {told for name, (told, _) in SUMMARY_MISTAKES.items() if agrees(test_acc, k, test[name])}
        if isinstance(test_acc, (int, float)) and math.isclose(test_acc, max(means[k].values()), abs_tol=1e-9):
            wrong[k].add(BEST_TEST)
    if wrong:
        k, common = next(iter(wrong)), set.intersection(*wrong.values())
        if len(common) == 1:  # one known mistake, and only it, explains every wrong test accuracy
            (why,) = common
            raise Fail(f"summarize for {k}: {why[0]}", f"summarize 对 {k}：{why[1]}", diagnosis=why)
        raise Fail(
            f"summarize for {k}: report the mean test accuracy over seeds at the chosen lr (diverged and failed runs count 0)",
            f"summarize 对 {k}：应报告所选学习率下各种子的平均测试准确率（发散与失败记 0）",
        )
    val_means = _scores(rows)
    val_carried = [_scores(rows, **options) for name, (_, options) in SUMMARY_MISTAKES.items() if name in carried]
    for k in want:
        val_acc = entries[k].get("val_acc")
        if not (agrees(val_acc, k, val_means) or any(agrees(val_acc, k, scores) for scores in val_carried)):
            raise Fail(
                f"summarize for {k}: val_acc is the mean validation accuracy over seeds at the chosen lr (diverged and failed runs count 0)",
                f"summarize 对 {k}：val_acc 应为所选学习率下各种子的平均验证准确率（发散与失败记 0）",
            )
    for k, w in want.items():
        if any(entries[k].get(c) != w[c] for c in ("runs", "diverged", "failed")):
            raise Fail(
                f"summarize for {k}: runs, diverged and failed count every run of that (model, length), all lrs",
                f"summarize 对 {k}：runs、diverged、failed 应统计该 (model, length) 所有学习率下的全部运行",
            )


# -- the per-length data rule ------------------------------------------------------------------------


@check(points=1)
def test_length_data(sweep):
    """length_data calls make_splits once per length with one rule: T = length + 8, delay = length, the same sizes
    length_data 对每个长度按同一规则调用一次 make_splits：T = length + 8，delay = length，规模相同"""
    sizes, vocab, seed, lengths = {"train": 64, "val": 32, "test": 512}, 6, 2, [4, 16, 32]
    got = sweep.length_data(inject("split_recorder"), lengths, sizes, vocab, seed)
    if not isinstance(got, list) or len(got) != len(lengths) or not all(isinstance(c, dict) for c in got):
        raise Fail(
            "length_data must return a list with make_splits's result for each length, in order",
            "length_data 应按顺序返回每个长度的 make_splits 结果组成的列表",
        )
    for length, call in zip(lengths, got):
        expect_plain(call, CALL_KINDS, name=Text(f"length_data()[{lengths.index(length)}]"))
        for name, n in (call.get("sizes") or {}).items():
            expect_kind(n, name=f"length_data()[{lengths.index(length)}]['sizes'][{name!r}]", kinds=(int, float))
        if call.get("delay") != length:
            raise Fail(
                f"for length {length} the delay passed to make_splits is {call.get('delay')}: the dependency length is the delay",
                f"长度 {length} 时传给 make_splits 的 delay 为 {call.get('delay')}：依赖长度就是延迟",
            )
        if call.get("T") != length + 8:
            raise Fail(
                f"for length {length}, T is not length + 8: every length must keep the same 8 scored positions",
                f"长度 {length} 时 T 不是 length + 8：每个长度都应保留相同的 8 个计分位置",
            )
        if call.get("sizes") != sizes or call.get("vocab") != vocab or call.get("seed") != seed:
            raise Fail("every length uses the same split sizes, vocab and data seed", "每个长度都应使用相同的划分规模、词表与数据种子")


# -- one real tiny sweep -----------------------------------------------------------------------------


def _disjoint_splits(length: int, vocab: int, sizes: dict) -> dict:
    """Distinct delayed-copy sequences of length length + 8, split without overlap (drawn here, not the student's ex08)."""
    t, base = length + 8, vocab - 1
    g = torch.Generator().manual_seed(length)
    index = torch.randperm(base**t, generator=g)[: sum(sizes.values())]
    inputs = torch.stack([(index // base**p) % base for p in range(t)], dim=1) + 1
    targets = torch.zeros_like(inputs)
    targets[:, length:] = inputs[:, :-length]
    out, start = {}, 0
    for name, n in sizes.items():
        out[name] = (inputs[start : start + n], targets[start : start + n])
        start += n
    return out


class CopyModel(torch.nn.Module):
    """ex08's model (ex08's answer, so it stays here): embedding → nn.GRU/nn.LSTM → head."""

    def __init__(self, cell: str, vocab: int, d_e: int, d_h: int):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, d_e)
        self.rnn = {"gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[cell](d_e, d_h, batch_first=True)
        self.head = torch.nn.Linear(d_h, vocab)

    def forward(self, x):
        return self.head(self.rnn(self.embedding(x))[0])


def accuracy(model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor, delay: int) -> float:
    """Share of positions t >= delay where the model's most likely token is the target (ex08's answer too)."""
    with torch.no_grad():
        predicted = model(inputs).argmax(-1)
    return (predicted[:, delay:] == targets[:, delay:]).double().mean().item()


class RealTrainer(Service):
    """A real train_fn, run here: for (model, length, lr, seed) it builds ex08's model under torch.manual_seed(seed),
    runs Adam for a few updates on `data[length]`'s train split and returns val_acc and test_acc (positions t ≥
    length), the last loss, and what answer-key item 10 reports: train_seconds, predict_seconds (the validation
    batch), peak_memory (16 bytes per parameter: weights, gradients, two Adam moments), grad_norm and updates.
    `calls` records each call with what it returned."""

    methods = frozenset({"train"})
    VOCAB, D_E, D_H, BATCH, UPDATES = 4, 4, 8, 16, 5

    def __init__(self, data: dict):
        self.data = data
        self.calls: list[tuple[tuple, dict]] = []

    def train(self, *, model, length, lr, seed) -> dict:
        if (
            model not in ("gru", "lstm")
            or type(length) is not int
            or length not in self.data
            or type(lr) is not float
            or not 0 < lr < 1
            or type(seed) is not int
        ):
            raise Refusal(f"no real run for model={model!r}, length={length!r}, lr={lr!r}, seed={seed!r}")
        outcome = real_run(model, length, lr, seed, self.data[length])
        self.calls.append(((model, length, lr, seed), outcome))
        return outcome


@remembered  # the same run on the same data is the same outcome: trained once per grading process, not once a student
def real_run(model: str, length: int, lr: float, seed: int, splits: dict) -> dict:
    """RealTrainer's run of (model, length, lr, seed) on `splits`: what train_fn returns."""
    with torch.random.fork_rng(devices=[]):
        torch.random.default_generator.manual_seed(seed)  # the CPU generator, which the build draws from (see ex08's seeded_weights)
        net = CopyModel(model, RealTrainer.VOCAB, RealTrainer.D_E, RealTrainer.D_H)
    started = time.perf_counter()
    trained = TRAINING.train_copy_model(net, *splits["train"], batch_size=RealTrainer.BATCH, updates=RealTrainer.UPDATES, lr=lr, seed=seed)
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    val_acc = accuracy(net, *splits["val"], length)
    predict_seconds = time.perf_counter() - started
    return {
        "val_acc": val_acc,
        "test_acc": accuracy(net, *splits["test"], length),
        "train_seconds": train_seconds,
        "predict_seconds": predict_seconds,
        "peak_memory": 16 * sum(p.numel() for p in net.parameters()),
    } | trained


# The plain control pairs' runs, and the same runs with every returned value changed: the real sweep's scripted twins.
CLEAN_RUNS = [r for r in CONTROL_RUNS if (r["model"], r["length"]) in PLAIN]
OTHER_RUNS = [r | {"val_acc": 1 - r["val_acc"], "test_acc": 1 - r["test_acc"]} | {m: r[m] + 1 for m in MEASURED[2:]} for r in CLEAN_RUNS]
CLEAN_GRID = (sorted({m for m, _ in PLAIN}), sorted({length for _, length in PLAIN}))


def shown_rows(rows: list[dict]) -> list[str]:
    """What train_fn's outcomes decide of each row (its status and measured values), as comparable text, in order."""
    return [repr([r.get(k) for k in ("status", *MEASURED)]) for r in rows]


@functools.cache
def clean_rows(reference) -> list[dict]:
    """The reference's rows of the plain control runs: the real sweep's scripted twin."""
    return reference.run_sweep(ScriptedTrainer(CLEAN_RUNS), *CLEAN_GRID, LRS, SEEDS)


def scripted_twin(sweep, reference) -> dict[str, bool]:
    """What the submission's run_sweep gets right on scripted runs like the real ones (every one "ok", nothing raised):
    its rows, their statuses and the accuracies they hold. A criterion of the real sweep is charged only where its
    scripted twin is right, so that a row mistake is the grid and status checks' to charge, once. The real sweep
    counts once the rows come from train_fn: with other outcomes scripted, they change (no work earns nothing)."""
    rows = student_rows(sweep, CLEAN_RUNS, *CLEAN_GRID)
    if shown_rows(rows) == shown_rows(student_rows(sweep, OTHER_RUNS, *CLEAN_GRID)):
        raise Fail(
            "the real sweep counts once run_sweep's rows come from train_fn: with other outcomes scripted, its rows "
            "stay the same (see the check on the full grid)",
            "run_sweep 的行来自 train_fn 之后，真实扫描才计分：换成其他预设结果时，它的行没有变化（见完整网格检查）",
        )
    expected = {key(r): r for r in clean_rows(reference)}
    return {
        "rows": sorted(map(key, rows), key=repr) == sorted(expected, key=repr),
        "status": all(r.get("status") == "ok" for r in rows),
        "accuracies": all(key(r) in expected and all(same(r.get(m), expected[key(r)][m]) for m in ("val_acc", "test_acc")) for r in rows),
    }


REAL_MODELS, REAL_LENGTH, REAL_LRS = ["gru", "lstm"], 2, [0.01, 0.05]
REAL_PROBLEMS = {  # criterion: (English, Chinese), what a real sweep gets wrong where its scripted twin is right
    "rows": (
        "the real sweep must report 4 rows, one per run (2 models × 1 length × 2 lrs × 1 seed)",
        "真实扫描应报告 4 行，每次运行一行（2 模型 × 1 长度 × 2 学习率 × 1 种子）",
    ),
    "status": ('every real run trains to a finite loss, so each is "ok"', '每次真实运行都训练到有限的损失，所以都应为 "ok"'),
    "accuracies": (
        "every real run's val_acc and test_acc are accuracies, numbers in [0, 1]",
        "每次真实运行的 val_acc 与 test_acc 都是准确率，即 [0, 1] 内的数",
    ),
}


@check(points=0.5)
def test_real_tiny_sweep(sweep, reference, device):
    """One real tiny sweep: GRU and LSTM train on delayed copy, every run reported, an lr chosen from the grid (what scripted runs show is charged there)
    一次真实的小规模扫描：GRU 与 LSTM 在延迟复制任务上训练，报告所有运行，从网格中选出学习率（预设运行已显示的错误在那里扣分）"""
    twin = scripted_twin(sweep, reference)
    trainer = RealTrainer({REAL_LENGTH: _disjoint_splits(REAL_LENGTH, 4, {"train": 64, "val": 32, "test": 32})})
    rows = sweep.run_sweep(inject("trainer", service=trainer), REAL_MODELS, [REAL_LENGTH], REAL_LRS, [0])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise Fail("run_sweep must return a list of dicts, one per run", "run_sweep 应返回 dict 列表，每次运行一行")
    for i, r in enumerate(rows):
        expect_plain(r, ROW_KINDS, name=Text(f"run_sweep (real): row {i}", f"run_sweep（真实）：第 {i} 行"))
    runs = sorted(((m, REAL_LENGTH, lr, 0) for m in REAL_MODELS for lr in REAL_LRS), key=repr)
    wrong = {
        "rows": sorted(map(key, rows), key=repr) != runs,
        "status": any(r.get("status") != "ok" for r in rows),
        "accuracies": not all(isinstance(r.get(m), (int, float)) and 0 <= r[m] <= 1 for r in rows for m in ("val_acc", "test_acc")),
    }
    returned = {call: outcome for call, outcome in trainer.calls}
    if not all(key(r) in returned and all(same(r.get(m), returned[key(r)][m]) for m in ("val_acc", "test_acc")) for r in rows):
        raise Fail(
            "the real sweep's rows must hold the accuracies train_fn returned for their own runs: rows the runs did not give earn nothing",
            "真实扫描的各行应保存 train_fn 为该次运行返回的准确率：并非由运行得到的行不得分",
        )
    control = control_rows(reference)
    grid = {(m, length): LRS for m, length in CONTROL_SCRIPT}
    twin["choice"] = choice_problem(sweep, "the control rows", control, grid) is None and not pools_lengths(
        asked_once(sweep, "the control rows", control), control
    )
    problem = choice_problem(sweep, "the real and the control rows", rows + control, grid | {(r.get("model"), r.get("length")): REAL_LRS for r in rows})
    wrong["choice"] = problem is not None
    charged = [problem if c == "choice" else Text(*REAL_PROBLEMS[c]) for c, w in wrong.items() if w and twin[c]]
    if charged:
        raise Fail(Text.join("; ", charged))
    if any(wrong.values()):
        raise Fail(
            "the real sweep goes wrong only as the scripted runs do, which the grid, status and selection checks have charged: no points are lost here",
            "真实扫描出错之处与预设运行相同，完整网格、状态与选择检查已经扣分：此处不扣分",
            share=1.0,
        )


def choice_problem(sweep, name: str, rows: list[dict], grid: dict) -> Text | None:
    """What is wrong with select_lr's choice for `rows` (asked_once, by `name`), where it must choose one lr of
    `grid[(model, length)]` for each (model, length) of `grid` and nothing else; None when nothing is. Which lr is right
    is the selection checks'."""
    try:
        chosen = asked_once(sweep, name, rows)
    except Fail as failure:  # a StudentError too: select_lr raised
        return failure.message
    if set(chosen) != set(grid) or any(lr not in grid[k] for k, lr in chosen.items()):
        return Text(
            "select_lr must choose one lr of the grid for each (model, length) of its rows",
            "select_lr 应为其各行中的每个 (model, length) 选出网格中的一个学习率",
        )
    return None


# -- the answer sheet --------------------------------------------------------------------------------

MISCONCEPTIONS = {
    "time_vs_length": {
        "A": (
            "read training time as optimisation difficulty: a rise in time alone does not say the problem got harder",
            "把训练时间当成了优化难度：时间上升本身并不说明问题变难了",
        ),
        "B": (
            "called the rise a memory artefact, with the work per update unchanged (answer-key item 10)",
            "把上升归因于内存效应，认为每次更新的运算量不变（参考答案第 10 题）",
        ),
        "D": ("called the rise noise: it is systematic, and more seeds would not average it away", "把上升当成了噪声：它是系统性的，多跑几个种子也平均不掉"),
    },
    "failed_runs": {
        "A": (
            "took diverged runs for noise about the lr: dropping them hides exactly the instability the sweep should show",
            "把发散的运行当成了学习率的噪声：删掉它们恰好掩盖了扫描应当揭示的不稳定性",
        ),
        "C": (
            "took dropping a run for counting it as 0: work out the mean at lr 0.1 both ways (answer-key item 10)",
            "把删除一次运行当成了把它记为 0：请分别算出两种做法下 0.1 的均值（参考答案第 10 题）",
        ),
        "D": (
            "took one rule for both cells as enough: a rule that drops diverged runs misreports both cells alike",
            "以为两个模型用同一规则就够了：删除发散运行的规则对两个模型同样给出失真的结果",
        ),
    },
}


@check(points=1)
def test_choices(answers, reference_answers):
    """What rising training time shows; what the report does with diverged runs (answer-key item 10)
    训练时间上升说明了什么；报告如何处理发散的运行（参考答案第 10 题）"""
    choices(answers, reference_answers, MISCONCEPTIONS)
