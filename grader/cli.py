"""`grade`: the command line. It parses options, hands them to grader.api and prints what comes back (reports through grader.export)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.text import Text

from grader import api
from grader.course import DEVICES, Course, Exercise
from grader.errors import GraderError, SubmissionError
from grader.export import LMS_FILES
from grader.results import GradeResult, Status, StudentRow
from grader.text import Text as Words  # bilingual words; `Text` here is rich's

if TYPE_CHECKING:
    from grader.export import LMS
    from grader.export.lms import Option
    from grader.warm.server import Warm

Report = Callable[[StudentRow, int, int], None]  # what a batch calls as each student finishes


# Options and arguments that several commands take, defined once; a command whose meaning differs gives its own help.
STUDENT = click.option(
    "--student", envvar="GRADE_STUDENT", show_envvar=True, help="Your student id: the numeric questions use your numbers (course.toml [variants])."
)
DEVICE = click.option("--device", "-d", type=click.Choice(DEVICES), help="Where tensors live during checks (default: course.toml).")
SUBMISSION = partial(click.option, "--submission", "-s", type=click.Path(path_type=Path), help="Folder laid out like exercises/ (default: as for run).")
SANDBOX = partial(click.option, "--sandbox", "sandbox_mode", type=click.Choice(["auto", "strict"]), show_default=True)
OUT = partial(click.option, "--out", "-o", type=click.Path(path_type=Path))
ZIP_OUT = partial(click.option, "--out", "-o", type=click.Path(dir_okay=False, path_type=Path))  # a file: an existing folder is refused
DIR_OUT = partial(click.option, "--out", "-o", type=click.Path(file_okay=False, path_type=Path))  # a folder: an existing file is refused
JSON = partial(click.option, "--json", "as_json", is_flag=True)
BATCH_OUT = click.argument("out", type=click.Path(file_okay=False, path_type=Path))  # a batch's output folder, which holds its journal
CSV_OUT = click.option("--out", "target", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The CSV to write.")  # an LMS import


def _ids(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    """--exercises' comma-separated ids (none: all)."""
    return tuple(i.strip() for i in value.split(",") if i.strip()) if value else ()


EXERCISES = click.option("--exercises", "exercise_list", callback=_ids, help="Comma-separated exercise ids (default: all).")

# Commands that need the TA's material (hidden checks, solutions): not offered in a student bundle.
TA_ONLY = ("batch", "check", "gradescope", "nbgrader", "release", "override", "mark", "rubric", "audit", "export", "reseed", "stats", "similarity")


class _Commands(click.Group):
    """`grade`'s commands; in a student bundle (no hidden checks) only those that work there."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in super().list_commands(ctx) if n not in TA_ONLY or _teaching()]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) if name not in TA_ONLY or _teaching() else None

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a failure of the grader's own (grader.errors) ends it as a GraderFailure, never a traceback."""
        try:
            return super().invoke(ctx)
        except GraderError as e:
            raise GraderFailure(e) from None


def _teaching() -> bool:
    return api.teaching(Path.cwd())


@click.group(cls=_Commands)
def main() -> None:
    """Autograder for the LSTM/GRU chapter: run the checks, see your status, pack your hand-in (TAs: grade a class)."""


@main.command("list", short_help="List the exercises with their points.")
def list_exercises() -> None:
    from grader.export.terminal import print_course

    print_course(Console(), api.course())


