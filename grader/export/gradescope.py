"""The JSON report: Gradescope's results.json shape, the same for one exercise or eleven.

Top level: `score`, `max_score`, `execution_time` and a flat `tests` list (`name`, `score`,
`max_score`, `status`, `output`, `visibility`), as Gradescope reads it. Per-exercise totals, the
submission and any internal errors go in `extra_data`, which Gradescope keeps and ignores:
`extra_data.exercises[]` has `id`, `title`, `score`, `max_score` and `note`.
"""

from __future__ import annotations

import json
from typing import Any

from grader.results import Adjustment, GradeResult, Written
from grader.text import Text, printable

# Hidden checks are shown to students once grades are published; public checks always.
HIDDEN_VISIBILITY = "after_published"
NO_ANSWER = Text("no written answer: the file is absent, empty or the stub's own", "没有书面回答：文件不存在、为空或与模板相同")


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
    ] + [_written_test(e.id, e.written, language) for e in result.exercises if e.written is not None and e.written.counted]
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
                **({} if e.written is None or not e.written.counted else {"written": _written(e.written)}),
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


def _written_test(exercise: str, w: Written, language: str) -> dict[str, Any]:
    """The written answer as one more test: the course staff's manual question, with their mark once it is made."""
    said = Text.join("\n", w.comments) if w.marked else Text("to be marked by the course staff", "待课程教师评分") if w.answered else NO_ANSWER
    return {
        "name": f"{exercise}: " + Text(f"written answer ({w.file}, marked by the course staff)", f"书面回答（{w.file}，由课程教师评分）").render(language),
        "score": round(w.earned, 4),
        "max_score": w.points,
        "status": "passed" if w.marked and w.earned >= w.points else "failed",
        "output": said.render(language),
        "visibility": HIDDEN_VISIBILITY,
    }


def _written(w: Written) -> dict[str, Any]:
    """An exercise's written answer in extra_data: its state, the rubric items marked, who marked it."""
    return {"file": w.file, "state": w.state, "points": round(w.earned, 4), "max_points": w.points, "items": w.items, "by": w.by}


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
