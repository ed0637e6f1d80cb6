"""ex08 beyond its known mistakes and tables (tests/mutants/ex08.py): the data points of a protocol that reports no rows,
forged bench records."""

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


# The bench's record is made in the student process: whatever it says is checked against the grader's own splits and
# seeded rebuild. name: (the change to the reference's run_comparison, words the feedback must contain)
FORGED_RECORDS = {
    "a record replaced by junk": (
        "    rows = []\n",
        '    rows = []\n    bench.record = lambda: {"calls": "all fine"}\n',
        "record of its train calls came back malformed",
    ),
    "a record of made-up calls": (
        "    rows = []\n",
        '    rows = []\n    bench.record = lambda: {"calls": [{"cell": c, "d_h": d, "seed": s, "data": [train_x, train_y], '
        '"batch_size": settings["batch_size"], "updates": settings["updates"], "lr": settings["lr"], "initial": {}} '
        'for c, d in widths.items() for s in settings["seeds"]]}\n',
        "does not explain the test accuracy",
    ),
    "a record emptied after training on test": (
        "bench.train(model, (train_x, train_y),",
        "bench.calls.clear() or bench.train(model, (test_x, test_y),",
        "trained on test sequences",
    ),
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
WRONG_PROTOCOL = [
    ("            torch.manual_seed(seed)\n            model = build_model(", "            model = build_model("),
    ("result = bench.train(model, (train_x, train_y),", "result = bench.train(model, (test_x, test_y),"),
]


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