@main.command("run", short_help="Grade a submission on some or all exercises.")
@click.argument("exercise_ids", metavar="[EXERCISE]...", nargs=-1)
@SUBMISSION(help="Folder laid out like exercises/ (default: . if it looks like one, else ./exercises).")
@DEVICE
@JSON(help="Print exactly one JSON object (Gradescope's results.json shape).")
@click.option("--verbose", "-v", is_flag=True, help="Also print the submission path, device and sandbox protections.")
@SANDBOX(default="auto", help="strict: refuse to run unless every protection is active (see `grade doctor`).")
@STUDENT
def run(
    exercise_ids: tuple[str, ...], submission: Path | None, device: str | None, as_json: bool, verbose: bool, sandbox_mode: str, student: str | None
) -> None:
    """Grade EXERCISE... (all exercises when none is given). Exit 0 whenever grading ran, whatever the score; 1 when the
    grader itself failed (--json: extra_data.errors says why); 2 for a usage error (an unknown id, no submission)."""
    from grader.export import gradescope
    from grader.submissions.workspace import default_submission

    course = api.course()
    if not exercise_ids and submission is None:
        exercise_ids = api.exercises_here(course, Path.cwd())
    exercises = _selected(course, exercise_ids)
    submission = submission or default_submission(Path.cwd(), course)
    warm = _warm()
    try:
        _no_id_note(course, student, exercises)
        result = api.grade(
            course=course, exercises=exercises, submission=submission, device=device, strict=sandbox_mode == "strict", student=student, warm=warm
        )
    except GraderError as e:
        if not as_json or isinstance(e, SubmissionError):
            raise
        failed = GradeResult.of_failure(str(submission), exercises, _message(e), language=course.language)
        click.echo(gradescope.dumps(gradescope.to_dict(failed)))  # --json always prints one object
        sys.exit(e.exit_code)
    if as_json:
        click.echo(gradescope.dumps(gradescope.to_dict(result)))
    else:
        from grader.export.terminal import print_grade

        print_grade(Console(), result, verbose=verbose)
        if verbose:
            from grader.sandbox.doctor import summary

            Console().print(Text(summary(result.protections)))
    if warm is None and not course.has_hidden_checks:  # a student's: the next grade run here is answered warm
        from grader.warm.client import leave

        leave(course.root, _run_argv(exercises, submission, device, student) + ["--sandbox", sandbox_mode], Path.cwd())
    sys.exit(1 if result.internal_errors else 0)


@main.command("watch", short_help="Run grade run's checks again each time you save, in a process kept warm.")
@click.argument("exercise_ids", metavar="[EXERCISE]...", nargs=-1)
@SUBMISSION()
@DEVICE
@STUDENT
def watch(exercise_ids: tuple[str, ...], submission: Path | None, device: str | None, student: str | None) -> None:
    """Print what `grade run EXERCISE...` prints now, and again each time you save one of your files of EXERCISE (every
    exercise when none is given): one process keeps torch and the sandbox warm, so a check takes a fraction of a
    second. Ctrl-C ends it."""
    from grader.submissions.workspace import default_submission

    course = api.course()
    if not exercise_ids and submission is None:
        exercise_ids = api.exercises_here(course, Path.cwd())
    exercises = _selected(course, exercise_ids)
    submission = submission or default_submission(Path.cwd(), course)
    argv = _run_argv(exercises, submission, device, student)
    api.watch(course=course, exercises=exercises, submission=submission, argv=argv, command=main, report=lambda t: click.echo(t.render(course.language)))


def _run_argv(exercises: Sequence[Exercise], submission: Path, device: str | None, student: str | None) -> list[str]:
    """The arguments of the `grade run` that grades `exercises` of `submission`, each said, as the one just resolved."""
    return [
        "run",
        *(e.id for e in exercises),
        "--submission",
        str(submission),
        *(["--device", device] if device else []),
        *(["--student", student] if student else []),
    ]


def _warm() -> Warm | None:
    """The warm process running this command (grader.warm.server hands itself to click as `obj`), else None."""
    from grader.warm.server import Warm

    found = click.get_current_context().obj
    return found if isinstance(found, Warm) else None


@main.command("show", short_help="Print an exercise's numbers: yours with --student (or GRADE_STUDENT).")
@click.argument("exercise_id", metavar="EXERCISE")
@STUDENT
@JSON(help='Print one JSON object: {"exercise", "student", "variant", "params": {symbol: value}}.')
def show(exercise_id: str, student: str | None, as_json: bool) -> None:
    """The numbers EXERCISE's questions use for STUDENT (the statement's without an id, or when the course gives
    everyone the same); answer the statement's questions with them."""
    import json

    course = api.course()
    [exercise] = _selected(course, [exercise_id])
    variant = api.show(course=course, exercise=exercise, student=student)
    if as_json:
        doc = variant.as_dict() if variant else {"exercise": exercise.id, "student": None, "variant": None, "params": {}}
        click.echo(json.dumps(doc, ensure_ascii=False))
        return
    lang = course.language
    if variant is None or exercise.variant is None:  # api.show gives a variant only where the exercise declares one
        click.echo(
            Words(
                f"{exercise.id} has no numbers of a student's own: every student answers its statement as written",
                f"{exercise.id} 没有按学生出的数值：所有学生都按题面作答",
            ).render(lang)
        )
        return
    if variant.student is None:
        why = (
            Words("this course gives every student the statement's numbers", "本课程所有学生使用题面中的数值")
            if not course.variants.enabled
            else Words(
                "no student id (give --student ID or set GRADE_STUDENT): the statement's numbers",
                "没有学号（请用 --student ID 或设置 GRADE_STUDENT）：以下是题面中的数值",
            )
        )
        click.echo(why.render(lang))
    else:
        click.echo(
            Words(
                f"{exercise.id} for student {variant.student} (variant {variant.number}):",
                f"{exercise.id}，学生 {variant.student}（第 {variant.number} 套数值）：",
            ).render(lang)
        )
    for p in exercise.variant.parameters:
        click.echo(f"  {p.name} = {variant.params[p.name]}    {p.what.render(lang)}")
    click.echo(
        Words(
            f"Answer the questions of exercises/{exercise.folder}/README.md with these numbers.",
            f"请用这些数值回答 exercises/{exercise.folder}/README.md 中的问题。",
        ).render(lang)
    )


