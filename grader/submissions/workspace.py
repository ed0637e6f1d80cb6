"""Find a submission and copy the files students edit into a private workspace.

Checks and student processes only ever see the workspace: the submission's own tests, extra files,
symlinks and anything outside the exercise folders stay behind. (A zip or notebook loader will
produce the same workspace.)
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import SubmissionError

# Largest student file accepted.
FILE_BYTES = 1 << 20


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
    """A submission is a folder holding at least one exercise folder."""
    return any((path / e.folder).is_dir() for e in course.exercises)


def default_submission(cwd: Path, course: Course) -> Path:
    """The current directory when it looks like a submission (or the one above, from inside an
    exercise folder), else its `exercises/`."""
    if looks_like_submission(cwd, course):
        return cwd
    if any(cwd.name == e.folder for e in course.exercises):
        return cwd.parent
    return cwd / "exercises"


def load_submission(path: Path, exercises: list[Exercise]) -> Workspace:
    """Copy each exercise's student files from `path` into a new workspace."""
    if not path.is_dir():
        raise SubmissionError(f"{path}: not a folder; a submission is a folder laid out like exercises/")
    workspace = Workspace(root=Path(tempfile.mkdtemp(prefix="grade-workspace-")))
    try:
        _fill(workspace, path, exercises)
    except BaseException:
        workspace.remove()
        raise
    return workspace


def _fill(workspace: Workspace, path: Path, exercises: list[Exercise]) -> None:
    for exercise in exercises:
        if not (path / exercise.folder).exists() and not (path / exercise.folder).is_symlink():
            workspace.absent.add(exercise.id)
            continue
        dest = workspace.folder(exercise)
        dest.mkdir()
        for name in exercise.student_files:
            problem = _copy(path / exercise.folder / name, dest / name, inside=path, shown=f"{exercise.folder}/{name}")
            if problem:
                workspace.problems[f"{exercise.id}/{name}"] = problem


def _copy(src: Path, dest: Path, *, inside: Path, shown: str) -> str | None:
    """Copy one student file; return why it was refused (naming it as `shown`, relative to the submission), or None."""
    if src.is_symlink() or src.parent.is_symlink():
        return f"{shown} is (or is in) a symbolic link; submit the file itself"
    if not src.resolve().is_relative_to(inside.resolve()):
        return f"{shown} lies outside the submission folder"
    if not src.exists():
        return f"{shown} is missing from the submission"
    if not src.is_file():
        return f"{shown} is not a regular file"
    try:
        size = src.stat().st_size
        if size > FILE_BYTES:
            return f"{shown} is {size} bytes; the limit is {FILE_BYTES} bytes"
        shutil.copyfile(src, dest)
    except OSError as e:
        return f"{shown} could not be read: {e.strerror}"
    return None
