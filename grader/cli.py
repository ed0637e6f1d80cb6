"""`grade`: the command line. It parses options and hands them to grader.runner and grader.report."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from grader.course import DEVICES, CourseError, load_course
from grader.sandbox import IsolationUnavailable, SandboxError
from grader.submission import SubmissionError, default_submission

# The course lives next to the package: course.toml, exercises/ and (for TAs) solutions/, tests/.
COURSE_ROOT = Path(__file__).resolve().parent.parent


def _course():
    try:
        return load_course(COURSE_ROOT)
    except CourseError as e:
        raise click.ClickException(str(e)) from None


@click.group()
def main() -> None:
    """Autograder for the LSTM/GRU chapter: list, run and self-check the exercises."""


@main.command("list", short_help="List the exercises with their points.")
def list_exercises() -> None:
    from grader.report import print_course

    print_course(Console(), _course())


@main.command("run", short_help="Grade a submission on some or all exercises.")
@click.argument("exercise_ids", metavar="[EXERCISE]...", nargs=-1)
@click.option("--submission", "-s", type=click.Path(path_type=Path), help="Folder laid out like exercises/ (default: . if it looks like one, else ./exercises).")
@click.option("--device", "-d", type=click.Choice(DEVICES), help="Where tensors live during checks (default: course.toml).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object (Gradescope field names).")
@click.option("--verbose", "-v", is_flag=True, help="Also print the submission path, device and sandbox protections.")
@click.option("--sandbox", "sandbox_mode", type=click.Choice(["auto", "strict"]), default="auto", show_default=True, help="strict: refuse to run unless every protection is active (see `grade doctor`).")
def run(exercise_ids: tuple[str, ...], submission: Path | None, device: str | None, as_json: bool, verbose: bool, sandbox_mode: str) -> None:
    """Grade EXERCISE... (all exercises when none is given). Exit 0 whenever grading ran."""
    course = _course()
    unknown = [i for i in exercise_ids if i not in course.ids]
    if unknown:
        raise click.UsageError(f"unknown exercise {', '.join(unknown)}; valid ids: {', '.join(course.ids)}")
    exercises = [course.exercise(i) for i in dict.fromkeys(exercise_ids)] if exercise_ids else list(course.exercises)
    submission = submission or default_submission(Path.cwd(), course)
    try:
        result = _grade(course, exercises, submission, device or course.device, strict=sandbox_mode == "strict")
    except click.ClickException as e:
        if not as_json or isinstance(e, click.UsageError):
            raise
        from grader.report import failure_json

        click.echo(failure_json(str(submission), exercises, e.message))  # --json always prints one object
        sys.exit(1)
    _print(result, as_json=as_json, verbose=verbose)
    if verbose and not as_json:
        from grader.doctor import summary

        Console().print(Text(summary(result.protections)))
    sys.exit(1 if result.internal_errors else 0)


@main.command("doctor", short_help="Show which sandbox protections are active on this machine.")
def doctor() -> None:
    """List each protection of the student processes, active or not, and why not."""
    console = Console()
    for p in _guard(_protections):
        mark = "[green]on [/green]" if p["active"] else "[red]off[/red]"
        console.print(f"{mark} {p['name']}: {p['note']}", markup=True, highlight=False)


def _protections() -> list[dict]:
    from grader.doctor import protections

    return protections()


@main.command("check", short_help="Self-check: references score full marks, stubs score zero.")
@click.option("--device", "-d", type=click.Choice(DEVICES), help="Where tensors live during checks (default: course.toml).")
def check(device: str | None) -> None:
    """Grade solutions/ and exercises/ and report any exercise whose checks disagree with them."""
    from grader.runner import check_course

    course = _course()
    (references, stubs), problems = _guard(lambda: check_course(course=course, device=_device(device or course.device)))
    console = Console()
    for name, result in (("references (solutions/)", references), ("stubs (exercises/)", stubs)):
        console.print(f"{name}: {result.score:g}/{result.max_score:g} points")
    for problem in problems:
        console.print(Text.assemble(("problem: ", "red"), problem))
    if problems:
        sys.exit(1)
    console.print("[green]all references full marks, all stubs zero[/green]")


def _grade(course, exercises, submission, device, *, strict: bool):
    from grader.runner import grade_submission, open_sandbox

    device = _device(device)

    def grade():
        with open_sandbox(course, exercises, device, strict=strict) as sandbox:
            return grade_submission(course=course, exercises=exercises, submission=submission, device=device, sandbox=sandbox)

    return _guard(grade)


def _device(requested: str) -> str:
    from grader.runner import DeviceError, resolve_device

    try:
        return resolve_device(requested)
    except DeviceError as e:
        raise click.ClickException(str(e)) from None


def _guard(work):
    """Turn the grader's own expected failures into clear messages, never tracebacks (a usage error exits 2, others 1)."""
    try:
        return work()
    except SubmissionError as e:
        raise click.UsageError(str(e)) from None
    except IsolationUnavailable as e:
        raise click.ClickException(str(e)) from None
    except SandboxError as e:
        raise click.ClickException(f"internal failure: {e}") from None


def _print(result, *, as_json: bool, verbose: bool) -> None:
    from grader.report import grade_json, print_grade

    if as_json:
        click.echo(grade_json(result))
    else:
        print_grade(Console(), result, verbose=verbose)


if __name__ == "__main__":
    main()
