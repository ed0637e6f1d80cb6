"""`grade batch`: discover the class's submissions, grade what changed, and write every output atomically.

Outputs in OUT: grades.csv, reports/<student>.json (the `grade run --json` report, without
timing), feedback/<student>.md, summary.json and summary.md, and journal.sqlite (times live there).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from pathlib import Path

from grader.batch.cpus import CpuSlots
from grader.batch.journal import Journal
from grader.course import Course, Exercise
from grader.errors import SubmissionError
from grader.export import feedback, grades, summary
from grader.export.files import write_atomic

# What decides a grade besides the submission: a change to any of these regrades everyone.
_COURSE_PARTS = ("course.toml", "tests/hidden", "tests/given", "solutions", "exercises", "grader")
_HASHED_SUFFIXES = {".py", ".toml", ".md"}
_MAX_HASHED = 64 << 20  # bytes of one submission read for its key (the archive refuses more anyway)


@dataclass(frozen=True)
class Student:
    id: str
    path: Path
    key: str = ""


@dataclass
class BatchResult:
    graded: int  # students graded in this run
    skipped: int  # unchanged since the journal's row
    rows: list[dict]
    seconds: float


def discover(submissions: Path) -> list[Student]:
    """One student per folder or .zip in `submissions`, sorted by id; two entries with one id are an error."""
    if not submissions.is_dir():
        raise SubmissionError(f"{submissions}: not a folder of submissions (one folder or .zip per student)")
    found: dict[str, Path] = {}
    for entry in sorted(submissions.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            student = entry.name
        elif entry.is_file() and entry.suffix.lower() == ".zip":
            student = entry.name[: -len(".zip")]
        else:
            continue
        if student in found:
            raise SubmissionError(f"{submissions}: both {found[student].name} and {entry.name} are student {student!r}")
        found[student] = entry
    return [Student(s, p) for s, p in sorted(found.items())]


def course_hash(course: Course) -> str:
    digest = hashlib.sha256()
    for part in _COURSE_PARTS:
        root = course.root / part
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _HASHED_SUFFIXES)
        for path in files:
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(course.root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def submission_hash(path: Path) -> str:
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    budget = _MAX_HASHED
    for file in files:
        with open(file, "rb") as f:
            data = f.read(max(budget, 0) + 1)
        budget -= len(data)
        digest.update(str(file.relative_to(path) if file != path else "").encode() + b"\0" + data + b"\0")
        if budget < 0:
            break
    return digest.hexdigest()


def grade_batch(*, course: Course, exercises: list[Exercise], submissions: Path, out: Path, workers: int,
                device: str, strict: bool, scheduler: str | None = None, only: str | None = None,
                progress: Callable[[dict, int, int], None] | None = None,
                nbgrader_db: Path | None = None) -> BatchResult:
    """Grade every student of `submissions` whose content or course changed since the journal in `out`;
    then, with `nbgrader_db`, write every student's scores into that nbgrader gradebook."""
    started = time.monotonic()
    if scheduler is None:
        _pool_context()  # the pool's server imports torch while this process reads and hashes the class
    out.mkdir(parents=True, exist_ok=True)
    students = discover(submissions)
    if only is not None and only not in {s.id for s in students}:
        raise SubmissionError(f"--student {only}: no such student in {submissions}")
    ids = [e.id for e in exercises]
    common = hashlib.sha256(f"{course_hash(course)}|{','.join(ids)}".encode()).hexdigest()
    keyed = [Student(s.id, s.path, hashlib.sha256(f"{common}|{submission_hash(s.path)}".encode()).hexdigest())
             for s in students]
    journal = Journal(out)
    try:
        todo = [s for s in keyed if s.id == only or (only is None and (
            journal.key_of(s.id) != s.key or not (out / "reports" / f"{s.id}.json").is_file()))]
        keys = {s.id: s.key for s in todo}
        done = 0
        for row in _grade_all(todo, course, exercises, device, strict, workers, scheduler):
            key = keys[row["student"]]
            write_atomic(out / "reports" / f"{row['student']}.json", _report_text(row["report"]))
            write_atomic(out / "feedback" / f"{row['student']}.md", feedback.to_markdown(row["report"]))
            # A grader failure is recorded without its key, so that the next run grades that student again.
            journal.record(row["student"], key if row["status"] != "internal error" else "", row["status"],
                           row["report"], row["seconds"], row["timeouts"])
            done += 1
            if progress is not None:
                progress(row, done, len(todo))
        rows = journal.rows([s.id for s in keyed])
    finally:
        journal.close()
    write_atomic(out / "grades.csv", grades.to_csv(rows, ids))
    class_summary = summary.summarize(rows, ids)
    write_atomic(out / "summary.json", summary.to_json(class_summary))
    write_atomic(out / "summary.md", summary.to_markdown(class_summary))
    if nbgrader_db is not None:
        from grader.export import nbgrader_db as gradebook

        gradebook.write(db=nbgrader_db, course=course, exercises=exercises, rows=rows)
    return BatchResult(len(todo), len(keyed) - len(todo), rows, time.monotonic() - started)


def _report_text(report: dict) -> str:
    from grader.export.gradescope import dumps

    return dumps(report) + "\n"


def _grade_all(todo: list[Student], course: Course, exercises: list[Exercise], device: str, strict: bool,
               workers: int, scheduler: str | None):
    """Yield each student's row as it finishes (any order)."""
    if not todo:
        return
    args = (str(course.root), [e.id for e in exercises], device, strict)
    if scheduler is not None:
        yield from _on_dask(todo, scheduler, args)
        return
    from concurrent.futures import ProcessPoolExecutor

    from grader.batch import worker

    workers = max(1, min(workers, len(todo)))
    context = _pool_context()
    slots = CpuSlots(workers, context) if workers > 1 else None  # each worker on a CPU of its own
    try:
        with ProcessPoolExecutor(workers, mp_context=context,
                                 initializer=worker.start_pool_process, initargs=(*args, slots)) as pool:
            pending = {pool.submit(worker.pool_task, s.id, str(s.path)) for s in todo}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
    finally:
        if slots is not None:
            slots.close()


def _pool_context():
    """The pool's multiprocessing context, its server started (in the background) on the first call.

    forkserver: workers are forked from a clean server that imported torch once (no op run, no CUDA
    touched), not from this process; each keeps its sandbox.
    """
    import multiprocessing
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["torch", "grader.batch.worker"])
    forkserver.ensure_running()
    return context


def _on_dask(todo: list[Student], scheduler: str, args: tuple):
    from distributed import Client, as_completed

    from grader.batch.worker import dask_task

    with Client(scheduler) as client:
        # One key per (student, content and course): a changed upload or a fixed check is never deduplicated away.
        futures = [client.submit(dask_task, s.id, str(s.path), *args, key=f"grade-{s.id}-{s.key[:16]}", pure=False)
                   for s in todo]
        for future in as_completed(futures):
            yield future.result()


def default_workers() -> int:
    return max(1, (os.cpu_count() or 2))
