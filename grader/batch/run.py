"""`grade batch`: discover the class's submissions, grade what changed, and write every output atomically.

Outputs in OUT: grades.csv, reports/<student>.json (the `grade run --json` report, without
timing), feedback/<student>.md, summary.json and summary.md, report.html (the class report), and journal.sqlite
(times live there).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from grader.batch import graders, preflight
from grader.batch.keys import class_keys
from grader.batch.roster import Student, discover, left_out
from grader.course import Course, Exercise
from grader.errors import OutputError, SubmissionError
from grader.export import CLASS_FILES, STUDENT_FILES, Class, StudentFile, changes, summary
from grader.export.files import private_files, write_atomic
from grader.results import Change, Status, StudentRow
from grader.store.journal import FILE as JOURNAL
from grader.store.journal import Journal
from grader.text import Text

if TYPE_CHECKING:
    from grader.term.finals import TermFiles


@dataclass
class BatchResult:
    graded: int  # students graded in this run
    skipped: int  # unchanged since the journal's row
    rows: list[StudentRow]
    seconds: float
    missing: list[str]  # the sandbox protections this run went without (`--sandbox auto`); [] when all were active
    flags: dict[str, list[str]] = field(default_factory=dict)  # late, overridden, no_submission_time: the students
    changes: list[Change] = field(default_factory=list)  # what this run changed (changes.csv)
    problems: list[str] = field(default_factory=list)  # about the term's files and hand-in times, for the TA's stderr


def grade_batch(
    *,
    course: Course,
    exercises: list[Exercise],
    submissions: Path,
    out: Path,
    workers: int,
    device: str,
    strict: bool,
    scheduler: str | None = None,
    only: str | None = None,
    progress: Callable[[StudentRow, int, int], None] | None = None,
    submitted_at: Path | None = None,
    extensions: Path | None = None,
) -> BatchResult:
    """Grade every student of `submissions` whose content or course changed since the journal in `out`.

    IsolationUnavailable before anything is graded when this machine's sandbox may not run the class
    (see `preflight.check`); OUT and everything in it is created readable by its owner alone (umask 077).
    """
    from grader.export import report
    from grader.term.finals import read_files

    started = time.monotonic()
    config = graders.setup(course.root, [e.id for e in exercises], device, strict, (course.time_limit, course.memory_limit), dask=scheduler is not None)
    # A first run grades the class: its warm graders start now (on Dask: the cluster is told of the batch, from a thread)
    # and import torch while this process checks the machine and reads and hashes the class; no student is sent to them
    # before preflight passes. A rerun starts them once someone is to be graded, else an unchanged class would pay for
    # nothing.
    first = not (out / JOURNAL).exists()
    pool: Grading = graders.Pool(config, max(1, workers), now=first) if scheduler is None else _cluster(scheduler, config, now=first)
    try:
        files = read_files(submitted_at=submitted_at, extensions=extensions, exercise_ids=[e.id for e in exercises])
        missing = preflight.check(course, exercises, strict=strict, scheduler=scheduler, exposed=[submissions, out, *course.secrets])
        # matplotlib loads while the graders start, not after the last student; after preflight, so that its import
        # does not hold this process's interpreter while a Dask client connects (that doubled the time to connect)
        report.prepare()
        with private_files():
            try:
                out.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as e:
                raise OutputError(f"--out {out}: cannot be made ({e.strerror or e})") from None
            with _alone(out):
                result = _grade_into(out, course, exercises, submissions, device, only, progress, missing, files, pool)
    finally:
        pool.close()
    result.seconds = time.monotonic() - started
    return result


def _grade_into(
    out: Path,
    course: Course,
    exercises: list[Exercise],
    submissions: Path,
    device: str,
    only: str | None,
    progress: Callable[[StudentRow, int, int], None] | None,
    missing: list[str],
    files: TermFiles | None,
    pool: Grading,
) -> BatchResult:
    """Grade what changed into `out`, journal each row, then publish every student's final points from the journal
    (grader.term: late policy and overrides, applied after grading): reports, feedback, grades.csv, the summary, changes."""
    from grader.store import published
    from grader.term import finals, marks

    students = discover(submissions)
    if only is not None and only not in {s.id for s in students}:
        raise SubmissionError(f"--student {only}: no such student in {submissions}")
    ids = [e.id for e in exercises]
    found = class_keys(course, exercises, students)
    keyed = [replace(s, key=found.students[s.id]) for s in students]
    hashes = found.hashes()
    journal = Journal(out)
    unjournaled: dict[str, StudentRow] = {}  # rows the journal could not take: said so, and graded again next run
    try:
        files, notes = finals.remember(journal, files or finals.TermFiles())
        term = finals.load(course=course, journal=journal, entries={s.id: s.path for s in keyed}, exercise_ids=ids, files=files)
        term.problems[:0] = notes
        skipped = left_out(submissions)
        if skipped:
            term.problems.insert(0, f"{submissions}: not graded, no student's entry (one folder or .zip per student): {', '.join(skipped)}")
        last = published.read(journal)
        readable = {r.student for r in journal.rows([s.id for s in keyed])}  # a row edited or cut short is graded again, never dropped
        todo = [
            s
            for s in keyed
            if s.id == only or (only is None and (journal.key_of(s.id) != s.key or s.id not in readable or not (out / "reports" / f"{s.id}.json").is_file()))
        ]
        keys = {s.id: s.key for s in todo}
        done = 0
        written: dict[str, StudentRow] = {}  # each student's final row as this run wrote their files
        for row in _grade_all(todo, course, exercises, device, pool):
            written[row.student] = term.final(row)
            _write_student(out, written[row.student])
            try:  # a grader failure is recorded without its key, so that the next run grades that student again
                with journal.transaction():
                    finals.record_regrade(journal, journal.row_of(row.student), row, submission=found.submissions[row.student], course=found.course, last=last)
                    journal.record(row, keys[row.student] if row.status is not Status.INTERNAL_ERROR else "")
            except sqlite3.Error as e:
                unjournaled[row.student] = _unjournaled(row, e)
            done += 1
            if progress is not None:
                progress(row, done, len(todo))
        stored = {r.student: r for r in journal.rows([s.id for s in keyed])}
        classmates = tuple(s.id for s in keyed if not s.refused)  # the class as it is now, whenever each was graded
        rows = [
            term.final(_copies(course, exercises, unjournaled.get(s.id) or stored[s.id], classmates)) for s in keyed if s.id in unjournaled or s.id in stored
        ]
        for row in rows:
            if written.get(row.student) != row:  # a row this run wrote as it is has its files; others are rendered again
                _write_student(out, row)  # a date, a penalty, an override or the class changed since: the same files, recomputed
        flags = finals.flagged(rows)
        whole = Class(course.language, course.title, rows, exercises, summary.summarize(rows, ids, missing=missing) | flags)
        for exporter in CLASS_FILES:
            _write(out / exporter.path(whole), exporter.render(whole))
        departed = _drop_departed(out, {s.id for s in keyed})
        if departed:
            term.problems.append(f"removed the reports and feedback of {len(departed)} student(s) no longer in {submissions}: {', '.join(departed)}")
        changed = finals.changes(last, rows, hashes)
        edited = marks.edits(course, journal)  # written answers whose points a rubric edit changed: audited as published
        if changed:
            _write(out / "changes.csv", changes.to_csv(changed))
            _write(out / "changes.md", changes.to_markdown(changed))
        try:  # last: a run killed (or locked out) before it lists the same changes again
            published.publish(journal, rows, hashes, also=lambda: finals.record_changes(journal, changed, rows, hashes, edited), rubrics=marks.rubrics(course))
        except sqlite3.Error as e:
            term.problems.append(f"the journal could not record what this run published ({e}); the next run lists these changes again")
    finally:
        journal.close()
    return BatchResult(len(todo), len(keyed) - len(todo), rows, 0.0, missing, flags=flags, changes=changed, problems=term.problems)


@contextlib.contextmanager
def _alone(out: Path) -> Iterator[None]:
    """OUT held by this batch alone (an flock on the folder, which ends with the process, kill -9 too); OutputError
    while another batch holds it: both would compare against what was last published and write its changes' audit rows twice."""
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"--out {out}: another grade batch is writing it; nothing changed: run this one again once it has ended") from None
        yield
    finally:
        os.close(fd)


