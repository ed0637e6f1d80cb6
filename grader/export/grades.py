"""grades.csv: one row per student (sorted), one column of points per exercise, and the total."""

from __future__ import annotations

import csv
import io


def to_csv(rows: list[dict], exercise_ids: list[str]) -> str:
    """`rows` are journal rows ({"student", "report"}); an exercise a report lacks counts 0."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *exercise_ids, "total"])
    for row in sorted(rows, key=lambda r: r["student"]):
        scores = {e["id"]: e["score"] for e in row["report"]["extra_data"]["exercises"]}
        points = [scores.get(i, 0.0) for i in exercise_ids]
        writer.writerow([row["student"], *(_number(p) for p in points), _number(sum(points))])
    return out.getvalue()


def _number(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".")
