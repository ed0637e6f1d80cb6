"""The result model: what grading one submission decided. Plain data – no pytest, no torch – for every exporter.

A verdict carries what it means as fields, set where each is known: its `outcome` (the check, the
sandbox or the pipeline) and its `diagnosis` (the named mistake, by the check or the answer-sheet
judge). Summaries, statistics and exports read these fields, never the rendered feedback, which a
submission can fill with any words. `GradeResult.to_json` / `from_json` round-trip it losslessly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from grader.text import Text


class Graded(Protocol):
    """What a result needs of a course's exercise (grader.course.Exercise has it)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def points(self) -> float: ...
    @property
    def checked_points(self) -> float: ...  # what its checks are worth (points less a written answer's)


# Bumped whenever the JSON layout changes; `from_json` refuses other versions (the journal regrades them).
VERSION = 2


class Outcome(StrEnum):
    """What happened to one check (or, for `NOT_SUBMITTED` and `UNREADABLE`, to an exercise's work)."""

    PASSED = "passed"
    FAILED = "failed"  # the submission's answer or code is wrong (it may keep a share of the points)
    TIMED_OUT = "timed out"
    CRASHED = "crashed"  # the student process ended, or sent back what is not a reply
    REFUSED = "refused"  # the work does what the exercise forbids (a library cell, an import)
    NOT_IMPORTED = "did not import"  # the file the check calls does not parse, raised at its top level, or is missing
    NOT_RUN = "not run"  # not attempted: the function timed out or its process had stopped before
    NOT_SUBMITTED = "not submitted"
    UNREADABLE = "could not be read"
    INTERNAL_ERROR = "internal error"  # the grader's own failure, never the student's


@dataclass
class Verdict:
    """One check's outcome as the grading process decided it.

    `name` is the check's English title, its identity in summaries and logs; `title` is what a student
    reads, in both languages.
    """

    exercise: str
    name: str
    points: float
    earned: float
    feedback: Text
    visible: bool
    outcome: Outcome = Outcome.PASSED
    diagnosis: tuple[Text, ...] = ()  # the named mistakes, as the check or the judge named them
    name_zh: str = ""  # the title in Chinese ("" where the check gives none: the English is shown)

    @property
    def title(self) -> Text:
        return Text(self.name, self.name_zh)

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED

    @property
    def internal_error(self) -> bool:
        return self.outcome is Outcome.INTERNAL_ERROR

    @property
    def timed_out(self) -> bool:
        return self.outcome is Outcome.TIMED_OUT


@dataclass
class Adjustment:
    """What the term's rules (grader.term) made of an exercise's raw points; the exercise's `score` is then the final."""

    raw: float  # the points grading gave
    days_late: int = 0  # started days after the due date used
    penalty: float = 0.0  # points the late policy took
    due: str = ""  # the due date used, ISO 8601 ("" where the exercise has none)
    extended: bool = False  # `due` is the student's extension
    submitted_at: str = ""  # ISO 8601; "" where no submission time is known
    override: float | None = None  # the course staff's points, which replace raw minus penalty
    reason: str = ""  # the override's
    by: str = ""

    @property
    def no_time(self) -> bool:
        """A due date applies, but no submission time is known: graded without penalty."""
        return bool(self.due) and not self.submitted_at


@dataclass
class Written:
    """An exercise's written answer (its rubric's file): as handed in, and as the course staff marked it.

    Grading keeps the text; the term (grader.term.marks) applies the rubric and the staff's marks, and only then
    are its points part of the exercise's score and max_score (`counted`)."""

    file: str  # interpretation.md
    text: str = ""  # as handed in; "" when absent, blank or the stub's own
    points: float = 0.0  # what the rubric makes it worth
    earned: float = 0.0
    marked: bool = False
    items: list[str] = field(default_factory=list)  # the rubric items the staff marked
    comments: list[Text] = field(default_factory=list)  # what the student reads: each item's description, then the comments
    by: str = ""
    counted: bool = False  # its points are in the exercise's score and max_score (a batch's final points)
    refused: str = ""  # why the file handed in was not taken (too large, a link, not text): the staff look at it

    @property
    def answered(self) -> bool:
        return bool(self.text.strip())

    @property
    def state(self) -> str:
        """ "marked", "to mark" (answered, or handed in and refused: the staff decide, never a silent 0, not yet marked)
        or "no answer" (nothing to mark: 0 points)."""
        return "marked" if self.marked else "to mark" if self.answered or self.refused else "no answer"


