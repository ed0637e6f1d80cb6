"""The batch journal: one row per graded student in SQLite (WAL, synchronous), so that `kill -9` loses nothing.

A row is written only after that student's report files are in place; a rerun skips every student
whose row has the same key (submission content + course) and regrades the rest. Times live here,
never in the reports.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

FILE = "journal.sqlite"


class Journal:
    def __init__(self, folder: Path):
        self._db = sqlite3.connect(folder / FILE, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS grades (student TEXT PRIMARY KEY, key TEXT NOT NULL, status TEXT NOT NULL,"
            " report TEXT NOT NULL, seconds REAL NOT NULL, timeouts INTEGER NOT NULL)"
        )

    def key_of(self, student: str) -> str | None:
        row = self._db.execute("SELECT key FROM grades WHERE student = ?", (student,)).fetchone()
        return row[0] if row else None

    def record(self, student: str, key: str, status: str, report: dict, seconds: float, timeouts: int) -> None:
        """Insert or replace this student's row (a regrade updates, never duplicates)."""
        self._db.execute(
            "INSERT INTO grades VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(student) DO UPDATE SET key = excluded.key,"
            " status = excluded.status, report = excluded.report, seconds = excluded.seconds, timeouts = excluded.timeouts",
            (student, key, status, json.dumps(report, sort_keys=True), seconds, timeouts),
        )

    def rows(self, students: list[str]) -> list[dict]:
        """The rows of these students, in their order (a student without a row is left out)."""
        found = {}
        for student, status, report, seconds, timeouts in self._db.execute(
            "SELECT student, status, report, seconds, timeouts FROM grades"
        ):
            found[student] = {"student": student, "status": status, "report": json.loads(report),
                              "seconds": seconds, "timeouts": timeouts}
        return [found[s] for s in students if s in found]

    def close(self) -> None:
        self._db.close()
