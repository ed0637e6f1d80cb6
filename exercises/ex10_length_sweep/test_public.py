"""Public checks for ex10 (worth no points; the graded checks are hidden). Run: grade run ex10

They check the form of the answer sheet (the course's keys, each one of the options A–D), of run_sweep's
rows and of select_lr's choice on a two-run sweep, with a trainer of their own (`FormTrainer` below: the given
train_fn of course/ex10/given.py calls it, as the graded checks' trainers are called). Whether the answers
and values are right is decided by the hidden checks.
"""

from grader.checks import Choice, Refusal, Service, check_sheet_form, inject, require, student_module

sweep = student_module("sweep")

REPORTED = {"final_loss": 1.0, "train_seconds": 2.0, "predict_seconds": 0.01, "peak_memory": 4096, "grad_norm": 0.5,
            "updates": 100}
RUNS = [{"model": "gru", "length": 4, "lr": lr, "seed": 0, "val_acc": 0.5, "test_acc": 0.5} | REPORTED for lr in (0.1, 0.01)]
FORMS = {"time_vs_length": Choice(), "failed_runs": Choice()}


class FormTrainer(Service):
    """The outcomes of RUNS, by (model, length, lr, seed)."""

    methods = frozenset({"train"})

    def train(self, *, model, length, lr, seed):
        for run in RUNS:
            if (run["model"], run["length"], run["lr"], run["seed"]) == (model, length, lr, seed):
                return {k: v for k, v in run.items() if k not in ("model", "length", "lr", "seed")}
        raise Refusal(f"no run for model={model!r}, length={length!r}, lr={lr!r}, seed={seed!r}")


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)


def test_rows_have_every_key(sweep):
    """run_sweep over 1 model × 1 length × 2 lrs × 1 seed returns 2 rows with every key
    run_sweep 在 1 模型 × 1 长度 × 2 学习率 × 1 种子上返回含所有键的 2 行"""
    rows = sweep.run_sweep(inject("trainer", service=FormTrainer()), ["gru"], [4], [0.1, 0.01], [0])
    require(isinstance(rows, list) and len(rows) == 2, "2 runs give 2 rows", "2 次运行应得到 2 行")
    for row in rows:
        require(isinstance(row, dict), "each row is a dict", "每一行都是 dict")
        missing = {"model", "length", "lr", "seed", "status", "val_acc", "test_acc", *REPORTED} - set(row)
        require(not missing, f"a row lacks {sorted(missing)}", f"有一行缺少 {sorted(missing)}")


def test_select_lr_form(sweep):
    """select_lr returns one lr per (model, length), keyed by (model, length) tuples
    select_lr 对每个 (model, length) 返回一个学习率，以 (model, length) 元组为键"""
    rows = [{"model": "gru", "length": 4, "lr": 0.1, "seed": 0, "status": "ok", "val_acc": 0.5, "test_acc": 0.5}]
    require(sweep.select_lr(rows) == {("gru", 4): 0.1}, "select_lr(rows) == {('gru', 4): 0.1} for this one run",
            "对这一次运行应有 select_lr(rows) == {('gru', 4): 0.1}")
