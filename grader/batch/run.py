"""`grade batch`: discover the class's submissions, grade what changed, and write every output atomically.

Outputs in OUT: grades.csv, reports/<student>.json (the `grade run --json` report, without
timing), feedback/<student>.md, summary.json and summary.md, report.html (the class report), and journal.sqlite
(times live there).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field, replace
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import TYPE_CHECKING

from grader.batch.cpus import CpuSlots
from grader.batch.journal import Journal
from grader.course import Course, Exercise
from grader.errors import IsolationUnavailable, SubmissionError
from grader.export import CLASS_FILES, STUDENT_FILES, Class, changes, grades, summary
from grader.export.files import write_atomic
from grader.inside.isolation import NO_NETWORK, PRIVATE_VIEW, Protection
from grader.results import Status, StudentRow
from grader.rubric import RUBRIC_FILE
from grader.sandbox.host import active, refusal

if TYPE_CHECKING:
    from grader.term.finals import Change, TermFiles

# What decides a grade besides the submission: a change to any of these regrades everyone.
_COURSE_PARTS = ("course.toml", "tests/hidden", "tests/given", "solutions", "exercises", "grader")
_HASHED_SUFFIXES = {".py", ".toml", ".md"}
_MAX_HASHED = 64 << 20  # bytes of one submission read for its key (the archive refuses more anyway)
_READ_PER_FILE = 17 << 20  # bytes of one student file or notebook read for its key (more is refused anyway)
MAX_ID_BYTES = 200  # of a student id in UTF-8: reports/<id>.json's temporary name (".<id>.json.XXXXXXXX.tmp") fits in 255


@dataclass(frozen=True)
class Student:
    id: str
    path: Path
    key: str = ""
    refused: str = ""  # why this entry is "could not be read" without being opened ("" for nearly every student)
    others: tuple[Path, ...] = ()  # the other entries that are this student (then refused, all of them)


@dataclass
class BatchResult:
    graded: int  # students graded in this run
    skipped: int  # unchanged since the journal's row
    rows: list[StudentRow]
    seconds: float
    missing: list[str]  # the sandbox protections this run went without (`--sandbox auto`); [] when all were active
    flags: dict[str, list[str]] = field(default_factory=dict)  # late, overridden, no_submission_time: the students
    changes: list[Change] = field(default_factory=list)  # grader.term.finals.Change: what this run changed (changes.csv)
    problems: list[str] = field(default_factory=list)  # about the term's files and hand-in times, for the TA's stderr


def discover(submissions: Path) -> list[Student]:
    """One student per folder or .zip in `submissions`, sorted by id (`student_id`: the entry's name without `.zip`).

    Entries whose ids differ at most in case (a TA's case-insensitive disk would merge their reports), or that
    grades.csv shows alike (`-bob` and `'-bob` are both `'-bob` there, `grades.safe_cell`), are one student, refused
    as "could not be read" until one is left: which one is the work is for the TA to say.
    """
    if not submissions.is_dir():
        raise SubmissionError(f"{submissions}: not a folder of submissions (one folder or .zip per student)")
    groups: dict[str, list[tuple[str, Path]]] = {}
    for entry in sorted(submissions.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            name = entry.name
        elif entry.is_file() and entry.suffix.lower() == ".zip":
            name = entry.name[: -len(".zip")]
        else:
            continue
        student = student_id(name)
        shown = unicodedata.normalize("NFC", grades.safe_cell(student)).lower()  # lower, not casefold: ß is not ss
        groups.setdefault(shown, []).append((student, entry))
    students = []
    for (student, path), *others in groups.values():
        refused = ""
        if others:
            names = " and ".join(student_id(p.name) for p in [path, *(p for _, p in others)])
            refused = f"the entries {names} of the class are all student {grades.safe_cell(student)} (as grades.csv shows ids, in any capitals); keep one"
        students.append(Student(student, path, refused=refused, others=tuple(p for _, p in others)))
    return sorted(students, key=lambda s: s.id)


def student_id(name: str) -> str:
    """An entry's name as a student id, which names files in OUT, a journal row, a CSV cell and Markdown lines.

    The name itself when it is printable UTF-8 without a backslash and at most MAX_ID_BYTES; else escaped
    (`\\xNN` an undecodable byte, `\\uNNNN` a control, format or separator character, `\\\\` a backslash) and,
    if still too long, cut and ended with `~` and a hash of the whole name: distinct names keep distinct ids.
    """
    if name.isprintable() and "\\" not in name and len(name.encode()) <= MAX_ID_BYTES:
        return name
    escaped = "".join(_escaped(c) for c in name)
    if len(escaped.encode()) <= MAX_ID_BYTES:
        return escaped
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    return escaped.encode()[: MAX_ID_BYTES - len(digest) - 1].decode("utf-8", errors="ignore") + "~" + digest


def _escaped(c: str) -> str:
    """One character of a student id as `student_id` escapes it."""
    if "\udc80" <= c <= "\udcff":  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{ord(c) - 0xDC00:02x}"
    if c == "\\":
        return "\\\\"
    if not c.isprintable():
        return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
    return c


def course_hash(course: Course) -> str:
    """What keys every journal row: the course's files as they decide grades (`_graded_bytes`)."""
    digest = hashlib.sha256()
    for part in _COURSE_PARTS:
        root = course.root / part
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _HASHED_SUFFIXES)
        for path in files:
            if "__pycache__" in path.parts or path.name == RUBRIC_FILE:  # a rubric is applied after grading (grader.term.marks)
                continue
            digest.update(str(path.relative_to(course.root)).encode() + b"\0" + _graded_bytes(path, course) + b"\0")
    return digest.hexdigest()


def _graded_bytes(path: Path, course: Course) -> bytes:
    """What of a course file decides a grade: course.toml without the term's tables ([deadlines], [late]), which are
    applied after grading (grader.term) – a date changed regrades no one – and without [variants.reseed], whose
    change regrades only the students it names (their journal key holds their variant number); every other file whole."""
    if path != course.root / "course.toml":
        return path.read_bytes()
    import json
    import tomllib

    from grader.term.policy import TABLES

    data = {k: v for k, v in tomllib.loads(path.read_text(encoding="utf-8")).items() if k not in TABLES}
    if isinstance(data.get("variants"), dict):
        data["variants"] = {k: v for k, v in data["variants"].items() if k != "reseed"}
    return json.dumps(data, sort_keys=True, default=str).encode()


def _variant_key(course: Course, student: str) -> str:
    """The part of a student's journal key that their own numbers add: their variant number, with variants on."""
    return str(course.variants.number(student)) if course.variants.enabled else ""


def content_hash(student: Student, exercises: list[Exercise]) -> str:
    """What keys a student's journal row besides the course: what grading reads of each of its entries, and why it
    is refused."""
    digest = hashlib.sha256(student.refused.encode())
    for path in (student.path, *student.others):
        digest.update(submission_hash(path, exercises).encode())
    return digest.hexdigest()


def submission_hash(path: Path, exercises: list[Exercise]) -> str:
    """A hash of what grading reads of one entry: a zip's bytes, or, in a folder, each exercise's student files and
    notebooks – their place, kind, size and first bytes – and nothing else, so that no other file, however large,
    hides a change (a file past its limit is refused whatever follows its first bytes).

    A file that cannot be read counts as its error: hashing never fails (the grading that follows says what
    could not be read).
    """
    from grader.submissions import notebook

    digest = hashlib.sha256()
    if not path.is_dir():
        digest.update(_file_key(path, _MAX_HASHED))
        return digest.hexdigest()
    for exercise in exercises:
        folder = path / exercise.folder
        digest.update(f"{exercise.id}|{folder.is_dir()}|{folder.is_symlink()}".encode())
        for file in [*(folder / name for name in exercise.student_files), *notebook.find(path, exercise)]:
            digest.update(os.fsencode(file.relative_to(path)) + b"\0" + _file_key(file, _READ_PER_FILE))
    return digest.hexdigest()


def _file_key(file: Path, limit: int) -> bytes:
    """One file as it decides a grade: its kind and size (lstat: a link is not followed) and its first `limit` bytes."""
    try:
        info = os.lstat(file)
    except OSError:
        return b"absent\0"
    head = f"{info.st_mode:o}|{info.st_size}|".encode()
    if not os.path.isfile(file) or os.path.islink(file):
        return head
    try:
        with open(file, "rb") as f:
            return head + f.read(limit) + b"\0"
    except OSError as e:
        return head + f"unreadable: {e.strerror}".encode() + b"\0"


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
    nbgrader_db: Path | None = None,
    submitted_at: Path | None = None,
    extensions: Path | None = None,
) -> BatchResult:
    """Grade every student of `submissions` whose content or course changed since the journal in `out`;
    then, with `nbgrader_db`, write every student's scores into that nbgrader gradebook.

    IsolationUnavailable before anything is graded when this machine's sandbox may not run the class
    (see `_sandbox_here`); OUT and everything in it is created readable by its owner alone (umask 077).
    """
    from grader.export import report
    from grader.term.finals import read_files

    started = time.monotonic()
    report.prepare()  # matplotlib loads while the pool starts, not after the last student
    files = read_files(submitted_at=submitted_at, extensions=extensions, exercise_ids=[e.id for e in exercises])
    if scheduler is None:
        _pool_context()  # the pool's server imports torch while this process reads and hashes the class
    found = _sandbox_here(course, exercises, strict=strict, scheduler=scheduler)
    if found and not active(found, PRIVATE_VIEW):  # uid only: student processes see what others may read
        _refuse_exposed([submissions, out, *course.secrets])
    missing = [p.name for p in found if not p.active]
    with _private_files():
        out.mkdir(mode=0o700, parents=True, exist_ok=True)
        result = _grade_into(out, course, exercises, submissions, device, strict, workers, scheduler, only, progress, missing, files)
        if nbgrader_db is not None:
            from grader.integrations.nbgrader import gradebook

            gradebook.write(db=nbgrader_db, course=course, exercises=exercises, rows=result.rows)
    result.seconds = time.monotonic() - started
    return result


