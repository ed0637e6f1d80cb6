"""A check session: one in-process pytest session whose checks are collected once, then run for one submission after another.

pytest runs in a thread of its own while the session is open; `grade` hands it a workspace and waits
for that submission's verdicts, so a batch worker configures pytest and collects the checks once,
not once per student. The pipeline keeps one session per sandbox and selection of exercises.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from pathlib import Path

import pytest
from _pytest.runner import runtestprotocol

from grader.course import Course, Exercise
from grader.errors import GraderError
from grader.grading.answers import AnswerSheet
from grader.grading.plugin import GraderPlugin
from grader.results import Verdict
from grader.sandbox.host import Sandbox
from grader.submissions.workspace import Workspace

Job = tuple[Workspace, list[Exercise], str | None]  # a submission to grade, on these exercises, with a student's numbers


class CheckSession:
    def __init__(self, *, course: Course, exercises: list[Exercise], sandbox: Sandbox | None, device: str, hidden: bool, sheet_only: bool = False):
        self.plugin = GraderPlugin(course=course, exercises=exercises, sandbox=sandbox, device=device, sheet_only=sheet_only)
        # Each exercise's checks run together (public, then hidden), so its student process can end with them.
        self._paths = [str(p) for e in exercises for p in [*e.public_checks, *([e.hidden_checks] if hidden and e.hidden_checks.is_file() else [])]]
        self._root = course.root
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[list[Verdict] | BaseException] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._ended = ""

    def grade(self, workspace: Workspace, exercises: list[Exercise], student: str | None = None) -> tuple[list[Verdict], list[str]]:
        """Run the checks of `exercises` on `workspace`, with `student`'s numbers; its verdicts and the checks'
        collection errors."""
        if not self._paths:
            return [], []
        if self._thread is None:
            self._thread = threading.Thread(target=self._run_pytest, name="checks", daemon=True)
            self._thread.start()
        if self._ended:
            raise GraderError(self._ended)
        self._jobs.put((workspace, exercises, student))
        result = self._results.get()
        if isinstance(result, BaseException):
            raise result
        return result, list(self.plugin.collection_errors)

    def sheets(self) -> dict[str, AnswerSheet]:
        """The answer sheets the checks of the submission graded last read, by exercise id (one that could not be read
        is not there): the grader reads a sheet's numbers again from these, never from the file."""
        return self.plugin.sheets()

    def close(self) -> None:
        if self._thread is not None and not self._ended:
            self._jobs.put(None)
            self._thread.join()

    def _forget_other_courses(self) -> None:
        """Drop from sys.modules another course folder's modules under the names this session's checks take: pytest's
        importlib mode names a check by its path below the root (`course.ex01.checks`) and reuses a module already
        imported under that name, so a second course graded in this process would be graded on the first one's checks."""
        for path in map(os.path.realpath, self._paths):
            name = ".".join(Path(os.path.relpath(path, os.path.realpath(self._root))).with_suffix("").parts)
            module = sys.modules.get(name)
            if module is not None and os.path.realpath(getattr(module, "__file__", None) or path) != path:
                del sys.modules[name]

    def _run_pytest(self) -> None:
        self._forget_other_courses()
        args = [
            *self._paths,
            "-c",
            os.devnull,  # ignore the project's own pytest configuration
            "--rootdir",
            str(self._root),
            "--import-mode=importlib",  # hidden modules are named ex05.py, not test_*.py
            "--noconftest",
            "--disable-plugin-autoload",
            "-p",
            "no:terminal",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:stepwise",
            "-p",
            "no:warnings",
            "-p",
            "no:logging",  # checks do not log; capturing it costs ~2 ms a check
            "-p",
            "no:unraisableexception",  # its gc.collect() calls cost ~0.1 s a session
            "-p",
            "no:threadexception",
            "-p",
            "no:faulthandler",  # it belongs to the main thread; this session runs in its own
            "--capture=no",
            "--assert=plain",  # checks fail with their own messages; rewriting each module costs ~40 ms a session
        ]
        try:
            code = pytest.main(args, plugins=[self.plugin, self])
            self._ended = f"the check session ended (pytest exit code {int(code)}); see the collection errors"
        except BaseException as e:  # noqa: BLE001 – whatever ends pytest is the grader's error, reported to the caller
            self._ended = f"the check session failed: {type(e).__name__}: {e}"
        self._results.put(GraderError(self._ended))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        """Grade each submission handed over by `grade`, until `close`; checks that failed to collect are reported, not fatal."""
        while (job := self._jobs.get()) is not None:
            try:
                self.plugin.begin(*job)
                items = [item for item in session.items if isinstance(item, pytest.Function) and self.plugin.grades(item)]
                for item, nextitem in zip(items, [*items[1:], None]):
                    # setup, call and teardown, each reported to the plugin (its verdicts), without the log hooks no
                    # plugin of this session listens to (the terminal, --pdb, --maxfail are off)
                    runtestprotocol(item, log=False, nextitem=nextitem)
                self._results.put(self.plugin.finish())
            except BaseException as e:  # noqa: BLE001 – handed to the waiting caller
                self.plugin.finish()
                self._results.put(e)
        return True
