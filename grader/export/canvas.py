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
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.export.lms import Finals, MisusedOptions, Option, matched
from grader.term.csvin import TermFileError, read_rows
from grader.text import format_points

STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MATCH_ORDER = ("SIS Login ID", "SIS User ID", "ID")  # where a batch's student id is looked for (in one row of them all)
POINTS_POSSIBLE = "    Points Possible"  # as Canvas's own export writes it

# `grade export canvas` (an export.LMS)
SHORT_HELP = "Canvas's gradebook import CSV, matched against Canvas's own export."
HELP = "Write the --out file for Canvas's Grades > Import from OUT's final points; exit 1, writing nothing, if a graded student is not in the roster."
OPTIONS: tuple[Option, ...] = (
    Option("--roster", f"Canvas's gradebook export ({', '.join(STUDENT_COLUMNS)}, ...).", kind="file", required=True),
    Option("--assignment", "The assignment's title in Canvas (default: the course's title)."),
    Option("--assignment-id", "Its Canvas id, for a column `TITLE (ID)` that Canvas matches to it."),
    Option("--per-exercise", "One column per exercise (`TITLE: exNN <its title>`) instead of one total.", kind="switch"),
    Option("--match", f"The roster column holding the batch's student ids (default: any of {', '.join(MATCH_ORDER)}, in one row)."),
    Option("--missing", "A roster student without a grade: an empty cell, or 0.", kind="choice", choices=("empty", "zero")),
)


def render(
    finals: Finals, *, roster: Path, assignment: str | None, assignment_id: str | None, per_exercise: bool, match: str | None, missing: str
) -> tuple[str, int]:
    """Canvas's import file of every roster student, and how many it holds."""
    if per_exercise and assignment_id:
        raise MisusedOptions("--assignment-id names one assignment; with --per-exercise each exercise is its own column")
    course, scores, ids = finals.course, finals.scores, finals.ids
    title = assignment or course.title
    if per_exercise:
        columns = [(f"{title}: {i} {course.exercise(i).title}", course.exercise(i).points) for i in ids]
    else:
        columns = [(header(title, assignment_id), sum(course.exercise(i).points for i in ids))]
    misread = [name for name, _ in columns if not assignment_id and _ID_AT_END.search(name)]
    if misread:
        raise MisusedOptions(
            f"the column {misread[0]!r} ends like `TITLE (ID)`, which Canvas reads as the id of the assignment to import into; "
            "give --assignment-id, or an --assignment title that does not end in a number in parentheses"
        )
    rows = [r for _, r in read_rows(roster, STUDENT_COLUMNS, example=", ".join(STUDENT_COLUMNS)) if not is_points_row(r)]
    if match is not None and rows and match not in rows[0]:
        raise TermFileError(f"--match {match}: {roster} has no such column; its columns: {', '.join(rows[0])}")
    where = matched(scores, rows, [match] if match else list(MATCH_ORDER), roster)
    if per_exercise:
        grades = {n: [scores[s].get(i, 0.0) for i in ids] for s, n in where.items()}
    else:
        grades = {n: [sum(scores[s].values())] for s, n in where.items()}
    return to_csv(rows, columns, grades, zero_missing=missing == "zero"), len(rows)


def points(x: float) -> str:
    return format_points(round(x, 2), digits=2)


_ID_AT_END = re.compile(r"\(\s*\d+\s*\)\s*$")  # "Homework (2)": Canvas takes the 2 for an assignment id


def header(title: str, assignment_id: str | None) -> str:
    return f"{title} ({assignment_id})" if assignment_id else title


def is_points_row(row: Mapping[str, str]) -> bool:
    """Canvas's export has a `Points Possible` row (and may have a muted/read-only one) under its header: not students.
    It holds no student id: a student whose name (their own text) holds the words is a student."""
    return "Points Possible" in row.get("Student", "") and not any(row.get(c, "") for c in MATCH_ORDER)


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
