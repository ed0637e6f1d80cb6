"""`grade mark`: the course staff's marks of written answers against their exercise's rubric, kept in the journal.

A mark is the rubric items that apply to one student's written answer and any comments (a rubric comment's id, or
words of the staff's own). Its points are computed from the rubric as it is now, never stored: editing an item's
points in rubric.toml changes them for every student who has the item (as Gradescope's rubrics do). Like overrides,
marks are applied after grading, on every `grade batch` into OUT, never by regrading; each mark, re-mark and clearing
is an audit row when it is made, and each change a rubric edit makes is one when a batch publishes it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import USAGE, GraderError
from grader.results import ExerciseResult, StudentRow, Written
from grader.rubric import Item, Rubric
from grader.store import audit, published
from grader.store.journal import Journal
from grader.term import overrides
from grader.text import Text, format_points

_TABLE = (
    "CREATE TABLE IF NOT EXISTS marks (student TEXT NOT NULL, exercise TEXT NOT NULL, items TEXT NOT NULL, "
    "comments TEXT NOT NULL, by TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (student, exercise))"
)


class MarkError(GraderError):
    """A mark that cannot be: no such batch, student, exercise with a written answer, item or comment."""

    exit_code = USAGE


@dataclass(frozen=True)
class Mark:
    items: tuple[str, ...]  # rubric item ids, in the order given
    comments: tuple[Text, ...]  # each as the student reads it: a rubric comment's text, or the staff's own words
    by: str = ""
    at: str = ""


def rubrics(course: Course) -> dict[str, Rubric]:
    """Exercise id -> the rubric of its written answer, for the exercises that have one."""
    return {e.id: e.rubric for e in course.exercises if e.rubric is not None}


def current(journal: Journal) -> dict[tuple[str, str], Mark]:
    """(student, exercise) -> its mark."""
    return {
        (s, e): Mark(tuple(json.loads(items)), tuple(Text(*c) for c in json.loads(comments)), by, at)
        for s, e, items, comments, by, at in journal.select("marks", "SELECT * FROM marks")
    }


def applied(rubric: Rubric, written: Written | None, mark: Mark | None) -> Written:
    """The written answer with the rubric and the staff's mark applied: its points, and what the student reads."""
    written = written or Written(rubric.file)
    if mark is None:
        return replace(written, points=rubric.points, earned=0.0, marked=False, items=[], comments=[], by="", counted=True)
    known = {i.id: i for i in rubric.items}
    said = [_item_line(known[i]) for i in mark.items if i in known]
    return replace(
        written,
        points=rubric.points,
        earned=rubric.score(mark.items),
        marked=True,
        items=list(mark.items),
        comments=said + list(mark.comments),
        by=mark.by,
        counted=True,
    )


def _item_line(item: Item) -> Text:
    sign = format_points(item.points) if item.points < 0 else "+" + format_points(item.points)
    return Text(f"{sign}: ", f"{sign}：") + item.description


def counted(exercise: ExerciseResult, rubric: Rubric, mark: Mark | None) -> ExerciseResult:
    """The exercise with its written answer counted: the rubric's points added to its max_score, the mark's to its score."""
    written = applied(rubric, exercise.written, mark)
    return replace(exercise, score=round(exercise.score + written.earned, 4), max_score=exercise.max_score + written.points, written=written)


