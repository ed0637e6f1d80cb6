"""One student's grading, as a batch worker runs it: locally in a pool process, or in a warm grader on a Dask worker.

A pool process keeps torch loaded and one sandbox (zygote) for every student it grades; in a pool
of several, it first takes a CPU of its own (`grader.batch.cpus`). On a Dask worker the same runs in
`python -m grader.batch.worker` processes that the worker keeps warm across tasks (`grader.batch.cluster`):
Dask workers are multi-threaded, and namespaces must be set up from a fresh single-threaded process,
never inside a task's thread.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import SubmissionError
from grader.results import GradeResult, Status, StudentRow
from grader.text import Text

if TYPE_CHECKING:
    from grader.batch.cpus import CpuSlots
    from grader.course import Course, Exercise
    from grader.grading.pipeline import Grader

_STATE: dict[str, Grader] = {}  # the pool process's Grader, kept for every student it grades
# Why a Dask task grades only where student processes have no network.
NETWORK_NEEDED = (
    "grading on a Dask cluster needs student processes without the network (namespaces): one that has it "
    "could reach the scheduler and run code on every worker, outside any sandbox; grade where `grade doctor` "
    "shows 'no network' on, or without --scheduler"
)


def grade_one(grader: Grader, student: str, path: Path) -> StudentRow:
    """One student's row, graded by `grader` (a started `Grader`) on the student's own numbers (the entry's name is
    the id). Never raises for the student's input."""
    from grader.submissions import opened

    started = time.monotonic()
    try:
        with opened(path) as folder:
            result = grader.grade(folder, label=student, student=student)
    except SubmissionError as e:  # a refused archive or an unreadable entry: this student alone
        return unreadable_row(grader.course, grader.exercises, grader.device, student, str(e), seconds=time.monotonic() - started)
    status = Status.GRADED if not result.internal_errors else Status.INTERNAL_ERROR
    return StudentRow(student, status, result, time.monotonic() - started)


def unreadable_row(course: Course, exercises: Sequence[Exercise], device: str, student: str, why: str, *, seconds: float = 0.0) -> StudentRow:
    """The row of a student whose entry could not be read: 0 points in every exercise, saying why.

    Journaled with its key like a grade, so an unchanged rerun does not read it again.
    """
    note = Text(f"could not be read: {why}", f"无法读取：{why}")
    result = GradeResult.of_unreadable(student, exercises, note, language=course.language, device=device)
    return StudentRow(student, Status.UNREADABLE, result, seconds)


# -- a local pool process -----------------------------------------------------------------------


def start_pool_process(course_root: str, exercise_ids: list[str], device: str, strict: bool, slots: CpuSlots | None = None) -> None:
    """Pool initializer: load the course and start this process's sandbox, kept for every student it grades.

    With `slots` (a `CpuSlots`, in a pool of several processes) this process takes its CPU first, so
    that its zygote and every student process inherit it.
    """
    from multiprocessing.util import Finalize

    from grader.course import load_course
    from grader.grading.pipeline import Grader

    if slots is not None:
        slots.take()
    course = load_course(Path(course_root))
    grader = Grader(course, [course.exercise(i) for i in exercise_ids], device, strict=strict).start()
    Finalize(None, grader.close, exitpriority=10)  # the zygote ends with this process
    _STATE["grader"] = grader


def pool_task(student: str, path: str) -> StudentRow:
    """One student in this pool process; a failure of the grader itself is that student's row, not the batch's end."""
    from grader.errors import GraderError

    grader = _STATE["grader"]
    try:
        return grade_one(grader, student, Path(path))
    except GraderError as e:
        why = str(e)
    except Exception as e:  # noqa: BLE001 – a bug of the grader that this student's work set off: theirs alone
        why = f"{type(e).__name__}: {e}"
    return failed_row(grader.course, grader.exercises, grader.device, student, Text(why))


def failed_row(course: Course, exercises: Sequence[Exercise], device: str, student: str, message: Text) -> StudentRow:
    """The row of a student the grader itself could not grade: no points, why (in the course's language: `message`'s
    own words in both, what an exception says as it is), and graded again next run."""
    return StudentRow(student, Status.INTERNAL_ERROR, GradeResult.of_failure(student, exercises, message, language=course.language, device=device))


def course_of(course_root: str, exercise_ids: list[str]) -> tuple[Course, list[Exercise]]:
    """The course at `course_root` and those of its exercises a batch grades."""
    from grader.course import load_course

    course = load_course(Path(course_root))
    return course, [course.exercise(i) for i in exercise_ids]


# -- a warm grader on a Dask worker -------------------------------------------------------------


def _main() -> None:
    """A Dask worker's warm grader (grader.batch.cluster): its first line of input names the course, exercises, device
    and strictness; each later line is one student, answered by one line, that student's row. Its worker's sandbox must
    keep student code off the network, or no student is graded here. What else gets written to stdout goes to stderr."""
    import os

    from grader.errors import GraderError, IsolationUnavailable
    from grader.inside.isolation import NO_NETWORK
    from grader.sandbox.host import active

    if sys.argv[1:2] == ["--cpu"]:  # the CPU its Dask worker claimed for it: its zygote and student processes inherit it
        os.sched_setaffinity(0, {int(sys.argv[2])})
    rows = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    setup = json.loads(sys.stdin.readline())
    refused = None
    try:
        start_pool_process(setup["course_root"], setup["exercise_ids"], setup["device"], setup["strict"])
        found = _STATE["grader"].protections
        if found is not None and not active(found, NO_NETWORK):
            raise IsolationUnavailable(f"this Dask worker may not grade: {NETWORK_NEEDED}")
    except GraderError as e:
        refused = str(e)
    for line in sys.stdin:
        job = json.loads(line)
        if refused is None:
            row = pool_task(job["student"], job["path"])
        else:
            row = failed_row(*course_of(setup["course_root"], setup["exercise_ids"]), setup["device"], job["student"], Text(refused))
        rows.write(row.to_json() + "\n")
        rows.flush()


if __name__ == "__main__":
    _main()
