"""Every exercise's tables of built submissions (course/exNN/mutants.py, beside its bank of known mistakes), one runner
a table: the reference and other correct work earn every point, a submission that computes nothing earns nothing, an
odd value fails with a clear message, a mistake costs its share and is charged once, a broken sheet names its line.
What fits no table stays in tests/test_exNN_mutants.py."""

import importlib

import pytest

from conftest import assert_named, earned, mutate
from mutants import course, named, reference, stub, submission

pytestmark = pytest.mark.slow  # every table's submissions graded


def exercise_module(exercise_id: str):
    """course/exNN/mutants.py: the exercise's bank and tables."""
    return importlib.import_module(f"mutants.{exercise_id}")


TABLES = ("ACCEPTED", "DEGENERATE", "HOSTILE", "COSTS", "CHARGED_ONCE", "MALFORMED")


def table(name: str) -> list:
    """pytest params (exercise id, entry name, entry) of the table `name` of every exercise that has one (a dict by
    entry name, or a list of Mutant), with ids like 'ex05-degenerate-constant outputs'."""
    assert name in TABLES, name
    found = []
    for exercise in course().exercises:
        entries = getattr(exercise_module(exercise.id), name, {})
        pairs = entries.items() if isinstance(entries, dict) else ((m.name, m) for m in entries)
        found += [pytest.param(exercise.id, key, entry, id=f"{exercise.id}-{name.lower().replace('_', ' ')}-{key}") for key, entry in pairs]
    return found


def failed(result) -> list:
    return [v.feedback for v in result.checks if not v.passed]


THE_REFERENCE = [pytest.param(e.id, "the reference", {}, id=f"{e.id}-accepted-the reference") for e in course().exercises]


@pytest.mark.parametrize(("exercise", "name", "files"), THE_REFERENCE + table("ACCEPTED"))
def test_accepted_submission_earns_full_marks(grade, exercise, name, files):
    """Does the reference, or correct work its exercise's ACCEPTED table puts in the reference folder (other forms and
    notations, other ways to write the code, variants the statement allows), earn every point course.toml gives the
    exercise (its checks' points: a written answer is marked by the staff) – and a correct answer sheet pass every
    check, the public format checks included?"""
    result = grade(exercise, reference(exercise) | files)
    assert result.score == result.max_score == course().exercise(exercise).checked_points, failed(result)  # a written answer: the staff mark it
    if not course().exercise(exercise).runs_code:  # a code exercise's public checks may ask more (a float, not a tensor)
        assert all(v.passed for v in result.checks), "a public format check refuses a correct form"


@pytest.mark.parametrize(("exercise", "name", "files"), table("DEGENERATE"))
def test_degenerate_submission_earns_nothing(grade, exercise, name, files):
    """Does a submission that computes nothing (zeros, constants, its input, empty results), put in the stub folder
    (its answer sheet unanswered), earn nothing – no share of any check, its ValueError cases included?"""
    assert earned(grade(exercise, stub(exercise) | files)) == {}


@pytest.mark.parametrize(("exercise", "name", "mutant"), table("HOSTILE"))
def test_hostile_value_fails_cleanly(grade, exercise, name, mutant):
    """Does this odd but plausible behaviour or value lose points with a clear message naming it, and no internal
    grader error?"""
    assert_named(grade(exercise, submission(mutant)), mutant.diagnosis)


@pytest.mark.parametrize(("exercise", "name", "entry"), table("COSTS"))
def test_mistake_costs_its_share(grade, exercise, name, entry):
    """Does this mistake, put in the reference folder, cost exactly the points its COSTS entry says (one entry of a
    table, one item, one misconception on the sheet), not the whole check?"""
    files, cost = entry
    result = grade(exercise, reference(exercise) | files)
    assert result.score == pytest.approx(result.max_score - cost), failed(result)


@pytest.mark.parametrize(("exercise", "name", "check"), table("CHARGED_ONCE"))
def test_mistake_is_charged_once(grade, exercise, name, check):
    """Does this known mistake cost points in one check only, the one its CHARGED_ONCE entry names, and not again in
    the checks that build on what it got wrong?"""
    result = grade(exercise, submission(named(exercise, name)))
    lost = [v.name for v in result.checks if v.earned < v.points]
    assert len(lost) == 1 and lost[0].startswith(check), lost


@pytest.mark.parametrize(("exercise", "name", "change"), table("MALFORMED"))
def test_malformed_sheet_scores_zero_and_names_the_line(grade, exercise, name, change):
    """Does a TOML syntax error in the reference sheet give 0 with a message naming the line, not a crash?"""
    old, new = change
    sheet = reference(exercise)["answers.toml"]
    line = 1 + next(n for n, s in enumerate(sheet.splitlines()) if old in s)
    result = grade(exercise, reference(exercise) | {"answers.toml": mutate(sheet, old, new)})
    assert result.score == 0
    assert all(f"line {line}" in v.feedback for v in result.checks if v.points)


@pytest.mark.parametrize("exercise_id", [e.id for e in course().exercises])
def test_no_table_is_misspelled(exercise_id):
    """Is every name of course/exNN/mutants.py that looks like a table's (DEGENRATE, COST) one the runner reads – so
    that no table is silently left ungraded?"""
    import difflib

    names = [n for n in vars(exercise_module(exercise_id)) if n.isupper()]
    near = {n: difflib.get_close_matches(n, TABLES, n=1, cutoff=0.75) for n in names if n not in TABLES}
    assert not {n: m for n, m in near.items() if m}, near
