"""What the hidden checks answer an exercise's numbers with (course.toml [variants]; the numbers themselves are
grader.variants'): each key's right value and its named mistakes for a student's numbers (`answers_of`), the
reference sheet of a variant (`reference_sheet`, what `grade check` grades), and the sheets that hold a classmate's
right answers rather than the student's own (`copied_from`, from the numbers `answered` kept of the sheets the checks
parsed, judged as a batch publishes the class).
The answers are course material, imported into the grading process once (course_modules) and never sent out."""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grader import course_modules
from grader.errors import CourseError
from grader.failures import Fail
from grader.variants import Declaration, Number, Settings, canonical, variant_of

if TYPE_CHECKING:
    from grader.course import Course, Exercise
    from grader.grading.answers import AnswerSheet


def answered(course: Course, exercises: list[Exercise], sheets: Mapping[str, AnswerSheet]) -> dict[str, dict[str, float]]:
    """{exercise id: {key: number}}: the finite numeric answers of each sheet of an exercise with numbers of each
    student's own, as the checks read it (`sheets`, by exercise id; one that could not be read is not there). A result
    keeps them, so that whose numbers they are is judged when the class is published (`copied_from`), against every
    classmate then in the class – one handed in later too."""
    if not course.variants.enabled or not course.has_hidden_checks:
        return {}
    return {e.id: _numbers(e, sheets[e.id]) for e in exercises if e.variant is not None and e.id in sheets}


def copied_from(
    course: Course, exercises: list[Exercise], answers: Mapping[str, Mapping[str, float]], student: str | None, classmates: tuple[str, ...]
) -> dict[str, str]:
    """{exercise id: classmate} for each sheet whose numeric answers (`answers`, as `answered` keeps them) hold more of
    that classmate's right answers than the student's own numbers explain (right, or a named mistake's value: a
    classmate's answer that is also the student's own known mistake is no sign of theirs), and at least two, or all of
    an exercise's fewer: answers of another student's variant. "Right" is as the hidden checks judge it: a count (a key whose answer is a whole
    number) exactly, any other number within its key's own tolerance (ANSWERS' rtol), else the course's rtol."""
    if not course.variants.enabled or not classmates:
        return {}
    found: dict[str, str] = {}
    for exercise in exercises:
        if exercise.variant is None or not answers.get(exercise.id):
            continue
        given = dict(answers[exercise.id])
        own_rtol, whole = tolerances(exercise), _counts(exercise)
        rtol = {key: 0.0 if key in whole else own_rtol.get(key, course.rtol) for key in given}
        # What the sheet's numbers are explained by without a classmate: the student's own numbers, the statement's
        # (a student who forgot their id) and the worked example's, each right or a named mistake; a classmate must
        # explain more keys than any.
        own = max(
            _explained(exercise, given, rtol, params) for params in (_params(course, exercise, student), exercise.variant.default(), exercise.variant.example())
        )
        needed = min(2, len(_expected_answers(exercise)(exercise.variant.default())))
        me = canonical(student) if student else None
        index = _class_answers(course.variants, exercise, classmates)
        counts = Counter(who for key, got in given.items() for who in index.holding(key, got, rtol[key]) if canonical(who) != me)
        best = max(((n, who) for who, n in counts.items()), default=(0, ""))
        if best[0] >= needed and best[0] > own:
            found[exercise.id] = best[1]
    return found


def _params(course: Course, exercise: Exercise, who: str | None) -> dict[str, Number]:
    return variant_of(course.variants, exercise.declared, who).params


def _explained(exercise: Exercise, answered: dict[str, float], rtol: dict[str, float], params: Mapping[str, Number]) -> int:
    """How many of `answered` are right for the numbers `params`, or the value one of the key's named mistakes gives."""
    answers = answers_of(exercise)
    right, wrong = answers.expected(params), answers.mistakes(params)
    return sum(any(isinstance(v, int | float) and _within(got, v, rtol[key]) for v in [right.get(key), *wrong.get(key, {})]) for key, got in answered.items())


def _counts(exercise: Exercise) -> set[str]:
    """The keys whose answers are whole numbers (ex04's and ex11's parameter counts), which the checks judge exactly."""
    right = _expected_answers(exercise)(exercise.declared.default())
    return {key for key, value in right.items() if isinstance(value, int) and not isinstance(value, bool)}


def _within(got: float, target: float, rtol: float) -> bool:
    return abs(got - target) <= rtol * abs(target) + _ATOL


_ATOL = 1e-12