def _grade_into(
    out: Path,
    course: Course,
    exercises: list[Exercise],
    submissions: Path,
    device: str,
    strict: bool,
    workers: int,
    scheduler: str | None,
    only: str | None,
    progress: Callable[[StudentRow, int, int], None] | None,
    missing: list[str],
    files: TermFiles | None = None,
) -> BatchResult:
    """Grade what changed into `out`, journal each row, then publish every student's final points from the journal
    (grader.term: late policy and overrides, applied after grading): reports, feedback, grades.csv, the summary, changes."""
    from grader.term import finals, marks, published

    students = discover(submissions)
    if only is not None and only not in {s.id for s in students}:
        raise SubmissionError(f"--student {only}: no such student in {submissions}")
    ids = [e.id for e in exercises]
    course_key = course_hash(course)
    common = hashlib.sha256(f"{course_key}|{','.join(ids)}".encode()).hexdigest()
    contents = {s.id: content_hash(s, exercises) for s in students}
    keyed = [replace(s, key=hashlib.sha256(f"{common}|{contents[s.id]}|{_variant_key(course, s.id)}".encode()).hexdigest()) for s in students]
    hashes = {s.id: (contents[s.id], course_key) for s in keyed}
    journal = Journal(out)
    unjournaled: dict[str, StudentRow] = {}  # rows the journal could not take: said so, and graded again next run
    try:
        files, notes = finals.remember(journal, files or finals.TermFiles())
        term = finals.load(course=course, journal=journal, entries={s.id: s.path for s in keyed}, exercise_ids=ids, files=files)
        term.problems[:0] = notes
        last = published.read(journal)
        todo = [s for s in keyed if s.id == only or (only is None and (journal.key_of(s.id) != s.key or not (out / "reports" / f"{s.id}.json").is_file()))]
        keys = {s.id: s.key for s in todo}
        done = 0
        classmates = tuple(s.id for s in keyed if not s.refused)
        for row in _grade_all(todo, course, exercises, device, strict, workers, scheduler, classmates):
            _write_student(out, term.final(row))
            try:  # a grader failure is recorded without its key, so that the next run grades that student again
                with journal.transaction():
                    finals.record_regrade(journal, journal.row_of(row.student), row, submission=contents[row.student], course=course_key, last=last)
                    journal.record(row, keys[row.student] if row.status is not Status.INTERNAL_ERROR else "")
            except sqlite3.Error as e:
                unjournaled[row.student] = _unjournaled(row, e)
            done += 1
            if progress is not None:
                progress(row, done, len(todo))
        stored = {r.student: r for r in journal.rows([s.id for s in keyed])}
        rows = [term.final(unjournaled.get(s.id) or stored[s.id]) for s in keyed if s.id in unjournaled or s.id in stored]
        for row in rows:
            _write_student(out, row)  # a date, a penalty or an override changed since: the same files, recomputed
        flags = finals.flagged(rows)
        whole = Class(course.language, course.title, rows, exercises, summary.summarize(rows, ids, missing=missing) | flags)
        for name, render in CLASS_FILES:
            write_atomic(out / name, render(whole))
        changed = finals.changes(last, rows, hashes)
        edited = marks.edits(course, journal)  # written answers whose points a rubric edit changed: audited as published
        if changed:
            write_atomic(out / "changes.csv", changes.to_csv(changed))
            write_atomic(out / "changes.md", changes.to_markdown(changed))
        try:  # last: a run killed (or locked out) before it lists the same changes again
            published.publish(journal, rows, hashes, also=lambda: finals.record_changes(journal, changed, rows, hashes, edited), rubrics=marks.rubrics(course))
        except sqlite3.Error as e:
            term.problems.append(f"the journal could not record what this run published ({e}); the next run lists these changes again")
    finally:
        journal.close()
    return BatchResult(len(todo), len(keyed) - len(todo), rows, 0.0, missing, flags=flags, changes=changed, problems=term.problems)


