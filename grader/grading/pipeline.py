"""The grading pipeline for one submission: course -> workspace -> student processes -> checks -> results.

    resolve_device   pick cpu/cuda before anything starts
    open_sandbox     start the zygote first: its torch import overlaps all that follows
    load_submission  copy the student files into a workspace before any check reads them
    check_session    one pytest session over the selected exercises' checks, collected once per process
    score            turn verdicts into per-exercise results

Several submissions can share one sandbox (`grade check` grades the references and the stubs).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import DeviceError
from grader.grading.session import CheckSession
from grader.results import ExerciseResult, GradeResult, Outcome, Verdict
from grader.sandbox.host import Limits, Sandbox
from grader.submissions.workspace import load_submission
from grader.text import Text, shown_path


def resolve_device(requested: str) -> str:
    """"cpu" as is; "cuda" only where CUDA works; "auto" is cuda when present, else cpu."""
    if requested == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if requested == "auto":
        return "cpu"
    raise DeviceError(
        f"--device cuda: CUDA is not available here (torch {torch.__version__}, "
        f"built for CUDA {torch.version.cuda or 'none'}); use --device cpu or auto"
    )


@contextlib.contextmanager
def open_sandbox(course: Course, exercises: list[Exercise], device: str, *, strict: bool = False):
    """A running zygote when any exercise runs student code, else None (quizzes never import torch).

    With `strict`, IsolationUnavailable is raised before any check runs unless every protection is active.
    """
    if not any(e.runs_code and e.available for e in exercises):
        yield None
        return
    sandbox = Sandbox.start(course_root=course.root, device=device, limits=Limits(course.time_limit, course.memory_limit), strict=strict)
    try:
        if strict:
            sandbox.protections  # waits for the zygote and raises IsolationUnavailable
        yield sandbox
    finally:
        _close_sessions(sandbox)
        sandbox.close()


def grade_submission(*, course: Course, exercises: list[Exercise], submission: Path, device: str, sandbox,
                     label: str | None = None) -> GradeResult:
    """Grade one submission on the selected exercises; `label` names it in the result (default: its path)."""
    label = label or str(submission)
    started = time.monotonic()
    available = [e for e in exercises if e.available]
    workspace = load_submission(submission, available)
    present = [e for e in available if e.id not in workspace.absent]
    try:
        verdicts, errors = check_session(course, available, sandbox, device).grade(workspace, present)
    finally:
        workspace.remove()
    results = [
        not_submitted(e, shown_path(label), hidden=course.has_hidden_checks) if e.id in workspace.absent
        else score(e, verdicts, hidden=course.has_hidden_checks)
        for e in exercises
    ]
    errors += [f"{v.exercise}: {v.name}: {v.feedback.en}" for v in verdicts if v.internal_error]
    if course.has_hidden_checks:
        errors += [
            f"{r.id}: its checks are worth {r.max_score:g} points but course.toml gives {e.points:g}"
            for e, r in zip(exercises, results)
            if e in present and abs(r.max_score - e.points) > 1e-9
        ]
    return GradeResult(label, device, course.language, results, errors,
                       sandbox.protections if sandbox else None, seconds=time.monotonic() - started)


def check_session(course: Course, exercises: list[Exercise], sandbox, device: str) -> CheckSession:
    """The check session for these exercises on this sandbox: pytest is configured and the checks collected once
    per grading process, then reused for every submission (it ends with its sandbox)."""
    key = (sandbox, id(course), tuple(e.id for e in exercises), device)  # the session holds `course`: its id stays its own
    if key not in _SESSIONS:
        _SESSIONS[key] = CheckSession(course=course, exercises=exercises, sandbox=sandbox, device=device,
                                      hidden=course.has_hidden_checks)
    return _SESSIONS[key]


_SESSIONS: dict[tuple, CheckSession] = {}


def _close_sessions(sandbox) -> None:
    for key in [k for k in _SESSIONS if k[0] is sandbox]:
        _SESSIONS.pop(key).close()


def score(exercise: Exercise, verdicts: list[Verdict], *, hidden: bool) -> ExerciseResult:
    """Sum one exercise's verdicts."""
    if not exercise.available:
        return ExerciseResult(exercise.id, exercise.title, 0.0, 0.0, [], note=Text("not yet available", "尚未开放"))
    mine = [v for v in verdicts if v.exercise == exercise.id]
    if hidden:
        return ExerciseResult(exercise.id, exercise.title, sum(v.earned for v in mine), sum(v.points for v in mine), mine)
    passed = sum(v.passed for v in mine)
    note = Text(f"{passed}/{len(mine)} public checks passed; {exercise.points:g} points are graded at hand-in",
                f"公开检查通过 {passed}/{len(mine)} 项；{exercise.points:g} 分在提交后评定")
    return ExerciseResult(exercise.id, exercise.title, 0.0, 0.0, mine, note, graded_points=exercise.points)


def not_submitted(exercise: Exercise, submission: str, *, hidden: bool) -> ExerciseResult:
    """An exercise whose folder the submission lacks: no checks run, all of its points lost."""
    return ExerciseResult(
        exercise.id, exercise.title, 0.0, exercise.points if hidden else 0.0, [], outcome=Outcome.NOT_SUBMITTED,
        note=Text(f"not submitted: {submission} has no folder {exercise.folder}/ and no notebook {exercise.id}.ipynb",
                  f"未提交：{submission} 中没有文件夹 {exercise.folder}/，也没有笔记本 {exercise.id}.ipynb"),
    )


def check_course(*, course: Course, device: str) -> tuple[list[GradeResult], list[str]]:
    """Self-validation: every reference earns full marks and every stub earns nothing.

    Returns the two grade results (references, stubs) and the problems found.
    """
    exercises = [e for e in course.exercises if e.available]
    with open_sandbox(course, exercises, device) as sandbox:
        graded = [
            grade_submission(course=course, exercises=exercises, submission=course.root / folder, device=device, sandbox=sandbox)
            for folder in ("solutions", "exercises")
        ]
    references, stubs = graded
    problems = [f"solutions: {e}" for e in references.internal_errors] + [f"exercises: {e}" for e in stubs.internal_errors]
    for ref, stub, exercise in zip(references.exercises, stubs.exercises, exercises):
        if not (ref.max_score > 0 and ref.score == ref.max_score):
            failed = "; ".join(f"{v.name}: {v.feedback.en}" for v in ref.checks if not v.passed)
            problems.append(f"{ref.id}: the reference scores {ref.score:g}/{ref.max_score:g}: {failed}")
        if stub.score != 0:
            passed = ", ".join(v.name for v in stub.checks if v.earned)
            problems.append(f"{stub.id}: the stub scores {stub.score:g} (points from: {passed})")
        expected = "NotImplementedError" if exercise.runs_code else "unanswered"
        if not any(expected in v.feedback.en for v in stub.checks):
            problems.append(f"{stub.id}: no feedback on the stub mentions {expected}")
    return graded, problems