@dataclass(frozen=True)
class _ClassAnswers:
    """Every classmate's right numeric answers of one exercise, sorted by value per key: a sheet's answer finds the
    classmates it is right for by bisection, so publishing a class costs the class size once, not once per student."""

    by_key: dict[str, tuple[list[float], list[str]]]  # key -> (values ascending, whose each is)

    def holding(self, key: str, got: float, rtol: float) -> list[str]:
        """The classmates for whom `got` is the right answer to `key` (within `rtol` of their value)."""
        values, whose = self.by_key.get(key, ([], []))
        # |got − v| ≤ rtol·|v| + atol bounds v between these, whatever the signs (rtol < 1); each candidate is checked
        bounds = [(got - _ATOL) / (1 + rtol), (got + _ATOL) / (1 + rtol)]
        if rtol < 1:
            bounds += [(got - _ATOL) / (1 - rtol), (got + _ATOL) / (1 - rtol)]
            low, high = min(bounds), max(bounds)
        else:
            low, high = -math.inf, math.inf
        first, last = bisect.bisect_left(values, low), bisect.bisect_right(values, high)
        return [whose[n] for n in range(first, last) if _within(got, values[n], rtol)]


_Class = tuple[bool, str, tuple[tuple[str, int], ...], tuple[str, ...]]  # the variant settings and the classmates
# {the class published last: {exercise: its _ClassAnswers}}: a batch publishes one class at a time
_CLASS: dict[_Class, dict[tuple[str, str, Declaration], _ClassAnswers]] = {}


def _class_answers(settings: Settings, exercise: Exercise, classmates: tuple[str, ...]) -> _ClassAnswers:
    klass = (settings.enabled, settings.salt, tuple(sorted(settings.reseed.items())), classmates)
    if klass not in _CLASS:
        _CLASS.clear()
        _CLASS[klass] = {}
    answers = _CLASS[klass]
    key = (exercise.id, str(exercise.hidden_checks), exercise.declared)
    if key not in answers:
        rows: dict[str, list[tuple[float, str]]] = {}
        for who in classmates:
            for k, value in _expected_answers(exercise)(variant_of(settings, exercise.declared, who).params).items():
                if isinstance(value, int | float) and math.isfinite(value):
                    rows.setdefault(k, []).append((float(value), who))
        ordered = {k: sorted(r) for k, r in rows.items()}
        answers[key] = _ClassAnswers({k: ([v for v, _ in r], [w for _, w in r]) for k, r in ordered.items()})
    return answers[key]


def _numbers(exercise: Exercise, sheet: AnswerSheet) -> dict[str, float]:
    """The sheet's answers that read as finite numbers, by key."""
    numbers: dict[str, float] = {}
    for key in _expected_answers(exercise)(exercise.declared.default()):
        try:
            value = sheet.number_of(key)
        except Fail:
            continue
        if math.isfinite(value):
            numbers[key] = value
    return numbers


@dataclass(frozen=True)
class Answers:
    """What the hidden checks of an exercise with numbers of each student's own answer them with, declared by its
    checks module as `ANSWERS = Answers(expected, mistakes, rtol=...)`: each key's right value for the numbers `params`
    (`expected`), the values its named mistakes give, with their diagnoses (`mistakes`), and the keys judged within a
    tolerance of their own (`rtol`, as ex02's 2 % keys; the others within the course's rtol)."""

    expected: Callable[[Mapping[str, Number]], dict[str, Any]]
    mistakes: Callable[[Mapping[str, Number]], dict[str, Any]]
    rtol: Mapping[str, float] = field(default_factory=dict)


def answers_of(exercise: Exercise) -> Answers:
    """The hidden checks' answers for an exercise's numbers (course material, imported into the grading process once –
    course_modules keeps it – never sent out); CourseError where its module does not declare them."""
    answers = getattr(course_modules.load(exercise.hidden_checks), "ANSWERS", None)
    if not isinstance(answers, Answers):
        raise CourseError(
            f"{exercise.id}: {exercise.hidden_checks} must declare ANSWERS = Answers(expected, mistakes) for the numbers its variant.toml declares"
        )
    return answers


def tolerances(exercise: Exercise) -> Mapping[str, float]:
    """The keys that the hidden checks judge within a tolerance of their own: ANSWERS' rtol, which an exercise declares
    with its numbers (a sheet of choices alone, as ex08's and ex10's, has neither)."""
    return answers_of(exercise).rtol if exercise.variant is not None and exercise.hidden_checks.is_file() else {}


def _expected_answers(exercise: Exercise) -> Callable[[Mapping[str, Number]], dict[str, Any]]:
    """The hidden checks' `expected(params)`: each numeric answer for the numbers `params`, by key."""
    return answers_of(exercise).expected


def reference_sheet(exercise: Exercise, params: Mapping[str, Number]) -> str:
    """The reference answer sheet (solutions/<folder>/answers.toml) with its numeric answers for the numbers `params`:
    what a right hand-in of that variant holds (`grade check` grades it; tests build one student's sheet with it)."""
    text = (exercise.solution_dir / "answers.toml").read_text(encoding="utf-8")
    for key, value in _expected_answers(exercise)(params).items():
        line = re.compile(rf"^{re.escape(key)} = [^#\n]*", re.MULTILINE)
        if len(line.findall(text)) != 1:
            raise CourseError(f"{exercise.id}: the reference sheet has no single line for {key}")
        text = line.sub(f"{key} = {value!r}   ", text)
    return text
