"""What OUT's files last showed of each student's exercises (the journal's `published` table), written only after
those files are: a run killed before it compares against the same state again and lists the same changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grader.batch.journal import Journal
from grader.results import Status, StudentRow

_TABLE = (
    "CREATE TABLE IF NOT EXISTS published (student TEXT NOT NULL, exercise TEXT NOT NULL, raw REAL NOT NULL, "
    "final REAL NOT NULL, override REAL, submission TEXT NOT NULL, course TEXT NOT NULL, "
    "PRIMARY KEY (student, exercise))"
)


@dataclass(frozen=True)
class Published:
    """One exercise of one student as OUT's files last showed it."""

    raw: float
    final: float
    override: float | None
    submission: str  # the hashes it was graded under
    course: str


def read(journal: Journal) -> dict[tuple[str, str], Published]:
    """(student, exercise) -> what OUT's files last showed."""
    return {(s, e): Published(*rest) for s, e, *rest in journal.select("published", "SELECT * FROM published")}


def publish(journal: Journal, rows: list[StudentRow], hashes: dict[str, tuple[str, str]], also: Callable[[], None] | None = None) -> None:
    """Keep these final points as what OUT's files now show (after they are written; all in one transaction, with
    `also`: the audit rows of what changed)."""
    journal.execute(_TABLE)
    with journal.transaction():
        if also is not None:
            also()
        for row in rows:
            if row.status is Status.INTERNAL_ERROR:
                continue
            for e in row.result.exercises:
                a = e.adjustment
                journal.execute(
                    "INSERT OR REPLACE INTO published VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row.student, e.id, a.raw if a else e.score, e.score, a.override if a else None, *hashes[row.student]),
                )
