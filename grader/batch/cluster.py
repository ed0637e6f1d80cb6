"""A batch on a Dask cluster: each worker keeps warm graders across its tasks, and a task grades one student on one.

A Dask worker is a multi-threaded daemonic process, so namespaces must be set up in a fresh single-threaded
process, never in a task's thread. The worker plugin `WarmGraders` keeps such processes: each is
`python -m grader.batch.worker`, which loads the course and starts its sandbox once, then grades one
student for each job it reads. Each worker starts one as it learns of the batch (the plugin's setup); a task borrows
an idle one (starting another when none is idle, so one per task running at once) and gives it back; they are killed
when the batch ends (the plugin is removed: none has a student left) or end with the worker. `Cluster` is the batch's
side: the local pool's shape (`grade`, `close`), each student a task. Each batch registers its plugin under a name of
its own and its tasks name it, so that batches sharing a scheduler never take over each other's workers.
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import distributed

from grader.batch.cpus import CpuClaim
from grader.batch.graders import FAILURES, WarmGrader
from grader.batch.worker import course_of, failed_row
from grader.errors import ClusterError
from grader.results import StudentRow
from grader.text import Text

if TYPE_CHECKING:
    from grader.batch.roster import Student

PLUGIN = "grader-warm-graders"  # what each batch's plugin name begins with (`Cluster.plugin`)
CONNECTING_GRACE = 5.0  # seconds a batch refused before it graded waits for its connection to end


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
        self.idle.put(self._start())  # one now: it imports torch while the batch reads the class and sends the tasks

    def _start(self) -> WarmGrader:
        with self.lock:
            claim = CpuClaim()  # a CPU of this machine's for it and every process it starts (none left: unpinned)
            try:
                warm = WarmGrader(self.grader_setup, cpu=claim.cpu)
            except BaseException:
                claim.close()  # its lock file's descriptor, else held for the worker's life
                raise
            self.started.append(warm)
            self.claims[warm] = claim
        return warm

    def teardown(self, worker: Any) -> None:
        for warm in self.started:  # the batch is over: none has a student left
            warm.close(kill=True)
            self.claims.pop(warm).close()

    def grade(self, student: str, path: str) -> StudentRow:
        """One student on an idle warm grader (a new one if none is idle); a grader that fails is not lent again."""
        try:
            warm = self.idle.get_nowait()
        except queue.Empty:
            warm = self._start()
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


def task(batch: str, student: str, path: str) -> StudentRow:
    """A Dask task: one student, on a warm grader that this worker keeps for the batch whose plugin is named `batch`."""
    plugin: WarmGraders = distributed.get_worker().plugins[batch]  # type: ignore[assignment]
    return plugin.grade(student, path)


class Cluster:
    """The Dask cluster at `scheduler` grading a batch: each student a task on a warm grader of its worker (started for
    this batch, ended after it). With `now` it connects in a thread of its own at once, so the connection and the
    workers' torch imports overlap what the batch does before it grades (preflight, reading the class; no task is sent
    before `grade`); otherwise the first `grade` that has someone to grade connects."""

    def __init__(self, scheduler: str, setup: dict[str, Any], *, now: bool = True):
        self._scheduler, self._setup = scheduler, setup
        # This batch's alone: a second batch on the scheduler under one name would tear this one's warm graders down
        # and grade its students with the other's course and exercises; the first to end would remove the other's.
        self.plugin = f"{PLUGIN}-{uuid.uuid4().hex}"
        self._client: distributed.Client | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._failed: BaseException | None = None
        self._connecting: threading.Thread | None = None
        if now:
            self._connecting = threading.Thread(target=self._connect_aside, name="dask-connect", daemon=True)
            self._connecting.start()

    def _connect_aside(self) -> None:
        try:
            self._connect()
        except BaseException as e:  # noqa: BLE001 – raised where the batch waits for the cluster (`grade`)
            self._failed = e

    def _connect(self) -> distributed.Client:
        """The client, its workers told of the batch (the plugin registered); never registered after `close`."""
        if self._client is None:
            try:
                client = distributed.Client(self._scheduler)  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"--scheduler {self._scheduler}: no Dask scheduler answered ({e}); check the address and that it runs") from None
            with self._lock:
                if self._closed:  # the batch ended while this connected: tell the workers nothing
                    client.close()  # type: ignore[no-untyped-call]
                    raise RuntimeError("the batch ended before the Dask cluster was connected")
                # Kept before registering: a plugin a worker failed to set up stays on the scheduler (every worker that
                # joins later would set it up) until `close` removes it.
                self._client = client
                try:
                    client.register_plugin(WarmGraders(self._setup), name=self.plugin)
                except Exception as e:  # noqa: BLE001 – whatever a worker raised in setting the batch up
                    raise ClusterError(
                        f"--scheduler {self._scheduler}: a worker could not set the batch up ({type(e).__name__}: {e}); "
                        "each worker needs this grader installed, torch and a free process"
                    ) from None
        return self._client

    def grade(self, todo: list[Student], failed: Callable[[str, Text], StudentRow]) -> Iterator[StudentRow]:
        """Each student's row as its task ends (any order); `failed(student, why)` is the row of one whose task failed
        (its worker lost, say): whatever the cluster raised, the other students go on."""
        if not todo:
            return
        if self._connecting is not None:
            self._connecting.join()
            self._connecting = None
            if self._failed is not None:
                raise self._failed
        client = self._connect()
        # One key per (student, content and course) and batch: a changed upload or a fixed check is never deduplicated
        # away, nor is a task of another batch's taken for this one's (it runs on that batch's warm graders).
        futures = {client.submit(task, self.plugin, s.id, str(s.path), key=f"grade-{s.id}-{s.key[:16]}-{self.plugin[-12:]}", pure=False): s.id for s in todo}
        for future in distributed.as_completed(futures):  # type: ignore[no-untyped-call]
            try:
                row = future.result()
            except Exception as e:  # noqa: BLE001
                row = failed(futures[future], Text(f"the Dask task failed: {type(e).__name__}: {e}", f"Dask 任务失败：{type(e).__name__}: {e}"))
            yield row

    def close(self) -> None:
        """End the batch on the cluster: its warm graders are killed (the plugin removed); a connection still under way
        (the batch refused before it graded) registers nothing and closes by itself."""
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
        if client is None and self._connecting is not None:
            # Waited for (a while: an unreachable scheduler keeps it for distributed's connect timeout), so that the
            # process does not exit under a client distributed is still setting up: it logs a closed connection's traceback.
            self._connecting.join(timeout=CONNECTING_GRACE)
        if client is not None:
            try:
                client.unregister_worker_plugin(self.plugin)  # type: ignore[no-untyped-call]
            finally:
                client.close()  # type: ignore[no-untyped-call]
