"""The grading pipeline for one submission: course -> workspace -> student processes -> checks -> results.

    resolve_device   pick cpu/cuda before anything starts
    Grader.start     start the zygote first: its torch import overlaps all that follows
    load_submission  copy the student files into a workspace before any check reads them
    Grader._session  one pytest session over the selected exercises' checks, collected once per Grader
    score            turn verdicts into per-exercise results

A `Grader` grades one submission after another on one sandbox (`grade check`: the references, then the
stubs; a batch worker: its share of the class).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import DeviceError
from grader.grading.numbers import answered
from grader.grading.session import CheckSession
from grader.inside import layout
from grader.inside.isolation import Protection
from grader.results import ExerciseResult, GradeResult, Outcome, Verdict, Written
from grader.sandbox.host import Limits, Sandbox
from grader.submissions import recorded_student
from grader.submissions.workspace import load_submission
from grader.text import Text, printable, shown_path
from grader.variants import Number


def resolve_device(requested: str) -> str:
    """ "cpu" as is; "cuda" only where CUDA works; "auto" is cuda when present, else cpu."""
    if requested == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if requested == "auto":
        return "cpu"
    raise DeviceError(
        f"--device cuda: CUDA is not available here (torch {torch.__version__}, built for CUDA {torch.version.cuda or 'none'}); use --device cpu or auto"
    )


class Grader:
    """One grading session: the sandbox and the check sessions over it, owned for its life, grading one
    submission after another.

        with Grader(course, exercises, device) as grader:
            result = grader.grade(path, label="bob")

    The zygote starts first, so that its torch import overlaps all that follows; a selection of quizzes
    starts none (they never import torch). With `strict`, starting raises IsolationUnavailable, before
    any check runs, unless every protection is active. Given a running `sandbox` (the tests share one across
    course variants), a Grader grades on it and leaves it running when it closes.
    """

    def __init__(
        self, course: Course, exercises: list[Exercise], device: str, *, strict: bool = False, sandbox: Sandbox | None = None, sheet_only: bool = False
    ):
        self.course, self.exercises, self.device, self.strict = course, exercises, device, strict
        self.sheet_only = sheet_only  # only the checks that judge answer sheets run: no student process starts
        self.sandbox = sandbox
        self._owns_sandbox = sandbox is None
        self._sessions: dict[tuple[str, ...], CheckSession] = {}  # pytest configured, checks collected once each

    def start(self) -> Grader:
        runs_code = not self.sheet_only and any(e.runs_code and e.available for e in self.exercises)
        started = None
        if self.sandbox is None and runs_code:  # before this process imports torch: the two imports run side by side
            limits = Limits(self.course.time_limit, self.course.memory_limit)
            self.sandbox = started = Sandbox.start(course_root=self.course.root, device=self.device, limits=limits, strict=self.strict)
        if runs_code:
            import torch

            # The checks' own tensors are small, and student processes share the CPUs: more intra-op threads here only
            # spin (ex08's and ex10's real training, run here by their services, took 20x as long on two busy cores).
            torch.set_num_threads(1)
        if started is not None and self.strict:
            try:
                started.ready()
            except BaseException:
                self.close()
                raise
        return self

    def close(self) -> None:
        for session in self._sessions.values():
            session.close()
        self._sessions.clear()
        if self.sandbox is not None and self._owns_sandbox:
            self.sandbox.close()
            self.sandbox = None

    def __enter__(self) -> Grader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def protections(self) -> list[Protection] | None:
        """What isolates a student process here (None when no student code runs)."""
        return self.sandbox.protections if self.sandbox else None

    def grade(
        self,
        submission: Path,
        *,
        label: str | None = None,
        exercises: list[Exercise] | None = None,
        student: str | None = None,
    ) -> GradeResult:
        """Grade one submission on this session's exercises (or some of them); `label` names it in the result
        (default: its path). With `student`, the numeric questions are that student's numbers (course.toml
        [variants]), and the result keeps the sheets' numeric answers (whose numbers they are is judged when a class is
        published: grader.grading.numbers.copied_from)."""
        course, exercises = self.course, exercises or self.exercises
        label = label or str(submission)
        started = time.monotonic()
        available = [e for e in exercises if e.available]
        workspace = load_submission(submission, available)
        present = [e for e in available if e.id not in workspace.absent]
        student = student if course.variants.enabled else None
        try:
            session = self._session(available)
            verdicts, errors = session.grade(workspace, present, student)
            numbers = answered(course, present, session.sheets())
            written = {e.id: written_answer(e, workspace.folder(e), workspace.problem(e, e.rubric.file)) for e in present if e.rubric is not None}
        finally:
            workspace.remove()
        results = [
            not_submitted(e, shown_path(label), hidden=course.has_hidden_checks)
            if e.id in workspace.absent
            else dataclasses.replace(score(e, verdicts, hidden=course.has_hidden_checks), written=written.get(e.id))
            for e in exercises
        ]
        errors += [f"{v.exercise}: {v.name}: {v.feedback.en}" for v in verdicts if v.internal_error]
        if course.has_hidden_checks:
            errors += [
                f"{r.id}: its checks are worth {r.max_score:g} points but course.toml gives {e.checked_points:g}"
                + (f" ({e.points:g} less the written answer's {e.points - e.checked_points:g})" if e.rubric else "")
                for e, r in zip(exercises, results)
                if e in present and abs(r.max_score - e.checked_points) > 1e-9
            ]
        variants = {e.id: course.variants.number(student) for e in present if student and e.variant is not None}
        found = self.protections
        return GradeResult(
            label,
            self.device,
            course.language,
            results,
            errors,
            None if found is None else [asdict(p) for p in found],  # results.json's form
            seconds=time.monotonic() - started,
            student=student,
            variants=variants,
            packed_as=recorded_student(submission),
            answered=numbers,
        )

    def _session(self, exercises: list[Exercise]) -> CheckSession:
        key = tuple(e.id for e in exercises)
        if key not in self._sessions:
            self._sessions[key] = CheckSession(
                course=self.course,
                exercises=exercises,
                sandbox=self.sandbox,
                device=self.device,
                hidden=self.course.has_hidden_checks,
                sheet_only=self.sheet_only,
            )
        return self._sessions[key]


def score(exercise: Exercise, verdicts: list[Verdict], *, hidden: bool) -> ExerciseResult:
    """Sum one exercise's verdicts."""
    if not exercise.available:
        return ExerciseResult(exercise.id, exercise.title, 0.0, 0.0, [], note=Text("not yet available", "尚未开放"), title_zh=exercise.title_zh)
    mine = [v for v in verdicts if v.exercise == exercise.id]
    if hidden:
        return ExerciseResult(exercise.id, exercise.title, sum(v.earned for v in mine), sum(v.points for v in mine), mine, title_zh=exercise.title_zh)
    passed = sum(v.passed for v in mine)
    note = Text(
        f"{passed}/{len(mine)} public checks passed; {exercise.checked_points:g} points are graded at hand-in",
        f"公开检查通过 {passed}/{len(mine)} 项；{exercise.checked_points:g} 分在提交后评定",
    )  # a written answer's points are the course staff's to mark: its own line says so (export.terminal)
    return ExerciseResult(exercise.id, exercise.title, 0.0, 0.0, mine, note, graded_points=exercise.checked_points, title_zh=exercise.title_zh)


