"""A batch on a Dask cluster: each worker keeps warm graders across its tasks, and a task grades one student on one.

A Dask worker is a multi-threaded daemonic process, so namespaces must be set up in a fresh single-threaded
process, never in a task's thread. The worker plugin `WarmGraders` keeps such processes: each is
`python -m grader.batch.worker`, which loads the course and starts its sandbox once, then grades one
student for each job it reads. A task borrows an idle one (starting one when none is idle, so one per task
running at once) and gives it back; they end with the batch (the plugin is removed) or with the worker.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import distributed

from grader.batch.cpus import CpuClaim
from grader.batch.graders import FAILURES, WarmGrader
from grader.batch.worker import course_of, failed_row
from grader.results import StudentRow
from grader.text import Text

if TYPE_CHECKING:
    from grader.batch.roster import Student
    from grader.course import Course, Exercise

PLUGIN = "grader-warm-graders"


class WarmGraders(distributed.WorkerPlugin):
    """On each worker: warm graders of one batch's course, exercises, device and strictness, lent to its tasks."""

    name = PLUGIN

    def __init__(self, setup: dict[str, Any]):
        self.grader_setup = setup
        self.args = (setup["course_root"], setup["exercise_ids"], setup["device"])

    def setup(self, worker: Any) -> None:
        self.idle: queue.SimpleQueue[WarmGrader] = queue.SimpleQueue()
        self.started: list[WarmGrader] = []
        self.claims: dict[WarmGrader, CpuClaim] = {}
        self.lock = threading.Lock()

    def teardown(self, worker: Any) -> None:
        for warm in self.started:
            warm.close()
            self.claims.pop(warm).close()

    def grade(self, student: str, path: str) -> StudentRow:
        """One student on an idle warm grader (a new one if none is idle); a grader that fails is not lent again."""
        try:
            warm = self.idle.get_nowait()
        except queue.Empty:
            with self.lock:
                claim = CpuClaim()  # a CPU of this machine's for it and every process it starts (none left: unpinned)
                warm = WarmGrader(self.grader_setup, cpu=claim.cpu)
                self.started.append(warm)
                self.claims[warm] = claim
        try:
            row = warm.grade(student, path)
        except FAILURES as e:
            warm.close()
            with self.lock:
                self.started.remove(warm)
                self.claims.pop(warm).close()
            return failed_row(
                *course_of(*self.args[:2]), self.args[2], student, Text(f"grading {student} failed on the worker: {e}", f"在工作节点上评分 {student} 失败：{e}")
            )
        self.idle.put(warm)
        return row


def task(student: str, path: str) -> StudentRow:
    """A Dask task: one student, on a warm grader of this worker."""
    plugin: WarmGraders = distributed.get_worker().plugins[PLUGIN]  # type: ignore[assignment]
    return plugin.grade(student, path)


def on_dask(todo: list[Student], scheduler: str, setup: dict[str, Any], course: Course, exercises: list[Exercise]) -> Iterator[StudentRow]:
    """Each student as a task on the cluster, graded by its worker's warm graders (started for this batch, ended
    after it); a task that fails (its worker lost, say) is that student's grader error."""
    device = setup["device"]
    with distributed.Client(scheduler) as client:  # type: ignore[no-untyped-call]
        client.register_plugin(WarmGraders(setup), name=PLUGIN)
        try:
            # One key per (student, content and course): a changed upload or a fixed check is never deduplicated away.
            futures = {client.submit(task, s.id, str(s.path), key=f"grade-{s.id}-{s.key[:16]}", pure=False): s.id for s in todo}
            for future in distributed.as_completed(futures):  # type: ignore[no-untyped-call]
                try:
                    row = future.result()
                except Exception as e:  # noqa: BLE001  (whatever the cluster raised, the other students go on)
                    row = failed_row(
                        course,
                        exercises,
                        device,
                        futures[future],
                        Text(f"the Dask task failed: {type(e).__name__}: {e}", f"Dask 任务失败：{type(e).__name__}: {e}"),
                    )
                yield row
        finally:
            client.unregister_worker_plugin(PLUGIN)