def _drop_departed(out: Path, students: set[str]) -> list[str]:
    """Remove each student file (export.STUDENT_FILES) in `out` of a student not among `students` – an entry renamed or
    taken out of SUBMISSIONS, whom grades.csv no longer shows, would else keep a report and feedback a TA hands out; the ids."""
    departed = set()
    for exporter in STUDENT_FILES:
        assert isinstance(exporter, StudentFile)
        folder = out / exporter.folder
        for path in sorted(folder.glob(f"*{exporter.suffix}")) if folder.is_dir() else []:
            student = path.name.removesuffix(exporter.suffix)
            if not path.name.startswith(".") and student not in students:
                path.unlink(missing_ok=True)
                departed.add(student)
    return sorted(departed)


def _copies(course: Course, exercises: list[Exercise], row: StudentRow, classmates: tuple[str, ...]) -> StudentRow:
    """`row` with the sheets that hold a classmate's numbers named (`copied_from`), judged against `classmates`, the class
    of this run: a student graded in an earlier run is judged again against classmates who handed in since."""
    from grader.grading.numbers import copied_from

    copied = copied_from(course, exercises, row.result.answered, row.result.student, classmates)
    return row if copied == row.result.copied_from else replace(row, result=replace(row.result, copied_from=copied))


def _write_student(out: Path, row: StudentRow) -> None:
    """Each of a student's files (export.STUDENT_FILES) of their final points, written only when it differs."""
    for exporter in STUDENT_FILES:
        path, text = out / exporter.path(row), exporter.render(row)
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except (OSError, UnicodeDecodeError):
            pass
        _write(path, text)