WRITTEN_BYTES = 64 << 10  # of a written answer kept for the course staff (a longer one is cut, and says so)
NBGRADER_TEXT_STUB = "YOUR ANSWER HERE"  # what nbgrader's generate_assignment leaves of a markdown solution region


def written_answer(exercise: Exercise, folder: Path, refused: str | None = None) -> Written:
    """The exercise's written answer as the workspace holds it: its text, or "" when it is absent or holds nothing but
    the stub's lines (nothing to mark); where the file handed in was not taken, why (`refused`: it stays to mark, and
    says so). Never run, never judged: the course staff read it (`grade rubric`, `grade mark`)."""
    assert exercise.rubric is not None
    name = exercise.rubric.file
    try:
        with open(folder / name, "rb") as f:
            data = f.read(WRITTEN_BYTES + 1)
    except OSError:
        return Written(name, points=exercise.rubric.points, refused=printable(refused or ""))
    text = data[:WRITTEN_BYTES].decode("utf-8", errors="replace")
    given = {line.strip() for line in (exercise.stub_dir / name).read_text(encoding="utf-8").splitlines()} | {NBGRADER_TEXT_STUB}
    if all(line.strip() in given for line in text.splitlines()):  # the stub's lines, or nbgrader's, and nothing else
        text = ""
    elif len(data) > WRITTEN_BYTES:
        text += f"\n\n[… cut: the file is longer than {WRITTEN_BYTES} bytes]"
    return Written(name, text=printable(text), points=exercise.rubric.points)


def not_submitted(exercise: Exercise, submission: str, *, hidden: bool) -> ExerciseResult:
    """An exercise whose folder the submission lacks: no checks run, all of its points lost."""
    return ExerciseResult(
        exercise.id,
        exercise.title,
        0.0,
        exercise.checked_points if hidden else 0.0,
        [],
        outcome=Outcome.NOT_SUBMITTED,
        title_zh=exercise.title_zh,
        note=Text(
            f"not submitted: {submission} has no folder {exercise.folder}/ and no notebook {exercise.id}.ipynb",
            f"未提交：{submission} 中没有文件夹 {exercise.folder}/，也没有笔记本 {exercise.id}.ipynb",
        ),
    )


