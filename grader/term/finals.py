"""Final points: a class's raw points (the journal's) with the term's rules applied – the late penalty, then overrides.

Applied on every `grade batch` run after grading, from the journal and the term's files, never by
regrading: a changed date, penalty, extension or override recomputes every student's final points.
What was last published is kept in the journal (`published`), committed only after OUT's files are
written, so a rerun – after `kill -9` too – compares against it and lists what changed (changes.csv).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.course import Course
from grader.deadlines import Policy
from grader.results import Adjustment, Change, ExerciseResult, GradeResult, Outcome, Status, StudentRow
from grader.rubric import Rubric
from grader.store import audit
from grader.store.journal import Journal
from grader.store.published import Applied, Published, withdrawn
from grader.term import marks, overrides, times
from grader.text import Text, format_points, shown_path


@dataclass
class Term:
    """What decides final points besides the raw grades."""

    policy: Policy | None = None
    hand_ins: dict[str, dict[str, times.HandIn]] = field(default_factory=dict)  # student -> exercise -> hand-in
    extensions: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)
    overrides: dict[tuple[str, str], overrides.Override] = field(default_factory=dict)
    rubrics: dict[str, Rubric] = field(default_factory=dict)  # exercise id -> the rubric of its written answer
    marks: dict[tuple[str, str], marks.Mark] = field(default_factory=dict)  # the course staff's marks of written answers
    problems: list[str] = field(default_factory=list)  # for the TA's stderr: unknown students, unreadable timestamps

    def final(self, row: StudentRow) -> StudentRow:
        """`row` with each exercise's written answer counted (its rubric's points and the staff's mark), its score its
        final points and its `adjustment` saying how (exercises without a due date or an override stay as graded)."""
        return replace(row, result=self.final_result(row.student, row.result))

    def final_result(self, student: str, result: GradeResult) -> GradeResult:
        return replace(result, exercises=[self._final(student, self._written(student, e)) for e in result.exercises])

    def _written(self, student: str, exercise: ExerciseResult) -> ExerciseResult:
        """The exercise with its written answer's points in its score and max_score: the raw points the term's rules
        then apply to (a late written answer is late too)."""
        rubric = self.rubrics.get(exercise.id)
        return exercise if rubric is None else marks.counted(exercise, rubric, self.marks.get((student, exercise.id)))

    def _final(self, student: str, exercise: ExerciseResult) -> ExerciseResult:
        over = self.overrides.get((student, exercise.id))
        due = extension = hand_in = late = None
        if self.policy is not None and exercise.outcome is not Outcome.NOT_SUBMITTED:
            extension = times.extension_of(self.extensions, student, exercise.id)
            due = extension or self.policy.due_for(exercise.id)
            hand_in = self.hand_ins.get(student, {}).get(exercise.id)
            if due is not None and hand_in is not None:
                late = self.policy.lateness(exercise.id, hand_in.at, extension)
        if due is None and over is None:
            return exercise
        penalty = 0.0 if late is None or over is not None else round(min(exercise.score, late.share * exercise.max_score), 4)
        adjustment = Adjustment(
            raw=exercise.score,
            days_late=late.days if late else 0,
            penalty=penalty,
            due=due.isoformat() if due else "",
            extended=extension is not None,
            submitted_at=hand_in.at.isoformat() if hand_in else "",
            override=over.points if over else None,
            reason=over.reason if over else "",
            by=over.by if over else "",
        )
        final = over.points if over is not None else round(exercise.score - penalty, 4)
        note = describe(adjustment, final)
        return replace(exercise, score=final, adjustment=adjustment, note=exercise.note + " " + note if exercise.note else note)


@dataclass(frozen=True)
class TermFiles:
    """The TA's files of a run (--submitted-at, --extensions), read and checked before anything is graded."""

    submitted_at: dict[str, dt.datetime] = field(default_factory=dict)
    extensions: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)
    paths: tuple[Path | None, Path | None] = (None, None)


def read_files(*, submitted_at: Path | None, extensions: Path | None, exercise_ids: list[str]) -> TermFiles:
    """TermFileError, naming the file and line, for a malformed one."""
    return TermFiles(
        times.submitted_at(submitted_at) if submitted_at is not None else {},
        times.extensions(extensions, exercise_ids) if extensions is not None else {},
        (submitted_at, extensions),
    )


_FILES = "CREATE TABLE IF NOT EXISTS term_files (option TEXT PRIMARY KEY, path TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL)"


