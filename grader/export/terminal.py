"""What `grade` prints for people: a table per exercise, wrapped (never cut) to the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.course import Course
from grader.results import GradeResult
from grader.text import printable


def print_grade(console: Console, result: GradeResult, *, verbose: bool) -> None:
    if verbose:
        console.print(Text(f"submission: {result.submission}   device: {result.device}"))
    language = result.language
    for exercise in result.exercises:
        heading = f"{exercise.id}  {exercise.title}"
        note = printable(exercise.note.render(language))
        if not exercise.checks:
            points = f" — {_points(exercise.score)}/{_points(exercise.max_score)}" if exercise.max_score else ""
            console.print(Text.assemble((f"{heading}{points}", "bold"), f": {note}"))
            continue
        score = "" if exercise.public_only else f" — {_points(exercise.score)}/{_points(exercise.max_score)}"
        table = Table(title=f"{heading}{score}", title_justify="left")
        table.add_column("check", ratio=3, overflow="fold")
        table.add_column("points", justify="right", no_wrap=True)
        table.add_column("status", no_wrap=True)
        table.add_column("feedback", ratio=5, overflow="fold")
        for v in exercise.checks:
            name = v.name if not v.visible else f"{v.name} (public)"
            status = Text("passed", style="green") if v.passed else Text("failed", style="red")
            points = "–" if exercise.public_only else f"{_points(v.earned)}/{_points(v.points)}"
            # Text() keeps the submission's own words from being read as rich markup.
            table.add_row(Text(printable(name)), points, status, Text(printable(v.feedback.render(language))))
        console.print(table)
        if note:
            console.print(Text(note))
    for error in result.internal_errors:
        console.print(Text(f"internal error: {printable(error)}", style="bold red"))
    if any(e.public_only for e in result.exercises):
        graded = sum(e.graded_points for e in result.exercises)
        total = f"Public checks: {sum(v.passed for e in result.exercises for v in e.checks)}/" \
                f"{sum(len(e.checks) for e in result.exercises)} passed; {_points(graded)} points are graded at hand-in"
    else:
        total = f"Total: {_points(result.score)}/{_points(result.max_score)} points"
    console.print(Text.assemble((total, "bold"), f"  ({printable(result.submission)})"))


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
