"""ex08 beyond its known mistakes and tables (course/ex08/mutants.py): the data points of a protocol that reports no rows,
protocols that forge what the bench would have seen."""

import textwrap

import pytest

from conftest import ROOT, earned, mutate
from mutants.ex08 import NO_ROWS

pytestmark = pytest.mark.slow  # the exercise's bank graded

SOLUTION = ROOT / "solutions" / "ex08_delayed_copy"
REFERENCE = (SOLUTION / "protocol.py").read_text()
ANSWERS = (SOLUTION / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex08_delayed_copy" / "answers.toml").read_text()


def test_no_rows_earn_only_the_data_points(grade):
    """Does the reference's data with a run_comparison that reports no rows keep the data points only (2 of 10)?"""
    source = REFERENCE.split("class CopyModel")[0] + NO_ROWS
    got = earned(grade("ex08", {"protocol.py": source, "answers.toml": STUB_SHEET}))
    assert sorted(got.values()) == [1, 1], got  # make_delayed_copy and make_splits, the reference's own code
    assert all(name.startswith(("make_delayed_copy", "make_splits")) for name in got), got


# The bench stays in the grader: what the student process holds of it is a handle on its calls. A protocol that never
# trains, whose model's forward and accuracy are stubs, that reads whatever the bench object shows and reports rows of
# plausible numbers (the old simulated bench's documented units, a formula's parameter count) earns nothing for the
# protocol: the grader's bench saw no run, no clock interval and no prediction.
FORGER = """
class CopyModel(nn.Module):
    def __init__(self, cell, vocab, d_e, d_h):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_e)
        self.rnn = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell](d_e, d_h, batch_first=True)
        self.head = nn.Linear(d_h, vocab)

    def forward(self, x):
        raise NotImplementedError


def build_model(cell, vocab, d_e, d_h):
    return CopyModel(cell, vocab, d_e, d_h)


def accuracy(model, inputs, targets, delay):
    raise NotImplementedError


def run_comparison(bench, splits, widths, settings):
    seen = {name: repr(getattr(bench, name, None)) for name in ("calls", "train_unit", "predict_unit", "diverge", "fail", "now")}
    seen["service"] = repr(vars(getattr(bench, "_service", None) or bench))
    rows = []
    for cell, d_h in widths.items():
        for seed in settings["seeds"]:
            torch.manual_seed(seed)
            params = sum(p.numel() for p in build_model(cell, settings["vocab"], settings["d_e"], d_h).parameters())
            start = bench.clock()
            rows.append(dict(cell=cell, d_h=d_h, seed=seed, status="ok", params=params, batch_size=settings["batch_size"],
                             updates=settings["updates"], lr=settings["lr"],
                             cell_calls=settings["updates"] * settings["batch_size"] * splits["train"][0].shape[1],
                             test_acc=0.2, train_time=settings["updates"] * settings["batch_size"] * 2.0**-12,
                             predict_time=bench.clock() - start + 512 * 2.0**-14, peak_memory=16 * params))
    return rows


def comparison_tables(bench, splits, settings, d_h, matched_widths):
    return {"equal_width": run_comparison(bench, splits, {c: d_h for c in matched_widths}, settings),
            "matched_params": run_comparison(bench, splits, dict(matched_widths), settings)}
"""


def test_a_protocol_that_trains_nothing_earns_nothing_for_it(grade):
    """Does a protocol that never trains, with a stub forward and accuracy, reporting rows of plausible numbers, keep
    only the data and answer-sheet points (3 of 10), with no internal error?"""
    source = REFERENCE.split("class CopyModel")[0] + FORGER
    result = grade("ex08", {"protocol.py": source, "answers.toml": ANSWERS})
    got = earned(result)
    assert sorted(got.values()) == [1, 1, 1], got
    assert all(name.startswith(("make_delayed_copy", "make_splits", "What equal widths")) for name in got), got
    assert not any(v.internal_error for v in result.checks)


# Calls of the bench's handle written by hand: a train call with the right data and a seeded model's weights (which is
# the work of a run, and counts for it), then a prediction reported with logits that are not the trained model's and a
# test accuracy that no prediction gave. name: (the change to the reference's run_comparison)
BY_HAND = (
    'result = bench.train(model, (train_x, train_y), batch_size=settings["batch_size"],\n'
    '                                     updates=settings["updates"], lr=settings["lr"], seed=seed)\n',
    textwrap.indent(
        textwrap.dedent("""\
            got = bench._service.call("train", cell=cell, d_h=d_h, seed=seed, data=[train_x, train_y],
                                      batch_size=settings["batch_size"], updates=settings["updates"],
                                      lr=settings["lr"], initial=model.state_dict())
            row["train_time"] = bench.clock() - start
            start = bench.clock()
            bench._service.call("forward", run=got["run"], inputs=test_x[:PREDICT_SEQUENCES].cpu(),
                                logits=torch.zeros(PREDICT_SEQUENCES, test_x.shape[1], settings["vocab"]))
            row.update(predict_time=bench.clock() - start, test_acc=0.2, peak_memory=got["peak_memory"], status="ok")
            continue
        """),
        " " * 16,
    ).lstrip(),
)


def test_calls_of_the_bench_written_by_hand_earn_no_prediction_or_accuracy(grade):
    """Does a protocol that calls the bench's handle itself – a real train call, then a prediction with made-up logits
    and a made-up test accuracy – lose the prediction-timing and row-metric points, with no internal error?"""
    result = grade("ex08", {"protocol.py": mutate(REFERENCE, *BY_HAND), "answers.toml": ANSWERS})
    timing = next(v for v in result.checks if v.name.startswith("Prediction time"))
    metrics = next(v for v in result.checks if v.name.startswith("Test accuracy"))
    assert timing.earned == 0 and "no verified call" in timing.feedback.en, timing.feedback.en
    assert metrics.earned < metrics.points and "saw no such call" in metrics.feedback.en, metrics.feedback.en
    assert not any(v.internal_error for v in result.checks)
