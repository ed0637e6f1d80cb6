"""The programmatic API under the CLI: keyword-only functions that `grade`, bench/ and the tests call.

Each raises a `grader.errors.GraderError` for a problem of the grader's own (never for a student's
mistake, which is a lost point in the result).
"""

from __future__ import annotations

from pathlib import Path

from grader.course import Course, Exercise, find_root, load_course
from grader.results import GradeResult


def course(*, root: Path | None = None) -> Course:
    """The course at `root`, or the one found from the current directory (see `grader.course.find_root`)."""
    return load_course(root or find_root(Path.cwd()))


def select(course: Course, exercise_ids: list[str] | tuple[str, ...] = ()) -> list[Exercise]:
    """The exercises named (each once, in the order given), or all of them; KeyError names an unknown id."""
    unknown = [i for i in exercise_ids if i not in course.ids]
    if unknown:
        raise KeyError(", ".join(unknown))
    return [course.exercise(i) for i in dict.fromkeys(exercise_ids)] if exercise_ids else list(course.exercises)


def grade(*, course: Course, exercises: list[Exercise], submission: Path, device: str | None = None,
          strict: bool = False) -> GradeResult:
    """Grade one submission (a folder laid out like exercises/, or a .zip of one) in a sandbox of its own."""
    from grader.grading.pipeline import grade_submission, open_sandbox, resolve_device
    from grader.submissions import opened

    device = resolve_device(device or course.device)
    with open_sandbox(course, exercises, device, strict=strict) as sandbox, opened(submission) as folder:
        return grade_submission(course=course, exercises=exercises, submission=folder, device=device, sandbox=sandbox,
                                label=str(submission))


def self_check(*, course: Course, device: str | None = None):
    """References full marks, stubs zero: ((references, stubs), problems)."""
    from grader.grading.pipeline import check_course, resolve_device

    return check_course(course=course, device=resolve_device(device or course.device))


def protections(*, course: Course) -> list[dict]:
    """Which protections a student process gets on this machine (`grade doctor`)."""
    from grader.sandbox.doctor import protections as probe

    return probe(course.root)


def batch(*, course: Course, exercises: list[Exercise], submissions: Path, out: Path, workers: int,
          device: str | None = None, strict: bool = False, scheduler: str | None = None, student: str | None = None,
          progress=None):
    """Grade a class (one folder or .zip per student in `submissions`) into `out`; see grader.batch.run."""
    from grader.batch.run import grade_batch
    from grader.grading.pipeline import resolve_device

    return grade_batch(course=course, exercises=exercises, submissions=submissions, out=out, workers=workers,
                       device=resolve_device(device or course.device), strict=strict, scheduler=scheduler,
                       only=student, progress=progress)
