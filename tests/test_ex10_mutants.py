"""ex10 beyond its known mistakes and tables (course/ex10/mutants.py): the tuple-keyed selection, a mistake named only where
it alone explains the choice."""

import importlib.util

import pytest

from conftest import ROOT, mutate
from grader.inside import layout
from mutants import ex10, submission

pytestmark = pytest.mark.slow  # the exercise's bank graded

SOLUTION = ROOT / "solutions" / "ex10_length_sweep"
REFERENCE = (SOLUTION / "sweep.py").read_text()
ANSWERS = (SOLUTION / "answers.toml").read_text()


def test_tuple_keyed_select_lr_earns_every_selection_point(grade):
    """Does select_lr written as the statement asks (a dict keyed by (model, length) tuples, no wrapper) earn full selection points?"""
    assert "def select_lr_table" not in REFERENCE and "return chosen\n" in REFERENCE
    result = grade("ex10", {"sweep.py": REFERENCE, "answers.toml": ANSWERS})
    selection = [v for v in result.checks if "select_lr" in v.name and v.points > 0]
    assert sum(v.points for v in selection) == 3, [v.name for v in result.checks]
    assert all(v.earned == v.points for v in selection), [v.feedback for v in selection]
    assert result.score == result.max_score


def test_a_mistake_is_named_only_where_it_alone_explains_the_choice(grade):
    """Is a select_lr that takes the best seed (which at ('lstm', 4) and ('gru', 16) picks what leaving the failed run
    out, or breaking ties upwards, would pick) named as the best seed and never as those?"""
    source = mutate(REFERENCE, "{lr: sum(v) / len(v) for lr, v in by_lr.items()}", "{lr: max(v) for lr, v in by_lr.items()}")
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    said = " ".join(v.feedback.en for v in result.checks if not v.passed)
    assert "the best seed instead of the mean" in said, said
    assert "left out of the mean" not in said and "tie went to the larger lr" not in said and "selected on test" not in said, said


def lost_points(result) -> dict[str, float]:
    return {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}


@pytest.mark.parametrize(
    "name", ["failing run not caught", "report fields dropped", "one seed for every run", "dropping failed rows", "only NaN counts as diverged"]
)
def test_a_row_mistake_is_not_charged_again_by_the_real_sweep(grade, name):
    """Does a run_sweep mistake that the grid and status checks charge on the scripted runs (a raise not caught, report
    fields dropped, one seed for all, a failed row dropped, an infinite loss called ok) keep the real sweep's point,
    the mistake costing those checks alone?"""
    result = grade("ex10", submission(next(m for m in ex10.CODE_MUTANTS if m.name == name)))
    lost = lost_points(result)
    assert lost and all(n.startswith(("run_sweep: one row", "Diverged")) for n in lost), lost
    assert result.score == pytest.approx(result.max_score - sum(lost.values()))


def test_a_mistake_only_real_training_shows_costs_the_real_sweep_only(grade):
    """Does a run_sweep right on every scripted run but wrong when something really trains (a finite loss above a
    threshold called diverged: real losses after a few updates are above 1) cost the real sweep's 0.5 alone?"""
    result = grade("ex10", submission(next(m for m in ex10.CODE_MUTANTS if m.name == "a loss threshold for divergence")))
    lost = lost_points(result)
    assert list(lost) == [next(v.name for v in result.checks if v.name.startswith("One real tiny sweep"))], lost
    assert result.score == result.max_score - 0.5


RUN_SWEEP = REFERENCE[REFERENCE.index("def run_sweep(") : REFERENCE.index("def _counted(")]
# run_sweep written another way: one loop over the product, every key train_fn returned kept, a NaN or infinite loss
# told apart by hand, the failed row built from the promised keys.
PRODUCT_SWEEP = """def run_sweep(train_fn, models, lengths, lrs, seeds):
    import itertools

    out = []
    for model, length, lr, seed in itertools.product(models, lengths, lrs, seeds):
        base = dict(model=model, length=length, lr=lr, seed=seed)
        try:
            got = dict(train_fn(model, length, lr, seed))
        except Exception as error:  # noqa: BLE001 - a failed run is a row
            out.append({**base, "status": "failed", "error": str(error), **dict.fromkeys(MEASURED)})
            continue
        loss = got["final_loss"]
        diverged = loss != loss or loss in (float("inf"), float("-inf"))
        out.append({**got, **base, "status": "diverged" if diverged else "ok"})
    return out


"""


def test_run_sweep_written_differently_earns_full_marks(grade):
    """Does a correct run_sweep written another way (itertools.product, every returned key kept and an error message
    added, NaN and infinity told apart by hand) earn all 10, the real sweep's point included?"""
    source = mutate(REFERENCE, RUN_SWEEP, PRODUCT_SWEEP)
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


