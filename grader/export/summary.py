"""The class summary (summary.json, summary.md): points per exercise, the common mistakes, who could not be graded, and
each check's item analysis (grader.export.items).

Every figure is counted from the result model's fields – a verdict's outcome and named mistakes –
once per student, never from feedback text, which a submission can fill with any words.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from grader.export import items
from grader.export.feedback import plain
from grader.results import Outcome, Status, StudentRow
from grader.variants import canonical


def summarize(rows: list[StudentRow], exercise_ids: list[str], *, missing: Sequence[str] = ()) -> dict[str, Any]:
    """The class's figures; `missing` names the sandbox protections this run went without (`--sandbox auto`)."""
    per_exercise = {}
    for exercise_id in exercise_ids:
        scores = [r.score(exercise_id) for r in rows]
        per_exercise[exercise_id] = {
            "mean": round(statistics.fmean(scores), 4) if scores else 0.0,
            "median": round(statistics.median(scores), 4) if scores else 0.0,
            "max": round(max(scores, default=0.0), 4),
            "distribution": {f"{k:g}": v for k, v in sorted(Counter(round(s, 4) for s in scores).items())},  # exact points
        }
    failed: Counter[str] = Counter()
    for row in rows:  # wrong work only: a file that did not import, a time limit or a crash is one of "mistakes", once
        failed.update({f"{v.exercise}: {v.name}" for e in row.result.exercises for v in e.checks if v.outcome is Outcome.FAILED})
    outcomes = [{v.outcome for e in r.result.exercises for v in e.checks} for r in rows]
    return {
        "students": len(rows),
        "exercises": per_exercise,
        "most_failed_checks": _ranked(failed, "check"),
        "hit_a_time_limit": sum(Outcome.TIMED_OUT in o for o in outcomes),
        "crashed": sum(Outcome.CRASHED in o for o in outcomes),
        "did_not_import": sum(Outcome.NOT_IMPORTED in o for o in outcomes),
        "unreadable": sum(r.status is Status.UNREADABLE for r in rows),
        "internal_errors": sum(r.status is Status.INTERNAL_ERROR for r in rows),
        "missing_protections": list(missing),
        **items.analyse(rows, exercise_ids).to_dict(),  # "checks", "mistakes", "left_out_of_checks": see items.py
        **_variant_findings(rows),
    }


def _variant_findings(rows: list[StudentRow]) -> dict[str, list[dict[str, str]]]:
    """Sheets that hold another student's numbers' answers, and hand-ins packed under another student's id (an id
    read as the numbers read it: `grade pack --student alice` is alice's `Alice/`)."""
    return {
        "answers_of_other_variants": [
            {"student": r.student, "exercise": e, "variant_of": who} for r in rows for e, who in sorted(r.result.copied_from.items())
        ],
        "packed_as_another_student": [
            {"student": r.student, "packed_as": r.result.packed_as}
            for r in rows
            if r.result.packed_as and canonical(r.result.packed_as) != canonical(r.student)
        ],
    }


def _ranked(counts: Counter[str], name: str) -> list[dict[str, Any]]:
    """The 20 most frequent, each with how many students; ties in alphabetical order."""
    return [{name: k, "students": n} for k, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:20]]


def to_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def to_markdown(summary: dict[str, Any]) -> str:
    lines = [
        f"# Class summary ({summary['students']} submissions)",
        "",
        "| exercise | mean | median | max | distribution (points: students) |",
        "|---|---|---|---|---|",
    ]
    for exercise_id, s in summary["exercises"].items():
        dist = ", ".join(f"{k}: {v}" for k, v in s["distribution"].items())
        lines.append(f"| {exercise_id} | {s['mean']:g} | {s['median']:g} | {s['max']:g} | {dist} |")
    analysis = items.Analysis.from_dict(summary)
    lines += ["", *items.mistakes_markdown(analysis, "en")]
    lines += ["", "## Checks failed most often (wrong work)", ""]
    lines += [f"- {plain(c['check'])} — {c['students']}" for c in summary["most_failed_checks"]] or ["- none"]
    lines += [
        "",
        f"Hit a time limit: {summary['hit_a_time_limit']}; crashed: {summary['crashed']}; did not import: {summary['did_not_import']}; "
        f"could not be read: {summary['unreadable']}; internal grader errors: {summary['internal_errors']}.",
    ]
    written = items.written_markdown(analysis, "en")
    lines += ["", *written] if written else []
    lines += ["", *items.checks_markdown(analysis, "en")]
    if summary["answers_of_other_variants"] or summary["packed_as_another_student"]:
        lines += ["", "## Answers of another student's numbers", ""]
        lines += [f"- {plain(c['student'])}, {c['exercise']}: answers of {plain(c['variant_of'])}'s variant" for c in summary["answers_of_other_variants"]]
        lines += [f"- {plain(c['student'])}: the hand-in was packed as student {plain(c['packed_as'])}" for c in summary["packed_as_another_student"]]
    for key, words in (
        ("late", "Handed in late"),
        ("overridden", "Scores adjusted by the course staff"),
        ("no_submission_time", "No submission time (graded without late penalty)"),
    ):
        if summary.get(key):  # the term's flags (grader.term.finals.flagged), where grade batch added them
            lines += ["", f"{words} ({len(summary[key])}): {', '.join(plain(s) for s in summary[key])}."]
    if summary["missing_protections"]:
        lines += ["", f"Sandbox degraded (--sandbox auto), without: {', '.join(summary['missing_protections'])}."]
    return "\n".join(lines) + "\n"
