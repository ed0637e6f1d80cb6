"""Everything `grade` prints: a table per exercise for people, one JSON object for machines."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.course import Course
from grader.runner import ExerciseResult, GradeResult


def exercise_json(result: ExerciseResult) -> dict:
    """One exercise in the shape of Gradescope's results.json."""
    doc = {
        "exercise": result.id,
        "score": result.score,
        "max_score": result.max_score,
        "tests": [
            {
                "name": v.name,
                "score": v.earned,
                "max_score": v.points,
                "status": "passed" if v.passed else "failed",
                "output": v.feedback,
                "visibility": "visible" if v.visible else "hidden",
            }
            for v in result.checks
        ],
    }
    if result.note:
        doc["note"] = result.note
    return doc


def grade_json(result: GradeResult) -> str:
    if len(result.exercises) == 1:
        doc = exercise_json(result.exercises[0])
    else:
        doc = {
            "submission": result.submission,
            "score": result.score,
            "max_score": result.max_score,
            "exercises": [exercise_json(e) for e in result.exercises],
        }
    if result.internal_errors:
        doc["errors"] = result.internal_errors
    return json.dumps(doc, ensure_ascii=False, indent=2)


def failure_json(submission: str, exercises, message: str) -> str:
    """The one JSON object of a run the grader itself could not complete: no points, and why."""
    doc = {"submission": submission, "score": 0.0, "max_score": float(sum(e.points for e in exercises)), "errors": [message]}
    return json.dumps(doc, ensure_ascii=False, indent=2)


def print_grade(console: Console, result: GradeResult, *, verbose: bool) -> None:
    if verbose:
        console.print(Text(f"submission: {result.submission}   device: {result.device}"))
    for exercise in result.exercises:
        heading = f"{exercise.id}  {exercise.title}"
        if not exercise.checks:
            points = f" — {_points(exercise.score)}/{_points(exercise.max_score)}" if exercise.max_score else ""
            console.print(Text.assemble((f"{heading}{points}", "bold"), f": {exercise.note}"))
            continue
        table = Table(title=f"{heading} — {_points(exercise.score)}/{_points(exercise.max_score)}", title_justify="left")
        table.add_column("check", ratio=3)
        table.add_column("points", justify="right", no_wrap=True)
        table.add_column("status", no_wrap=True)
        table.add_column("feedback", ratio=5)
        for v in exercise.checks:
            name = v.name if not v.visible else f"{v.name} (public)"
            status = Text("passed", style="green") if v.passed else Text("failed", style="red")
            # Text() keeps the submission's own words from being read as rich markup.
            table.add_row(Text(name), f"{_points(v.earned)}/{_points(v.points)}", status, Text(v.feedback))
        console.print(table)
        if exercise.note:
            console.print(Text(exercise.note))
    for error in result.internal_errors:
        console.print(Text(f"internal error: {error}", style="bold red"))
    total = f"Total: {_points(result.score)}/{_points(result.max_score)} points"
    console.print(Text.assemble((total, "bold"), f"  ({result.submission})"))


def print_course(console: Console, course: Course) -> None:
    table = Table(title=course.title, title_justify="left")
    table.add_column("id")
    table.add_column("title")
    table.add_column("points", justify="right")
    table.add_column("folder")
    for e in course.exercises:
        title = e.title if e.available else f"{e.title} (not yet available)"
        table.add_row(e.id, title, _points(e.points), f"exercises/{e.folder}/")
    console.print(table)
    console.print(f"Total: {_points(sum(e.points for e in course.exercises))} points")


def _points(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")
