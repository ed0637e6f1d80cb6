"""`grade`: the command line. It parses options and hands them to grader.api; everything printed goes through grader.export."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from grader import api
from grader.course import DEVICES
from grader.errors import GraderError, SubmissionError


def _course():
    return _guard(api.course)


@click.group()
def main() -> None:
    """Autograder for the LSTM/GRU chapter: list, run and self-check the exercises."""


@main.command("list", short_help="List the exercises with their points.")
def list_exercises() -> None:
    from grader.export.terminal import print_course

    print_course(Console(), _course())


@main.command("run", short_help="Grade a submission on some or all exercises.")
@click.argument("exercise_ids", metavar="[EXERCISE]...", nargs=-1)
@click.option("--submission", "-s", type=click.Path(path_type=Path), help="Folder laid out like exercises/ (default: . if it looks like one, else ./exercises).")
@click.option("--device", "-d", type=click.Choice(DEVICES), help="Where tensors live during checks (default: course.toml).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object (Gradescope's results.json shape).")
@click.option("--verbose", "-v", is_flag=True, help="Also print the submission path, device and sandbox protections.")
@click.option("--sandbox", "sandbox_mode", type=click.Choice(["auto", "strict"]), default="auto", show_default=True, help="strict: refuse to run unless every protection is active (see `grade doctor`).")
def run(exercise_ids: tuple[str, ...], submission: Path | None, device: str | None, as_json: bool, verbose: bool, sandbox_mode: str) -> None:
    """Grade EXERCISE... (all exercises when none is given). Exit 0 whenever grading ran."""
    from grader.export import gradescope
    from grader.submissions.workspace import default_submission

    course = _course()
    try:
        exercises = api.select(course, exercise_ids)
    except KeyError as e:
        raise click.UsageError(f"unknown exercise {e.args[0]}; valid ids: {', '.join(course.ids)}") from None
    submission = submission or default_submission(Path.cwd(), course)
    try:
        result = api.grade(course=course, exercises=exercises, submission=submission, device=device,
                           strict=sandbox_mode == "strict")
    except SubmissionError as e:
        raise click.UsageError(str(e)) from None
    except GraderError as e:
        if not as_json:
            raise click.ClickException(_message(e)) from None
        doc = gradescope.failure_dict(str(submission), float(sum(x.points for x in exercises)), _message(e))
        click.echo(gradescope.dumps(doc))  # --json always prints one object
        sys.exit(e.exit_code)
    if as_json:
        click.echo(gradescope.dumps(gradescope.to_dict(result)))
    else:
        from grader.export.terminal import print_grade

        print_grade(Console(), result, verbose=verbose)
        if verbose:
            from grader.sandbox.doctor import summary

            Console().print(Text(summary(result.protections)))
    sys.exit(1 if result.internal_errors else 0)


@main.command("doctor", short_help="Show which sandbox protections are active on this machine.")
def doctor() -> None:
    """List each protection of the student processes, active or not, and why not."""
    console = Console()
    course = _course()
    for p in _guard(lambda: api.protections(course=course)):
        mark = "[green]on [/green]" if p["active"] else "[red]off[/red]"
        console.print(f"{mark} {p['name']}: {p['note']}", markup=True, highlight=False)


@main.command("check", short_help="Self-check: references score full marks, stubs score zero.")
@click.option("--device", "-d", type=click.Choice(DEVICES), help="Where tensors live during checks (default: course.toml).")
def check(device: str | None) -> None:
    """Grade solutions/ and exercises/ and report any exercise whose checks disagree with them."""
    course = _course()
    (references, stubs), problems = _guard(lambda: api.self_check(course=course, device=device))
    console = Console()
    for name, result in (("references (solutions/)", references), ("stubs (exercises/)", stubs)):
        console.print(f"{name}: {result.score:g}/{result.max_score:g} points")
    for problem in problems:
        console.print(Text.assemble(("problem: ", "red"), problem))
    if problems:
        sys.exit(1)
    console.print("[green]all references full marks, all stubs zero[/green]")


def _message(error: GraderError) -> str:
    from grader.errors import IsolationUnavailable, SandboxError

    if isinstance(error, SandboxError) and not isinstance(error, IsolationUnavailable):
        return f"internal failure: {error}"
    return str(error)


def _guard(work):
    """Turn the grader's own failures into clear messages, never tracebacks (a usage error exits 2, others 1)."""
    try:
        return work()
    except SubmissionError as e:
        raise click.UsageError(str(e)) from None
    except GraderError as e:
        raise click.ClickException(_message(e)) from None


if __name__ == "__main__":
    main()