@dataclass
class ExerciseResult:
    id: str
    title: str
    score: float
    max_score: float
    checks: list[Verdict]
    note: Text = field(default_factory=lambda: Text(""))  # why an exercise was not (fully) graded
    graded_points: float = 0.0  # what the hidden checks are worth, when only public checks ran
    outcome: Outcome | None = None  # NOT_SUBMITTED or UNREADABLE when no check could run; None when checks ran
    adjustment: Adjustment | None = None  # the term's rules applied (late policy, override); None: score is raw
    title_zh: str = ""  # the title in Chinese ("" where the course gives none)
    written: Written | None = None  # the written answer, where the exercise has a rubric

    @property
    def heading(self) -> Text:
        """The exercise's title in both languages."""
        return Text(self.title, self.title_zh)

    @property
    def graded_at_hand_in(self) -> bool:
        """Only public checks ran (a student's own run): the points are graded when the work is handed in."""
        return self.graded_points > 0


@dataclass
class GradeResult:
    submission: str
    device: str
    language: str
    exercises: list[ExerciseResult]
    internal_errors: list[str] = field(default_factory=list)
    protections: list[dict[str, Any]] | None = None  # what isolated the student processes, as results.json holds them; None when none ran
    seconds: float = 0.0
    failure: str = ""  # why the grader itself could not complete this run ("" when it did)
    student: str | None = None  # whose numbers the numeric questions were graded on (None: the statement's)
    variants: dict[str, int] = field(default_factory=dict)  # exercise id -> that student's variant number
    packed_as: str | None = None  # the student id `grade pack` recorded in the hand-in, if any
    copied_from: dict[str, str] = field(default_factory=dict)  # exercise id -> whose variant's answers the sheet holds
    # exercise id -> its sheet's numeric answers by key ([variants] on): whose numbers they are is judged as the class is
    # published (grader.grading.numbers.copied_from), against every classmate then in it
    answered: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def of_failure(cls, submission: str, exercises: Iterable[Graded], message: str | Text, *, language: str = "en", device: str = "") -> GradeResult:
        """The result of a run the grader itself could not complete: every exercise 0 of its points, and why (its
        exercises' notes in both languages where `message` is a Text; its English is the result's `failure`).

        `exercises` are the course's (anything with `id`, `title` and `points`)."""
        said = message if isinstance(message, Text) else Text(message)
        why = Text(f"not graded: the grader failed ({said.en})", f"未评分：评分程序出错（{said.zh}）")
        return cls(
            submission,
            device,
            language,
            [ExerciseResult(e.id, e.title, 0.0, float(e.checked_points), [], note=why, outcome=Outcome.INTERNAL_ERROR) for e in exercises],
            [said.en],
            failure=said.en,
        )

    @classmethod
    def of_unreadable(cls, submission: str, exercises: Iterable[Graded], why: Text, *, language: str = "en", device: str = "") -> GradeResult:
        """The result of a hand-in that could not be read at all (a refused archive, an entry's name): 0 points, why."""
        return cls(
            submission,
            device,
            language,
            [ExerciseResult(e.id, e.title, 0.0, float(e.checked_points), [], note=why, outcome=Outcome.UNREADABLE) for e in exercises],
        )

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)

    def to_json(self) -> str:
        """Every field, losslessly, with the layout's version."""
        return json.dumps(self.to_doc(), ensure_ascii=False, sort_keys=True)

    def to_doc(self) -> dict[str, Any]:
        """What `to_json` writes, as plain data (a journal row holds it without encoding it twice)."""
        return {
            "version": VERSION,
            "submission": self.submission,
            "device": self.device,
            "language": self.language,
            "internal_errors": self.internal_errors,
            "protections": self.protections,
            "seconds": self.seconds,
            "failure": self.failure,
            "student": self.student,
            "variants": self.variants,
            "packed_as": self.packed_as,
            "copied_from": self.copied_from,
            "answered": self.answered,
            "exercises": [
                {
                    "id": e.id,
                    "title": e.title,
                    "title_zh": e.title_zh,
                    "score": e.score,
                    "max_score": e.max_score,
                    "note": _text(e.note),
                    "graded_points": e.graded_points,
                    "outcome": e.outcome,
                    "adjustment": None if e.adjustment is None else asdict(e.adjustment),
                    "written": None if e.written is None else {**asdict(e.written), "comments": [_text(c) for c in e.written.comments]},
                    "checks": [
                        {
                            "exercise": v.exercise,
                            "name": v.name,
                            "name_zh": v.name_zh,
                            "points": v.points,
                            "earned": v.earned,
                            "feedback": _text(v.feedback),
                            "visible": v.visible,
                            "outcome": v.outcome,
                            "diagnosis": [_text(d) for d in v.diagnosis],
                        }
                        for v in e.checks
                    ],
                }
                for e in self.exercises
            ],
        }

    @classmethod
    def from_json(cls, text: str) -> GradeResult:
        """The result `to_json` wrote; ValueError for another version or layout."""
        return cls.from_doc(json.loads(text))

    @classmethod
    def from_doc(cls, doc: object) -> GradeResult:
        """The result of `to_doc`'s plain data; ValueError for another version or layout."""
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            raise ValueError(f"not a grade result of layout version {VERSION}")
        exercises = [
            ExerciseResult(
                e["id"],
                e["title"],
                e["score"],
                e["max_score"],
                [
                    Verdict(
                        v["exercise"],
                        v["name"],
                        v["points"],
                        v["earned"],
                        Text(*v["feedback"]),
                        v["visible"],
                        Outcome(v["outcome"]),
                        tuple(Text(*d) for d in v["diagnosis"]),
                        v["name_zh"],
                    )
                    for v in e["checks"]
                ],
                Text(*e["note"]),
                e["graded_points"],
                None if e["outcome"] is None else Outcome(e["outcome"]),
                adjustment=None if e.get("adjustment") is None else Adjustment(**e["adjustment"]),
                title_zh=e["title_zh"],
                written=None if e.get("written") is None else Written(**{**e["written"], "comments": [Text(*c) for c in e["written"]["comments"]]}),
            )
            for e in doc["exercises"]
        ]
        return cls(
            doc["submission"],
            doc["device"],
            doc["language"],
            exercises,
            doc["internal_errors"],
            doc["protections"],
            doc["seconds"],
            doc["failure"],
            doc.get("student"),
            doc.get("variants", {}),
            doc.get("packed_as"),
            doc.get("copied_from", {}),
            doc.get("answered", {}),
        )


