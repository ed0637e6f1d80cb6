"""Moodle's grade import CSV (Grades > Import > CSV file): one identifier column, one column per exercise, the total.

The first column holds the Moodle user field named in its header (one of `ID_COLUMNS`), which the import maps as
"Map from" -> that field; each other header is a grade item to map to.
Points are rounded to 2 decimals and written plainly (3.0000000000000004 -> 3), with `.` as the decimal point.
The identifier is written exactly: the file is Moodle's import, read by its CSV parser, not a spreadsheet, and the
quote mark grades.csv adds before `-bob` would name no Moodle user (or another one).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.export.canvas import points
from grader.export.lms import Finals, NotInRoster, Option, matched
from grader.term.csvin import TermFileError, read_rows

# The Moodle user fields an import maps from, where a roster is searched for a batch's student id (in one row), each with
# the headers a roster names it by (in any capitals): first as Moodle's participant export names the column, then as
# a hand-made roster may, by the field's own name.
ID_COLUMNS = {"username": ("Username",), "idnumber": ("ID number", "idnumber"), "email": ("Email address", "email")}
EXPORTED = tuple(headers[0] for headers in ID_COLUMNS.values())  # their columns in Moodle's participant export

# `grade export moodle` (an export.LMS)
SHORT_HELP = "Moodle's grade import CSV: one identifier column, one per exercise, the total."
HELP = "Write the --out file for Moodle's Grades > Import > CSV file from OUT's final points."
OPTIONS: tuple[Option, ...] = (
    Option("--id-column", "The Moodle user field the first column holds (map it so in Moodle's import).", kind="choice", choices=tuple(ID_COLUMNS)),
    Option(
        "--roster",
        f"A CSV of the participants (Moodle's export: {', '.join(EXPORTED)}) to look that field up; "
        "without it, the batch's student ids are the field's values.",
        kind="file",
    ),
)


def render(finals: Finals, *, id_column: str, roster: Path | None) -> tuple[str, int]:
    """Moodle's import file of every graded student, and how many it holds."""
    scores = finals.scores
    if roster is None:
        _batch_ids_are(id_column, list(scores))
        identifiers = {s: s for s in scores}
    else:
        rows = [r for _, r in read_rows(roster, (), example=",".join(EXPORTED))]
        names = {h.lower(): h for h in (rows[0] if rows else {})}
        columns = {field: next((names[h.lower()] for h in headers if h.lower() in names), None) for field, headers in ID_COLUMNS.items()}
        id_header = columns[id_column]
        if id_header is None:
            named = ", ".join(h.lower() for h in ID_COLUMNS[id_column])
            raise TermFileError(f"{roster}, line 1: no column for {id_column} (one of: {named}); choose another --id-column or add it")
        where = matched(scores, rows, [c for c in columns.values() if c is not None], roster)
        identifiers = {s: rows[n][id_header] for s, n in where.items()}
    return to_csv(id_column, finals.ids, [(identifiers[s], scores[s]) for s in sorted(identifiers)]), len(identifiers)


def to_csv(id_column: str, exercise_ids: Sequence[str], grades: Sequence[tuple[str, Mapping[str, float]]]) -> str:
    """`grades`: (the user's `id_column` value, exercise id -> final points), one per student."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([id_column, *exercise_ids, "total"])
    for identifier, scores in grades:
        writer.writerow([identifier, *(points(scores[i]) if i in scores else "" for i in exercise_ids), points(sum(scores.values()))])
    return out.getvalue()


def _batch_ids_are(id_column: str, students: list[str]) -> None:
    """Without a roster the batch's ids are written as the Moodle field itself: NotInRoster when they cannot be
    (`--id-column email` over folder names that are no email address)."""
    wrong = [s for s in students if id_column == "email" and "@" not in s]
    if wrong:
        shown = ", ".join(wrong[:5]) + (f" and {len(wrong) - 5} more" if len(wrong) > 5 else "")
        raise NotInRoster(
            f"nothing written: --id-column email without --roster writes the batch's ids as email addresses, and {shown} "
            "is none; give --roster (Moodle's participants export) to look each student's email up, or choose --id-column username"
        )