def _write_student(out: Path, row: StudentRow) -> None:
    """Each of a student's files (export.STUDENT_FILES) of their final points, written only when it differs."""
    for folder, suffix, render in STUDENT_FILES:
        path, text = out / folder / f"{row.student}{suffix}", render(row)
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except (OSError, UnicodeDecodeError):
            pass
        write_atomic(path, text)


def _unjournaled(row: StudentRow, error: sqlite3.Error) -> StudentRow:
    """`row` as a grader error: its grade stands in this run's outputs, but the journal does not hold it."""
    why = f"the journal could not record this grade ({error}); the next run grades this student again"
    return replace(row, status=Status.INTERNAL_ERROR, result=replace(row.result, internal_errors=[*row.result.internal_errors, why]))


def _sandbox_here(course: Course, exercises: list[Exercise], *, strict: bool, scheduler: str | None) -> list[Protection]:
    """This machine's protections ([] where no exercise runs student code); IsolationUnavailable where the class
    may not be graded under them: never as root without a uid of its own, with `strict` only with them all, and
    on a Dask cluster only without the network (a student process could reach the scheduler and run code there)."""
    if not any(e.runs_code and e.available for e in exercises):
        return []
    from grader.batch.worker import NETWORK_NEEDED
    from grader.sandbox.doctor import protections

    found = protections(course.root)
    why = refusal(found, strict=strict)
    if not why and scheduler is not None and not active(found, NO_NETWORK):
        why = f"--scheduler: {NETWORK_NEEDED} (here: {next(p.note for p in found if p.name == NO_NETWORK)})"
    if why:
        raise IsolationUnavailable(why)
    return found