def check_course(*, course: Course, device: str) -> tuple[list[GradeResult], list[str]]:
    """Self-validation: every reference earns full marks and every stub earns nothing.

    Returns the two grade results (references, stubs) and the problems found.
    """
    exercises = [e for e in course.exercises if e.available]
    with Grader(course, exercises, device) as grader:
        graded = [grader.grade(course.root / folder) for folder in (layout.SOLUTIONS, layout.EXERCISES)]
    references, stubs = graded
    problems = [f"solutions: {e}" for e in references.internal_errors] + [f"exercises: {e}" for e in stubs.internal_errors]
    for ref, stub, exercise in zip(references.exercises, stubs.exercises, exercises):
        if not (ref.max_score > 0 and ref.score == ref.max_score):
            failed = "; ".join(f"{v.name}: {v.feedback.en}" for v in ref.checks if not v.passed)
            problems.append(f"{ref.id}: the reference scores {ref.score:g}/{ref.max_score:g}: {failed}")
        if stub.score != 0:
            passed = ", ".join(v.name for v in stub.checks if v.earned)
            problems.append(f"{stub.id}: the stub scores {stub.score:g} (points from: {passed})")
        expected = "NotImplementedError" if exercise.runs_code else "unanswered"
        if not any(expected in v.feedback.en for v in stub.checks):
            problems.append(f"{stub.id}: no feedback on the stub mentions {expected}")
    return graded, problems + check_variants(course=course, device=device)


VARIANTS_CHECKED = 50  # students whose reference sheets are graded
VARIANTS_APART = 5000  # students whose named mistakes are compared with the right answers (no grading: cheap)


def check_variants(*, course: Course, device: str, count: int = VARIANTS_CHECKED, apart: int = VARIANTS_APART) -> list[str]:
    """For `count` students' numbers (course.toml's salt, or one of the check's own while variants are off), whether
    each exercise's reference sheet for those numbers earns every point of its sheet checks and the next student's sheet
    does not; for `apart` students' (a mistake that meets the key at 1 draw in 200 shows), whether any named mistake
    lies within the tolerance of a right answer. The problems found."""
    import dataclasses
    import shutil
    import tempfile

    from grader.grading.numbers import reference_sheet
    from grader.variants import Settings, variant_of

    declared = [e for e in course.exercises if e.available and e.variant is not None]
    if not declared or not course.has_hidden_checks:
        return []
    settings = Settings(True, course.variants.salt or "grade check", course.variants.reseed)
    variants = dataclasses.replace(course, variants=settings)
    students = [f"grade-check-{n}" for n in range(count + 1)]
    problems = [
        p
        for e in declared
        for n in range(max(apart, count + 1))
        for p in _mistakes_apart(course, e, variant_of(settings, e.declared, f"grade-check-{n}").params)
    ]
    scratch = Path(tempfile.mkdtemp(prefix="grade-check-"))
    try:
        for student in students:
            folder = scratch / student
            for e in declared:
                params = variant_of(settings, e.declared, student).params
                (folder / e.folder).mkdir(parents=True)
                (folder / e.folder / "answers.toml").write_text(reference_sheet(e, params), encoding="utf-8")
        with Grader(variants, declared, device, sheet_only=True) as grader:
            for mine, next_one in zip(students, students[1:]):
                own = grader.grade(scratch / mine, student=mine)
                other = grader.grade(scratch / mine, student=next_one)
                for e, right, wrong in zip(declared, own.exercises, other.exercises):
                    if not (right.max_score > 0 and right.score == right.max_score):
                        failed = "; ".join(v.feedback.en for v in right.checks if not v.passed)
                        problems.append(f"{e.id}: the reference sheet for {mine}'s numbers scores {right.score:g}/{right.max_score:g}: {failed}")
                    if wrong.score >= wrong.max_score:
                        problems.append(f"{e.id}: {mine}'s right answers earn full marks for {next_one} too")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return list(dict.fromkeys(problems))


def _mistakes_apart(course: Course, exercise: Exercise, params: Mapping[str, Number]) -> list[str]:
    """Named mistakes of `exercise` at `params` that a right answer's tolerance would take in (a count: equal to it)."""
    from grader.grading.numbers import answers_of

    answers = answers_of(exercise)
    own, right, wrong = answers.rtol, answers.expected(params), answers.mistakes(params)
    problems = []
    for key, value in right.items():
        rtol = own.get(key) or course.rtol
        for mistake in wrong.get(key, {}):
            if isinstance(value, list):  # a shape
                close = list(mistake) == value
            else:
                close = mistake == value if isinstance(value, int) else abs(mistake - value) <= rtol * abs(value)
            if close:
                problems.append(f"{exercise.id}: at {params}, a named mistake of {key} ({mistake}) is within the tolerance of the right answer")
    return problems