def _no_id_note(course: Course, student: str | None, exercises: Sequence[Exercise]) -> None:
    """On stderr: graded on the statement's numbers, when the course gives students their own and no id was given."""
    if course.variants.enabled and not student and any(e.variant is not None for e in exercises):
        click.echo(
            Words(
                "note: no student id (--student ID or GRADE_STUDENT): the numeric questions are graded on the statement's numbers, not yours",
                "注意：没有学号（--student ID 或 GRADE_STUDENT）：数值题按题面中的数值评分，而不是你的数值",
            ).render(course.language),
            err=True,
        )


@main.command("status", short_help="List every exercise: not started, in progress, or public checks pass.")
@SUBMISSION()
def status(submission: Path | None) -> None:
    """Run the public checks of every exercise you have started and say where each one stands."""
    from grader.submissions.workspace import default_submission

    course = api.course()
    submission = submission or default_submission(Path.cwd(), course)
    console = Console()
    for exercise, state in api.status(course=course, submission=submission):
        style = {"public checks pass": "green", "in progress": "yellow"}.get(state, "dim")
        console.print(Text.assemble(f"{exercise.id}  {exercise.folder:<24} ", (api.STATES[state].render(course.language), style)))


@main.command("pack", short_help="Zip the files you edit for hand-in.")
@ZIP_OUT(default=Path("handin.zip"), show_default=True, help="The zip to write.")
@SUBMISSION()
@STUDENT
def pack(out: Path, submission: Path | None, student: str | None) -> None:
    """Pack exactly the files students edit, in their folders; refuse (naming the file) what grading would refuse.
    With --student (or GRADE_STUDENT) the zip records your id, whose numbers you answered."""
    from grader.submissions.workspace import default_submission

    course = api.course()
    submission = submission or default_submission(Path.cwd(), course)
    names = api.pack(course=course, submission=submission, out=out, student=student)
    for name in names:
        click.echo(f"  {name}")
    click.echo(Words(f"packed {len(names)} files into {out}", f"已将 {len(names)} 个文件打包到 {out}").render(course.language))


@main.command("release", short_help="Write the student bundle (no solutions, no hidden checks).")
@OUT(required=True, help="A new folder for the bundle.")
def release(out: Path) -> None:
    """Statements, stubs, public checks, the engine, course.toml and a student README: installable on its own."""
    files = api.release(course=api.course(), out=out)
    click.echo(
        f"wrote {len(files)} files to {out}; next, hand it to students as one of: a zip (cd {out} && zip -r ../bundle.zip .), "
        "uploaded to the LMS; or a repository of its own (git init there, commit, push); its README tells students "
        "to install it (pip install torch==2.13.0 -e .), run grade run and hand in with grade pack"
    )


@main.group("gradescope", short_help="Gradescope: build the autograder zip to upload.")
def gradescope_commands() -> None:
    """Gradescope's autograder: setup.sh, run_autograder and this course, in one zip."""


