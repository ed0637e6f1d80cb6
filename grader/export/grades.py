"""grades.csv: one row per student (sorted), one column of points per exercise, and the total."""

from __future__ import annotations

import csv
import io

from grader.text import format_points


def to_csv(rows: list[dict], exercise_ids: list[str]) -> str:
    """`rows` are journal rows ({"student", "report"}); an exercise a report lacks counts 0."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *exercise_ids, "total"])
    for row in sorted(rows, key=lambda r: r["student"]):
        scores = {e["id"]: e["score"] for e in row["report"]["extra_data"]["exercises"]}
        points = [scores.get(i, 0.0) for i in exercise_ids]
        writer.writerow([row["student"], *(format_points(p, digits=4) for p in points), format_points(sum(points), digits=4)])
    return out.getvalue()
