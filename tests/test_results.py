"""The result model: verdicts that carry their outcome and diagnosis, and a lossless JSON round trip."""

import json

import pytest

from conftest import ROOT, mutate
from grader.results import VERSION, GradeResult, Outcome


@pytest.fixture(scope="module")
def graded(course, grader, tmp_path_factory) -> GradeResult:
    """ex03 answered with the swapped GRU convention, ex05 crashing in lstm_step, ex01 not submitted."""
    folder = tmp_path_factory.mktemp("results") / "submission"
    sheet = (ROOT / "solutions" / "ex03_gru_arithmetic" / "answers.toml").read_text()
    (folder / "ex03_gru_arithmetic").mkdir(parents=True)
    (folder / "ex03_gru_arithmetic" / "answers.toml").write_text(mutate(sheet, "h_t = 2.15", "h_t = 0.75"))
    gated = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
    (folder / "ex05_gated_steps").mkdir()
    (folder / "ex05_gated_steps" / "gated.py").write_text(gated + "\n\ndef lstm_step(**kw):\n    import os\n    os._exit(3)\n")
    exercises = [course.exercise(i) for i in ("ex01", "ex03", "ex05")]
    return grader.grade(folder, exercises=exercises)


def test_outcomes_are_set_where_they_are_known(graded):
    """Do verdicts say failed (with the named mistake), crashed or not run as the grader saw it, and an absent
    exercise 'not submitted'?"""
    by_id = {e.id: e for e in graded.exercises}
    assert by_id["ex01"].outcome is Outcome.NOT_SUBMITTED and by_id["ex03"].outcome is None
    [swapped] = [v for v in by_id["ex03"].checks if not v.passed]
    assert swapped.outcome is Outcome.FAILED and [d.en for d in swapped.diagnosis] == [
        next(d.en for d in swapped.diagnosis if "swapped GRU convention" in d.en)
    ]
    lstm = [v for v in by_id["ex05"].checks if "lstm_step" in v.name and not v.passed]
    assert lstm and {v.outcome for v in lstm} <= {Outcome.CRASHED, Outcome.FAILED, Outcome.NOT_RUN}
    assert Outcome.CRASHED in {v.outcome for v in lstm}


def test_a_round_trip_through_json_is_lossless(graded):
    """Does from_json(to_json()) give back an equal result, whatever the checks decided?"""
    text = graded.to_json()
    assert json.loads(text)["version"] == VERSION
    assert GradeResult.from_json(text) == graded


def test_another_layout_is_refused(graded):
    """Is a result of another layout version refused rather than misread?"""
    doc = json.loads(graded.to_json())
    doc["version"] = VERSION + 1
    with pytest.raises(ValueError, match="version"):
        GradeResult.from_json(json.dumps(doc))