def test_a_select_lr_mistake_is_not_charged_again_by_the_real_sweep(grade):
    """Does a select_lr that picks the lowest mean validation accuracy (wrong on every control pair, which the
    selection checks charge) keep the real sweep's point, where it still picks an lr of the grid for each pair?"""
    source = mutate(REFERENCE, "by_lr[lr] > by_lr[best]", "by_lr[lr] < by_lr[best]")
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    lost = lost_points(result)
    assert lost and all(n.startswith(("select_lr", "In select_lr's means")) for n in lost), lost
    real = next(v for v in result.checks if v.name.startswith("One real tiny sweep"))
    assert real.earned == real.points, real.feedback


def test_a_failure_rule_under_pooled_lengths_is_still_charged(grade):
    """Is a select_lr that pools lengths and also counts a diverged run's accuracy charged for both – the pooling by the
    check on mean validation accuracy, the diverged accuracy by the failure check, which judges it on each pair's rows
    alone – while the tie check, the summary (averaging as its select_lr does) and the real sweep lose nothing?"""
    pooled = mutate(REFERENCE, ex10.SELECT_LOOP, ex10.POOLED_LOOP)
    source = mutate(pooled, 'return row[metric] if row["status"] == "ok" else 0.0', 'return row[metric] if row["status"] != "failed" else 0.0')
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    lost = {v.name: v.feedback.en for v in result.checks if v.earned < v.points}
    assert len(lost) == 2, lost
    assert "one lr pooled over lengths" in next(said for name, said in lost.items() if name.startswith("select_lr picks"))
    assert "diverged run's accuracy was counted" in next(said for name, said in lost.items() if name.startswith("In select_lr's means"))


def test_pooled_lengths_are_told_apart_from_every_known_selection_mistake():
    """Does no known selection mistake, nor the right rule, read as one lr pooled over lengths on the hidden rows – and
    do the pooled rules read so – so that pooling is charged once, where it is, and never named in its stead?"""
    hidden = _module("ex10_hidden_checks", layout.checks(ROOT, "ex10"))
    reference = _module("ex10_reference", SOLUTION / "sweep.py")
    rows = hidden.expected_rows(reference) + hidden.control_rows(reference)
    rules = [{}] + [options for options, _ in hidden.SELECTION_MISTAKES.values()]
    assert not any(hidden.pools_lengths(hidden._variant(rows, **options), rows) for options in rules)
    assert all(hidden.pools_lengths(hidden._variant(rows, pooled=pooled), rows) for pooled in ("lengths", "all"))


def _module(name: str, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_selection_mistake_costs_one_judged_pair():
    """Do the hidden scripts keep their promises: three seeds, none at its index (a median is no mean, an index passed
    for the seed gives another seed's outcome), and each known selection mistake picking another lr at exactly one
    judged pair, its own, so that each is charged once and named only where it alone explains the choice?"""
    hidden = _module("ex10_hidden_checks", layout.checks(ROOT, "ex10"))
    reference = _module("ex10_reference", SOLUTION / "sweep.py")
    rows = hidden.expected_rows(reference) + hidden.control_rows(reference)
    assert len(hidden.SEEDS) % 2 == 1 and all(seed != i and seed in hidden.SEEDS for i, seed in enumerate(hidden.SEEDS))
    right, judged = hidden._variant(rows), [alone for _, alone in hidden.SELECTION_MISTAKES.values()]
    for name, (options, alone) in hidden.SELECTION_MISTAKES.items():
        picked = hidden._variant(rows, **options)
        assert [k for k in judged if picked[k] != right[k]] == [alone], name


# train_fn is a handle on a trainer that stays in the grader: a run_sweep that reads whatever train_fn holds and reports
# rows of plausible values without calling it holds no outcome the trainer returned.
NEVER_CALLED = """
def run_sweep(train_fn, models, lengths, lrs, seeds):
    held = repr([getattr(c, "cell_contents", None) for c in (train_fn.__closure__ or ())])
    return [dict(model=m, length=n, lr=lr, seed=s, status="ok", val_acc=0.5, test_acc=0.5, final_loss=0.5,
                 train_seconds=1.0, predict_seconds=0.1, peak_memory=4096, grad_norm=0.5, updates=200, held=held)
            for m in models for n in lengths for lr in lrs for s in seeds]
"""


def test_rows_train_fn_never_returned_earn_nothing_for_the_sweep(grade):
    """Does a run_sweep that never calls train_fn, reporting a plausible row for every run, lose every point of the
    full grid and the real sweep, with no internal error?"""
    source = REFERENCE.split("def run_sweep")[0] + NEVER_CALLED + "\n\ndef _counted" + REFERENCE.split("def _counted", 1)[1]
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    grid = next(v for v in result.checks if v.name.startswith("run_sweep: one row"))
    real = next(v for v in result.checks if v.name.startswith("One real tiny sweep"))
    assert grid.earned == 0 and real.earned == 0, (grid.feedback.en, real.feedback.en)
    assert not any(v.internal_error for v in result.checks)
