"""Every error of the grader itself (never a student's grade), and the exit code `grade` gives it.

A student's mistake is a `Fail` (grader.failures): points lost, grading goes on. These are
problems with the course, the command line, the machine or the grader's own code.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

# Exit codes of `grade`: 0 whenever grading ran, whatever the score.
GRADER_FAILED = 1
USAGE = 2


class GraderError(Exception):
    """Base of the grader's own failures; `exit_code` is what `grade` exits with."""

    exit_code = GRADER_FAILED


class CourseError(GraderError, ValueError):
    """`course.toml` is missing, malformed or inconsistent; the message names the key."""


def course_file(path: Path, where: str) -> dict[str, object]:
    """A TOML file of the course (an exercise's variant.toml or rubric.toml); CourseError naming `where` if unreadable."""
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise CourseError(f"{where}: not valid TOML: {e}") from None


def no_unknown(table: Mapping[str, object], known: set[str], where: str) -> None:
    """CourseError naming the keys of a course file's table that the grader does not know."""
    unknown = sorted(set(table) - known)
    if unknown:
        raise CourseError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


class SubmissionError(GraderError, ValueError):
    """The path given is not a submission at all (a usage error, not a grade)."""

    exit_code = USAGE


class DeviceError(GraderError):
    """The requested device cannot be used here."""


class SandboxError(GraderError):
    """The grader could not start or talk to its own student-process server (not the student's fault)."""


class IsolationUnavailable(SandboxError):
    """Strict mode was asked for, but this machine cannot isolate student processes fully."""


class ClusterError(GraderError):
    """The Dask cluster named by --scheduler could not be reached or told of the batch: a usage error (the address, or
    the workers' install), the message says which."""

    exit_code = USAGE


class CheckBug(GraderError):
    """A check (or the course code it injects) is wrong: the check is an internal error, never the student's 0."""


class MissingExtra(GraderError):
    """A TA feature whose packages are not installed: the message says which extra brings them."""

    exit_code = USAGE

    def __init__(self, feature: str, module: str):
        super().__init__(
            f"{feature} needs {module}, which the TA's install brings: pip install 'gated-rnn-grader[ta]' (in this repository: pip install -e '.[ta]')"
        )


def need(module: str, feature: str) -> ModuleType:
    """Import `module` for `feature`, or raise MissingExtra saying what to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(feature, module) from None


class OutputError(GraderError, ValueError):
    """A folder named for outputs is not what it should be: no batch's output (`grade stats OUT`), no exercise asked
    of it, or not writable (`grade similarity --out`). A usage error."""

    exit_code = USAGE
