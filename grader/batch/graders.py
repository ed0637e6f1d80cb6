"""A batch's warm graders, seen from the process that sends them students: locally a pool of them, on Dask one per task.

`WarmGrader` is one `python -m grader.batch.worker` process (`grader.batch.worker`), started with a clean environment –
its zygote is forked from it, so what it holds is what student processes hold: nothing of the TA's environment, only
`clean_env()` – then sent one student at a time, each answered by that student's row.
`Pool` starts `workers` of them at once, each on a CPU of its own (`grader.batch.cpus`), as the batch begins: they import
torch while the batch process reads and hashes the class. Its threads keep each busy until no student is left; a
student whose warm grader fails gets a grader-error row (graded again next run), and the next student a fresh grader.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from grader.batch.cpus import CpuSlots
from grader.results import StudentRow
from grader.sandbox.host import clean_env
from grader.text import Text

if TYPE_CHECKING:
    from grader.batch.roster import Student

# Why a warm grader failed as it graded a student: what `WarmGrader.grade` raises.
FAILURES = (OSError, EOFError, ValueError, KeyError)


def setup(course_root: Path, exercise_ids: list[str], device: str, strict: bool, limits: tuple[float, int], *, dask: bool) -> dict[str, Any]:
    """What a warm grader is started with (`grader.batch.worker`): the course, the exercises, the device, the
    strictness, the course's time and memory limits (its zygote starts before it reads the course) and whether it
    serves Dask (then it grades only where student processes have no network)."""
    return {"course_root": str(course_root), "exercise_ids": exercise_ids, "device": device, "strict": strict, "limits": list(limits), "dask": dask}


class WarmGrader:
    """One `python -m grader.batch.worker` process, ready for the next student; what it says on stderr kept aside."""

    def __init__(self, setup: dict[str, Any], *, cpu: int | None = None, cpuset: Path | None = None):
        self.log: IO[bytes] = tempfile.TemporaryFile()
        pin = [*(["--cpu", str(cpu)] if cpu is not None else []), *(["--cpuset", str(cpuset)] if cpuset is not None else [])]
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "grader.batch.worker", json.dumps(setup), *pin],  # -P: never the working folder on its path
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=clean_env(),
            text=True,
        )

    def grade(self, student: str, path: str) -> StudentRow:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"student": student, "path": path}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise EOFError(f"it ended: {self.said()}")
        return StudentRow.from_json(line)

    def said(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-2000:] or "(nothing on stderr)"

    def close(self, *, kill: bool = False) -> None:
        """End it: its input closed, it stops after the student it grades (killed at once with `kill`, or if it has
        not stopped within a minute)."""
        try:
            if kill:
                self.process.kill()
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.log.close()


class Pool:
    """`workers` warm graders on this machine, each on its own CPU, started `now` or by the first `grade`, which keeps
    them busy."""

    def __init__(self, setup: dict[str, Any], workers: int, *, now: bool = True):
        self._slots = CpuSlots(workers) if workers > 1 else None
        self._setup = setup
        self._workers = workers
        self._graders = [self._start(n) for n in range(workers)] if now else []
        self._closed = False

    def _start(self, number: int) -> WarmGrader:
        """Warm grader `number`, on its slot's CPU and cpuset."""
        cpu, cpuset = self._slots.slot(number) if self._slots is not None else (None, None)
        return WarmGrader(self._setup, cpu=cpu, cpuset=cpuset)

    def grade(self, todo: list[Student], failed: Callable[[str, Text], StudentRow]) -> Iterator[StudentRow]:
        """Each student's row as it is graded (any order); `failed(student, why)` is the row of one whose warm grader
        failed. Graders without a student are ended first (all of them when there is none to grade)."""
        if not self._graders and not self._closed:
            self._graders = [self._start(n) for n in range(min(self._workers, len(todo)))]
        while len(self._graders) > len(todo):
            self._graders.pop().close(kill=True)
        jobs: queue.SimpleQueue[Student] = queue.SimpleQueue()
        for s in todo:
            jobs.put(s)
        rows: queue.SimpleQueue[StudentRow | None] = queue.SimpleQueue()

        def serve(number: int) -> None:
            try:
                while True:
                    try:
                        student = jobs.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        rows.put(self._graders[number].grade(student.id, str(student.path)))
                    except FAILURES as e:
                        rows.put(failed(student.id, Text(f"grading {student.id} failed: {e}", f"评分 {student.id} 失败：{e}")))
                        if self._closed:
                            return
                        self._graders[number].close(kill=True)
                        try:
                            self._graders[number] = self._start(number)
                        except OSError:
                            return  # the students left are the other threads', or get a row saying so (below)
            finally:
                rows.put(None)

        threads = [threading.Thread(target=serve, args=(n,), name=f"warm-grader-{n}", daemon=True) for n in range(len(self._graders))]
        for thread in threads:
            thread.start()
        running = len(threads)
        while running:
            row = rows.get()
            if row is None:
                running -= 1
            else:
                yield row
        while not jobs.empty():  # every thread ended without a warm grader (none could be started again)
            student = jobs.get_nowait()
            yield failed(student.id, Text(f"grading {student.id} failed: no warm grader could be started", f"评分 {student.id} 失败：无法启动评分进程"))

    def close(self) -> None:
        """End every warm grader (killed: none has a student left), then the cpusets."""
        self._closed = True
        for grader in self._graders:
            grader.close(kill=True)
        self._graders.clear()
        if self._slots is not None:
            self._slots.close()
