"""grades.csv: one row per student (sorted), one column of points per exercise, and the total.

Every cell passes through `grader.text.safe_cell`, as must every CSV this package writes for people to open: an id such as
`=HYPERLINK(...)` is data, never a formula a spreadsheet runs. The LMS import files (export/canvas.py,
export/moodle.py) are read by the LMS, which matches their identifiers exactly: they carry them unchanged.
"""

from __future__ import annotations

import csv
import io

from grader.results import StudentRow
from grader.text import format_points, safe_cell


def to_csv(rows: list[StudentRow], exercise_ids: list[str]) -> str:
    """One line per student: final points (after the term's penalties and overrides), their total, the raw total
    grading gave and `late_days` (the most started days late of any exercise); an exercise a result lacks counts 0."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *exercise_ids, "total", "raw_total", "late_days"])
    for row in sorted(rows, key=lambda r: r.student):
        points = [round(row.score(i), 4) for i in exercise_ids]
        raw = [round(e.adjustment.raw if e.adjustment else e.score, 4) for e in row.result.exercises if e.id in exercise_ids]
        late = max((e.adjustment.days_late for e in row.result.exercises if e.adjustment), default=0)
        cells = [row.student, *(format_points(p, digits=4) for p in points), format_points(sum(points), digits=4), format_points(sum(raw), digits=4), str(late)]
        writer.writerow([safe_cell(c) for c in cells])
    return out.getvalue()
