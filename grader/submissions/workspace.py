"""Find a submission and copy the files students edit into a private workspace.

Checks and student processes only ever see the workspace: the submission's own tests, extra files,
symlinks and anything outside the exercise folders stay behind. A notebook handed in for an
exercise (see `notebook.py`) gives the same workspace: its cells become the exercise's files.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import SubmissionError
from grader.submissions import bounded, notebook

# Largest student file accepted (a notebook's cells built into one file too; each cell no larger).
HANDIN_FILE_BYTES = 1 << 20


@dataclass
class Workspace:
    """Copies of a submission's student files, one folder per exercise, plus what was wrong with them."""

    root: Path
    problems: dict[str, str] = field(default_factory=dict)  # "ex05/gated.py" -> why it was not copied
    absent: set[str] = field(default_factory=set)  # ids of exercises whose folder the submission lacks

    def folder(self, exercise: Exercise) -> Path:
        return self.root / exercise.folder

    def problem(self, exercise: Exercise, name: str) -> str | None:
        return self.problems.get(f"{exercise.id}/{name}")

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def looks_like_submission(path: Path, course: Course) -> bool:
    """A submission is a folder holding at least one exercise folder or exercise notebook."""
    return any((path / e.folder).is_dir() or notebook.find(path, e) for e in course.exercises)


def default_submission(cwd: Path, course: Course) -> Path:
    """The current directory when it looks like a submission (or the one above, from inside an
    exercise folder), else its `exercises/`."""
    if looks_like_submission(cwd, course):
        return cwd
    if any(cwd.name == e.folder for e in course.exercises):
        return cwd.parent
    return cwd / "exercises"


def load_submission(path: Path, exercises: list[Exercise], *, parsed: bool = True) -> Workspace:
    """Copy each exercise's student files from `path` into a new workspace; with `parsed`, each .py file checked to
    parse at a bounded cost (grading imports it), without it read as text alone (`grade similarity` bounds its own
    parse of each file's first part: parsing a whole 1 MiB file here would cost it more than the comparing)."""
    if not path.is_dir():
        raise SubmissionError(f"{path}: not a folder; a submission is a folder laid out like exercises/")
    workspace = Workspace(root=Path(tempfile.mkdtemp(prefix="grade-workspace-")))
    try:
        _fill(workspace, path, exercises, parsed=parsed)
    except BaseException:
        workspace.remove()
        raise
    return workspace


def _fill(workspace: Workspace, path: Path, exercises: list[Exercise], *, parsed: bool) -> None:
    for exercise in exercises:
        notebooks = notebook.find(path, exercise)
        if not notebooks and not (path / exercise.folder).exists() and not (path / exercise.folder).is_symlink():
            workspace.absent.add(exercise.id)
            continue
        dest = workspace.folder(exercise)
        dest.mkdir()
        if notebooks:  # a notebook, where one is handed in, is the exercise's work
            problems = _from_notebook(notebooks, exercise, dest, inside=path, parsed=parsed)
            workspace.problems.update({f"{exercise.id}/{name}": why for name, why in problems.items()})
            continue
        for name in exercise.student_files:
            if name not in exercise.code_files and not (path / exercise.folder / name).exists():
                continue  # a written answer left out is one to mark as unanswered, not a file grading misses
            problem = _copy(path / exercise.folder / name, dest / name, inside=path, shown=f"{exercise.folder}/{name}", parsed=parsed)
            if problem:
                workspace.problems[f"{exercise.id}/{name}"] = problem


def _from_notebook(notebooks: list[Path], exercise: Exercise, dest: Path, *, inside: Path, parsed: bool) -> dict[str, str]:
    """Write the exercise's files from its notebook into `dest`; return why any could not be written, by file name."""
    shown = [str(p.relative_to(inside)) for p in notebooks]
    if len(notebooks) > 1:
        return {name: f"{' and '.join(shown)} are both notebooks for {exercise.id}; hand in one" for name in exercise.student_files}
    data, problem = _read(notebooks[0], inside=inside, shown=shown[0], limit=notebook.NOTEBOOK_BYTES)
    if problem:
        return {name: problem for name in exercise.student_files}
    files, problems = notebook.student_files(data, exercise, shown[0], limit=HANDIN_FILE_BYTES)
    for name, content in files.items():
        problem = _python_problem(name, content, f"{name} (built from {shown[0]})") if parsed else None
        if problem:
            problems[name] = problem
        else:
            (dest / name).write_bytes(content)
    return problems


def _copy(src: Path, dest: Path, *, inside: Path, shown: str, parsed: bool) -> str | None:
    """Copy one student file; return why it was refused (naming it as `shown`, relative to the submission), or None."""
    data, problem = _read(src, inside=inside, shown=shown, limit=HANDIN_FILE_BYTES)
    problem = problem or (_python_problem(src.name, data, shown) if parsed else None)
    if problem is None:
        dest.write_bytes(data)
    return problem


def _python_problem(name: str, source: bytes, shown: str) -> str | None:
    """Why a .py file cannot be read as Python at a bounded cost, or None; checks and imports then parse it again.

    A syntax error is not a problem here: the file is copied, and its import reports it with the line.
    """
    if not name.endswith(".py"):
        return None
    try:
        why = bounded.run(_unparsable, source, size=len(source))
    except bounded.TooCostly as e:
        why = str(e)
    return f"{shown} cannot be read as Python: {why}; simplify it" if why else None


def _unparsable(source: bytes) -> str | None:
    """Why parsing or compiling `source` (never running it) fails other than with a syntax error, else None."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a SyntaxWarning is the submission's business, never the grader's stderr
            ast.parse(source)
            compile(source, "<submission>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):  # null bytes, bad encodings: the import says so, with the line
        return None
    except RecursionError:
        return "it is nested too deeply (RecursionError)"
    except MemoryError:
        return "parsing it runs out of memory"
    return None


def _read(src: Path, *, inside: Path, shown: str, limit: int) -> tuple[bytes, str | None]:
    """One handed-in file's bytes, or why it was refused (naming it as `shown`, relative to the submission)."""
    if src.is_symlink() or src.parent.is_symlink():
        return b"", f"{shown} is (or is in) a symbolic link; submit the file itself"
    if not src.resolve().is_relative_to(inside.resolve()):
        return b"", f"{shown} lies outside the submission folder"
    if not src.exists():
        return b"", f"{shown} is missing from the submission"
    if not src.is_file():
        return b"", f"{shown} is not a regular file"
    try:
        with open(src, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        return b"", f"{shown} could not be read: {e.strerror}"
    if len(data) > limit:
        return b"", f"{shown} is {src.stat().st_size} bytes; the limit is {limit} bytes"
    return data, None
