"""The programmatic API under the CLI: the functions that `grade`, bench/ and the tests call – keyword-only, but for
three small helpers that take the course or a folder first (`select`, `exercises_here`, `teaching`).

Each raises a `grader.errors.GraderError` for a problem of the grader's own (never for a student's
mistake, which is a lost point in the result).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.course import Course, Exercise, find_root, load_course
from grader.errors import GraderError
from grader.inside import layout
from grader.results import GradeResult, StudentRow
from grader.text import Text

if TYPE_CHECKING:  # the modules that compute these are imported by the functions that need them
    from http.server import ThreadingHTTPServer

    import click

    from grader.batch.run import BatchResult
    from grader.export.items import Analysis
    from grader.inside.isolation import Protection
    from grader.rubric import Rubric
    from grader.similarity import Similarity
    from grader.store.audit import Entry
    from grader.term.marks import Standing
    from grader.variants import Variant
    from grader.warm.server import Warm


def course(*, root: Path | None = None) -> Course:
    """The course at `root`, or the one found from the current directory (see `grader.course.find_root`)."""
    return load_course(root or find_root(Path.cwd()))


def select(course: Course, exercise_ids: list[str] | tuple[str, ...] = ()) -> list[Exercise]:
    """The exercises named (each once, in the order given), or all of them; KeyError names an unknown id."""
    unknown = [i for i in exercise_ids if i not in course.ids]
    if unknown:
        raise KeyError(", ".join(unknown))
    return [course.exercise(i) for i in dict.fromkeys(exercise_ids)] if exercise_ids else list(course.exercises)


def exercises_here(course: Course, cwd: Path) -> tuple[str, ...]:
    """The exercise whose folder `cwd` is (`grade run` inside ex05_gated_steps/ grades ex05), else none: all of them."""
    return tuple(e.id for e in course.exercises if cwd.name == e.folder)


def teaching(cwd: Path) -> bool:
    """Whether the course found from `cwd` holds its hidden checks (a TA's course), not only what a student bundle has."""
    try:
        return layout.has_hidden_checks(find_root(cwd))
    except GraderError:
        return False


def grade(
    *,
    course: Course,
    exercises: list[Exercise],
    submission: Path,
    device: str | None = None,
    strict: bool = False,
    label: str | None = None,
    student: str | None = None,
    warm: Warm | None = None,
) -> GradeResult:
    """Grade one submission (a folder laid out like exercises/, or a .zip of one) in a sandbox of its own, or, given
    `warm` (a course folder's warm process, grader.warm.server), on its sandbox and check sessions, which stay.

    `label` names it in the result and its notes (default: the path given); `student`'s numbers are the numeric
    questions' (course.toml [variants]; without it, or with variants off, the statement's).
    """
    from contextlib import AbstractContextManager

    from grader.grading.pipeline import Grader, resolve_device
    from grader.submissions import opened

    device = resolve_device(device or course.device)
    graders: AbstractContextManager[Grader] = warm.lend(course, exercises, device, strict) if warm else Grader(course, exercises, device, strict=strict)
    with graders as grader, opened(submission) as folder:
        return grader.grade(folder, label=label or str(submission), student=student or None)


def watch(*, course: Course, exercises: list[Exercise], submission: Path, argv: list[str], command: click.Command, report: Callable[[Text], None]) -> None:
    """`grade ARGV` (a `grade run` of `exercises` on `submission`, run by `command`: grader.cli.main) now and on every
    save of their files, until Ctrl-C or a change of the course's own files; `report` says what was saved and what is
    watched (see grader.warm.watch)."""
    from grader.warm.watch import watch as keep_watching

    keep_watching(course=course, exercises=exercises, submission=submission, argv=argv, command=command, report=report)


def self_check(*, course: Course, device: str | None = None) -> tuple[list[GradeResult], list[str]]:
    """References full marks, stubs zero: ((references, stubs), problems)."""
    from grader.grading.pipeline import check_course, resolve_device

    return check_course(course=course, device=resolve_device(device or course.device))


def protections(*, course: Course) -> list[Protection]:
    """Which protections a student process gets on this machine (`grade doctor`)."""
    from grader.sandbox.doctor import protections as probe

    return probe(course.root)


def batch(
    *,
    course: Course,
    exercises: list[Exercise],
    submissions: Path,
    out: Path,
    workers: int | None = None,
    device: str | None = None,
    strict: bool = True,
    scheduler: str | None = None,
    student: str | None = None,
    progress: Callable[[StudentRow, int, int], None] | None = None,
    nbgrader_db: Path | None = None,
    submitted_at: Path | None = None,
    extensions: Path | None = None,
) -> BatchResult:
    """Grade a class (one folder or .zip per student in `submissions`) into `out`, `workers` students at once (default:
    one a CPU), and into the nbgrader gradebook `nbgrader_db` if given; `submitted_at` and `extensions` are the term's
    CSV files (grader.term.times). See grader.batch.run and grader.integrations.nbgrader.gradebook."""
    from grader.batch.run import default_workers, grade_batch
    from grader.grading.pipeline import resolve_device

    result = grade_batch(
        course=course,
        exercises=exercises,
        submissions=submissions,
        out=out,
        workers=workers or default_workers(),
        device=resolve_device(device or course.device),
        strict=strict,
        scheduler=scheduler,
        only=student,
        progress=progress,
        submitted_at=submitted_at,
        extensions=extensions,
    )
    if nbgrader_db is not None:
        import time

        from grader.export.files import private_files
        from grader.integrations.nbgrader import gradebook

        started = time.monotonic()
        with private_files():  # the gradebook holds the class's grades, as OUT does
            gradebook.write(db=nbgrader_db, course=course, exercises=exercises, rows=result.rows)
        result.seconds += time.monotonic() - started
    return result


def reseed(
    *, course: Course, out: Path, student: str, reason: str, submissions: Path | None = None, workers: int = 1, device: str | None = None, strict: bool = True
) -> tuple[int, BatchResult | None]:
    """Give `student` a new variant number: course.toml's [variants.reseed] gets it (so that the student's `grade show`
    prints the new numbers once the TA hands out the course file), the audit trail of the journal in `out`
    (grader.store.audit) records it with `reason`, and, given `submissions`, that student alone is regraded.
    Returns (the new number, the batch result or None)."""
    from grader.errors import CourseError
    from grader.export.files import write_atomic
    from grader.store import audit
    from grader.store.journal import Journal
    from grader.variants import with_reseed

    if not course.variants.enabled:
        raise CourseError(
            "grade reseed: course.toml [variants] enabled = false: every student answers the statement's numbers, so there is no variant to change"
        )
    if not reason.strip():
        raise CourseError("grade reseed: --reason must say why (it is recorded in the journal)")
    if not student.strip() or any("\ud800" <= c <= "\udfff" for c in student):
        raise CourseError(f"grade reseed: {ascii(student)} is no student id (empty, or a byte that is not UTF-8); give the id as grades.csv shows it")
    was = course.variants.number(student)
    number = was + 1
    path = (course.root / "course.toml").resolve()  # a link's target is rewritten, the link kept
    text = with_reseed(path.read_text(encoding="utf-8"), student, number)
    # The audit row first, then course.toml at once (a rename): a reseed cut short anywhere leaves the course file as it
    # was or as recorded, never a new number the audit trail lacks.
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    journal = Journal(out)
    try:  # the audit trail's row: old and new are the variant numbers, the exercises those with numbers of their own
        with journal.transaction():
            audit.record(
                journal,
                cause="reseed",
                student=student,
                old=was,
                new=number,
                reason=reason.strip(),
                exercise=",".join(e.id for e in course.exercises if e.variant is not None),
            )
    finally:
        journal.close()
    write_atomic(path, text, mode=path.stat().st_mode & 0o777)
    reseeded = load_course(course.root)
    result = None
    if submissions is not None:
        result = batch(
            course=reseeded,
            exercises=list(reseeded.exercises),
            submissions=submissions,
            out=out,
            workers=workers,
            device=device,
            strict=strict,
            student=student,
        )
    return number, result


STATES = {
    "not submitted": Text("not submitted", "未提交"),
    "not started": Text("not started", "未开始"),
    "in progress": Text("in progress", "进行中"),
    "public checks pass": Text("public checks pass", "公开检查全部通过"),
}


def status(*, course: Course, submission: Path) -> list[tuple[Exercise, str]]:
    """Each exercise as "not submitted", "not started" (its files are the stub's as released), "in progress" or "public
    checks pass" (keys of STATES)."""
    import dataclasses

    from grader.grading.pipeline import Grader
    from grader.handout.release import digest, stub_digests
    from grader.submissions import notebook

    public = dataclasses.replace(course, public_only=True)
    notebooks = {e.id for e in public.exercises if notebook.find(submission, e)}  # the exercise's work, where there is one
    present = [e for e in public.exercises if (submission / e.folder).is_dir() or e.id in notebooks]
    stubs = stub_digests(course)
    started = [e for e in present if e.id in notebooks or any(digest(submission / e.folder / n) != stubs.get(f"{e.folder}/{n}") for n in e.student_files)]
    with Grader(public, started, "cpu") as grader:
        result = grader.grade(submission)
    passing = {r.id for r in result.exercises if r.checks and all(v.passed for v in r.checks)}
    return [
        (e, "not submitted" if e not in present else "not started" if e not in started else "public checks pass" if e.id in passing else "in progress")
        for e in course.exercises
    ]


def pack(*, course: Course, submission: Path, out: Path, student: str | None = None) -> list[str]:
    """The hand-in zip of `submission`, recording `student` if given (see grader.handout.pack)."""
    from grader.handout.pack import pack as write

    return write(course=course, submission=submission, out=out, student=student)


def show(*, course: Course, exercise: Exercise, student: str | None = None) -> Variant | None:
    """`student`'s numbers for `exercise` (a grader.variants.Variant), or None when it has none of its own."""
    from grader.variants import variant_of

    return None if exercise.variant is None else variant_of(course.variants, exercise.variant, student or None)


def release(*, course: Course, out: Path) -> list[Path]:
    """The student bundle in `out` (see grader.handout.release)."""
    from grader.handout.release import build_release

    return build_release(course=course, out=out)


def autograder(*, course: Course, out: Path, extensions: Path | None = None) -> list[str]:
    """Gradescope's autograder zip `out`, with the students' `extensions` (see grader.integrations.gradescope);
    return its entries."""
    from grader.integrations.gradescope.bundle import export

    return export(course=course, out=out, extensions=extensions)


def nbgrader_export(*, course: Course, course_dir: Path) -> list[Path]:
    """The nbgrader course in `course_dir` (see grader.integrations.nbgrader); return the files written."""
    from grader.integrations.nbgrader.course import export

    return export(course=course, course_dir=course_dir)


def stats(*, out: Path, exercise: str | None = None, course: Course | None = None) -> Analysis:
    """The item analysis (grader.export.items.Analysis) of the class graded into `out`, or of one of its exercises;
    OutputError when `out` is no batch output or did not grade `exercise`. With `course`, its written answers are
    counted as the journal's marks have them (to mark, marked, no answer)."""
    from grader.batch.output import read_class
    from grader.errors import OutputError
    from grader.export import items

    rows, exercise_ids = read_class(out)
    if course is not None:
        from grader.term.marks import with_marks

        rows = with_marks(course, out, rows)
    if exercise is not None and exercise not in exercise_ids:
        raise OutputError(f"--exercise {exercise}: {out} graded {', '.join(exercise_ids) or 'no exercise'}")
    analysis = items.analyse(rows, exercise_ids)
    return analysis if exercise is None else analysis.only(exercise)


def similarity(
    *, course: Course, exercises: list[Exercise], submissions: Path, out: Path, past: list[Path] | tuple[Path, ...] = (), threshold: float = 0.5
) -> Similarity:
    """Compare the class in `submissions` (and against each `past` class) on `exercises`, write similarity.csv,
    shared_answers.csv and similarity.html into `out`, and return the comparison (grader.similarity.Similarity)."""
    from grader import similarity as alike

    for folder in (submissions, *past):
        if not folder.is_dir():
            from grader.errors import SubmissionError

            raise SubmissionError(f"{folder}: not a folder of submissions (one folder or .zip per student)")
    result = alike.compare(course=course, exercises=exercises, submissions=submissions, past=past, threshold=threshold)
    alike.write(result, out, language=course.language)
    return result


# -- a term's gradebook (grader.term) --------------------------------------------------------------------------------


def override(*, out: Path, student: str, exercise: str, points: float | None, reason: str, by: str | None = None) -> tuple[float | None, float | None]:
    """Set (or, with `points` None, clear) one exercise's final points in the batch `out`; (old, new) as audited."""
    from grader.term.overrides import set_points

    return set_points(out=out, student=student, exercise=exercise, points=points, reason=reason, by=by)


def audit(*, out: Path, student: str | None = None) -> list[Entry]:
    """The audit trail of the batch `out` (grader.store.audit.Entry rows), oldest first; `student` as the journal or
    grades.csv shows it (`'-bob` is -bob), as `grade override` takes it."""
    from grader.store.audit import history
    from grader.term.overrides import open_journal, the_student

    journal = open_journal(out)
    try:
        return history(journal, student=None if student is None else the_student(journal, student, out))
    finally:
        journal.close()


def export_lms(*, lms: str, course: Course, out: Path, target: Path, **options: Any) -> int:
    """The import file `target` of the LMS `lms` (a name of grader.export.LMS_FILES) from the batch's final points,
    given that LMS's options (each the keyword its export.lms.Option names); return how many students it holds."""
    from grader.export.lms import export

    return export(lms=lms, course=course, out=out, target=target, **options)


def mark(
    *, course: Course, out: Path, student: str, exercise: str, items: list[str], comments: list[str], by: str | None = None, clear: bool = False
) -> tuple[float | None, float | None, bool]:
    """Mark one student's written answer with rubric `items` and `comments` (or `clear` the mark), audited in `out`'s
    journal; (old points, new points, whether anything changed). See grader.term.marks."""
    from grader.term.marks import set_mark

    return set_mark(course=course, out=out, student=student, exercise=exercise, items=items, comments=comments, by=by, clear=clear)


def rubric(*, course: Course, out: Path, exercise: str) -> tuple[Rubric, list[Standing]]:
    """`exercise`'s rubric and each student of `out` with their written answer, mark and points, as the rubric is now
    and as `out`'s files last showed them (see grader.term.marks)."""
    from grader.term.marks import standings

    return standings(course, out, exercise)


def to_mark(*, out: Path) -> list[str]:
    """'student exercise' of each written answer the batch `out` last published as still to mark (0 points there)."""
    from grader.export.lms import to_mark as waiting

    return waiting(out)


def rubric_ready(*, out: Path) -> None:
    """OverrideError (a usage error) unless `out` holds a batch's journal, where marks go."""
    from grader.term.overrides import open_journal

    open_journal(out).close()


def serve_marking(*, course: Course, out: Path, port: int = 0, by: str | None = None, ready: Callable[[str], None] | None = None) -> ThreadingHTTPServer:
    """The local marking page's server on 127.0.0.1 (grader.term.page), not yet serving: call `serve_forever()`."""
    from grader.term.page import serve

    return serve(course=course, out=out, port=port, by=by, ready=ready)