@gradescope_commands.command("export", short_help="Write the autograder zip for a Gradescope programming assignment.")
@ZIP_OUT(default=Path("autograder.zip"), show_default=True, help="The zip to write.")
@click.option(
    "--extensions",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="CSV student,exercise,due (as grade batch takes it): those students' own due dates. Gradescope "
    "does not tell the autograder about extensions; export again (and regrade) when one is granted.",
)
def gradescope_export(out: Path, extensions: Path | None) -> None:
    """Write OUT: it installs the grader on Gradescope and grades each upload (a zip from grade pack, a folder or loose files)."""
    from grader.integrations.gradescope.bundle import manual_questions

    course = api.course()
    names = api.autograder(course=course, out=out, extensions=extensions)
    click.echo(f"wrote {len(names)} files into {out}; upload it as the autograder of a Gradescope programming assignment")
    questions = manual_questions(course)
    if questions:
        auto = sum(e.checked_points for e in course.exercises)
        click.echo(
            f"the autograder is worth {auto:g} points; the written answers are Gradescope manual questions: in the assignment's "
            "Edit Outline, add one per answer below (its points and rubric items), and grade them in Gradescope:"
        )
        for line in questions:
            click.echo(f"  {line}")


@main.group("nbgrader", short_help="nbgrader: export the course as an nbgrader course.")
def nbgrader_commands() -> None:
    """nbgrader: source notebooks whose autograder cells grade with this course's checks."""


@nbgrader_commands.command("export", short_help="Write nbgrader_config.py and source/<id>/<id>.ipynb for every exercise.")
@click.option("--course-dir", "-c", type=click.Path(file_okay=False, path_type=Path), required=True, help="The nbgrader course folder (created if absent).")
def nbgrader_export(course_dir: Path) -> None:
    """Write the nbgrader course: then `nbgrader generate_assignment <id>` there gives the student notebooks."""
    files = api.nbgrader_export(course=api.course(), course_dir=course_dir)
    click.echo(f"wrote {len(files)} files to {course_dir}; next, there: nbgrader generate_assignment <id>")


@main.command("batch", short_help="Grade a whole class: one folder or .zip per student.")
@click.argument("submissions", type=click.Path(path_type=Path))
@DIR_OUT(required=True, help="Folder for grades.csv, reports/, feedback/, summary and the journal (a rerun resumes).")
@click.option("--workers", "-w", type=click.IntRange(1, 256), help="Students graded at once (default: the number of CPUs).")
@EXERCISES
@DEVICE
@SANDBOX(
    default="strict",
    help="strict: refuse to run unless every protection is active; auto: grade with what this machine offers, said on stderr and in the summary.",
)
@click.option("--scheduler", help="Address of a Dask scheduler: grade on that cluster instead of local processes (refused unless student code has no network).")
@click.option("--student", help="Regrade this student only (the others keep their journal rows).")
@click.option(
    "--nbgrader-db", type=click.Path(dir_okay=False, path_type=Path), help="Also write every student's scores into this nbgrader gradebook (created if absent)."
)
@click.option(
    "--submitted-at",
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV student,submitted_at (ISO 8601 with offset): hand-in times, before nbgrader's timestamp.txt.",
)
@click.option("--extensions", type=click.Path(dir_okay=False, path_type=Path), help="CSV student,exercise,due (exercise * for all): a student's own due dates.")
def batch(
    submissions: Path,
    out: Path,
    workers: int | None,
    exercise_list: tuple[str, ...],
    device: str | None,
    sandbox_mode: str,
    scheduler: str | None,
    student: str | None,
    nbgrader_db: Path | None,
    submitted_at: Path | None,
    extensions: Path | None,
) -> None:
    """Grade every student in SUBMISSIONS whose submission or the course changed since the last run into OUT. Exit 0
    whenever each student was graded, whatever the scores; 1 when the grader itself failed for some student (their row
    says so; the next run grades them again); 2 for a usage error or a malformed --submitted-at or --extensions file."""
    course = api.course()
    exercises = _selected(course, exercise_list)
    console = Console(stderr=True)
    with _progress(console) as report:
        result = api.batch(
            course=course,
            exercises=exercises,
            submissions=submissions,
            out=out,
            workers=workers,
            device=device,
            strict=sandbox_mode == "strict",
            scheduler=scheduler,
            student=student,
            progress=report,
            nbgrader_db=nbgrader_db,
            submitted_at=submitted_at,
            extensions=extensions,
        )
    statuses = [r.status for r in result.rows]
    if result.missing:
        console.print(Text(f"sandbox degraded (--sandbox auto), without: {', '.join(result.missing)}"))
    for problem in result.problems:  # one line each, however narrow the terminal: a TA greps them
        console.print(Text(f"warning: {problem}"), soft_wrap=True)
    if result.flags.get("no_submission_time"):
        console.print(Text(f"no submission time (graded without late penalty): {', '.join(result.flags['no_submission_time'])}"))
    kept = [c for c in result.changes if c.cause == "regrade under override"]
    if kept:
        console.print(Text("raw points changed under an override, which stays: " + ", ".join(f"{c.student} {c.exercise} {c.old:g} -> {c.new:g}" for c in kept)))
    waiting = Counter(e.id for r in result.rows for e in r.result.exercises if e.written is not None and e.written.counted and e.written.state == "to mark")
    if waiting:
        each = ", ".join(f"{e} {n}" for e, n in sorted(waiting.items()))
        console.print(Text(f"written answers to mark ({each}; 0 points until marked): grade rubric {out} EXERCISE, then grade mark"))
    changed = len({c.student for c in result.changes})
    if changed:
        console.print(Text(f"final points changed for {changed} student{'s' * (changed != 1)}: see {out / 'changes.md'} and changes.csv"))
    console.print(
        Text(
            f"{len(result.rows)} students: {result.graded} graded, {result.skipped} unchanged; "
            f"{statuses.count(Status.UNREADABLE)} could not be read, {statuses.count(Status.INTERNAL_ERROR)} grader errors; "
            f"{len(result.flags.get('late', []))} late, {len(result.flags.get('overridden', []))} overridden; "
            f"{result.seconds:.1f} s; outputs in {out}"
        )
    )
    sys.exit(1 if Status.INTERNAL_ERROR in statuses else 0)