def _refuse_exposed(paths: list[Path]) -> None:
    """Without a private file-system view a student process sees what every user may: IsolationUnavailable,
    saying how to fix it, when another user could read, change or enter any of `paths`."""
    exposed = [p for p in paths if _exposed(p)]
    if exposed:
        shown = " ".join(str(p) for p in exposed)
        raise IsolationUnavailable(
            "no namespaces here, so student processes run as other users in the machine's own file system, and "
            f"other users may open {shown}: a student could read classmates' files, the grades or the checks. "
            f"Make them root's alone (chmod -R go-rwx {shown}), then run again"
        )


def _exposed(path: Path) -> bool:
    """Whether a user other than the owner could reach `path` and read, change or enter it (a missing path is not).

    A folder that others may not enter shuts in everything below it, so only `path` and its parents' modes matter
    (a student's uid has no group of the grader's).
    """
    try:
        path = path.resolve(strict=True)
        reachable = all(os.stat(parent).st_mode & 0o001 for parent in path.parents)
        return reachable and bool(os.stat(path).st_mode & 0o007)
    except OSError:
        return False


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """Files and folders created meanwhile are their owner's alone (umask 077): OUT, its journal and its reports."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def _grade_all(
    todo: list[Student],
    course: Course,
    exercises: list[Exercise],
    device: str,
    strict: bool,
    workers: int,
    scheduler: str | None,
    classmates: tuple[str, ...] = (),
) -> Iterator[StudentRow]:
    """Yield each student's row as it finishes (any order): first those refused unopened, then the graded ones."""
    from grader.batch.worker import unreadable_row

    for s in todo:
        if s.refused:
            yield unreadable_row(course, exercises, device, s.id, s.refused)
    todo = [s for s in todo if not s.refused]
    if not todo:
        return
    args = (str(course.root), [e.id for e in exercises], device, strict)
    if scheduler is not None:
        from grader.errors import need

        need("distributed", "--scheduler")
        from grader.batch.cluster import on_dask

        yield from on_dask(todo, scheduler, args, course, exercises, classmates)
        return
    from concurrent.futures import ProcessPoolExecutor

    from grader.batch import worker

    workers = max(1, min(workers, len(todo)))
    context = _pool_context()
    slots = CpuSlots(workers, context) if workers > 1 else None  # each worker on a CPU of its own
    try:
        with ProcessPoolExecutor(workers, mp_context=context, initializer=worker.start_pool_process, initargs=(*args, slots)) as pool:
            pending = {pool.submit(worker.pool_task, s.id, str(s.path), classmates) for s in todo}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
    finally:
        if slots is not None:
            slots.close()


def _pool_context() -> ForkServerContext:
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


def default_workers() -> int:
    return max(1, (os.cpu_count() or 2))
