"""The audit trail as `grade audit` prints it: an aligned table under a header, CSV (every cell `safe_cell`), or JSON.

The table gives each row's time to the second (UTC) and the first 12 characters of each hash; CSV and JSON hold
every field as the journal keeps it (old or new empty, or null, where there was none).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json

from grader.store.audit import Entry
from grader.text import one_line, safe_cell

FIELDS = tuple(f.name for f in dataclasses.fields(Entry))
_TABLE = ("at (UTC)", "actor", "cause", "student", "exercise", "old -> new", "course", "submission", "reason")


def _points(x: float | None) -> str:
    return "" if x is None else f"{x:.15g}"


def to_table(entries: list[Entry]) -> str:
    """One line per row, its columns aligned under the header; the reason, of any length, last."""
    rows = [
        [
            e.at[:19].replace("T", " "),
            *(one_line(c, limit=80) for c in (e.actor, e.cause, e.student, e.exercise)),
            f"{_points(e.old) or '–'} -> {_points(e.new) or '–'}",
            e.course_hash[:12] or "?",
            e.submission_hash[:12] or "?",
            one_line(e.reason, limit=2000),
        ]
        for e in entries
    ]
    widths = [max(len(r[n]) for r in [list(_TABLE), *rows]) for n in range(len(_TABLE) - 1)]
    return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip() for r in [list(_TABLE), *rows]) + "\n"


def to_csv(entries: list[Entry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for e in entries:
        cells = [str(e.n), e.at, e.actor, e.cause, e.student, e.exercise, _points(e.old), _points(e.new), e.reason, e.course_hash, e.submission_hash]
        writer.writerow([safe_cell(c) for c in cells])
    return out.getvalue()


def to_json(entries: list[Entry]) -> str:
    """One JSON array of the rows, each an object of the journal's fields."""
    return json.dumps([dataclasses.asdict(e) for e in entries], ensure_ascii=False, indent=1)