def remember(journal: Journal, files: TermFiles) -> tuple[TermFiles, list[str]]:
    """The term's files of this run, and a note for the TA on each one that came from the journal.

    A file given is kept in OUT's journal, replacing the one given before; a file not given is the one last given
    into OUT (a run of one student, `grade reseed`, a rerun without the script never drops a hand-in time or an
    extension). A file with its header line alone removes what was kept."""
    kept = {option: (path, json.loads(data), at) for option, path, data, at in journal.select("term_files", "SELECT option, path, data, at FROM term_files")}
    given = {
        "--submitted-at": (files.paths[0], {s: t.isoformat() for s, t in files.submitted_at.items()}),
        "--extensions": (files.paths[1], [[s, e, t.isoformat()] for (s, e), t in files.extensions.items()]),
    }
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    notes, paths = [], list(files.paths)
    if any(path is not None for path, _ in given.values()):
        try:
            journal.execute(_FILES)
            with journal.transaction():
                for option, (path, data) in given.items():
                    if path is not None:
                        journal.execute("INSERT OR REPLACE INTO term_files VALUES (?, ?, ?, ?)", (option, str(path), json.dumps(data), now))
        except sqlite3.Error as e:
            notes.append(
                f"the journal could not keep {' and '.join(str(p) for p, _ in given.values() if p)} ({e}): this run uses them; give them again next run"
            )
    for n, option in enumerate(given):
        if paths[n] is None and option in kept and kept[option][1]:
            path, _, at = kept[option]
            paths[n] = Path(path)
            notes.append(f"{option} not given: {shown_path(path)} (kept in OUT since {at[:10]}) still counts; a header-only file removes it")
    submitted = (
        files.submitted_at
        if files.paths[0] is not None or "--submitted-at" not in kept
        else {s: dt.datetime.fromisoformat(t) for s, t in kept["--submitted-at"][1].items()}
    )
    extended = (
        files.extensions
        if files.paths[1] is not None or "--extensions" not in kept
        else {(s, e): dt.datetime.fromisoformat(t) for s, e, t in kept["--extensions"][1]}
    )
    return TermFiles(submitted, extended, (paths[0], paths[1])), notes


def record_changes(
    journal: Journal, changed: list[Change], rows: list[StudentRow], hashes: dict[str, tuple[str, str]], edits: list[marks.Edit] | None = None
) -> None:
    """An audit row for each final score that the term's rules changed (a due date, the penalty, an extension, a hand-in
    time: cause "late policy"), for each written answer whose points a rubric edit changed (`edits`: its old and new
    points, and the items edited) and for each score this publication stops or starts showing again ("no longer
    shown", "shown again"); regrades, overrides and marks have theirs already. Call it in the transaction that
    publishes."""
    entries: list[tuple[str, str, str, float | None, float | None, str]] = [
        ("rubric edited", e.student, e.exercise, e.old, e.new, e.reason()) for e in edits or []
    ]
    exercises = {(r.student, e.id): e for r in rows for e in r.result.exercises}
    shown = {
        "no longer shown": "not in this run's grades.csv: the entry left SUBMISSIONS, or the run graded other --exercises",
        "shown again": "in this run's grades.csv again, after a run that did not show it (other --exercises)",
    }
    entries += [(c.cause, c.student, c.exercise, c.old, c.new, shown[c.cause]) for c in changed if c.cause in shown]
    for c in (c for c in changed if c.cause == "late policy"):
        e = exercises[(c.student, c.exercise)]
        reason = describe(e.adjustment, e.score, staff=True).render("en") if e.adjustment else "no due date applies any more"
        entries.append((c.cause, c.student, c.exercise, c.old, c.new, reason))
    for cause, student, exercise, old, new, reason in entries:
        submission, course = hashes.get(student, ("", ""))
        audit.record(journal, cause=cause, student=student, exercise=exercise, old=old, new=new, reason=reason, submission_hash=submission, course_hash=course)


def load(*, course: Course, journal: Journal, entries: dict[str, Path], exercise_ids: list[str], files: TermFiles = TermFiles()) -> Term:
    """The term of this run: course.toml's policy, the TA's files, each student's hand-in times and the journal's overrides.

    `entries` are the class's students and their entries in SUBMISSIONS."""
    term = Term(
        policy=course.policy,
        extensions=files.extensions,
        overrides=overrides.current(journal),
        rubrics=marks.rubrics(course),
        marks=marks.current(journal),
    )
    given = files.submitted_at
    for name, students in zip(files.paths, (set(given), {s for s, _ in term.extensions})):
        unknown = sorted(students - set(entries))
        if unknown:
            term.problems.append(f"{name}: no such student in the class: {', '.join(unknown)}")
    if course.policy is None:
        if given or term.extensions:
            term.problems.append(f"{course.root / 'course.toml'} has no [deadlines]: --submitted-at and --extensions change nothing")
        return term
    folders = [(i, course.exercise(i).folder) for i in exercise_ids]
    for student, entry in entries.items():
        term.hand_ins[student], problem = times.hand_ins(entry, folders, given.get(student))
        if problem:
            term.problems.append(problem)
    return term


