"""The class summary (summary.json, summary.md): points per exercise, the common mistakes, and who could not be graded."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter

# A diagnosis as checks name it: "Likely mistake: <name>." (English feedback).
_DIAGNOSIS = re.compile(r"Likely mistake: ([^.;\n]+)")


def summarize(rows: list[dict], exercise_ids: list[str]) -> dict:
    per_exercise = {}
    for exercise_id in exercise_ids:
        scores = [_score(r, exercise_id) for r in rows]
        per_exercise[exercise_id] = {
            "mean": round(statistics.fmean(scores), 4) if scores else 0.0,
            "median": round(statistics.median(scores), 4) if scores else 0.0,
            "max": max(scores, default=0.0),
            "distribution": {f"{k:g}": v for k, v in sorted(Counter(round(s * 2) / 2 for s in scores).items())},
        }
    mistakes, failed = Counter(), Counter()
    for row in rows:
        for test in row["report"]["tests"]:
            if test["status"] == "failed":
                failed[test["name"]] += 1
                for name in set(_DIAGNOSIS.findall(test["output"])):
                    mistakes[f"{test['name'].split(':', 1)[0]}: {name.strip()}"] += 1
    crashed = sum(any("process ended" in t["output"] for t in r["report"]["tests"]) for r in rows)
    return {
        "students": len(rows),
        "exercises": per_exercise,
        "common_mistakes": [{"mistake": m, "students": n} for m, n in sorted(mistakes.items(), key=lambda x: (-x[1], x[0]))[:20]],
        "most_failed_checks": [{"check": c, "students": n} for c, n in sorted(failed.items(), key=lambda x: (-x[1], x[0]))[:20]],
        "hit_a_time_limit": sum(r["timeouts"] > 0 for r in rows),
        "crashed": crashed,
        "unreadable": sum(r["status"] == "unreadable" for r in rows),
        "internal_errors": sum(r["status"] == "internal error" for r in rows),
    }


def to_json(summary: dict) -> str:
    return json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def to_markdown(summary: dict) -> str:
    lines = [f"# Class summary ({summary['students']} submissions)", "",
             "| exercise | mean | median | max | distribution (points: students) |", "|---|---|---|---|---|"]
    for exercise_id, s in summary["exercises"].items():
        dist = ", ".join(f"{k}: {v}" for k, v in s["distribution"].items())
        lines.append(f"| {exercise_id} | {s['mean']:g} | {s['median']:g} | {s['max']:g} | {dist} |")
    lines += ["", "## Most common diagnosed mistakes", ""]
    lines += [f"- {m['mistake']} — {m['students']}" for m in summary["common_mistakes"]] or ["- none diagnosed"]
    lines += ["", "## Checks failed most often", ""]
    lines += [f"- {c['check']} — {c['students']}" for c in summary["most_failed_checks"]] or ["- none"]
    lines += ["", f"Hit a time limit: {summary['hit_a_time_limit']}; crashed: {summary['crashed']}; "
              f"could not be read: {summary['unreadable']}; internal grader errors: {summary['internal_errors']}."]
    return "\n".join(lines) + "\n"


def _score(row: dict, exercise_id: str) -> float:
    return next((e["score"] for e in row["report"]["extra_data"]["exercises"] if e["id"] == exercise_id), 0.0)