def set_mark(
    *, course: Course, out: Path, student: str, exercise: str, items: list[str], comments: list[str], by: str | None = None, clear: bool = False
) -> tuple[float | None, float | None, bool]:
    """Mark (or, with `clear`, unmark) one student's written answer; (old points, new points, whether anything
    changed). A mark equal to the one kept changes nothing and writes no audit row."""
    rubric = _rubric(course, exercise)
    journal = overrides.open_journal(out)
    try:
        student = overrides.the_student(journal, student, out)
        row = journal.row_of(student)
        if row is None:
            raise MarkError(f"{out}: no student {student} in its journal (ids as grades.csv shows them); students: {_some(journal.students())}")
        if exercise not in {e.id for e in row.result.exercises}:
            raise MarkError(f"{student}: {exercise} was not graded in {out}; grade it there first")
        new = None if clear else Mark(tuple(dict.fromkeys(_items(rubric, items))), tuple(_comments(rubric, comments)), by or audit.login())
        journal.execute(_TABLE)
        before = current(journal).get((student, exercise))
        if clear and before is None:
            raise MarkError(f"{student} has no mark of {exercise}'s written answer to clear")
        old_points = None if before is None else rubric.score(before.items)
        new_points = None if new is None else rubric.score(new.items)
        if new is not None and before is not None and set(new.items) == set(before.items) and new.comments == before.comments:
            return old_points, new_points, False
        kept: dict[str, object] | None = None
        if new is not None:
            said = json.dumps([[c.en, c.zh] for c in new.comments], ensure_ascii=False)
            kept = {"items": json.dumps(list(new.items)), "comments": said, "by": new.by, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        overrides.keep(
            journal,
            "marks",
            student,
            exercise,
            kept,
            cause="mark" if new is not None else "mark cleared",
            old=old_points,
            new=new_points,
            reason=_what_changed(rubric, before, new),
            actor=new.by if new else by or audit.login(),
            hashes=published.hashes(published.read(journal).get((student, exercise))),
        )
    finally:
        journal.close()
    return old_points, new_points, True


def _rubric(course: Course, exercise_id: str) -> Rubric:
    marked = [e.id for e in course.exercises if e.rubric]
    try:
        exercise: Exercise = course.exercise(exercise_id)
    except KeyError:
        raise MarkError(f"unknown exercise {exercise_id}; exercises with a written answer to mark: {', '.join(marked) or 'none'}") from None
    if exercise.rubric is None:
        raise MarkError(
            f"{exercise_id} has no written answer (no rubric.toml in exercises/{exercise.folder}/); exercises with one: {', '.join(marked) or 'none'}"
        )
    return exercise.rubric


def _items(rubric: Rubric, items: list[str]) -> list[str]:
    unknown = [i for i in items if i not in {item.id for item in rubric.items}]
    if unknown:
        listed = ", ".join(f"{i.id} ({'+' if i.points > 0 else ''}{format_points(i.points)})" for i in rubric.items)
        raise MarkError(f"--item {', '.join(unknown)}: not an item of {rubric.exercise}'s rubric; its items: {listed}")
    return items


def _comments(rubric: Rubric, comments: list[str]) -> list[Text]:
    """Each comment as the student reads it: a rubric comment's id stands for its text, words with a space are the
    staff's own; a single word that is no comment id is refused (a mistyped id would reach the student as it is)."""
    found = []
    for given in (c.strip() for c in comments):
        if not given:
            raise MarkError("--comment: empty; give a comment id of the rubric or words of your own")
        if " " in given:
            found.append(Text(given))
            continue
        try:
            found.append(rubric.comment(given).text)
        except KeyError:
            ids = ", ".join(c.id for c in rubric.comments) or "none"
            raise MarkError(f"--comment {given}: not a comment id of {rubric.exercise}'s rubric (its ids: {ids}); words of your own need a space") from None
    return found


def _what_changed(rubric: Rubric, before: Mark | None, after: Mark | None) -> str:
    """The audit row's reason: the items added and taken away, and the comments now given."""
    was, now = set(before.items if before else ()), set(after.items if after else ())
    order = [i.id for i in rubric.items]
    parts = [f"+{i}" for i in order if i in now - was] + [f"-{i}" for i in order if i in was - now]
    said = f"; comments: {' | '.join(c.en for c in after.comments)}" if after and after.comments else ""
    if after is None:
        return f"{rubric.file}: mark cleared (it had {', '.join(i for i in order if i in was) or 'no item'})"
    items = ", ".join(i for i in order if i in now) or "no item"
    return f"{rubric.file}: {items}" + (f" ({' '.join(parts)})" if parts and before else "") + said


def _some(students: list[str]) -> str:
    return ", ".join(students[:8]) + (f" and {len(students) - 8} more" if len(students) > 8 else "") if students else "none"


# -- what a rubric edit changes, and what is still to mark ---------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """A written answer whose points the rubric as it is now gives otherwise than OUT's files last showed."""

    student: str
    exercise: str
    old: float
    new: float
    items: tuple[tuple[str, float, float], ...]  # (item, points published, points now) of the items that changed

    def reason(self) -> str:
        edits = ", ".join(f"{i} {format_points(a)} -> {format_points(b)}" for i, a, b in self.items)
        return f"rubric.toml edited ({edits}): the written answer's points {format_points(self.old)} -> {format_points(self.new)}"


def edits(course: Course, journal: Journal) -> list[Edit]:
    """Each student's written answer whose items, unchanged since OUT last published it, are worth other points now."""
    last = published.read(journal)
    kept = current(journal)
    found = []
    for (student, exercise_id), p in sorted(last.items()):
        shown = published.Applied.from_json(p.written)
        mark = kept.get((student, exercise_id))
        rubric = course.exercise(exercise_id).rubric if exercise_id in course.ids else None
        if shown is None or rubric is None or mark is None or set(mark.items) != set(shown.items):
            continue
        points = {i.id: i.points for i in rubric.items}
        changed = tuple((i, a, points.get(i, 0.0)) for i, a in shown.items.items() if points.get(i, 0.0) != a)
        if changed:
            found.append(Edit(student, exercise_id, shown.earned, rubric.score(mark.items), changed))
    return found


def unpublished(course: Course, journal: Journal) -> list[str]:
    """'student exercise' of each mark (or clearing) and rubric edit that OUT's files do not show yet."""
    last = published.read(journal)
    kept = current(journal)
    found = []
    for (student, exercise_id), p in sorted(last.items()):
        rubric = course.exercise(exercise_id).rubric if exercise_id in course.ids else None
        if rubric is None:
            continue
        shown = published.Applied.from_json(p.written) or published.Applied()
        mark = kept.get((student, exercise_id))
        points = {i.id: i.points for i in rubric.items}  # an item since taken out of the rubric counts 0, as published
        now = published.Applied({i: points.get(i, 0.0) for i in mark.items} if mark else {}, 0.0, mark is not None)
        if (shown.marked, shown.items) != (now.marked, now.items):
            found.append(f"{student} {exercise_id}")
    return found


# A written answer's state (grader.results.Written.state) in words, in each language.
STATES = {"en": {"marked": "marked", "to mark": "to mark", "no answer": "no answer"}, "zh": {"marked": "已评分", "to mark": "待评分", "no answer": "未作答"}}


@dataclass(frozen=True)
class Standing:
    """One student's written answer as `grade rubric` shows it."""

    student: str
    state: str  # "marked", "to mark", "no answer" (grader.results.Written.state)
    points: float  # as the rubric is now
    shown: float | None  # as OUT's files last showed them (None: not yet published)
    items: tuple[str, ...] = ()
    comments: tuple[Text, ...] = ()
    by: str = ""
    text: str = ""  # the answer as handed in
    refused: str = ""  # why the file handed in was not taken (look at the hand-in itself)


def standings(course: Course, out: Path, exercise: str) -> tuple[Rubric, list[Standing]]:
    """The rubric of `exercise` and every student of OUT with their written answer, mark and points (`grade rubric`)."""
    rubric = _rubric(course, exercise)
    journal = overrides.open_journal(out)
    try:
        students = journal.students()
        rows = journal.rows(students)
        kept, last = current(journal), published.read(journal)
    finally:
        journal.close()
    found = []
    for row in rows:
        graded = next((e for e in row.result.exercises if e.id == exercise), None)
        if graded is None:
            continue
        mark = kept.get((row.student, exercise))
        written = applied(rubric, graded.written, mark)
        was = last.get((row.student, exercise))
        shown = published.Applied.from_json(was.written) if was else None
        found.append(
            Standing(
                row.student,
                written.state,
                written.earned,
                shown.earned if shown else None,
                mark.items if mark else (),
                mark.comments if mark else (),
                mark.by if mark else "",
                written.text,
                written.refused,
            )
        )
    return rubric, found


def with_marks(course: Course, out: Path, rows: list[StudentRow]) -> list[StudentRow]:
    """Journal rows (raw) with their written answers counted as the journal's marks and the rubrics have them now."""
    journal = overrides.open_journal(out)
    try:
        kept = current(journal)
    finally:
        journal.close()
    found = rubrics(course)
    return [
        replace(
            row,
            result=replace(
                row.result,
                exercises=[counted(e, found[e.id], kept.get((row.student, e.id))) if e.id in found else e for e in row.result.exercises],
            ),
        )
        for row in rows
    ]
