"""What a finished batch left in OUT, read back: its class (grades.csv's students and exercises) with each student's
row from the journal – the whole result model, for figures computed again after grading (`grade stats`)."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

from grader.errors import OutputError
from grader.results import StudentRow
from grader.store.journal import FILE, Journal
from grader.text import safe_cell


def _hint(out: Path) -> str:
    """What to run instead: a folder that holds entries is likely the submissions, whose grades go to a folder of
    their own beside them – never into the submissions, where a batch's files would be taken for students."""
    try:
        entries = [p for p in out.iterdir() if not p.name.startswith(".")] if out.is_dir() else []
    except OSError:
        entries = []
    if entries:
        graded = out.parent / f"{out.name}-graded"
        return f"if these are the class's submissions, grade them first: grade batch {out} --out {graded}, then grade stats {graded}"
    return f"grade the class into it first: grade batch SUBMISSIONS --out {out} (a folder outside SUBMISSIONS), then grade stats {out}"


def read_class(out: Path) -> tuple[list[StudentRow], list[str]]:
    """The rows of the students grades.csv lists, in its order, and its exercise ids; OutputError when `out` is not a
    batch's output. A student of the journal whom grades.csv does not list (an entry since removed) is left out."""
    grades, journal = out / "grades.csv", out / FILE
    if not grades.is_file() or not journal.is_file():
        raise OutputError(f"{out}: not the output of grade batch (it has no grades.csv and {FILE}); {_hint(out)}")
    try:
        lines = list(csv.reader(io.StringIO(grades.read_text(encoding="utf-8"), newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise OutputError(f"{grades}: cannot be read ({e}); run grade batch again to write it") from None
    header = lines[0] if lines else []
    if len(header) < 2 or header[0] != "student" or "total" not in header:
        raise OutputError(f"{grades}: not a grades.csv of grade batch (its header is not student,…,total)")
    listed = {line[0] for line in lines[1:] if line}
    try:
        opened = Journal(out)
        try:
            students = [s for s in opened.students() if safe_cell(s) in listed]  # grades.csv shows ids as safe_cell does
            rows = opened.rows(students)
        finally:
            opened.close()
    except sqlite3.Error as e:
        raise OutputError(f"{journal}: cannot be read ({e}); is a batch writing it? Try again when it has finished") from None
    return rows, header[1 : header.index("total")]  # the exercises' columns; any after the total are not exercises
