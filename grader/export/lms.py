"""`grade export canvas|moodle`: OUT's final points (what its last `grade batch` published) in an LMS's import file.

The batch's student ids are matched against the LMS roster; a graded student found nowhere in it is
an error that names them, and then nothing is written (a partial import is worse than none).
"""

from __future__ import annotations

from pathlib import Path

from grader.course import Course
from grader.errors import GraderError
from grader.export import canvas, moodle
from grader.export.files import write_atomic
from grader.store import published
from grader.term import marks
from grader.term.csvin import TermFileError, read_rows
from grader.term.overrides import open_journal


class NotInRoster(GraderError):
    """Graded students the roster lacks (or matches twice): the file was not written."""


def final_points(out: Path, course: Course) -> tuple[dict[str, dict[str, float]], list[str]]:
    """student -> exercise id -> final points, as OUT's files show them; and the exercises, in the course's order."""
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
    return dict(sorted(scores.items())), [i for i in course.ids if i in graded]


def to_mark(out: Path) -> list[str]:
    """'student exercise' of each written answer that OUT's files show as still to mark (its points count 0 there)."""
    journal = open_journal(out)
    try:
        found = published.read(journal)
    finally:
        journal.close()
    return [f"{s} {e}" for (s, e), p in sorted(found.items()) if (shown := published.Applied.from_json(p.written)) and shown.state == "to mark"]


def export_canvas(
    *,
    course: Course,
    out: Path,
    roster: Path,
    target: Path,
    title: str | None = None,
    assignment_id: str | None = None,
    per_exercise: bool = False,
    match: str | None = None,
    zero_missing: bool = False,
) -> int:
    """Write Canvas's import file `target`; return how many roster students it holds."""
    scores, ids = final_points(out, course)
    rows = [r for _, r in read_rows(roster, canvas.STUDENT_COLUMNS, example=", ".join(canvas.STUDENT_COLUMNS)) if not canvas.is_points_row(r)]
    if match is not None and rows and match not in rows[0]:
        raise TermFileError(f"--match {match}: {roster} has no such column; its columns: {', '.join(rows[0])}")
    where = _matched(scores, rows, [match] if match else list(canvas.MATCH_ORDER), roster)
    title = title or course.title
    if per_exercise:
        columns = [(f"{title}: {i} {course.exercise(i).title}", course.exercise(i).points) for i in ids]
        grades = {n: [scores[s].get(i, 0.0) for i in ids] for s, n in where.items()}
    else:
        columns = [(canvas.header(title, assignment_id), sum(course.exercise(i).points for i in ids))]
        grades = {n: [sum(scores[s].values())] for s, n in where.items()}
    write_atomic(target, canvas.to_csv(rows, columns, grades, zero_missing=zero_missing))
    return len(rows)


def export_moodle(*, course: Course, out: Path, target: Path, id_column: str = "username", roster: Path | None = None) -> int:
    """Write Moodle's import file `target`; return how many students it holds."""
    scores, ids = final_points(out, course)
    if roster is None:
        _batch_ids_are(id_column, list(scores))
        identifiers = {s: s for s in scores}
    else:
        rows = [r for _, r in read_rows(roster, (), example="Username,Email address,ID number")]
        names = {h.lower(): h for h in (rows[0] if rows else {})}
        columns = {field: next((names[h] for h in headers if h in names), None) for field, headers in moodle.ID_COLUMNS.items()}
        id_header = columns[id_column]
        if id_header is None:
            raise TermFileError(
                f"{roster}, line 1: no column for {id_column} (one of: {', '.join(moodle.ID_COLUMNS[id_column])}); choose another --id-column or add it"
            )
        order = [c for c in (columns["username"], columns["idnumber"], columns["email"]) if c is not None]
        where = _matched(scores, rows, order, roster)
        identifiers = {s: rows[n][id_header] for s, n in where.items()}
    write_atomic(target, moodle.to_csv(id_column, ids, [(identifiers[s], scores[s]) for s in sorted(identifiers)]))
    return len(identifiers)


def _batch_ids_are(id_column: str, students: list[str]) -> None:
    """Without a roster the batch's ids are written as the Moodle field itself: NotInRoster when they cannot be
    (`--id-column email` over folder names that are no email address)."""
    wrong = [s for s in students if id_column == "email" and "@" not in s]
    if wrong:
        shown = ", ".join(wrong[:5]) + (f" and {len(wrong) - 5} more" if len(wrong) > 5 else "")
        raise NotInRoster(
            f"nothing written: --id-column email without --roster writes the batch's ids as email addresses, and {shown} "
            "is none; give --roster (Moodle's participants export) to look each student's email up, or choose --id-column username"
        )


def _matched(scores: dict[str, dict[str, float]], rows: list[dict[str, str]], columns: list[str], roster: Path) -> dict[str, int]:
    """student -> the index of their roster row: the first of `columns` holding their id (once). NotInRoster names the
    graded students found nowhere, or in two rows, or sharing a row with another."""
    where: dict[str, int] = {}
    problems = []
    for student in scores:
        for column in columns:
            hits = [n for n, r in enumerate(rows) if r.get(column, "") == student]
            if len(hits) > 1:
                problems.append(f"{student} is in {len(hits)} rows of {roster} (column {column})")
            if hits:
                where[student] = hits[0]
                break
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
