"""Before a batch grades anyone: whether this machine's sandbox may grade the class, and whether, without a private
file-system view, the class's files are exposed to the student processes' users."""

from __future__ import annotations

import os
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import IsolationUnavailable
from grader.inside.isolation import NO_NETWORK, PRIVATE_VIEW, Protection
from grader.sandbox.host import active, refusal


def check(course: Course, exercises: list[Exercise], *, strict: bool, scheduler: str | None, exposed: list[Path]) -> list[str]:
    """The protections this machine grades `exercises` without ([] when all are active); IsolationUnavailable where
    it may not grade them (`_sandbox_here`), or where, without a private file-system view, other users could reach any
    of the paths `exposed` (`_refuse_exposed`)."""
    found = _sandbox_here(course, exercises, strict=strict, scheduler=scheduler)
    if found and not active(found, PRIVATE_VIEW):  # uid only: student processes see what others may read
        _refuse_exposed(exposed)
    return [p.name for p in found if not p.active]


def _sandbox_here(course: Course, exercises: list[Exercise], *, strict: bool, scheduler: str | None) -> list[Protection]:
    """This machine's protections ([] where no exercise runs student code); IsolationUnavailable where the class
    may not be graded under them: never as root without a uid of its own, with `strict` only with them all, and
    on a Dask cluster only without the network (a student process could reach the scheduler and run code there)."""
    if not any(e.runs_code and e.available for e in exercises):
        return []
    from grader.batch.worker import NETWORK_NEEDED
    from grader.sandbox.doctor import protections

    found = protections(course.root)
    why = refusal(found, strict=strict)
    if not why and scheduler is not None and not active(found, NO_NETWORK):
        why = f"--scheduler: {NETWORK_NEEDED} (here: {next(p.note for p in found if p.name == NO_NETWORK)})"
    if why:
        raise IsolationUnavailable(why)
    return found


def _refuse_exposed(paths: list[Path]) -> None:
    """Without a private file-system view a student process sees what every user may: IsolationUnavailable,
    saying how to fix it, when another user could read, change or enter any of `paths`."""
    exposed = [p for p in paths if _exposed(p)]
    if exposed:
        shown = " ".join(str(p) for p in exposed)
        raise IsolationUnavailable(
            "no namespaces here, so student processes run as other users in the machine's own file system, and "
            f"other users may open {shown}: a student could read classmates' files, the grades or the checks. "
            f"Make them root's alone (chmod -R go-rwx {shown}), then run again"
        )


def _exposed(path: Path) -> bool:
    """Whether a user other than the owner could reach `path` and read, change or enter it (a missing path is not).

    A folder that others may not enter shuts in everything below it, so only `path` and its parents' modes matter
    (a student's uid has no group of the grader's).
    """
    try:
        path = path.resolve(strict=True)
        reachable = all(os.stat(parent).st_mode & 0o001 for parent in path.parents)
        return reachable and bool(os.stat(path).st_mode & 0o007)
    except OSError:
        return False
