"""A batch's warm grader: `python -m grader.batch.worker`, which grades one student after another for a whole batch.

It takes its CPU first (`grader.batch.cpus.pin`), imports torch, forks its zygote from itself before it reads anything
of the course (`Sandbox.forked`: no second import of torch), then loads the course and keeps its checks collected for
every student it is sent. The batch process keeps such processes busy locally (`grader.batch.graders`); on Dask the
worker plugin lends them to tasks (`grader.batch.cluster`): Dask workers are multi-threaded, and namespaces must be set
up from a fresh single-threaded process, never inside a task's thread.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import IsolationUnavailable, SubmissionError
from grader.results import GradeResult, Status, StudentRow
from grader.text import Text

if TYPE_CHECKING:
    from grader.course import Course, Exercise
    from grader.grading.pipeline import Grader

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


# -- a warm grader ------------------------------------------------------------------------------


def grade_or_fail(grader: Grader, student: str, path: str) -> StudentRow:
    """One student on this warm grader; a failure of the grader itself is that student's row, not the batch's end."""
    from grader.errors import GraderError

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


def _start(setup: dict[str, Any]) -> Grader:
    """This warm grader's `Grader`: its zygote forked first, from this process as it is now – a clean environment,
    torch imported, nothing of the course read (`Sandbox.forked`) – then the course loaded.

    IsolationUnavailable (a GraderError) where this machine's sandbox may not grade; on Dask (`dask`), also where
    student processes would have the network."""
    import torch

    from grader.grading.pipeline import Grader
    from grader.inside.isolation import NO_NETWORK
    from grader.sandbox.host import Limits, Sandbox, active

    sandbox = Sandbox.forked(course_root=Path(setup["course_root"]), device=setup["device"], limits=Limits(*setup["limits"]), strict=setup["strict"])
    torch.set_num_threads(1)  # one CPU: more intra-op threads would only spin on it
    try:
        course, exercises = course_of(setup["course_root"], setup["exercise_ids"])
        grader = Grader(course, exercises, setup["device"], strict=setup["strict"], sandbox=sandbox).start()
        found = sandbox.ready()
        if setup["dask"] and not active(found, NO_NETWORK):
            raise IsolationUnavailable(f"this Dask worker may not grade: {NETWORK_NEEDED}")
    except BaseException:
        sandbox.close()
        raise
    return grader


def _afresh(grader: Grader) -> Grader:
    """A grader whose zygote died (the kernel's OOM killer, say: it runs no student code) replaced by one with a zygote
    started afresh – this process has read the course, so it may not fork one from itself again."""
    from grader.grading.pipeline import Grader

    assert grader.sandbox is not None
    grader.close()
    grader.sandbox.close()
    return Grader(grader.course, grader.exercises, grader.device, strict=grader.strict).start()


def _main() -> None:
    """A warm grader: `python -m grader.batch.worker SETUP [--cpu N] [--cpuset PATH] [--siblings JSON]` (grader.batch.graders
    starts it, with a clean environment). SETUP is JSON naming the course, exercises, device, strictness, the course's
    limits and whether it serves Dask; each line of input is one student, answered by one line, that student's row. What
    else gets written to stdout goes to stderr. With --siblings it first forks those warm graders (`_fork_siblings`)."""
    import os

    from grader.batch.cpus import pin
    from grader.errors import GraderError

    setup = json.loads(sys.argv[1])
    options = dict(zip(sys.argv[2::2], sys.argv[3::2], strict=True))
    pin(int(options["--cpu"]) if "--cpu" in options else None, Path(options["--cpuset"]) if "--cpuset" in options else None)
    if "--siblings" in options:
        _fork_siblings(json.loads(options["--siblings"]))
    rows = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    grader, refused = None, None
    try:
        grader = _start(setup)
    except GraderError as e:
        refused = (*course_of(setup["course_root"], setup["exercise_ids"]), Text(str(e)))  # each student's row says why
    for line in sys.stdin:
        job = json.loads(line)
        if grader is not None and grader.sandbox is not None and not grader.sandbox.alive:
            grader = _afresh(grader)
        if grader is not None:
            row = grade_or_fail(grader, job["student"], job["path"])
        else:
            assert refused is not None
            course, exercises, why = refused
            row = failed_row(course, exercises, setup["device"], job["student"], why)
        rows.write(row.to_json() + "\n")
        rows.flush()
    if grader is not None:
        sandbox = grader.sandbox
        grader.close()  # and the sandbox, where the grader started it itself (`_afresh`)
        if sandbox is not None and grader.sandbox is not None:
            sandbox.close()


def _fork_siblings(siblings: list[dict[str, Any]]) -> None:
    """In the pool's first warm grader, once torch is imported and before anything of the course is read: fork each
    of `siblings` (its stdin, stdout and stderr descriptors, CPU and cpuset), which goes on as a warm grader of its own
    that names its pid first. The pool kills the first as the batch ends; the init process reaps the siblings then."""
    import os

    import torch  # noqa: F401 – what every sibling would otherwise import again

    import grader.grading.pipeline  # noqa: F401
    import grader.sandbox.host  # noqa: F401
    from grader.batch.cpus import pin

    theirs = {fd for sibling in siblings for fd in (sibling["stdin"], sibling["stdout"], sibling["stderr"])}
    for sibling in siblings:
        sys.stdout.flush()  # nothing this process wrote is written again by a sibling
        sys.stderr.flush()
        if os.fork() == 0:
            for n, name in enumerate(("stdin", "stdout", "stderr")):
                os.dup2(sibling[name], n)
            for fd in theirs:
                os.close(fd)
            pin(sibling["cpu"], Path(sibling["cpuset"]) if sibling["cpuset"] is not None else None)
            os.write(1, (json.dumps({"pid": os.getpid()}) + "\n").encode())
            return
    for fd in theirs:
        os.close(fd)


if __name__ == "__main__":
    _main()
