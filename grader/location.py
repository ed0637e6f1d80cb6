"""Where the course is: the one search that both `grader.course` and the `grade` entry point use, standard library
only, so that `grade run` can find its course folder's warm process before it imports anything heavy."""

from __future__ import annotations

from pathlib import Path

from grader.inside.layout import COURSE_FILE


def beside_grader() -> Path:
    """The folder holding the grader package: a student bundle's own folder where the bundle is installed with -e."""
    return Path(__file__).resolve().parent.parent


def course_folder(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding course.toml, else the one beside the grader package (a bundle
    run from elsewhere), else None."""
    for folder in (start, *start.parents):
        if (folder / COURSE_FILE).is_file():
            return folder
    beside = beside_grader()
    return beside if (beside / COURSE_FILE).is_file() else None