def _write(path: Path, text: str) -> None:
    """One of OUT's files; OutputError naming it when it cannot be written (a full disk, a read-only OUT). The journal
    has not yet taken anything as published: a rerun once it can be written lists the same changes, as after kill -9."""
    try:
        write_atomic(path, text)
    except OSError as e:
        raise OutputError(
            f"{path}: cannot be written ({e.strerror or e}); the journal takes nothing as published yet: run grade batch again once OUT can be written"
        ) from None


def _unjournaled(row: StudentRow, error: sqlite3.Error) -> StudentRow:
    """`row` as a grader error: its grade stands in this run's outputs, but the journal does not hold it."""
    why = f"the journal could not record this grade ({error}); the next run grades this student again"
    return replace(row, status=Status.INTERNAL_ERROR, result=replace(row.result, internal_errors=[*row.result.internal_errors, why]))


class Grading(Protocol):
    """Where a batch grades: this machine's warm graders (`graders.Pool`) or a Dask cluster's (`cluster.Cluster`)."""

    def grade(self, todo: list[Student], failed: Callable[[str, Text], StudentRow]) -> Iterator[StudentRow]: ...

    def close(self) -> None: ...


def _grade_all(todo: list[Student], course: Course, exercises: list[Exercise], device: str, pool: Grading) -> Iterator[StudentRow]:
    """Yield each student's row as it finishes (any order): first those refused unopened, then the graded ones; a
    student whose grading failed on a warm grader or a cluster is that student's grader error."""
    from grader.batch.worker import failed_row, unreadable_row

    for s in todo:
        if s.refused:
            yield unreadable_row(course, exercises, device, s.id, s.refused)
    # None to grade: the warm graders started for them end now
    yield from pool.grade([s for s in todo if not s.refused], lambda student, why: failed_row(course, exercises, device, student, why))


def _cluster(scheduler: str, config: dict[str, Any], *, now: bool) -> Grading:
    from grader.errors import need

    need("distributed", "--scheduler")
    from grader.batch.cluster import Cluster

    return Cluster(scheduler, config, now=now)


def default_workers() -> int:
    return max(1, (os.cpu_count() or 2))
