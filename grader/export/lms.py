"""`grade export NAME`: OUT's final points (what its last `grade batch` published) in an LMS's import file.

Each LMS is a module of this package (canvas.py, moodle.py), an `export.LMS` registered in `export.LMS_FILES`: it
renders the import file from the final points (`Finals`), and the options it takes are its own. The batch's student
ids are matched against the LMS roster (`matched`); a graded student found nowhere in it is an error that names them,
and then nothing is written (a partial import is worse than none).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from grader.course import Course
from grader.errors import USAGE, GraderError
from grader.export.files import write_atomic
from grader.store import published
from grader.term import marks
from grader.term.csvin import TermFileError
from grader.term.overrides import open_journal


class NotInRoster(GraderError):
    """Graded students the roster lacks (or matches twice): the file was not written."""


class MisusedOptions(GraderError):
    """Options of an LMS's export that do not go together: nothing was written."""

    exit_code = USAGE


@dataclass(frozen=True)
class Option:
    """One option of `grade export NAME` besides OUT and --out: the CLI offers it, and the LMS's `render` receives its
    value as the keyword `name` (`--assignment-id`: assignment_id)."""

    flag: str
    help: str
    kind: Literal["text", "file", "switch", "choice"] = "text"  # a str or None; a Path or None; a bool; one of `choices`
    choices: tuple[str, ...] = ()  # the values of a choice, the first its default (any other kind: none)
    required: bool = False

    @property
    def name(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Finals:
    """What an LMS's import file is rendered from: OUT's final points, as its files show them."""

    course: Course
    scores: dict[str, dict[str, float]]  # student -> exercise id -> final points, sorted by student
    ids: list[str]  # the exercises graded, in the course's order


def export(*, lms: str, course: Course, out: Path, target: Path, **options: Any) -> int:
    """Write the import file `target` of the LMS named `lms` (export.LMS_FILES), given its `options`; return how many
    students it holds."""
    from grader.export import LMS_FILES

    text, students = LMS_FILES[lms]().render(final_points(out, course), **options)
    write_atomic(target, text)
    return students


def final_points(out: Path, course: Course) -> Finals:
    """The final points as OUT's files show them; TermFileError when OUT has published none, or a mark since."""
    journal = open_journal(out)
    try:
        found = published.read(journal)
        pending = marks.unpublished(course, journal)
    finally:
        journal.close()
    if not found:
        raise TermFileError(f"{out}: no published grades in its journal; run grade batch with --out {out} first")
    if pending:
        shown = ", ".join(pending[:5]) + (f" and {len(pending) - 5} more" if len(pending) > 5 else "")
        raise TermFileError(
            f"nothing written: {len(pending)} written answer{'s' * (len(pending) != 1)} marked (or rubric.toml edited) since {out} was last "
            f"published ({shown}); run grade batch SUBMISSIONS --out {out} first (it regrades no one), then export"
        )
    scores: dict[str, dict[str, float]] = {}
    for (student, exercise), p in found.items():
        scores.setdefault(student, {})[exercise] = p.final
    graded = {e for _, e in found}
    return Finals(course, dict(sorted(scores.items())), [i for i in course.ids if i in graded])


def to_mark(out: Path) -> list[str]:
    """'student exercise' of each written answer that OUT's files show as still to mark (its points count 0 there)."""
    journal = open_journal(out)
    try:
        found = published.read(journal)
    finally:
        journal.close()
    return [f"{s} {e}" for (s, e), p in sorted(found.items()) if (shown := published.Applied.from_json(p.written)) and shown.state == "to mark"]


def matched(scores: dict[str, dict[str, float]], rows: list[dict[str, str]], columns: list[str], roster: Path) -> dict[str, int]:
    """student -> the index of their roster row: the one row whose `columns` hold their id. NotInRoster names the
    graded students found nowhere, or in two rows (of one column, or of two: 7002 as one student's ID and another's SIS
    User ID, which the first column searched would settle silently, for the wrong student), or sharing a row with another."""
    where: dict[str, int] = {}
    problems = []
    for student in scores:
        hits = {column: [n for n, r in enumerate(rows) if r.get(column, "") == student] for column in columns}
        found = sorted({n for ns in hits.values() for n in ns})
        if len(found) > 1:
            shown = ", ".join(f"{len(ns)} in column {c}" for c, ns in hits.items() if ns)
            problems.append(f"{student} is in {len(found)} rows of {roster} ({shown}): which one is theirs is for you to say (canvas: --match COLUMN)")
        if found:
            where[student] = found[0]
        else:
            problems.append(f"{student} is not in {roster} (looked in {', '.join(columns)})")
    taken: dict[int, str] = {}
    for student, n in where.items():
        if n in taken:
            problems.append(f"{taken[n]} and {student} match the same row of {roster}")
        taken[n] = student
    if problems:
        raise NotInRoster("nothing written: " + "; ".join(problems))
    return where