def describe(a: Adjustment, final: float, *, staff: bool = False) -> Text:
    """What the student reads under the exercise: the due date used, when they handed in, days late, then raw points,
    penalty and final points – or the course staff's points and why. `staff`: worded for the TA (the audit trail)."""
    raw, penalty, shown = format_points(a.raw), format_points(a.penalty), format_points(final)
    parts = []
    if a.due:
        due = local_time(a.due, a.due)
        extension = Text(" (the student's extension)", "（该学生的延期）") if staff else Text(" (your extension)", "（你的延期）")
        parts.append(Text(f"Due {due}", f"截止时间 {due}") + (extension if a.extended else ""))
        if a.submitted_at:
            when = local_time(a.submitted_at, a.due)
            days = Text("on time", "按时提交") if not a.days_late else Text(f"{a.days_late} day{'s' * (a.days_late != 1)} late", f"迟交 {a.days_late} 天")
            parts.append(Text(f"; handed in {when}: ", f"；提交时间 {when}：") + days + Text(".", "。"))
        else:
            parts.append(Text("; no submission time is known, so no late penalty.", "；没有提交时间记录，因此不扣迟交分。"))
    lead = " " if parts else ""
    if a.override is not None:
        parts.append(
            Text(
                f"{lead}Your points were adjusted by the course staff: {a.reason} — {shown} points (graded: {raw}; no late penalty applies to them).",
                f"课程教师调整了你的分数：{a.reason}——{shown} 分（评分结果 {raw} 分；不再扣迟交分）。",
            )
        )
    else:
        parts.append(Text(f"{lead}Graded {raw} points, late penalty {penalty}, final {shown}.", f"评分 {raw} 分，迟交扣分 {penalty}，最终 {shown} 分。"))
    return Text.join("", parts)


def local_time(iso: str, zone_of: str) -> str:
    """A time as people read it, in the due date's time zone: 2026-12-10 23:59+08:00."""
    when = dt.datetime.fromisoformat(iso).astimezone(dt.datetime.fromisoformat(zone_of).tzinfo)
    return when.isoformat(sep=" ", timespec="minutes")


def record_regrade(journal: Journal, old: StudentRow | None, new: StudentRow, *, submission: str, course: str, last: dict[tuple[str, str], Published]) -> None:
    """An audit row for each exercise whose raw points a regrade changed (a grader failure is no score: not counted)."""
    if old is None or Status.INTERNAL_ERROR in (old.status, new.status):
        return
    before = {e.id: e.score for e in old.result.exercises}
    for e in new.result.exercises:
        if e.id in before and round(before[e.id], 4) != round(e.score, 4):
            published = last.get((new.student, e.id))
            reason = (
                "a new variant of the student's numbers (grade reseed)"
                if old.result.variants != new.result.variants
                else "a new submission"
                if published and published.submission != submission
                else "the course changed (its checks, references, statements or the grader)"
                if published and published.course != course
                else "graded again"
            )
            audit.record(
                journal,
                cause="regrade",
                student=new.student,
                exercise=e.id,
                old=before[e.id],
                new=e.score,
                reason=reason,
                course_hash=course,
                submission_hash=submission,
            )


def changes(last: dict[tuple[str, str], Published], rows: list[StudentRow], hashes: dict[str, tuple[str, str]]) -> list[Change]:
    """What this run changes of the last published final points, and why (nothing on the first publication).

    `hashes`: student -> (submission hash, course hash) of their row."""
    if not last:
        return []
    known = {s for s, _ in last}
    found = []
    for row in rows:
        if row.status is Status.INTERNAL_ERROR:  # no score: published again once graded
            continue
        submission, course = hashes[row.student]
        for e in row.result.exercises:
            a, was = e.adjustment, last.get((row.student, e.id))
            raw, override = (a.raw, a.override) if a else (e.score, None)
            if was is None:
                found.append(Change(row.student, e.id, None, e.score, "new student" if row.student not in known else "shown again"))
                continue
            shown, written = Applied.from_json(was.written) or Applied(), e.written if e.written and e.written.counted else None
            graded, graded_was = raw - (written.earned if written else 0.0), was.raw - shown.earned  # what the checks gave
            raw_changed = round(graded, 4) != round(graded_was, 4)
            if raw_changed and override is not None:  # the override stays: listed for the TA to look at again
                found.append(Change(row.student, e.id, graded_was, graded, "regrade under override"))
            if round(e.score, 4) == round(was.final, 4):
                continue
            if override != was.override:
                cause = "override" if override is not None else "override cleared"
            elif raw_changed:
                cause = "new submission" if submission != was.submission else "course changed" if course != was.course else "regrade"
            elif written and round(written.earned, 4) != round(shown.earned, 4):
                cause = "mark" if (written.marked, set(written.items)) != (shown.marked, set(shown.items)) else "rubric edited"
            else:
                cause = "late policy"
            found.append(Change(row.student, e.id, was.final, e.score, cause))
    found += [Change(s, e, last[s, e].final, None, "no longer shown") for s, e in withdrawn(last, rows)]  # publish drops them
    return found


def flagged(rows: list[StudentRow]) -> dict[str, list[str]]:
    """The students a TA should look at: handed in late, overridden, or without a submission time where a due date applies."""

    def having(test: Callable[[Adjustment], bool]) -> list[str]:
        return sorted(r.student for r in rows if any(e.adjustment and test(e.adjustment) for e in r.result.exercises))

    return {
        "late": having(lambda a: a.days_late > 0),
        "overridden": having(lambda a: a.override is not None),
        "no_submission_time": having(lambda a: a.no_time),
    }
