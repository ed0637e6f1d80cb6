"""The grading pipeline: language, student bundles, and the grader's own errors kept apart from grades."""

import dataclasses
import shutil

import pytest

from conftest import ROOT, course_toml, graded
from grader.course import load_course
from grader.inside import layout


def grade(course, exercise_id, submission, sandbox):
    return graded(sandbox, course, [course.exercise(exercise_id)], submission)


def test_chinese_feedback_when_the_course_says_zh(course, sandbox):
    """With language = "zh", is the feedback (diagnoses included) in Chinese?"""
    zh = dataclasses.replace(course, language="zh")
    result = grade(zh, "ex05", ROOT / "examples" / "alice", sandbox)
    feedback = " ".join(v.feedback.zh for v in result.exercises[0].checks)
    assert "重置门放在了矩阵乘法之后" in feedback


@pytest.fixture
def bundle(tmp_path):
    """A student bundle: exercises/, the course tree's public files and course.toml, without hidden checks or solutions/."""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    for path in layout.public_files(ROOT):
        (tmp_path / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, tmp_path / path.relative_to(ROOT))
    (tmp_path / "course.toml").write_text(course_toml())
    return load_course(tmp_path)


def test_student_bundle_runs_public_checks_only(bundle, sandbox):
    """In a bundle without hidden checks, are only the public checks run, with a note saying so?"""
    result = grade(bundle, "ex05", ROOT / "solutions", sandbox)
    exercise = result.exercises[0]
    assert exercise.checks and all(v.visible for v in exercise.checks)
    assert all(v.passed for v in exercise.checks)
    assert "14 points are graded at hand-in" in exercise.note
    assert result.internal_errors == []


def test_points_that_disagree_with_course_toml_are_an_internal_error(course, sandbox):
    """If an exercise's checks do not add up to its course.toml points, is that reported as the grader's error?"""
    wrong = dataclasses.replace(course, exercises=tuple(dataclasses.replace(e, points=99) if e.id == "ex01" else e for e in course.exercises))
    result = grade(wrong, "ex01", ROOT / "solutions", sandbox)
    assert any("course.toml gives 99" in e for e in result.internal_errors)


def test_a_broken_hidden_check_is_the_graders_error_not_the_students(tmp_path, sandbox):
    """Does a hidden check that crashes become an internal error, while the other checks still score?"""
    shutil.copytree(ROOT / "exercises" / "ex01_cell_state", tmp_path / "exercises" / "ex01_cell_state")
    shutil.copytree(ROOT / "solutions" / "ex01_cell_state", tmp_path / "solutions" / "ex01_cell_state")
    (tmp_path / "course" / "ex99").mkdir(parents=True)
    hidden = (ROOT / "course" / "ex01" / "checks.py").read_text()
    hidden += '\n\n@check(points=0)\ndef test_broken(answers):\n    """a check with a bug"""\n    {}["missing"]\n'
    # Named ex99 so that pytest, which caches check modules by their path under the course root,
    # does not reuse the real ex01 module imported by other tests in this process.
    (tmp_path / "course" / "ex99" / "checks.py").write_text(hidden)
    text = course_toml()
    first = text.split("[[exercises]]")[1].replace('id = "ex01"', 'id = "ex99"')
    (tmp_path / "course.toml").write_text(text.split("[[exercises]]")[0] + "[[exercises]]" + first)
    course = load_course(tmp_path)
    result = grade(course, "ex99", ROOT / "solutions", sandbox)
    assert any("internal grader error" in e and "KeyError" in e for e in result.internal_errors)
    assert result.exercises[0].score == 6


def test_an_exercise_folder_not_submitted_loses_its_points_without_running_checks(course, sandbox, tmp_path):
    """Is an exercise missing from the submission scored 0 of its points with a note, and no check run?"""
    (tmp_path / "ex01_cell_state").mkdir()
    result = grade(course, "ex05", tmp_path, sandbox)
    exercise = result.exercises[0]
    assert (exercise.score, exercise.max_score, exercise.checks) == (0, 14, [])
    assert "not submitted" in exercise.note and "ex05_gated_steps/" in exercise.note


def test_once_runs_a_shared_call_once_per_submission_and_keeps_its_failure():
    """Does `once` compute a key once per exercise process, hand out copies, and re-raise a cached Fail?"""
    from types import SimpleNamespace

    from grader.checks import once
    from grader.failures import Fail

    module = SimpleNamespace(_process=SimpleNamespace(memo={}))
    calls = []

    def rows():
        calls.append(1)
        return [{"cell": "gru"}]

    first = once(module, "comparison", rows)
    first[0]["cell"] = "changed by a check"
    assert once(module, "comparison", rows) == [{"cell": "gru"}] and len(calls) == 1

    def wrong():
        calls.append(1)
        raise Fail("wrong rows", "行错误")

    for _ in range(2):
        with pytest.raises(Fail, match="wrong rows"):
            once(module, "broken", wrong)
    assert len(calls) == 2
    fresh = SimpleNamespace(_process=SimpleNamespace(memo={}))  # the next submission
    once(fresh, "comparison", rows)
    assert len(calls) == 3
