"""Moodle's grade import CSV (Grades > Import > CSV file): one identifier column, one column per exercise, the total.

The first column holds the Moodle user field named in its header (`username`, `email` or `idnumber`),
which the import maps as "Map from" -> that field; each other header is a grade item to map to.
Points are rounded to 2 decimals and written plainly (3.0000000000000004 -> 3), with `.` as the decimal point.
The identifier is written exactly: the file is Moodle's import, read by its CSV parser, not a spreadsheet, and the
quote mark grades.csv adds before `-bob` would name no Moodle user (or another one).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from grader.export.canvas import points

# The Moodle user fields an import maps from, each with the headers a roster names it by: Moodle's participant export
# names the columns so; a hand-made roster may use the field names themselves.
ID_COLUMNS = {"username": ("username",), "email": ("email address", "email"), "idnumber": ("id number", "idnumber")}


def to_csv(id_column: str, exercise_ids: Sequence[str], grades: Sequence[tuple[str, Mapping[str, float]]]) -> str:
    """`grades`: (the user's `id_column` value, exercise id -> final points), one per student."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([id_column, *exercise_ids, "total"])
    for identifier, scores in grades:
        writer.writerow([identifier, *(points(scores[i]) if i in scores else "" for i in exercise_ids), points(sum(scores.values()))])
    return out.getvalue()
