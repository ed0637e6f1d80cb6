"""ex10 beyond its known mistakes (tests/mutants/ex10.py): what a sheet mistake costs, string keys, hostile values,
the tuple-keyed selection, the reference, degenerate submissions."""

import pytest

from conftest import ROOT, assert_named, earned, mutate
from mutants import ex10, submission

SOLUTION = ROOT / "solutions" / "ex10_length_sweep"
REFERENCE = (SOLUTION / "sweep.py").read_text()
ANSWERS = (SOLUTION / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex10_length_sweep" / "answers.toml").read_text()


@pytest.mark.parametrize("mutant", ex10.SHEET_MUTANTS, ids=lambda m: m.name)
def test_sheet_mistake_costs_its_share(grade, mutant):
    """Does this misconception on the answer sheet cost exactly its share, 0.5 (its diagnosis: tests/test_mutants.py)?"""
    result = grade("ex10", submission(mutant))
    assert result.score == pytest.approx(result.max_score - 0.5), [v.feedback for v in result.checks if not v.passed]


def test_select_lr_with_string_keys_is_explained(grade):
    """Is a select_lr keyed by "model|length" strings told that the contract is (model, length) tuples?"""
    source = mutate(REFERENCE, "        chosen[key] = best\n", '        chosen[f"{key[0]}|{key[1]}"] = best\n')
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    assert any("(model, length) tuples" in v.feedback for v in result.checks if not v.passed)


# Odd but plausible values in what the submission returns: a Fail naming the value, never an internal error.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = {
    "lr as a list in the rows": ('row = {"model": model, "length": length, "lr": lr, "seed": seed}',
                                 'row = {"model": model, "length": length, "lr": [lr], "seed": seed}',
                                 "run_sweep: row 0['lr']: expected int or float or None, got list"),
    "select_lr values as lists": ("        chosen[key] = best\n", "        chosen[key] = [best]\n",
                                  "select_lr()[(\"gru\", 4)]: expected int or float, got list"),
    "summary runs as the list of rows": ('"runs": len(mine),', '"runs": mine,', "summarize: entry 0['runs']: expected"),
    "summary model as a list": ('"model": model, "length": length, "lr": lr,\n',
                                '"model": [model], "length": length, "lr": lr,\n',
                                "summarize: entry 0['model']: expected str or None, got list"),
    "split sizes as tensors": ("make_splits(sizes, length + TAIL, length, vocab, seed)",
                               "make_splits({k: __import__(\"torch\").tensor([n, n]) for k, n in sizes.items()}, length + TAIL, length, vocab, seed)",
                               "['sizes']['train']: expected int or float, got Tensor"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_value_fails_cleanly(grade, name):
    """Does this odd but plausible value lose points with a clear message, and no internal grader error?"""
    old, new, diagnosis = HOSTILE[name]
    result = grade("ex10", {"sweep.py": mutate(REFERENCE, old, new), "answers.toml": ANSWERS})
    assert_named(result, diagnosis)


def test_tuple_keyed_select_lr_earns_every_selection_point(grade):
    """Does select_lr written as the statement asks (a dict keyed by (model, length) tuples, no wrapper) earn full selection points?"""
    assert "def select_lr_table" not in REFERENCE and "return chosen\n" in REFERENCE
    result = grade("ex10", {"sweep.py": REFERENCE, "answers.toml": ANSWERS})
    selection = [v for v in result.checks if "select_lr" in v.name and v.points > 0]
    assert sum(v.points for v in selection) == 3, [v.name for v in result.checks]
    assert all(v.earned == v.points for v in selection), [v.feedback for v in selection]
    assert result.score == result.max_score


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex10", {"sweep.py": REFERENCE, "answers.toml": ANSWERS})
    assert result.max_score == 10
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


SWEEP = '''TAIL = 8

def length_data(make_splits, lengths, sizes, vocab, seed):
    return {data}

def run_sweep(train_fn, models, lengths, lrs, seeds):
    return {rows}

def select_lr(rows):
    return {chosen}

def summarize(rows):
    return {summary}
'''
GRID = "[dict(model=m, length=n, lr=lr, seed=s{extra}) for m in models for n in lengths for lr in lrs for s in seeds]"
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The grid of rows
# that never called train_fn, the all-"ok" statuses and the smallest lr (which wins the scripted tie) earn
# nothing either; nor does 0.01, which is the right lr of every scripted (model, length) but the tied one.
DEGENERATE = {
    "empty results": SWEEP.format(data="[]", rows="[]", chosen="{}", summary="[]"),
    "returns its input": SWEEP.format(data="lengths", rows=GRID.format(extra=""), chosen="rows", summary="rows"),
    "constant rows and the smallest lr": SWEEP.format(
        data="[make_splits(sizes, TAIL, 0, vocab, seed) for _ in lengths]",
        rows=GRID.format(extra=", status='ok', val_acc=0.0, test_acc=0.0"),
        chosen="{(r['model'], r['length']): min(q['lr'] for q in rows) for r in rows}", summary="[]"),
    "a constant lr": SWEEP.format(data="[]", rows="[]", chosen="{(r['model'], r['length']): 0.01 for r in rows}",
                                  summary="[]"),
    "invented rows that differ from call to call": "import itertools\n\nCALLS = itertools.count()\n" + SWEEP.format(
        data="[]", rows=GRID.format(extra=", status='ok', val_acc=0.5, test_acc=0.5, call=next(CALLS)"), chosen="{}",
        summary="[]"),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_submission_earns_nothing(grade, name):
    """Does a sweep.py that computes nothing (no rows, its input, constant or invented rows, constant lrs) earn nothing?"""
    assert earned(grade("ex10", {"sweep.py": DEGENERATE[name], "answers.toml": STUB_SHEET})) == {}


# select_lr and summarize that read every key the statement promises a row, and hold it to its status: the rows the
# grader hands them (the reference run_sweep's, and its control pairs) must be such rows, so this earns every point.
READS_EVERY_KEY = '''

def _promised(row):
    """Every key the statement promises, consistent with the row's status (a KeyError or AssertionError otherwise)."""
    values = [row[k] for k in ("model", "length", "lr", "seed", "status", *MEASURED)]
    if row["status"] == "failed":
        assert all(row[k] is None for k in MEASURED), row
    else:
        assert math.isfinite(row["final_loss"]) == (row["status"] == "ok"), row
    return values
'''


def test_rows_the_grader_makes_keep_the_statements_promise(grade):
    """Does a select_lr and summarize that read every promised key of each row (final_loss included) and hold it to
    the row's status earn every point, so no row the grader made lacks a key or contradicts its status?"""
    source = mutate(REFERENCE, "def select_lr(rows: list[dict]) -> dict:\n",
                    "def select_lr(rows: list[dict]) -> dict:\n    [_promised(row) for row in rows]\n")
    source = mutate(source, "    chosen = select_lr(rows)\n", "    [_promised(row) for row in rows]\n    chosen = select_lr(rows)\n")
    result = grade("ex10", {"sweep.py": source + READS_EVERY_KEY, "answers.toml": ANSWERS})
    assert result.score == result.max_score, [v.feedback for v in result.checks if not v.passed]


def test_a_mistake_is_named_only_where_it_alone_explains_the_choice(grade):
    """Is a select_lr that takes the best seed (which at ('lstm', 4) and ('gru', 16) picks what leaving the failed run
    out, or breaking ties upwards, would pick) named as the best seed and never as those?"""
    source = mutate(REFERENCE, "{lr: sum(v) / len(v) for lr, v in by_lr.items()}", "{lr: max(v) for lr, v in by_lr.items()}")
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    said = " ".join(v.feedback.en for v in result.checks if not v.passed)
    assert "the best seed instead of the mean" in said, said
    assert "left out of the mean" not in said and "tie went to the larger lr" not in said and "selected on test" not in said, said


def test_a_select_lr_mistake_is_not_charged_again_in_summarize(grade):
    """Does a summarize that reports what its own (mistaken: test-selecting) select_lr chose keep the summary point,
    the mistake costing the selection check only?"""
    result = grade("ex10", submission(next(m for m in ex10.CODE_MUTANTS if m.name == "selecting on test accuracy")))
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert len(lost) == 1 and next(iter(lost)).startswith("select_lr picks"), lost


def lost_points(result) -> dict[str, float]:
    return {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}


@pytest.mark.parametrize("name", ["failing run not caught", "report fields dropped", "one seed for every run",
                                  "dropping failed rows", "only NaN counts as diverged"])
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


RUN_SWEEP = REFERENCE[REFERENCE.index("def run_sweep("):REFERENCE.index("def _counted(")]
# run_sweep written another way: one loop over the product, every key train_fn returned kept, a NaN or infinite loss
# told apart by hand, the failed row built from the promised keys.
PRODUCT_SWEEP = '''def run_sweep(train_fn, models, lengths, lrs, seeds):
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


'''


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
