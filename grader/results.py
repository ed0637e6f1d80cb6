"""The result model: what grading one submission decided. Plain data – no pytest, no torch – for every exporter."""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.text import Text


@dataclass
class Verdict:
    """One check's outcome as the grading process decided it."""

    exercise: str
    name: str
    points: float
    earned: float
    passed: bool
    feedback: Text
    visible: bool
    internal_error: bool = False
    timed_out: bool = False


@dataclass
class ExerciseResult:
    id: str
    title: str
    score: float
    max_score: float
    checks: list[Verdict]
    note: Text = field(default_factory=lambda: Text(""))  # why an exercise was not (fully) graded
    graded_points: float = 0.0  # what the hidden checks are worth, when only public checks ran

    @property
    def public_only(self) -> bool:
        return self.graded_points > 0


@dataclass
class GradeResult:
    submission: str
    device: str
    language: str
    exercises: list[ExerciseResult]
    internal_errors: list[str] = field(default_factory=list)
    protections: list[dict] | None = None  # what isolated the student processes; None when none ran
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)
