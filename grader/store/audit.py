"""The audit trail: one append-only row in the journal for every change of a score – an override, its clearing, a
regrade that changed a student's raw points – with its time, actor, old and new points, reason and hashes.

Nothing updates, deletes or replaces an audit row: SQLite triggers refuse all three (an INSERT OR REPLACE of a
row's n too, which deletes without firing a delete trigger). Any command that changes a score
calls `record` with its own `cause` (e.g. "override", "regrade"), inside the transaction that makes the change.
"""

from __future__ import annotations

import datetime as dt
import getpass
from dataclasses import dataclass

from grader.errors import OutputError
from grader.store.journal import Journal

_TABLE = """CREATE TABLE IF NOT EXISTS audit (
    n INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, cause TEXT NOT NULL,
    student TEXT NOT NULL, exercise TEXT NOT NULL, old REAL, new REAL, reason TEXT NOT NULL,
    course_hash TEXT NOT NULL, submission_hash TEXT NOT NULL)"""
_APPEND_ONLY = [
    f"CREATE TRIGGER IF NOT EXISTS audit_no_{what} BEFORE {what.upper()} ON audit "
    "BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only: its rows are never changed or removed'); END"
    for what in ("update", "delete")
] + [
    # INSERT OR REPLACE on an existing n deletes the old row without firing the delete trigger: refuse any insert of an n
    # already taken, before the conflict is resolved.
    "CREATE TRIGGER IF NOT EXISTS audit_no_replace BEFORE INSERT ON audit WHEN EXISTS (SELECT 1 FROM audit WHERE n = NEW.n) "
    "BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only: its rows are never changed or removed'); END"
]


@dataclass(frozen=True)
class Entry:
    """One audit row."""

    n: int
    at: str  # UTC, ISO 8601
    actor: str
    cause: str
    student: str
    exercise: str
    old: float | None  # None: there was no score (or no override) before
    new: float | None  # None: the override was cleared
    reason: str
    course_hash: str
    submission_hash: str


def login() -> str:
    """The actor a change is recorded under when none is named: this process's login name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def record(
    journal: Journal,
    *,
    cause: str,
    student: str,
    exercise: str,
    old: float | None,
    new: float | None,
    reason: str,
    actor: str | None = None,
    course_hash: str = "",
    submission_hash: str = "",
) -> None:
    """Append one row (call it inside the journal transaction that makes the change, so both or neither stay).
    OutputError, before anything is written, for text the journal cannot hold (a byte that is not UTF-8, which a
    shell passes on as a lone surrogate)."""
    for name, text in (("student", student), ("exercise", exercise), ("reason", reason), ("actor", actor or "")):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise OutputError(f"the audit trail records text: the {name} {ascii(text)} holds a byte that is not UTF-8") from None
    _ensure(journal)
    at = dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")
    journal.execute(
        "INSERT INTO audit (at, actor, cause, student, exercise, old, new, reason, course_hash, submission_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (at, actor or login(), cause, student, exercise, old, new, reason, course_hash, submission_hash),
    )


def history(journal: Journal, *, student: str | None = None) -> list[Entry]:
    """Every row in the order written, or one student's."""
    where, parameters = ("WHERE student = ?", (student,)) if student is not None else ("", ())
    rows = journal.select("audit", f"SELECT * FROM audit {where} ORDER BY n", parameters)
    return [Entry(*row) for row in rows]


def _ensure(journal: Journal) -> None:
    journal.execute(_TABLE)
    for trigger in _APPEND_ONLY:
        journal.execute(trigger)
