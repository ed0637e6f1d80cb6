"""The JSON report: Gradescope's results.json shape, the same for one exercise or eleven.

Top level: `score`, `max_score`, `execution_time` and a flat `tests` list (`name`, `score`,
`max_score`, `status`, `output`, `visibility`), as Gradescope reads it. Per-exercise totals, the
submission and any internal errors go in `extra_data`, which Gradescope keeps and ignores:
`extra_data.exercises[]` has `id`, `title`, `score`, `max_score` and `note`.
"""

from __future__ import annotations

import json
from typing import Any

from grader.results import Adjustment, GradeResult
from grader.text import printable

# Hidden checks are shown to students once grades are published; public checks always.
HIDDEN_VISIBILITY = "after_published"


def to_dict(result: GradeResult, *, timing: bool = True) -> dict[str, Any]:
    language = result.language
    tests = [
        {
            "name": f"{v.exercise}: {v.title.render(language)}",
            "score": round(v.earned, 4),
            "max_score": v.points,
            "status": "passed" if v.passed else "failed",
            "output": v.feedback.render(language),
            "visibility": "visible" if v.visible else HIDDEN_VISIBILITY,
        }
        for e in result.exercises
        for v in e.checks
    ]
    extra: dict[str, Any] = {
        "submission": result.submission,
        "language": language,
        "device": result.device,
        "exercises": [
            {
                "id": e.id,
                "title": e.heading.render(language),
                "score": round(e.score, 4),
                "max_score": e.max_score,
                "note": e.note.render(language),
                **({} if e.adjustment is None else _adjusted(e.adjustment)),
            }
            for e in result.exercises
        ],
        "errors": result.internal_errors,
    }
    adjusted = [e for e in result.exercises if e.adjustment is not None]
    if adjusted:  # the term's rules applied (grade batch): the student's flags, as the class summary has them
        extra["late_days"] = max(e.adjustment.days_late for e in adjusted if e.adjustment)
        extra["overridden"] = [e.id for e in adjusted if e.adjustment and e.adjustment.override is not None]
        extra["no_submission_time"] = any(e.adjustment.no_time for e in adjusted if e.adjustment)
    doc = {"score": round(result.score, 4), "max_score": result.max_score, "tests": tests, "extra_data": extra}
    if result.failure:
        doc["output"] = f"the autograder failed: {result.failure}"
    if timing:
        doc["execution_time"] = round(result.seconds, 3)
    return doc


def _adjusted(a: Adjustment) -> dict[str, Any]:
    """An exercise's fields from the term's rules: `score` is then the final points, `raw_score` what grading gave."""
    return {
        "raw_score": round(a.raw, 4),
        "days_late": a.days_late,
        "penalty": round(a.penalty, 4),
        "due": a.due or None,
        "extended": a.extended,
        "submitted_at": a.submitted_at or None,
        "override": None if a.override is None else {"points": a.override, "reason": a.reason, "by": a.by},
    }


def dumps(doc: dict[str, Any]) -> str:
    """One JSON object whatever the submission wrote: every string made printable (no lone surrogates)."""
    return json.dumps(_clean(doc), ensure_ascii=False, indent=2)


def _clean(obj: Any) -> Any:
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    if isinstance(obj, dict):
        return {printable(k): _clean(v) for k, v in obj.items()}
    return obj
