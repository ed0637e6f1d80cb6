"""The pytest plugin that runs checks: fixtures that reach the submission, and a record of every verdict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.checks import Fail, StudentError
from grader.course import Course, Exercise
from grader.submission import Workspace


@dataclass
class Verdict:
    """One check's outcome as the grading process decided it."""

    exercise: str
    name: str
    points: float
    earned: float
    passed: bool
    feedback: str
    visible: bool
    internal_error: bool = False


class GraderPlugin:
    """Registered with `pytest.main(plugins=[...])` for one submission."""

    def __init__(self, *, course: Course, exercises: list[Exercise], workspace: Workspace, sandbox, device: str):
        self.course = course
        self.workspace = workspace
        self.sandbox = sandbox
        self.device_name = device
        self._by_file = {}
        for e in exercises:
            for path in [*e.public_checks, e.hidden_checks]:
                self._by_file[path.resolve()] = e
        self.verdicts: list[Verdict] = []
        self.collection_errors: list[str] = []
        self._failures: dict[str, BaseException] = {}

    # -- fixtures -------------------------------------------------------------------------

    @pytest.fixture
    def exercise(self, request) -> Exercise:
        return self._exercise_of(request.node)

    @pytest.fixture
    def device(self):
        """The torch device checks put their tensors on (torch is only imported when asked for)."""
        import torch

        return torch.device(self.device_name)

    @pytest.fixture
    def student_process(self, request, exercise):
        """This check's student process, forked on first use and killed when the check ends."""
        lazy = _LazyProcess(self, exercise)
        yield lazy
        request.node.stash[_OUTPUT] = lazy.close()

    @pytest.fixture
    def answers(self, exercise):
        """The submission's answer sheet; a sheet that cannot be read fails every check that uses it."""
        from grader.answers import SheetError, load_sheet

        name = "answers.toml"
        problem = self.workspace.problem(exercise, name)
        if problem:
            raise Fail(problem, problem)
        try:
            return load_sheet(self.workspace.folder(exercise) / name, root=self.workspace.root, rtol=self.course.rtol)
        except SheetError as e:
            raise Fail(str(e), str(e)) from None

    @pytest.fixture
    def reference_answers(self, exercise) -> dict:
        import tomllib

        return tomllib.loads((exercise.solution_dir / "answers.toml").read_text(encoding="utf-8"))

    @pytest.fixture
    def student_source(self, exercise):
        """`student_source("gated.py")`: the text of a submitted file, read (never run) by the grader."""

        def read(name: str) -> str:
            problem = self.workspace.problem(exercise, name)
            if problem:
                raise Fail(problem, problem)
            return (self.workspace.folder(exercise) / name).read_text(encoding="utf-8", errors="replace")

        return read

    # -- hooks ----------------------------------------------------------------------------

    def pytest_configure(self, config) -> None:
        config.addinivalue_line("markers", "check(points): a graded check worth `points`")

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext[-2000:]}")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if call.excinfo is not None and not report.passed and item.nodeid not in self._failures:
            self._failures[item.nodeid] = call.excinfo.value
        if call.when == "teardown":
            self.verdicts.append(self._verdict(item))
        return report

    def _verdict(self, item) -> Verdict:
        exercise = self._exercise_of(item)
        marker = item.get_closest_marker("check")
        points = float(marker.kwargs["points"]) if marker else 0.0
        doc = (getattr(item.function, "__doc__", None) or item.name).strip().splitlines()[0]
        visible = Path(item.path).resolve() != exercise.hidden_checks.resolve()
        error = self._failures.get(item.nodeid)
        internal = False
        if error is None:
            earned, feedback = points, ""
        elif isinstance(error, Fail):
            earned, feedback = min(max(error.earned, 0.0), points), error.text(self.course.language)
        elif isinstance(error, AssertionError) and str(error):
            earned, feedback = 0.0, str(error).split("\nassert ")[0]
        else:
            earned, internal = 0.0, True
            feedback = f"internal grader error in this check: {type(error).__name__}: {error}"
        output = item.stash.get(_OUTPUT, "")
        if output and error is not None:
            feedback += f"\n--- your code's own output (truncated) ---\n{output}"
        return Verdict(exercise.id, doc, points, earned, error is None, feedback, visible, internal)

    def _exercise_of(self, node) -> Exercise:
        return self._by_file[Path(node.path).resolve()]


_OUTPUT = pytest.StashKey[str]()


class _LazyProcess:
    """Forks the student process only when a check first calls into the submission."""

    def __init__(self, plugin: GraderPlugin, exercise: Exercise):
        self._plugin = plugin
        self._exercise = exercise
        self._process = None

    def get(self):
        if self._process is None:
            missing = [
                p for name in self._exercise.student_files
                if name.endswith(".py") and (p := self._plugin.workspace.problem(self._exercise, name))
            ]
            if missing:
                raise StudentError("; ".join(missing))
            self._process = self._plugin.sandbox.open(self._plugin.workspace.folder(self._exercise))
        return self._process

    def close(self) -> str:
        if self._process is None:
            return ""
        output = self._process.output()
        self._process.close()
        return output
