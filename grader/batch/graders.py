"""A batch's warm graders, seen from the process that sends them students: locally a pool of them, on Dask one per task.

`WarmGrader` is one `python -m grader.batch.worker` process (`grader.batch.worker`), started with a clean environment –
its zygote is forked from it, so what it holds is what student processes hold: nothing of the TA's environment, only
`clean_env()` – then sent one student at a time, each answered by that student's row.
`Pool` starts `workers` of them as the batch begins, each on a CPU of its own (`grader.batch.cpus`): the first is
started here and forks the others from itself once it has imported torch (`Sibling`: one import of torch for the pool,
not one for each), while the batch process reads and hashes the class. Its threads keep each busy until no student is
left; a student whose warm grader fails gets a grader-error row (graded again next run), and the next student a fresh
grader, started here.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
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
    """One `python -m grader.batch.worker` process, ready for the next student; what it says on stderr kept aside.

    Started here, it forks `siblings` (warm graders of their own, on their own CPUs) from itself once torch is imported;
    `WarmGrader.of` is one of those."""

    def __init__(self, setup: dict[str, Any], *, cpu: int | None = None, cpuset: Path | None = None, siblings: Sequence[Sibling] = ()):
        self.log: IO[bytes] = tempfile.TemporaryFile()
        pin = [*(["--cpu", str(cpu)] if cpu is not None else []), *(["--cpuset", str(cpuset)] if cpuset is not None else [])]
        forks = ["--siblings", json.dumps([s.spec for s in siblings])] if siblings else []
        self.process: subprocess.Popen[str] | Sibling = subprocess.Popen(
            [sys.executable, "-P", "-m", "grader.batch.worker", json.dumps(setup), *pin, *forks],  # -P: never the working folder on its path
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=clean_env(),
            text=True,
            pass_fds=[fd for s in siblings for fd in s.fds],
        )
        for sibling in siblings:
            sibling.handed_over()

    @classmethod
    def of(cls, sibling: Sibling) -> WarmGrader:
        """The warm grader that another forks as `sibling`."""
        grader = cls.__new__(cls)
        grader.log, grader.process = sibling.log, sibling
        return grader

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
        if isinstance(self.process, Sibling):
            self.process.close()
        self.log.close()


class Sibling:
    """A warm grader that the pool's first forks from itself (`grader.batch.worker`), so not a child of this process:
    its pipes and log, made here and handed to the first, and the part of Popen that `WarmGrader` uses, through a
    pidfd. The sibling names its pid in the first line it writes."""

    def __init__(self, cpu: int | None, cpuset: Path | None):
        self.log: IO[bytes] = tempfile.TemporaryFile()
        theirs_in, ours_in = os.pipe()
        ours_out, theirs_out = os.pipe()
        # Each handed over above 2: the first's own stdin, stdout and stderr take 0 to 2 in it (Popen), so one of
        # these numbered 0 to 2 here (a batch started with its stdin closed) would arrive as one of the first's pipes.
        self.fds = (_above_stdio(theirs_in), _above_stdio(theirs_out), fcntl.fcntl(self.log.fileno(), fcntl.F_DUPFD_CLOEXEC, 3))
        self.spec = {"stdin": self.fds[0], "stdout": self.fds[1], "stderr": self.fds[2], "cpu": cpu, "cpuset": None if cpuset is None else str(cpuset)}
        self.stdin = os.fdopen(ours_in, "w")
        self._stdout = os.fdopen(ours_out, "r")
        self._pid: int | None = None
        self._pidfd: int | None = None
        self._named = False
        self.returncode: int | None = None

    def handed_over(self) -> None:
        """The first warm grader holds the sibling's ends now: this process's copies are closed (so that its pipes end
        when it does)."""
        for fd in self.fds:
            os.close(fd)

    @property
    def stdout(self) -> IO[str]:
        self._read_name(wait=True)
        return self._stdout

    @property
    def pid(self) -> int | None:
        """Its pid, once it has named it (None if it ended, or was never forked, before that)."""
        self._read_name(wait=True)
        return self._pid

    def _read_name(self, *, wait: bool) -> None:
        if self._named or not (wait or select.select([self._stdout], [], [], 0)[0]):
            return
        self._named = True
        line = self._stdout.readline()
        if line:
            self._pid = int(json.loads(line)["pid"])
            try:
                self._pidfd = os.pidfd_open(self._pid)
            except OSError:  # ended already
                self.returncode = -1
                return
            # The pid was named a while ago: if the sibling has ended since (its pipe hung up: no other process holds
            # its end), the pid may be another process's now, never to be signalled.
            hung_up = select.POLLHUP | select.POLLERR
            ready = select.poll()
            ready.register(self._stdout, hung_up)
            if ready.poll(0):
                os.close(self._pidfd)
                self._pidfd, self.returncode = None, -1

    def poll(self) -> int | None:
        """None while it runs; -1 once it has ended (its exit status belongs to the process that forked it)."""
        self._read_name(wait=False)
        if self.returncode is None and self._named and (self._pidfd is None or select.select([self._pidfd], [], [], 0)[0]):
            self.returncode = -1
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._read_name(wait=False)
        if self._named and self._pidfd is not None and self.returncode is None:
            if not select.select([self._pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"warm grader {self._pid}", timeout or 0.0)
            self.returncode = -1
        return -1 if self.returncode is None else self.returncode

    def kill(self) -> None:
        """SIGKILL, once it has named its pid; one that has not yet is never sent a student, and ends at its closed input."""
        self._read_name(wait=False)
        if self._pidfd is not None and self.poll() is None:
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def close(self) -> None:
        """Once only: a grader that failed and could not be replaced is closed again with the pool."""
        self._stdout.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
            if self.returncode is None:
                self.returncode = -1


def _above_stdio(fd: int) -> int:
    """`fd`, moved above 2 where it is not (closed here)."""
    if fd > 2:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return moved


class Pool:
    """`workers` warm graders on this machine, each on its own CPU, started `now` or by the first `grade`, which keeps
    them busy."""

    def __init__(self, setup: dict[str, Any], workers: int, *, now: bool = True):
        self._slots = CpuSlots(workers) if workers > 1 else None
        self._setup = setup
        self._workers = workers
        self._graders = self._start_all(workers) if now else []
        self._closed = False

    def _start_all(self, count: int) -> list[WarmGrader]:
        """Warm graders 0 to `count` − 1: the first started here, the others forked by it (`Sibling`); each started here
        where there are no pidfds (off Linux), through which the batch waits for and kills a warm grader not its child."""
        if not hasattr(os, "pidfd_open"):
            return [self._start(n) for n in range(count)]
        siblings = [Sibling(*self._slot(n)) for n in range(1, count)]
        try:
            cpu, cpuset = self._slot(0)
            first = WarmGrader(self._setup, cpu=cpu, cpuset=cpuset, siblings=siblings)
        except BaseException:
            for sibling in siblings:
                sibling.handed_over()
                sibling.stdin.close()
                sibling.close()
                sibling.log.close()
            raise
        return [first, *(WarmGrader.of(s) for s in siblings)]

    def _start(self, number: int) -> WarmGrader:
        """Warm grader `number` started afresh here (one that failed replaced), on its slot's CPU and cpuset."""
        cpu, cpuset = self._slot(number)
        return WarmGrader(self._setup, cpu=cpu, cpuset=cpuset)

    def _slot(self, number: int) -> tuple[int | None, Path | None]:
        return self._slots.slot(number) if self._slots is not None else (None, None)

    def grade(self, todo: list[Student], failed: Callable[[str, Text], StudentRow]) -> Iterator[StudentRow]:
        """Each student's row as it is graded (any order); `failed(student, why)` is the row of one whose warm grader
        failed. Graders without a student are ended first (all of them when there is none to grade)."""
        if not self._graders and not self._closed and todo:
            self._graders = self._start_all(min(self._workers, len(todo)))
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
                    except Exception as e:  # noqa: BLE001 – FAILURES, or a bug of this side: that student's row either way, never a student left out
                        process = getattr(self._graders[number], "process", None)
                        if isinstance(process, Sibling) and process.pid is None and not self._closed:
                            jobs.put(student)  # a sibling never forked (the first ended first) never saw the student
                        else:
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
