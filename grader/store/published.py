"""What OUT's files last showed of each student's exercises (the journal's `published` table), written only after
those files are: a run killed before it compares against the same state again and lists the same changes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from grader.results import Status, StudentRow, Written
from grader.rubric import Rubric
from grader.store.journal import Journal

_TABLE = (
    "CREATE TABLE IF NOT EXISTS published (student TEXT NOT NULL, exercise TEXT NOT NULL, raw REAL NOT NULL, "
    "final REAL NOT NULL, override REAL, submission TEXT NOT NULL, course TEXT NOT NULL, written TEXT, "
    "PRIMARY KEY (student, exercise))"
)
_COLUMNS = "student, exercise, raw, final, override, submission, course, written"


@dataclass(frozen=True)
class Published:
    """One exercise of one student as OUT's files last showed it."""

    raw: float
    final: float
    override: float | None
    submission: str  # the hashes it was graded under
    course: str
    written: str | None = None  # its written answer as shown (Applied.to_json), where the exercise has one


def hashes(last: Published | None, course: str = "") -> dict[str, str]:
    """An audit row's hashes for a change to what was last published (`course` where nothing was)."""
    return {"course_hash": last.course if last else course, "submission_hash": last.submission if last else ""}


@dataclass(frozen=True)
class Applied:
    """A written answer as OUT's files last showed it (kept with what was published): its items and their points."""

    items: dict[str, float] = field(default_factory=dict)  # item id -> its points when published
    earned: float = 0.0
    marked: bool = False
    state: str = "no answer"  # grader.results.Written.state: "marked", "to mark" or "no answer"

    def to_json(self) -> str:
        return json.dumps({"items": self.items, "earned": self.earned, "marked": self.marked, "state": self.state}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> Applied | None:
        if not text:
            return None
        doc = json.loads(text)
        return cls(dict(doc["items"]), float(doc["earned"]), bool(doc["marked"]), str(doc.get("state", "")))


def _shown(written: Written | None, rubric: Rubric | None) -> str | None:
    """What OUT's files show of a written answer, kept with the published points (None: the exercise has none)."""
    if written is None or rubric is None or not written.counted:
        return None
    points = {i.id: i.points for i in rubric.items}
    return Applied({i: points.get(i, 0.0) for i in written.items}, written.earned, written.marked, written.state).to_json()


def read(journal: Journal) -> dict[tuple[str, str], Published]:
    """(student, exercise) -> what OUT's files last showed."""
    columns = _COLUMNS if _has_written(journal) else _COLUMNS.replace("written", "NULL")
    return {(s, e): Published(*rest) for s, e, *rest in journal.select("published", f"SELECT {columns} FROM published")}


def _has_written(journal: Journal) -> bool:
    """Whether the table has the column of written answers (a journal published before they existed has not)."""
    return any(c[1] == "written" for c in journal.select("published", "PRAGMA table_info(published)"))


def withdrawn(last: Iterable[tuple[str, str]], rows: list[StudentRow]) -> list[tuple[str, str]]:
    """The (student, exercise) pairs of `last` (what was published) that `rows` no longer show: a student whose entry left
    SUBMISSIONS, an exercise a run with other --exercises did not grade; a grader failure keeps its student's."""
    shown = {(row.student, e.id) for row in rows for e in row.result.exercises}
    failed = {row.student for row in rows if row.status is Status.INTERNAL_ERROR}
    return [(student, exercise) for student, exercise in last if (student, exercise) not in shown and student not in failed]


def publish(
    journal: Journal,
    rows: list[StudentRow],
    hashes: dict[str, tuple[str, str]],
    also: Callable[[], None] | None = None,
    rubrics: Mapping[str, Rubric | None] | None = None,
) -> None:
    """Keep these final points as what OUT's files now show (after they are written; all in one transaction, with
    `also`: the audit rows of what changed); `rubrics`: exercise id -> its rubric, for its written answers' items.

    What they no longer show goes (`withdrawn`: a student whose entry left SUBMISSIONS, renamed to match the roster,
    say; an exercise a run with other --exercises did not grade)."""
    journal.execute(_TABLE)
    if not _has_written(journal):
        journal.execute("ALTER TABLE published ADD COLUMN written TEXT")
    rubrics = rubrics or {}
    with journal.transaction():
        if also is not None:
            also()
        for student, exercise in withdrawn(read(journal), rows):
            journal.execute("DELETE FROM published WHERE student = ? AND exercise = ?", (student, exercise))
        for row in rows:
            if row.status is Status.INTERNAL_ERROR:
                continue
            for e in row.result.exercises:
                a = e.adjustment
                journal.execute(
                    f"INSERT OR REPLACE INTO published ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        row.student,
                        e.id,
                        a.raw if a else e.score,
                        e.score,
                        a.override if a else None,
                        *hashes[row.student],
                        _shown(e.written, rubrics.get(e.id)),
                    ),
                )
