"""Every bank of known mistakes (tests/mutants/): each mutant loses points and a failed check names its diagnosis."""

import re

import pytest

from conftest import assert_named
from mutants import ALL, Mutant, course, submission


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: m.id)
def test_mutant_is_caught_and_named(grade, mutant: Mutant):
    """Does this known mistake, in its exercise's reference folder, lose points with its diagnosis in the feedback?"""
    result = grade(mutant.exercise, submission(mutant))
    assert_named(result, mutant.diagnosis)
    # Where the feedback names it as the mistake, the verdict carries it as a field (what summaries count).
    spoken = re.compile(r"(Likely mistake|not correct): [^\n]*" + re.escape(mutant.diagnosis))
    if any(spoken.search(v.feedback.en) for v in result.checks if not v.passed):
        assert any(mutant.diagnosis in d for v in result.checks for d in v.diagnosis), mutant.id


def test_every_exercise_has_a_bank_of_distinct_mistakes():
    """Does every exercise have known mistakes, each with its own name and a change that is one?"""
    assert {m.exercise for m in ALL} == {e.id for e in course().exercises}
    assert len({m.id for m in ALL}) == len(ALL), [m.id for m in ALL if [n.id for n in ALL].count(m.id) > 1]
    assert all(m.old != m.new for m in ALL), [m.id for m in ALL if m.old == m.new]
