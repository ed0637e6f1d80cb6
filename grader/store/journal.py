"""The batch journal: one row per graded student in SQLite (WAL, synchronous), so that `kill -9` loses nothing.

A row is written only after that student's report files are in place; a rerun skips every student
whose row has the same key (submission content + course) and regrades the rest. Times live here,
never in the reports. The file (and SQLite's -wal and -shm beside it, which take its mode) is
created 0600: no student process can open it, let alone lock it. The term's tables live beside the
results: overrides and marks (grader.term), what was published (grader.store.published) and the append-only audit
trail (grader.store.audit).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.errors import OutputError
from grader.results import StudentRow

Parameters = tuple[object, ...]  # an SQL statement's ? values
Row = tuple[Any, ...]  # a row as sqlite3 returns it: each column's value is whatever type the table stored

FILE = "journal.sqlite"
# How long one statement waits for a lock held by another connection, and how often it is tried.
BUSY_SECONDS = 5.0
ATTEMPTS = 3


class Journal:
    def __init__(self, folder: Path):
        """OutputError, naming the file, when it cannot be opened and written (a full disk or a read-only OUT) or is no
        journal SQLite can read (a truncated or corrupt file, or another file in its place)."""
        path = folder / FILE
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # SQLite gives -wal and -shm this file's mode
            self._db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_SECONDS)
        except OSError as e:
            raise OutputError(f"{path}: cannot open it ({e.strerror or e}); OUT must be writable, with room on its disk") from None
        try:
            self._run("PRAGMA journal_mode=WAL")
            self._run("PRAGMA synchronous=FULL")
            # One row per student: the whole result model (`StudentRow.to_json`). A journal of an earlier layout (its
            # table `grades`) is left alone: its students are graded again into this table.
            self._run("CREATE TABLE IF NOT EXISTS results (student TEXT PRIMARY KEY, key TEXT NOT NULL, row TEXT NOT NULL)")
        except sqlite3.Error as e:
            self._db.close()
            raise OutputError(
                f"{path}: the journal cannot be opened and written ({e}); nothing changed. A full disk or a read-only OUT: make room, "
                "or make it writable; a corrupt journal: move it away (its grades, overrides, marks and audit trail go with it), "
                "and the next grade batch into OUT grades the class again"
            ) from None

    def key_of(self, student: str) -> str | None:
        row = self._run("SELECT key FROM results WHERE student = ?", (student,)).fetchone()
        return row[0] if row else None

    def record(self, row: StudentRow, key: str) -> None:
        """Insert or replace this student's row (a regrade updates, never duplicates); sqlite3.Error if it cannot."""
        self._run(
            "INSERT INTO results VALUES (?, ?, ?) ON CONFLICT(student) DO UPDATE SET key = excluded.key, row = excluded.row", (row.student, key, row.to_json())
        )

    def rows(self, students: list[str]) -> list[StudentRow]:
        """The rows of these students, in their order (a student without a row, or with an unreadable one, is left out)."""
        found = {}
        for student, text in self._run("SELECT student, row FROM results").fetchall():
            try:
                found[student] = StudentRow.from_json(text)
            except (ValueError, KeyError, TypeError):  # another layout's row: that student is graded again
                continue
        return [found[s] for s in students if s in found]

    def students(self) -> list[str]:
        """Every student the journal holds a row of, sorted."""
        return [s for (s,) in self._run("SELECT student FROM results ORDER BY student").fetchall()]

    def row_of(self, student: str) -> StudentRow | None:
        """This student's row, or None (no row, or one of another layout)."""
        found = self._run("SELECT row FROM results WHERE student = ?", (student,)).fetchone()
        try:
            return None if found is None else StudentRow.from_json(found[0])
        except (ValueError, KeyError, TypeError):
            return None

    def execute(self, sql: str, parameters: Parameters = ()) -> sqlite3.Cursor:
        """One statement on the journal, for the tables the term keeps beside the results (grader.term, audit)."""
        return self._run(sql, parameters)

    def upsert(self, table: str, keys: tuple[str, ...], row: dict[str, object]) -> None:
        """Insert `row` (column -> value) into one of the term's tables, or update the row whose `keys` columns it
        shares (a new override or mark of the same student and exercise replaces the old, never adds one)."""
        updates = ", ".join(f"{c} = excluded.{c}" for c in row if c not in keys)
        marks = ", ".join("?" * len(row))
        self._run(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks}) ON CONFLICT({', '.join(keys)}) DO UPDATE SET {updates}", tuple(row.values()))

    def select(self, table: str, sql: str, parameters: Parameters = ()) -> list[Row]:
        """The rows of a query on `table`; none while the table is not yet made (reading it takes no write lock)."""
        found = self._run("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        return self._run(sql, parameters).fetchall() if found else []

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Journal]:
        """The statements inside, all or none (a grade and its audit rows, say); sqlite3.Error if the lock stays taken."""
        self._run("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self._db.rollback()
            raise
        self._run("COMMIT")

    def close(self) -> None:
        self._db.close()

    def _run(self, sql: str, parameters: Parameters = ()) -> sqlite3.Cursor:
        """One statement, tried again while another connection holds the lock it needs (each try waits BUSY_SECONDS)."""
        attempt = 1
        while True:
            try:
                return self._db.execute(sql, parameters)
            except sqlite3.OperationalError as e:
                if attempt == ATTEMPTS or e.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                    raise
            time.sleep(0.1 * attempt)
            attempt += 1
