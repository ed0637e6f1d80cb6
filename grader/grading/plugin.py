"""The pytest plugin that runs checks: fixtures that reach the submission, and a record of every verdict."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pytest

from grader.course import Course, Exercise
from grader.errors import CheckBug
from grader.failures import Fail
from grader.results import Outcome, Verdict
from grader.sandbox.proxy import ExerciseProcess
from grader.submissions.workspace import Workspace
from grader.text import Text, title
from grader.variants import VARIANT_FILE, Number, Variant, variant_of

if TYPE_CHECKING:
    import torch

    from grader.grading.answers import AnswerSheet
    from grader.sandbox.host import Sandbox


class GraderPlugin:
    """Registered once with a check session (`grader.grading.session`); `begin` and `finish` frame each submission."""

    def __init__(self, *, course: Course, exercises: list[Exercise], sandbox: Sandbox | None, device: str, sheet_only: bool = False):
        self.course = course
        self.sandbox = sandbox
        self.sheet_only = sheet_only  # run only the checks that judge an answer sheet (`grade check`'s variants)
        self.device_name = device
        self._by_file: dict[Path, Exercise] = {}
        self._by_node_path: dict[str, Exercise] = {}
        for e in exercises:
            for path in [*e.public_checks, e.hidden_checks]:
                self._by_file[path.resolve()] = e
        self.collection_errors: list[str] = []
        self._item: pytest.Item  # the check running now (set before its fixtures are)
        self._reference_sheets: dict[str, dict[str, object]] = {}  # exercise id -> its reference answers, for the whole session
        self.begin(None, [])

    def begin(self, workspace: Workspace | None, exercises: list[Exercise], student: str | None = None) -> None:
        """Start grading a submission on `exercises`: fresh state, and every code exercise's process forked and
        sent its imports now, so that the imports run side by side, each within its own time limit (files that
        all hang at import cost about one limit for the whole submission)."""
        self.workspace = workspace
        self.exercises = exercises
        self._graded = {e.id for e in exercises}
        self.student = student  # whose numbers the numeric questions hold (None: the statement's)
        self.variants: dict[str, Variant] = {}  # exercise id -> the numbers this submission was graded on
        self.verdicts: list[Verdict] = []
        self.processes: dict[str, ExerciseProcess] = {}  # exercise id -> its student process across its checks
        self._sheets: dict[str, AnswerSheet | Fail] = {}  # exercise id -> its AnswerSheet, or the Fail reading it gave
        self._failures: dict[str, BaseException] = {}
        if self.sandbox is None or self.sheet_only:
            return
        for exercise in exercises:
            if exercise.runs_code:
                self._process_of(exercise).prefetch([n[:-3] for n in exercise.student_files if n.endswith(".py")])

    def sheets(self) -> dict[str, AnswerSheet]:
        """The submission's answer sheets its checks read, by exercise id (those that could be read)."""
        return {key: sheet for key, sheet in self._sheets.items() if not isinstance(sheet, Fail)}

    def grades(self, item: pytest.Function) -> bool:
        """Whether `item` is a check of an exercise this submission is graded on."""
        return self._exercise_of(item).id in self._graded and (not self.sheet_only or "answers" in item.fixturenames)

    def finish(self) -> list[Verdict]:
        """End the submission: its processes stop; its verdicts."""
        for process in self.processes.values():
            process.close()
        self.processes.clear()
        return self.verdicts

    # -- fixtures -------------------------------------------------------------------------

    @pytest.fixture
    def exercise(self) -> Exercise:
        return self._exercise_of(self._item)

    @pytest.fixture
    def device(self) -> torch.device:
        """The torch device checks put their tensors on (torch is only imported when asked for)."""
        import torch

        return torch.device(self.device_name)

    @pytest.fixture
    def exercise_process(self, exercise: Exercise) -> Iterator[ExerciseProcess]:
        """This check's exercise's process (an ExerciseProcess: a student process forked, or reused, on first use)."""
        process = self._process_of(exercise)
        process.begin_check()
        yield process
        self._item.stash[_OUTPUT] = process.end_check()

    def _process_of(self, exercise: Exercise) -> ExerciseProcess:
        process = self.processes.get(exercise.id)
        if process is None:
            workspace = self._workspace()
            missing = [p for name in exercise.student_files if name.endswith(".py") and (p := workspace.problem(exercise, name))]
            process = self.processes[exercise.id] = ExerciseProcess(
                self.sandbox, workspace.folder(exercise), given=exercise.given_code(hidden=self.course.has_hidden_checks), missing=missing
            )
        return process

    @pytest.fixture
    def answers(self, exercise: Exercise) -> AnswerSheet:
        """The submission's answer sheet, read once; a sheet that cannot be read fails every check that uses it."""
        if exercise.id not in self._sheets:
            self._sheets[exercise.id] = self._read_sheet(exercise)
        sheet = self._sheets[exercise.id]
        if isinstance(sheet, Fail):
            raise sheet
        return sheet

    def _read_sheet(self, exercise: Exercise) -> AnswerSheet | Fail:
        from grader.grading.answers import SheetError, load_sheet

        name, workspace = "answers.toml", self._workspace()
        problem = workspace.problem(exercise, name)
        if problem:
            return Fail(problem)
        try:
            return load_sheet(
                workspace.folder(exercise) / name,
                root=workspace.root,
                rtol=self.course.rtol,
                fallback_seconds=self.course.symbolic_limit,
            )
        except SheetError as e:
            return Fail(e.message)

    @pytest.fixture
    def variant(self, exercise: Exercise) -> dict[str, Number]:
        """This student's numbers for the exercise (grader.variants): the statement's without an id or variants."""
        return dict(self.variant_of(exercise).params)

    def variant_of(self, exercise: Exercise) -> Variant:
        if exercise.id not in self.variants:
            if exercise.variant is None:
                raise CheckBug(f"{exercise.id} asks for its variant but has no {VARIANT_FILE}")
            self.variants[exercise.id] = variant_of(self.course.variants, exercise.variant, self.student)
        return self.variants[exercise.id]

    @pytest.fixture
    def reference_answers(self, exercise: Exercise) -> dict[str, object]:
        """The reference answer sheet, parsed once per session (it is course material, like the checks); a copy per check."""
        import copy
        import tomllib

        if exercise.id not in self._reference_sheets:
            self._reference_sheets[exercise.id] = tomllib.loads((exercise.solution_dir / "answers.toml").read_text(encoding="utf-8"))
        return copy.deepcopy(self._reference_sheets[exercise.id])

    @pytest.fixture
    def student_source(self, exercise: Exercise) -> Callable[[str], bytes]:
        """`student_source("gated.py")`: a submitted file's bytes, read (never run) by the grader.

        Bytes, so that `ast.parse` honours the file's own encoding declaration as Python's import does.
        """

        def read(name: str) -> bytes:
            workspace = self._workspace()
            problem = workspace.problem(exercise, name)
            if problem:
                raise Fail(problem)
            return (workspace.folder(exercise) / name).read_bytes()

        return read

    def _workspace(self) -> Workspace:
        """The submission being graded (`begin` sets it before any check runs)."""
        if self.workspace is None:
            raise CheckBug("a check ran with no submission to grade")
        return self.workspace

    # -- hooks ----------------------------------------------------------------------------

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "check(points): a graded check worth `points`")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._item = item  # the check whose fixtures are set up now (a fixture asking for `request` costs more)
        item.stash[_OUTPUT] = ""  # the check runs again for every submission: never show an earlier one's output

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """An exercise's student process ends with the exercise's last check, so processes do not pile up."""
        exercise = self._exercise_of(item)
        if nextitem is None or self._exercise_of(nextitem) is not exercise:
            process = self.processes.pop(exercise.id, None)
            if process is not None:
                process.close()

    def pytest_sessionfinish(self) -> None:
        self.finish()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext[-2000:]}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Function, call: pytest.CallInfo[None]) -> pytest.TestReport:
        """A plain report, and this check's verdict after teardown.

        Feedback comes from the exception itself, so pytest's traceback formatting (tens of
        milliseconds per failed check) is skipped.
        """
        error = call.excinfo.value if call.excinfo is not None else None
        if error is not None and item.nodeid not in self._failures:
            self._failures[item.nodeid] = error
        if call.when == "teardown":
            self.verdicts.append(self._verdict(item))
        outcome: Literal["passed", "failed", "skipped"] = "passed"
        longrepr: tuple[str, int, str] | str | None = None
        if isinstance(error, pytest.skip.Exception):
            outcome, longrepr = "skipped", (str(item.path), 0, str(error))
        elif error is not None:
            outcome, longrepr = "failed", f"{type(error).__name__}: {error}"
        assert call.when != "collect"  # a check's setup, call or teardown (as pytest's own TestReport.from_item_and_call asserts)
        return pytest.TestReport(
            item.nodeid,
            item.location,
            {},
            outcome,
            longrepr,
            call.when,
            duration=call.duration,
            start=call.start,
            stop=call.stop,
        )

    def _check_of(self, item: pytest.Function) -> _Check:
        """What `item` is worth and how it is named: the same for every submission, so worked out once per session."""
        found = item.stash.get(_CHECK, None)
        if found is None:
            exercise = self._exercise_of(item)
            marker = item.get_closest_marker("check")
            found = item.stash[_CHECK] = _Check(
                exercise=exercise,
                points=float(marker.kwargs["points"]) if marker else 0.0,
                name=title(item.function),
                visible=Path(item.path).resolve() != exercise.hidden_checks.resolve(),
            )
        return found

    def _verdict(self, item: pytest.Function) -> Verdict:
        check = self._check_of(item)
        exercise, points, name, visible = check.exercise, check.points, check.name, check.visible
        # Taken out here: its traceback holds the check's frames, and with them whatever the submission sent back
        # (a failed check's tensors would otherwise stay in this process until the next submission begins).
        error = self._failures.pop(item.nodeid, None)
        diagnosis: tuple[Text, ...] = ()
        if error is None:
            earned, feedback, outcome = points, Text(""), Outcome.PASSED
        elif isinstance(error, CheckBug):
            earned, outcome = 0.0, Outcome.INTERNAL_ERROR
            feedback = Text(f"internal grader error in this check: {error}", f"此检查中评分程序内部出错：{error}")
        elif isinstance(error, Fail):
            earned, feedback, outcome, diagnosis = points * error.share, error.message, error.outcome, error.diagnosis
            if error.share >= 1.0 and outcome is Outcome.FAILED:
                outcome = Outcome.PASSED  # nothing lost (a mistake charged where it is made): a pass with a note
        elif isinstance(error, AssertionError) and str(error):
            earned, feedback, outcome = 0.0, Text(str(error).split("\nassert ")[0]), Outcome.FAILED
        else:
            earned, outcome = 0.0, Outcome.INTERNAL_ERROR
            feedback = Text(
                f"internal grader error in this check: {type(error).__name__}: {error}", f"此检查中评分程序内部出错：{type(error).__name__}: {error}"
            )
        output = item.stash.get(_OUTPUT, "")
        if output and error is not None:
            feedback += Text(f"\n--- your code's own output (truncated) ---\n{output}", f"\n--- 你的代码自己的输出（已截断）---\n{output}")
        return Verdict(exercise.id, name.en, points, earned, feedback, visible, outcome, diagnosis, name.zh)

    def _exercise_of(self, node: pytest.Item) -> Exercise:
        path = str(node.path)
        if path not in self._by_node_path:  # resolved once per file: hooks ask for every check several times
            self._by_node_path[path] = self._by_file[Path(path).resolve()]
        return self._by_node_path[path]


@dataclass(frozen=True)
class _Check:
    exercise: Exercise
    points: float
    name: Text
    visible: bool  # a public check (the student has its code), not a hidden one


_OUTPUT = pytest.StashKey[str]()
_CHECK = pytest.StashKey[_Check]()
