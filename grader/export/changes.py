"""changes.csv and changes.md: the final points a rerun changed, and why – written only when something changed.

`old` and `new` are final points (`old` empty for a student new to the class or an exercise shown again, `new` empty
for one no longer shown), except for the cause `regrade under override`, where they are the raw points under an
override that stays.
"""

from __future__ import annotations

import csv
import io

from grader.export.feedback import plain
from grader.results import Change
from grader.text import format_points, safe_cell

HEADER = ["student", "exercise", "old", "new", "cause"]


def _cells(change: Change) -> list[str]:
    old, new = ("" if points is None else format_points(points, digits=4) for points in (change.old, change.new))
    return [change.student, change.exercise, old, new, change.cause]


def to_csv(changes: list[Change]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for change in sorted(changes, key=lambda c: (c.student, c.exercise)):
        writer.writerow([safe_cell(c) for c in _cells(change)])
    return out.getvalue()


def to_markdown(changes: list[Change]) -> str:
    students = len({c.student for c in changes})
    lines = [f"# Changed scores ({students} student{'s' * (students != 1)})", "", "| student | exercise | old | new | cause |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(plain(c) for c in _cells(change)) + " |" for change in sorted(changes, key=lambda c: (c.student, c.exercise))]
    kept = sorted({c.student for c in changes if c.cause == "regrade under override"})
    if kept:
        lines += ["", "Raw points changed under an override, which stays (old and new are raw points): " + ", ".join(plain(s) for s in kept) + "."]
    return "\n".join(lines) + "\n"