@main.command("reseed", short_help="Give one student new numbers (audited), and regrade that student alone.")
@click.argument("out", type=click.Path(path_type=Path))
@click.argument("student")
@click.option("--reason", required=True, help="Why: recorded in OUT's journal with the time.")
@click.option(
    "--submissions", type=click.Path(path_type=Path), help="The class folder graded into OUT: regrade STUDENT there now (else the next grade batch does)."
)
@SANDBOX(default="strict", help="As for grade batch.")
def reseed(out: Path, student: str, reason: str, submissions: Path | None, sandbox_mode: str) -> None:
    """STUDENT gets the next variant number in course.toml's [variants.reseed] (hand the updated course file out, so
    that their `grade show` prints the new numbers); nobody else's numbers or grades change."""
    course = api.course()
    number, result = api.reseed(course=course, out=out, student=student, reason=reason, submissions=submissions, strict=sandbox_mode == "strict")
    click.echo(f"{student}: variant {number}, recorded in {course.root / 'course.toml'} [variants.reseed] and in {out}'s journal")
    if result is not None:
        row = next(r for r in result.rows if r.student == student)
        click.echo(f"regraded {student}: {round(row.result.score, 4):g}/{row.result.max_score:g}")
    else:
        click.echo(f"run grade batch SUBMISSIONS --out {out}: it regrades {student} alone")


def _progress(console: Console) -> AbstractContextManager[Report]:
    """A rich progress bar (counts and ETA) on a terminal; one line per finished student otherwise."""
    import contextlib

    if not console.is_terminal:

        def line(row: StudentRow, done: int, total: int) -> None:
            result = row.result
            console.print(Text(f"[{done}/{total}] {row.student}: {round(result.score, 4):g}/{result.max_score:g} ({row.status})"))

        return contextlib.nullcontext(line)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    @contextlib.contextmanager
    def bar() -> Iterator[Report]:
        columns = (
            TextColumn("grading"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.description}", markup=False),  # a student's id, shown as its characters: never rich markup
        )
        with Progress(*columns, console=console, auto_refresh=False) as progress:  # drawn as each student finishes, not 10 times a second
            task = progress.add_task("", total=None)

            def update(row: StudentRow, done: int, total: int) -> None:
                progress.update(task, completed=done, total=total, description=row.student, refresh=True)

            yield update

    return bar()


# -- a term's gradebook: overrides, the audit trail, LMS exports (grader.term) ------------------------------------