class Status(StrEnum):
    """What became of one student of a batch."""

    GRADED = "graded"
    UNREADABLE = "unreadable"  # the hand-in could not be read: 0 points, kept until its content changes
    INTERNAL_ERROR = "internal error"  # the grader itself failed: graded again on the next run


@dataclass
class StudentRow:
    """One student of a batch: what the journal keeps and every class export reads."""

    student: str
    status: Status
    result: GradeResult
    seconds: float = 0.0

    def score(self, exercise_id: str) -> float:
        """Points earned on one exercise (0 where the result lacks it)."""
        return next((e.score for e in self.result.exercises if e.id == exercise_id), 0.0)

    def to_json(self) -> str:
        return json.dumps(
            {"student": self.student, "status": self.status, "seconds": self.seconds, "result": self.result.to_doc()},
            ensure_ascii=False,
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> StudentRow:
        """The row `to_json` wrote; ValueError (or KeyError) for anything else."""
        doc = json.loads(text)
        return cls(doc["student"], Status(doc["status"]), GradeResult.from_doc(doc["result"]), doc["seconds"])


@dataclass(frozen=True)
class Change:
    """A final score that a rerun changed (or, for "regrade under override", raw points under a kept override)."""

    student: str
    exercise: str
    old: float | None  # None: a student new to the class, or an exercise shown again
    new: float | None  # None: no longer shown (the entry left SUBMISSIONS, or a run with other --exercises)
    cause: str


def _text(text: Text) -> list[str]:
    return [text.en, text.zh]
