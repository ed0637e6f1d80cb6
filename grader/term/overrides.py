"""`grade override`: the course staff's points for one student's exercise, kept in the journal beside the grades.

An override replaces raw points minus any penalty, survives reruns, resume and regrades, and takes
effect in OUT's files at the next `grade batch` into OUT (which regrades no one for it). Setting and
clearing one are each an audit row (grader.store.audit).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.errors import USAGE, GraderError
from grader.results import Status
from grader.store import audit, published
from grader.store.journal import FILE, Journal
from grader.text import safe_cell

_TABLE = (
    "CREATE TABLE IF NOT EXISTS overrides (student TEXT NOT NULL, exercise TEXT NOT NULL, points REAL NOT NULL, "
    "reason TEXT NOT NULL, by TEXT NOT NULL, PRIMARY KEY (student, exercise))"
)


class OverrideError(GraderError):
    """An override that cannot be: no such batch, student or exercise, or points out of range."""

    exit_code = USAGE


@dataclass(frozen=True)
class Override:
    points: float
    reason: str
    by: str


def open_journal(out: Path) -> Journal:
    """OUT's journal; OverrideError when OUT holds none (no batch was graded there)."""
    if not (out / FILE).is_file():
        raise OverrideError(f"{out}: no {FILE} here; grade the class into it first (grade batch SUBMISSIONS --out {out})")
    return Journal(out)


def current(journal: Journal) -> dict[tuple[str, str], Override]:
    """(student, exercise) -> its override."""
    return {(s, e): Override(p, r, b) for s, e, p, r, b in journal.select("overrides", "SELECT * FROM overrides")}


def the_student(journal: Journal, name: str, out: Path) -> str:
    """The one student `name` is, as typed or as grades.csv shows it (an id beginning = + - @ gets a quote mark there);
    OverrideError when it is two (`'-bob` is the student `'-bob` and how grades.csv shows `-bob`)."""
    found = [s for s in journal.students() if name in (s, safe_cell(s))]
    if len(found) > 1:
        matched = " and ".join(s if s == name else f"{s} (shown as {safe_cell(s)} in grades.csv)" for s in found)
        raise OverrideError(
            f"{out}: {name} is two students of its journal, {matched}; nothing changed "
            "(grade batch now refuses a class with both: keep one entry and grade it into a new --out)"
        )
    return found[0] if found else name


def set_points(
    *, out: Path, student: str, exercise: str, points: float | None, reason: str, by: str | None = None, course_hash: str = ""
) -> tuple[float | None, float | None]:
    """Override (or, with `points` None, clear) one exercise's final points; return (old, new) as the audit row has them.

    `old` is the override it replaces, else the final points last published, else the raw points."""
    if not reason.strip():
        raise OverrideError('--reason: say why (the student sees it: "adjusted by the course staff: <reason>")')
    journal = open_journal(out)
    try:
        student = the_student(journal, student, out)
        row = journal.row_of(student)
        if row is None:
            raise OverrideError(f"{out}: no student {student} in its journal (ids as grades.csv shows them)")
        found = {e.id: e for e in row.result.exercises}
        if exercise not in found:
            raise OverrideError(f"{student}: no exercise {exercise} in this batch; graded here: {', '.join(found)}")
        graded = found[exercise]
        most = graded.max_score + (graded.written.points if graded.written and not graded.written.counted else 0.0)  # its written answer's too
        if points is not None and not 0 <= points <= most:  # also false for NaN
            raise OverrideError(f"POINTS: {exercise} is worth 0 to {most:g} points, got {points:.15g}")
        before = current(journal).get((student, exercise))
        last = published.read(journal).get((student, exercise))
        if points is None and before is None:
            raise OverrideError(f"{student} has no override of {exercise} to clear")
        old = before.points if before else last.final if last else None if row.status is Status.INTERNAL_ERROR else found[exercise].score
        actor = by or audit.login()
        journal.execute(_TABLE)
        kept = None if points is None else {"points": float(points), "reason": reason, "by": actor}
        cause = "override" if points is not None else "override cleared"
        keep(
            journal,
            "overrides",
            student,
            exercise,
            kept,
            cause=cause,
            old=old,
            new=points,
            reason=reason,
            actor=actor,
            hashes=published.hashes(last, course_hash),
        )
    finally:
        journal.close()
    return old, points


def keep(
    journal: Journal,
    table: str,
    student: str,
    exercise: str,
    row: dict[str, object] | None,
    *,
    cause: str,
    old: float | None,
    new: float | None,
    reason: str,
    actor: str,
    hashes: dict[str, str],
) -> None:
    """Set (`row`: its other columns) or, with `row` None, delete a student's exercise in one of the term's tables
    (overrides, marks), with its audit row: both or neither."""
    with journal.transaction():
        if row is None:
            journal.execute(f"DELETE FROM {table} WHERE student = ? AND exercise = ?", (student, exercise))
        else:
            journal.upsert(table, ("student", "exercise"), {"student": student, "exercise": exercise, **row})
        audit.record(journal, cause=cause, student=student, exercise=exercise, old=old, new=new, reason=reason, actor=actor, **hashes)