@main.command("override", short_help="Set (or --clear) the final points of one student's exercise, with a reason.")
@BATCH_OUT
@click.argument("student")
@click.argument("exercise")
@click.argument("points", type=float, required=False)
@click.option("--reason", "-r", required=True, help='Why; the student\'s feedback shows it ("adjusted by the course staff: ...").')
@click.option("--by", help="Who decided (default: your login name).")
@click.option("--clear", is_flag=True, help="Remove the override: the graded points (and any late penalty) count again.")
def override(out: Path, student: str, exercise: str, points: float | None, reason: str, by: str | None, clear: bool) -> None:
    """Override EXERCISE's final points of STUDENT in the batch OUT; the next `grade batch ... --out OUT` publishes it."""
    if clear == (points is not None):
        raise click.UsageError("give POINTS, or --clear without POINTS")
    old, new = api.override(out=out, student=student, exercise=exercise, points=points, reason=reason, by=by)
    shown = "none" if old is None else f"{old:.15g}"
    done = f"{student} {exercise}: override cleared (was {shown})" if new is None else f"{student} {exercise}: {shown} -> {new:.15g}"
    click.echo(f"{done}; on record in {out / 'journal.sqlite'}. Rerun grade batch with --out {out} to publish it (no one is regraded).")


@main.command("mark", short_help="Mark one student's written answer with rubric items and comments (audited), or --serve a page to mark on.")
@BATCH_OUT
@click.argument("student", required=False)
@click.argument("exercise", required=False)
@click.option("--item", "-i", "items", multiple=True, help="A rubric item that applies (repeat for each; the mark is the items given, not added to).")
@click.option(
    "--comment", "-c", "comments", multiple=True, help="A comment id of the rubric, or words of your own (with a space); the student reads it. Repeatable."
)
@click.option("--by", help="Who marked (default: your login name).")
@click.option("--clear", is_flag=True, help="Remove the mark: the written answer is to mark again.")
@click.option("--serve", is_flag=True, help="Serve a page on 127.0.0.1 to read each answer beside its rubric and mark it (Ctrl-C stops it).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="With --serve: the port (default: any free one).")
def mark(
    out: Path,
    student: str | None,
    exercise: str | None,
    items: tuple[str, ...],
    comments: tuple[str, ...],
    by: str | None,
    clear: bool,
    serve: bool,
    port: int,
) -> None:
    """Mark STUDENT's written answer to EXERCISE in the batch OUT against the exercise's rubric.toml: the points are
    those of the items given (kept within 0 and the rubric's points). Marking again with the same items and comments
    changes nothing; the next `grade batch ... --out OUT` publishes a change into every export. With --serve (and no
    STUDENT or EXERCISE), a local page does the same for one answer after another."""
    course = api.course()
    if serve:
        if student or exercise or items or comments or clear:
            raise click.UsageError("--serve takes OUT alone (and --by, --port): the page chooses the student and the items")
        _serve(course, out, port, by)
        return
    if student is None or exercise is None:
        raise click.UsageError("give OUT STUDENT EXERCISE (or OUT --serve)")
    if clear == bool(items or comments):
        raise click.UsageError("give --item (and any --comment), or --clear alone")
    old, new, changed = api.mark(course=course, out=out, student=student, exercise=exercise, items=list(items), comments=list(comments), by=by, clear=clear)
    if not changed:
        click.echo(f"{student} {exercise}: already marked so ({_marked(new)} points); nothing changed")
        return
    click.echo(
        f"{student} {exercise}: written answer {_marked(old)} -> {_marked(new)}; on record in {out / 'journal.sqlite'}. "
        f"Rerun grade batch with --out {out} to publish it (no one is regraded)."
    )


def _serve(course: Course, out: Path, port: int, by: str | None) -> None:
    """The marking page until Ctrl-C."""

    def ready(address: str) -> None:
        click.echo(
            f"marking page on {address} (this machine only, and only with its key: keep the address to yourself; Ctrl-C stops "
            f"it). Marks land in {out / 'journal.sqlite'}, audited; grade batch publishes them."
        )

    api.rubric_ready(out=out)
    try:
        server = api.serve_marking(course=course, out=out, port=port, by=by, ready=ready)
    except OSError as e:
        raise click.UsageError(f"--port {port}: {e.strerror}; choose another (0: any free one)") from None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _marked(points: float | None) -> str:
    return "unmarked" if points is None else f"{points:.15g}"


@main.command("rubric", short_help="Show an exercise's rubric and who has what: to mark, marked, items, points.")
@BATCH_OUT
@click.argument("exercise")
@click.option("--student", help="Print this student's written answer, and their mark, to read before marking.")
@JSON(help="Print the rubric and every student's answer, mark and points as one JSON object.")
def rubric(out: Path, exercise: str, student: str | None, as_json: bool) -> None:
    """EXERCISE's rubric.toml with the students of the batch OUT who have each item, then each student's written answer:
    to mark, marked (points as the rubric is now) or no answer. After an edit of rubric.toml, each student whose points
    it changes is listed with the points OUT shows; the next `grade batch ... --out OUT` publishes them, audited."""
    from grader.export import marking

    course = api.course()
    found, standings = api.rubric(course=course, out=out, exercise=exercise)
    if student is not None:
        mine = [s for s in standings if s.student == student]
        if not mine:
            raise click.UsageError(f"no student {student} graded on {exercise} in {out}")
        click.echo(marking.answer(found, mine[0], course.language), nl=False)
    elif as_json:
        click.echo(marking.to_json(found, standings))
    else:
        click.echo(marking.to_table(found, standings, course.language), nl=False)


@main.command("audit", short_help="Print the audit trail of OUT: every override, clearing and regrade that changed a score.")
@BATCH_OUT
@click.option("--student", help="This student's history only.")
@JSON(help="Print one JSON array of the rows, every field as the journal keeps it.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV (n, at, actor, cause, student, exercise, old, new, reason, hashes).")
def audit_trail(out: Path, student: str | None, as_json: bool, as_csv: bool) -> None:
    """Every change of a score in the batch OUT, oldest first, as a table: time, actor, cause, student, exercise,
    old -> new, the course's and the submission's hash, reason."""
    from grader.export import audit

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    entries = api.audit(out=out, student=student)
    if as_json or as_csv:
        click.echo(audit.to_json(entries) if as_json else audit.to_csv(entries), nl=as_json)
    elif entries:
        click.echo(audit.to_table(entries), nl=False)
    else:
        click.echo("no score has changed" + (f" for {student}" if student else "") + " yet")


class _LMSCommands(click.Group):
    """`grade export`'s commands: one per LMS of grader.export.LMS_FILES, with that LMS's own options."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(LMS_FILES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return _lms_command(name, LMS_FILES[name]()) if name in LMS_FILES else None


@main.group("export", cls=_LMSCommands, short_help="Final points as an LMS imports them: " + ", ".join(n.title() for n in sorted(LMS_FILES)) + ".")
def export_commands() -> None:
    """Write OUT's final points (the last grade batch's) in an LMS's import format; nothing is written half-way."""


