"""Shared fixtures: the course, one sandbox for the whole test session, and `grade` for ad-hoc submissions."""

import re
from pathlib import Path

import pytest

from grader.course import load_course
from grader.grading.pipeline import Grader
from grader.results import ExerciseResult
from mutants import mutate  # noqa: F401  (the test modules import it from here)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def course():
    return load_course(ROOT)


@pytest.fixture(scope="session")
def grader(course):
    """One Grader for the whole test session: its sandbox, and a check session per selection of exercises."""
    with Grader(course, list(course.exercises), "cpu") as grader:
        yield grader


@pytest.fixture(scope="session")
def sandbox(grader):
    return grader.sandbox


def graded(sandbox, course, exercises, submission: Path, *, label: str | None = None):
    """`submission` graded on `exercises` of `course` (a variant of the course, say), on a running sandbox."""
    with Grader(course, exercises, "cpu", sandbox=sandbox) as grader:
        return grader.grade(submission, label=label)


@pytest.fixture
def grade(course, grader, tmp_path):
    """grade("ex05", {"gated.py": source}) -> the ExerciseResult of a submission holding just those files."""

    def grade(exercise_id: str, files: dict[str, str]) -> ExerciseResult:
        exercise = course.exercise(exercise_id)
        folder = tmp_path / "submission" / exercise.folder
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        result = grader.grade(folder.parent, exercises=[exercise])
        assert result.internal_errors == []
        return result.exercises[0]

    return grade


def with_answers(sheet: str, **answers: str) -> str:
    """`sheet` with the answers to these keys replaced by TOML texts; fails loudly if a key has no single line."""
    for key, value in answers.items():
        line = re.compile(rf"^{re.escape(key)} = .*$", re.MULTILINE)
        assert len(line.findall(sheet)) == 1, f"the sheet has no single line for {key}"
        sheet = line.sub(lambda _, text=f"{key} = {value}": text, sheet)
    return sheet


def earned(result: ExerciseResult) -> dict[str, float]:
    """{check name: points earned} for every check that earned something: a degenerate submission must get {}."""
    return {v.name: v.earned for v in result.checks if v.earned}


def assert_named(result: ExerciseResult, diagnosis: str) -> None:
    """The submission lost points, and a failed check's feedback names `diagnosis`."""
    assert result.score < result.max_score
    failed = [v.feedback for v in result.checks if not v.passed]
    assert any(diagnosis in feedback for feedback in failed), failed
