"""ex08 beyond its known mistakes (tests/mutants/ex08.py): what a sheet mistake costs, hostile values, allowed
variants, the reference, degenerate submissions."""

import pytest

from conftest import ROOT, assert_named, earned, mutate
from mutants import ex08, submission
from mutants.ex08 import LOOP_FAILURE

SOLUTION = ROOT / "solutions" / "ex08_delayed_copy"
REFERENCE = (SOLUTION / "protocol.py").read_text()
ANSWERS = (SOLUTION / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex08_delayed_copy" / "answers.toml").read_text()


@pytest.mark.parametrize("mutant", ex08.SHEET_MUTANTS, ids=lambda m: m.name)
def test_sheet_mistake_costs_its_share(grade, mutant):
    """Does this misconception on the answer sheet cost exactly its share, 0.5 (its diagnosis: tests/test_mutants.py)?"""
    result = grade("ex08", submission(mutant))
    assert result.score == pytest.approx(result.max_score - 0.5), [v.feedback for v in result.checks if not v.passed]


# Odd but plausible values in what the submission returns: a Fail naming the value, never an internal error.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = {
    "cell names in upper case": ('"cell": cell, "d_h": d_h,', '"cell": cell.upper(), "d_h": d_h,',
                                 "['cell']: expected 'rnn' or 'gru' or 'lstm', got str \"'RNN'\""),
    "seed as a list": ('"d_h": d_h, "seed": seed,', '"d_h": d_h, "seed": [seed],', "['seed']: expected int, got list"),
    "width missing for one cell": ('"cell": cell, "d_h": d_h,', '"cell": cell, "d_h": d_h if cell != "lstm" else None,',
                                   "['d_h']: expected int, got NoneType"),
    "cell_calls as a tensor": ('"cell_calls": settings["updates"]', '"cell_calls": torch.ones(2) * settings["updates"]',
                               "['cell_calls']: expected int or float or None, got Tensor"),
    "prediction time NaN": ('row["predict_time"] = bench.clock() - start', 'row["predict_time"] = math.nan',
                            "not exactly 512"),
    "plain lists for a new seed": (
        "    return inputs, _shift(inputs, delay)",
        "    if seed == 12:\n        return inputs.tolist(), _shift(inputs, delay).tolist()\n    return inputs, _shift(inputs, delay)",
        "make_delayed_copy (seed 12): inputs: expected a tensor, got list"),
    "splits as lists when called again": (
        "    return splits\n",
        "    _CALLS.append(seed)\n    if _CALLS.count(seed) > 1:\n"
        "        return {k: [x.tolist(), y.tolist()] for k, (x, y) in splits.items()}\n    return splits\n\n\n_CALLS = []\n",
        "(same seed again): inputs: expected a tensor, got list"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_value_fails_cleanly(grade, name):
    """Does this odd but plausible value lose points with a clear message, and no internal grader error?"""
    old, new, diagnosis = HOSTILE[name]
    result = grade("ex08", {"protocol.py": mutate(REFERENCE, old, new), "answers.toml": ANSWERS})
    assert_named(result, diagnosis)


# Correct variants the statement allows: each earns full marks.
# name: (text in the reference, the variant)
VARIANTS = {
    "prediction in eval mode": ("            with torch.no_grad():\n                model(test_x[:PREDICT_SEQUENCES])",
                                "            model.eval()\n            with torch.no_grad():\n"
                                "                model(test_x[:PREDICT_SEQUENCES])"),
    "the train split copied": ("bench.train(model, (train_x, train_y),", "bench.train(model, (train_x.clone(), train_y.clone()),"),
    "the train split concatenated from halves": (
        "bench.train(model, (train_x, train_y),",
        "bench.train(model, (torch.cat([train_x[:24], train_x[24:]]), torch.cat([train_y[:24], train_y[24:]])),"),
    "the train split passed as given": ("bench.train(model, (train_x, train_y),", 'bench.train(model, splits["train"],'),
    "a model that makes its head first": (
        "        self.embedding = nn.Embedding(vocab, d_e)\n        self.rnn = CELLS[cell](d_e, d_h, batch_first=True)\n"
        "        self.head = nn.Linear(d_h, vocab)\n",
        "        self.head = nn.Linear(d_h, vocab)\n        self.embedding = nn.Embedding(vocab, d_e)\n"
        "        self.rnn = CELLS[cell](d_e, d_h, batch_first=True)\n"),
    "a model moved to float64 after its seeded build": (
        "build_model(cell, settings[\"vocab\"], settings[\"d_e\"], d_h).to(train_x.device)",
        "build_model(cell, settings[\"vocab\"], settings[\"d_e\"], d_h).to(train_x.device).double()"),
    "a failed row without params and cell_calls": (
        LOOP_FAILURE, '            except Exception:\n                row["params"] = row["cell_calls"] = None\n'
                      "                continue\n"),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_allowed_variant_earns_full_marks(grade, name):
    """Does a protocol the statement allows (eval mode for prediction; the train split copied, rebuilt from halves or
    passed as given; a model whose __init__ makes its parts in another order; a failed row's params and cell_calls
    left out, which the grader does not check) earn every point?"""
    old, new = VARIANTS[name]
    result = grade("ex08", {"protocol.py": mutate(REFERENCE, old, new), "answers.toml": ANSWERS})
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


ZERO_DATA = '''import torch

def make_delayed_copy(n, T, delay, vocab, seed):
    return torch.zeros(n, T, dtype=torch.int64), torch.zeros(n, T, dtype=torch.int64)

def make_splits(sizes, T, delay, vocab, seed):
    return {name: make_delayed_copy(n, T, delay, vocab, seed) for name, n in sizes.items()}
'''
CONSTANT_DATA = '''import torch

def make_delayed_copy(n, T, delay, vocab, seed):
    inputs = torch.ones(n, T, dtype=torch.int64)
    targets = torch.zeros_like(inputs)
    targets[:, delay:] = inputs[:, :T - delay]
    return inputs, targets

def make_splits(sizes, T, delay, vocab, seed):
    if sum(sizes.values()) > (vocab - 1) ** T:
        raise ValueError("not enough distinct sequences")
    return {name: make_delayed_copy(n, T, delay, vocab, seed) for name, n in sizes.items()}
'''
NO_ROWS = '''
def run_comparison(bench, splits, widths, settings):
    return []

def comparison_tables(bench, splits, settings, d_h, matched_widths):
    return {"equal_width": [], "matched_params": []}
'''
# One row per (cell, seed) that repeats the settings it was given, and trains nothing.
ECHOED_ROWS = '''
def run_comparison(bench, splits, widths, settings):
    return [dict(cell=cell, d_h=d_h, seed=seed, status="ok", params=0, batch_size=settings["batch_size"],
                 updates=settings["updates"], lr=settings["lr"], cell_calls=0, test_acc=0.0, train_time=0.0,
                 predict_time=0.0, peak_memory=0)
            for cell, d_h in widths.items() for seed in settings["seeds"]]

def comparison_tables(bench, splits, settings, d_h, matched_widths):
    return {"equal_width": run_comparison(bench, splits, {cell: d_h for cell in matched_widths}, settings),
            "matched_params": run_comparison(bench, splits, dict(matched_widths), settings)}
'''
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The constant data
# is shifted right and make_splits refuses the impossible, yet neither earns: constant inputs show no shift.
DEGENERATE = {
    "zeros and no rows": ZERO_DATA + NO_ROWS,
    "constant data and echoed rows": CONSTANT_DATA + ECHOED_ROWS,
    "zeros and echoed rows": ZERO_DATA + ECHOED_ROWS,
    "empty results": ("def make_delayed_copy(n, T, delay, vocab, seed):\n    return ()\n\n"
                      "def make_splits(sizes, T, delay, vocab, seed):\n    return {}\n\n"
                      "def run_comparison(bench, splits, widths, settings):\n    return []\n\n"
                      "def comparison_tables(bench, splits, settings, d_h, matched_widths):\n    return {}\n"),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_submission_earns_nothing(grade, name):
    """Does a protocol.py that computes nothing (zeros, constants, no rows, empty results) earn nothing?"""
    assert earned(grade("ex08", {"protocol.py": DEGENERATE[name], "answers.toml": STUB_SHEET})) == {}


def test_no_rows_earn_only_the_data_points(grade):
    """Does the reference's data with a run_comparison that reports no rows keep the data points only (2 of 10)?"""
    source = REFERENCE.split("class CopyModel")[0] + NO_ROWS
    got = earned(grade("ex08", {"protocol.py": source, "answers.toml": STUB_SHEET}))
    assert sorted(got.values()) == [1, 1], got  # make_delayed_copy and make_splits, the reference's own code
    assert all(name.startswith(("make_delayed_copy", "make_splits")) for name in got), got


# The bench's record is made in the student process: whatever it says is checked against the grader's own splits and
# seeded rebuild. name: (the change to the reference's run_comparison, words the feedback must contain)
FORGED_RECORDS = {
    "a record replaced by junk": ('    rows = []\n', '    rows = []\n    bench.record = lambda: {"calls": "all fine"}\n',
                                  "record of its train calls came back malformed"),
    "a record of made-up calls": (
        '    rows = []\n',
        '    rows = []\n    bench.record = lambda: {"calls": [{"cell": c, "d_h": d, "seed": s, "data": [train_x, train_y], '
        '"batch_size": settings["batch_size"], "updates": settings["updates"], "lr": settings["lr"], "initial": {}} '
        'for c, d in widths.items() for s in settings["seeds"]]}\n',
        "does not explain the test accuracy"),
    "a record emptied after training on test": (
        "bench.train(model, (train_x, train_y),", "bench.calls.clear() or bench.train(model, (test_x, test_y),",
        "trained on test sequences"),
}


@pytest.mark.parametrize("name", FORGED_RECORDS)
def test_forged_bench_record_earns_nothing_for_the_protocol(grade, name):
    """Does a run_comparison that rewrites the bench's record of its train calls lose the training-protocol check's
    points it forged (the record is checked against the grader's own splits and seeded rebuild), with no internal error?"""
    old, new, diagnosis = FORGED_RECORDS[name]
    result = grade("ex08", {"protocol.py": mutate(REFERENCE, old, new), "answers.toml": ANSWERS})
    protocol = next(v for v in result.checks if v.name.startswith("Each run trains once"))
    assert protocol.earned < protocol.points and diagnosis in protocol.feedback.en, protocol.feedback.en


FORGED_RECORD = (
    "            except Exception:\n                continue\n",
    "            except Exception:\n                continue\n"
    "            finally:  # the bench's record rewritten to show the train split and a seeded build\n"
    "                calls = getattr(bench, 'calls', None)\n"
    "                if calls and isinstance(calls[-1], dict) and 'data' in calls[-1]:\n"
    "                    calls[-1]['data'] = [train_x.detach().cpu().clone(), train_y.detach().cpu().clone()]\n"
    "                    with torch.random.fork_rng(devices=[]):\n"
    "                        torch.manual_seed(seed)\n"
    "                        twin = build_model(cell, settings['vocab'], settings['d_e'], d_h)\n"
    "                    calls[-1]['initial'] = {k: v.detach().cpu().clone() for k, v in twin.state_dict().items()}\n",
)
WRONG_PROTOCOL = [("            torch.manual_seed(seed)\n            model = build_model(",
                   "            model = build_model("),
                  ("result = bench.train(model, (train_x, train_y),", "result = bench.train(model, (test_x, test_y),")]


def test_a_forged_bench_record_earns_no_more_than_the_truth(grade):
    """Does a run_comparison that trains an unseeded model on the test split, then rewrites the bench's record to show
    the train split and a seeded build, earn no more than the same protocol with its record left alone?"""
    honest = REFERENCE
    for old, new in WRONG_PROTOCOL:
        honest = mutate(honest, old, new)
    forged = mutate(honest, *FORGED_RECORD)
    told = grade("ex08", {"protocol.py": honest, "answers.toml": ANSWERS})
    hidden = grade("ex08", {"protocol.py": forged, "answers.toml": ANSWERS})
    assert told.score < told.max_score and hidden.score <= told.score, (told.score, hidden.score)
    assert not any(v.internal_error for v in hidden.checks)