def _lms_command(name: str, lms: LMS) -> click.Command:
    """`grade export NAME OUT --out FILE` and the LMS's own options, each as its `Option` says."""

    def export(out: Path, target: Path, **options: object) -> None:
        written = api.export_lms(lms=name, course=api.course(), out=out, target=target, **options)
        click.echo(f"wrote {written} students to {target}")
        _to_mark_warning(out)

    for option in reversed(lms.OPTIONS):
        export = _lms_option(option)(export)
    return click.command(name, help=lms.HELP, short_help=lms.SHORT_HELP)(BATCH_OUT(CSV_OUT(export)))


def _lms_option(option: Option) -> Callable[[Callable[..., None]], Callable[..., None]]:
    if option.kind == "switch":
        return click.option(option.flag, is_flag=True, help=option.help)
    if option.kind == "choice":
        return click.option(option.flag, type=click.Choice(option.choices), default=option.choices[0], show_default=True, help=option.help)
    kind = click.Path(dir_okay=False, path_type=Path) if option.kind == "file" else None
    return click.option(option.flag, type=kind, required=option.required, help=option.help)


def _to_mark_warning(out: Path) -> None:
    """On stderr, after an LMS export: the written answers whose points the file counts 0 because they are unmarked."""
    waiting = api.to_mark(out=out)
    if waiting:
        shown = ", ".join(waiting[:8]) + (f" and {len(waiting) - 8} more" if len(waiting) > 8 else "")
        click.echo(
            f"warning: {len(waiting)} written answer{'s' * (len(waiting) != 1)} still to mark count 0 in this file: {shown} (grade rubric OUT EXERCISE)",
            err=True,
        )


@main.command("doctor", short_help="Show which sandbox protections are active on this machine.")
def doctor() -> None:
    """List each protection of the student processes, active or not, and why not."""
    console = Console()
    course = api.course()
    for p in api.protections(course=course):
        mark = "[green]on [/green]" if p.active else "[red]off[/red]"
        console.print(f"{mark} {p.name}: {p.note}", markup=True, highlight=False)


