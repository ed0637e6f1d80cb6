"""Canvas's gradebook import CSV (Grades > Import): the five student columns, assignment columns, `Points Possible`.

Canvas's importer wants the header to begin `Student, ID, SIS User ID, SIS Login ID, Section` (the
student cells copied from Canvas's own export, which is the roster), then one column per assignment,
`Title (canvas id)` to update that assignment or `Title` alone to create one, and a row whose first
cell reads "Points Possible". Points are rounded to 2 decimals and written as people write them
(3.0000000000000004 -> 3); an empty cell leaves Canvas's grade as it is.

The student cells are the roster's, exactly: Canvas finds each student by its ID, SIS User ID or SIS Login ID
cell as its own export wrote it, so a quote mark added before `-bob` (grades.csv's guard against spreadsheet
formulas) would find no student, or another one. The file is an import for Canvas, not a sheet to open.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from grader.text import format_points

STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MATCH_ORDER = ("SIS Login ID", "SIS User ID", "ID")  # where a batch's student id is looked for, in this order
POINTS_POSSIBLE = "    Points Possible"  # as Canvas's own export writes it


def points(x: float) -> str:
    return format_points(round(x, 2), digits=2)


def header(title: str, assignment_id: str | None) -> str:
    return f"{title} ({assignment_id})" if assignment_id else title


def is_points_row(row: Mapping[str, str]) -> bool:
    """Canvas's export has a `Points Possible` row (and may have a muted/read-only one) under its header: not students."""
    return "Points Possible" in row.get("Student", "")


def to_csv(roster: Sequence[Mapping[str, str]], columns: Sequence[tuple[str, float]], grades: Mapping[int, Sequence[float]], *, zero_missing: bool) -> str:
    """The import file: every roster student (in the roster's order), with `columns` ((header, points possible)) and
    `grades` (roster index -> one value per column); a roster student without grades gets empty cells, or 0."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*STUDENT_COLUMNS, *(name for name, _ in columns)])
    writer.writerow([POINTS_POSSIBLE, "", "", "", "", *(points(most) for _, most in columns)])
    for n, student in enumerate(roster):
        values = grades.get(n)
        cells = [points(v) for v in values] if values is not None else ["0" if zero_missing else "" for _ in columns]
        writer.writerow([student.get(c, "") for c in STUDENT_COLUMNS] + cells)
    return out.getvalue()
