"""Public checks for ex08 (worth no points; the graded checks are hidden). Run: grade run ex08

They check the form of the answer sheet (the course's keys, each one of the options A–D), of the data
and of one comparison row, with a bench of their own (`FormBench` below: the given Bench of
course/ex08/given.py calls it, as the graded checks' benches are called). Whether the answers
and values are right is decided by the hidden checks.
"""

import torch

from grader.checks import Choice, Service, check_sheet_form, expect_tensor, inject, require, student_module

protocol = student_module("protocol")

ROW_KEYS = ("cell", "d_h", "seed", "status", "params", "batch_size", "updates", "lr", "cell_calls",
            "test_acc", "train_time", "predict_time", "peak_memory")
FORMS = {"equal_width_shows": Choice(), "equal_params_shows": Choice()}


class FormBench(Service):
    """A bench for the form of a row: a clock that train moves by 1 s and each call of the trained model by 1 ms
    per sequence, and "training" that hands the weights back as they were."""

    methods = frozenset({"clock", "train", "forward"})

    def __init__(self):
        self.now = 0.0

    def clock(self):
        return self.now

    def train(self, *, initial, **settings):
        self.now += 1.0
        return {"run": 0, "weights": initial, "final_loss": 0.5,
                "peak_memory": 16 * sum(v.numel() for v in initial.values())}

    def forward(self, *, run, inputs, logits):
        self.now += 0.001 * len(inputs)


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)


def test_delayed_copy_shapes(protocol):
    """make_delayed_copy(4, 5, 1, 3, 0) returns two int64 tensors of shape (4, 5)
    make_delayed_copy(4, 5, 1, 3, 0) 返回两个形状为 (4, 5) 的 int64 张量"""
    pair = protocol.make_delayed_copy(4, 5, 1, 3, 0)
    require(isinstance(pair, (list, tuple)) and len(pair) == 2, "make_delayed_copy returns a pair (inputs, targets)",
            "make_delayed_copy 返回一对 (inputs, targets)")
    inputs, targets = pair
    expect_tensor(inputs, name="inputs", shape=(4, 5), dtype=torch.int64)
    expect_tensor(targets, name="targets", shape=(4, 5), dtype=torch.int64)


def test_one_comparison_row(protocol, device):
    """run_comparison with one cell and one seed returns one row with every key
    只有一种单元、一个随机种子时，run_comparison 返回含所有键的一行"""
    sizes = {"train": 8, "val": 4, "test": 520}
    splits = protocol.make_splits(sizes, 5, 1, 6, 0)
    require(isinstance(splits, dict) and set(splits) == set(sizes), "make_splits returns a dict with keys train, val, test",
            "make_splits 返回键为 train、val、test 的 dict")
    for name, n in sizes.items():
        pair = splits[name]
        require(isinstance(pair, (list, tuple)) and len(pair) == 2, f"make_splits()[{name!r}] is a pair (inputs, targets)",
                f"make_splits()[{name!r}] 是一对 (inputs, targets)")
        splits[name] = [expect_tensor(t, name=f"make_splits()[{name!r}]", shape=(n, 5), dtype=torch.int64).to(device)
                        for t in pair]
    settings = {"vocab": 6, "d_e": 3, "delay": 1, "seeds": [0], "batch_size": 4, "updates": 2, "lr": 0.01}
    bench = inject("bench", service=FormBench())
    rows = protocol.run_comparison(bench, splits, {"gru": 5}, settings)
    require(isinstance(rows, list) and len(rows) == 1 and isinstance(rows[0], dict),
            "one cell × one seed gives one row (a dict)", "一种单元 × 一个随机种子得到一行（一个 dict）")
    missing = [k for k in ROW_KEYS if k not in rows[0]]
    require(not missing, f"the row lacks {missing}", f"该行缺少 {missing}")