@main.command("check", short_help="Self-check: references score full marks, stubs score zero.")
@DEVICE
def check(device: str | None) -> None:
    """Grade solutions/ and exercises/ and report any exercise whose checks disagree with them."""
    course = api.course()
    (references, stubs), problems = api.self_check(course=course, device=device)
    console = Console()
    for name, result in (("references (solutions/)", references), ("stubs (exercises/)", stubs)):
        console.print(f"{name}: {result.score:g}/{result.max_score:g} points")
    for problem in problems:
        console.print(Text.assemble(("problem: ", "red"), problem))
    if problems:
        sys.exit(1)
    console.print("[green]all references full marks, all stubs zero[/green]")


# --- what the class did: grade stats, grade similarity (report.html is written by grade batch) ----------------------


@main.command("stats", short_help="Which checks to look at and what the class got wrong, from a batch's output.")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--exercise", "-e", help="Only this exercise's checks and mistakes (an id, such as ex05).")
@JSON(help='Print summary.json\'s "checks" and "mistakes" as one JSON object.')
def stats(out: Path, exercise: str | None, as_json: bool) -> None:
    """Per check of the class graded into OUT: pass rate, discrimination, top and bottom 27 %, flags; then every
    named mistake with how many students made it. In the course's language."""
    import json

    from grader.export.terminal import print_analysis

    course = api.course()
    analysis = api.stats(out=out, exercise=exercise, course=course)
    if as_json:
        click.echo(json.dumps(analysis.to_dict(), ensure_ascii=False, indent=2))
    else:
        print_analysis(Console(), analysis, course.language)


@main.command("similarity", short_help="Which students' code or wrong answers are alike: pairs to look at.")
@click.argument("submissions", type=click.Path(path_type=Path))
@OUT(required=True, help="Folder for similarity.csv, shared_answers.csv and similarity.html.")
@EXERCISES
@click.option(
    "--threshold",
    "-t",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="Pairs this similar or more are shown side by side in similarity.html.",
)
@click.option(
    "--past", "past", type=click.Path(path_type=Path), multiple=True, help="An earlier term's submissions, compared with this class as references (repeatable)."
)
def similarity(submissions: Path, out: Path, exercise_list: tuple[str, ...], threshold: float, past: tuple[Path, ...]) -> None:
    """Compare every pair of students in SUBMISSIONS (the entries grade batch takes): code by winnowed fingerprints of
    its text and of its syntax tree, the stub and the course's given code left out; answer sheets by shared wrong
    answers. Prints the ten most similar, and the files not read or compared in part."""
    course = api.course()
    exercises = _selected(course, exercise_list)
    from grader import similarity as alike

    result = api.similarity(course=course, exercises=exercises, submissions=submissions, out=out, past=past, threshold=threshold)
    for line in alike.printed(result, language=course.language):
        click.echo(line)
    above = sum(p.similarity >= threshold for p in result.pairs)
    click.echo(
        Words(
            f"{result.students} students, {above} pairs at or above {threshold:g}, {len(result.shared)} sharing "
            f"wrong answers, {len(result.unread)} files or entries not read, {len(result.notes)} files compared in part; "
            f"outputs in {out}",
            f"{result.students} 名学生，{above} 对相似度不低于 {threshold:g}，{len(result.shared)} 对有相同错误答案，"
            f"{len(result.unread)} 个文件或提交无法读取，{len(result.notes)} 个文件只比较了一部分；输出在 {out}",
        ).render(course.language),
        err=True,
    )


def _message(error: GraderError) -> str:
    from grader.errors import IsolationUnavailable, SandboxError

    if isinstance(error, SandboxError) and not isinstance(error, IsolationUnavailable):
        return f"internal failure: {error}"
    return str(error)


def _selected(course: Course, exercise_ids: Sequence[str]) -> list[Exercise]:
    """The exercises named (all of them for none), as api.select gives them; an unknown id is the one usage error
    that names the valid ones."""
    try:
        return api.select(course, tuple(exercise_ids))
    except KeyError as e:
        raise click.UsageError(f"unknown exercise {e.args[0]}; valid ids: {', '.join(course.ids)}") from None


class GraderFailure(click.ClickException):
    """The one way a failure of the grader reaches the terminal (every command's, through `_Commands.invoke`): its
    message, and the exit code grader.errors gives it (2 for a usage error, such as a path that is no submission, 1
    for the rest)."""

    def __init__(self, error: GraderError) -> None:
        super().__init__(_message(error))
        self.exit_code = error.exit_code  # type: ignore[misc]  # click reads the instance's (its own is a ClassVar)


if __name__ == "__main__":
    main()
