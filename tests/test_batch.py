"""`grade batch`: input layouts, refused archives, resume after kill -9, identical grades however it is run."""

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, cli, mutate
from grader.cli import main

pytestmark = pytest.mark.slow  # classes graded in pools and on Dask

EXERCISES = "ex01,ex05"  # one answer sheet, one code exercise: every kind of work, in a few seconds
CPUSETS = os.geteuid() == 0 and Path("/sys/fs/cgroup/cpuset").is_dir()  # pool workers get one each
REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()


def student(folder: Path, gated: str | None = REFERENCE, sheet: str | None = SHEET) -> Path:
    if gated is not None:
        (folder / "ex05_gated_steps").mkdir(parents=True)
        (folder / "ex05_gated_steps" / "gated.py").write_text(gated)
    if sheet is not None:
        (folder / "ex01_cell_state").mkdir(parents=True, exist_ok=True)
        (folder / "ex01_cell_state" / "answers.toml").write_text(sheet)
    return folder


def zip_of(folder: Path, archive: Path, *, top: str | None = None) -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, str(Path(top or "") / path.relative_to(folder)))
    return archive


HOSTILE = {
    "hal": "import os\nwhile True:\n    os.fork()",
    "ian": "import torch\nhoard = []\nwhile True:\n    hoard.append(torch.ones(1 << 26))",
    "jo": "import sys\nsys.modules['grader.inside.runtime']._call = lambda *a, **k: {'ok': True}\nraise RuntimeError('forged')",
    "kai": "import sys\nfor _ in range(100):\n    print('A' * 1_000_000)\n    print('B' * 1_000_000, file=sys.stderr)",
}


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Path:
    """A small class: right, buggy, broken, hanging, zipped two ways, and one refused archive."""
    root = tmp_path_factory.mktemp("class")
    student(root / "ada")
    student(root / "bob", mutate(REFERENCE, "h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate"))
    student(root / "cyd", "def lstm_step(:\n")
    student(root / "dan", "while True:\n    pass\n")
    source = student(root.parent / "eve-src")
    zip_of(source, root / "eve.zip")
    zip_of(source, root / "fay.zip", top="my-homework")
    with zipfile.ZipFile(root / "gus.zip", "w") as zf:
        zf.writestr("../../escape.py", "x = 1")
    for name, attack in HOSTILE.items():  # the sandbox corpus's attacks, each in a student of the class
        student(root / name, f"{REFERENCE}\n\ndef lstm_step(**inputs):\n" + "".join(f"    {line}\n" for line in attack.splitlines()))
    (root / "notes.txt").write_text("not a student")
    return root


def batch(*args: str) -> subprocess.CompletedProcess:
    return cli(ROOT, "batch", *args)


def grades(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


@pytest.fixture(scope="module")
def graded(klass, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out")
    done = batch(str(klass), "--out", str(out), "--exercises", EXERCISES, "--workers", "2")
    assert done.returncode == 0, done.stderr
    return out


def test_every_layout_is_graded_and_a_bad_archive_refused_alone(graded):
    """Are folders, a zip of the layout and a zip with one top folder graded alike, and a zip with '..' refused for its student alone?"""
    g = grades(graded)
    assert sorted(g) == ["ada", "bob", "cyd", "dan", "eve", "fay", "gus", *HOSTILE]
    assert g["ada"]["total"] == g["eve"]["total"] == g["fay"]["total"] == "20"
    assert g["gus"]["total"] == "0"
    report = json.loads((graded / "reports" / "gus.json").read_text())
    assert "points outside the submission" in report["extra_data"]["exercises"][0]["note"]
    assert json.loads((graded / "summary.json").read_text())["unreadable"] == 1


def test_hostile_students_cost_only_their_own_points(graded):
    """Does each hostile student of the sandbox corpus lose lstm_step's points only, the class graded as usual?"""
    g = grades(graded)
    for name in HOSTILE:
        assert g[name]["ex01"] == "6" and 0 <= float(g[name]["ex05"]) < 14, (name, g[name])
    assert g["ada"]["total"] == "20"


def test_a_grader_failure_is_that_students_row_in_the_course_language(course, tmp_path, monkeypatch):
    """Is a bug of the grader on one student's work that student's row – no points, why, in the course's language?"""
    from dataclasses import replace
    from types import SimpleNamespace

    from grader.batch import worker
    from grader.results import Status

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    zh = replace(course, language="zh")
    grader = SimpleNamespace(course=zh, exercises=[zh.exercise("ex05")], device="cpu", grade=broken)
    row = worker.grade_or_fail(grader, "ada", str(student(tmp_path / "ada")))
    assert (row.status, row.result.language, row.result.device) == (Status.INTERNAL_ERROR, "zh", "cpu")
    assert "RuntimeError: a bug" in row.result.failure and row.result.score == 0
    assert row.result.exercises[0].note.render("zh") == "未评分：评分程序出错（RuntimeError: a bug）"  # no English words around it


def test_hanging_and_broken_students_cost_only_their_own_points(graded):
    """Do a hanging and a broken student lose their own ex05 points only, with the journal counting the timeout?"""
    g = grades(graded)
    assert g["cyd"]["ex05"] == g["dan"]["ex05"] == "0" and g["cyd"]["ex01"] == g["dan"]["ex01"] == "6"
    assert 0 < float(g["bob"]["ex05"]) < 14
    summary = json.loads((graded / "summary.json").read_text())
    assert summary["hit_a_time_limit"] >= 1  # dan (a fork bomb may hit it too)


def test_the_summary_analyses_each_check_without_who_hung_or_crashed(graded):
    """Does summary.json analyse ex05's checks without the students who hung, crashed or could not be read (counted
    apart), count bob's diagnosed code mistake under ex05, and does report.html name the one who hung?"""
    summary = json.loads((graded / "summary.json").read_text())
    ex05 = [c for c in summary["checks"] if c["exercise"] == "ex05"]
    left_out = summary["left_out_of_checks"]
    assert ex05 and left_out >= 2 and all(c["n"] <= len(grades(graded)) - left_out for c in ex05), (left_out, ex05)
    assert any(m["exercise"] == "ex05" and "swapped GRU convention" in m["diagnosis"] for m in summary["mistakes"])
    assert "<td>dan</td><td>ex05</td><td>hit a time limit</td>" in (graded / "report.html").read_text()


def test_feedback_shows_checks_not_references(graded):
    """Does a student's feedback name checks, points and diagnoses, and hold no line of the reference?"""
    text = (graded / "feedback" / "bob.md").read_text()
    assert "swapped GRU convention" in text and "ex05" in text
    reference_lines = {line.strip() for line in REFERENCE.splitlines() if len(line.strip()) > 20}
    assert not any(line in text for line in reference_lines)


def test_outputs_are_readable_by_their_owner_alone(graded):
    """Are OUT's folders and every file in it – the journal, reports, feedback, grades – root's alone (0700/0600)?"""
    modes = {str(p): p.stat().st_mode & 0o777 for p in graded.rglob("*")}
    assert modes and all(m in (0o700, 0o600) for m in modes.values()), modes


def test_a_locked_journal_never_ends_the_batch(tmp_path, monkeypatch):
    """With another connection holding the journal's write lock, does the batch wait for a brief one, and finish
    under one held throughout – the row saying so – so that the next run grades that student again?"""
    import sqlite3
    import threading

    from grader import api
    from grader.store import journal

    course = api.course(root=ROOT)
    exercises = api.select(course, ["ex01"])  # no student process: the journal alone is tried
    klass, out = tmp_path / "class", tmp_path / "out"
    student(klass / "ada", gated=None)
    run = lambda **kw: api.batch(course=course, exercises=exercises, submissions=klass, out=out, workers=1, **kw)  # noqa: E731
    assert run().graded == 1
    holder = sqlite3.connect(out / journal.FILE, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(1.0, holder.execute, args=("COMMIT",)).start()
    assert run(student="ada").rows[0].status == "graded"
    monkeypatch.setattr(journal, "BUSY_SECONDS", 0.1)
    (klass / "ada" / "ex01_cell_state" / "answers.toml").write_text("")  # a new upload, which the journal cannot take
    holder.execute("BEGIN IMMEDIATE")
    held = run()
    assert held.rows[0].status == "internal error", held.rows
    assert "the journal could not record this grade" in held.rows[0].result.internal_errors[-1]
    assert grades(out)["ada"]["total"] == "0"
    holder.execute("COMMIT")
    holder.close()
    again = run()
    assert (again.graded, again.rows[0].status) == (1, "graded")


def test_rerun_skips_unchanged_and_regrades_a_new_upload(klass, graded, tmp_path):
    """Does a rerun skip every unchanged student, and regrade one whose upload changed?"""
    out = tmp_path / "out"
    shutil.copytree(graded, out)
    again = batch(str(klass), "--out", str(out), "--exercises", EXERCISES)
    assert f"0 graded, {len(g := grades(graded))} unchanged" in again.stderr, again.stderr
    changed = tmp_path / "class"
    shutil.copytree(klass, changed)
    (changed / "bob" / "ex05_gated_steps" / "gated.py").write_text(REFERENCE)
    third = batch(str(changed), "--out", str(out), "--exercises", EXERCISES)
    assert f"1 graded, {len(g) - 1} unchanged" in third.stderr, third.stderr
    assert grades(out)["bob"]["ex05"] == "14"


def test_an_unchanged_rerun_starts_no_pool(klass, graded, tmp_path, monkeypatch):
    """Does a rerun with no one to grade publish the same files without starting a warm grader (whose torch import
    would serve no one)?"""
    from grader import api
    from grader.batch import graders

    out = tmp_path / "out"
    shutil.copytree(graded, out)
    monkeypatch.setattr(graders, "WarmGrader", lambda *a, **k: pytest.fail("a warm grader was started"))
    course = api.course(root=ROOT)
    result = api.batch(course=course, exercises=api.select(course, EXERCISES.split(",")), submissions=klass, out=out, workers=2)
    assert result.graded == 0 and result.skipped == len(grades(graded))
    for name in ("grades.csv", "summary.json", "report.html", *(f"reports/{p.name}" for p in (graded / "reports").iterdir())):
        assert (out / name).read_bytes() == (graded / name).read_bytes(), name


def test_kill_9_then_resume_gives_the_same_grades(klass, graded, tmp_path):
    """After kill -9 in the middle of a batch, does a rerun give byte-identical grades and reports, and remove the killed one's cpusets?"""
    from grader.batch.cpus import _own_cpuset

    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "grader.cli", "batch", str(klass), "--out", str(out), "--exercises", EXERCISES, "--workers", "2"],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if len(list(out.glob("reports/*.json"))) >= 2:  # some students journaled, others not yet
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (out / "grades.csv").exists(), "the batch finished before it could be killed"

    def left() -> list:
        return list(_own_cpuset().glob(f"grade-batch-{process.pid}-*")) if CPUSETS else []

    assert left() or not CPUSETS  # what the next batch must clean up
    resumed = batch(str(klass), "--out", str(out), "--exercises", EXERCISES)
    assert resumed.returncode == 0, resumed.stderr
    assert "unchanged" in resumed.stderr and " 0 unchanged" not in resumed.stderr, resumed.stderr
    assert not left()
    assert (out / "grades.csv").read_bytes() == (graded / "grades.csv").read_bytes()
    for report in (graded / "reports").glob("*.json"):
        if report.stem not in HOSTILE:  # how far a fork bomb gets before it is stopped varies from run to run
            assert (out / "reports" / report.name).read_bytes() == report.read_bytes(), report.name


def test_one_worker_and_a_dask_cluster_give_identical_grades(klass, graded, tmp_path):
    """Do --workers 1 and a real distributed.LocalCluster give the grades.csv that --workers 2 gave?"""
    from distributed import LocalCluster

    one = tmp_path / "one"
    assert batch(str(klass), "--out", str(one), "--exercises", EXERCISES, "--workers", "1").returncode == 0
    assert (one / "grades.csv").read_bytes() == (graded / "grades.csv").read_bytes()
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        dask = tmp_path / "dask"
        done = batch(str(klass), "--out", str(dask), "--exercises", EXERCISES, "--scheduler", cluster.scheduler_address)
        assert done.returncode == 0, done.stderr
    assert (dask / "grades.csv").read_bytes() == (graded / "grades.csv").read_bytes()


def ada_on_dask(tmp_path: Path, scheduler: str) -> None:
    """A first batch of one student (ada, the reference's ex05) into tmp_path/out on the Dask cluster at `scheduler`."""
    from grader.batch.run import grade_batch
    from grader.course import load_course

    student(tmp_path / "class" / "ada", REFERENCE)
    course = load_course(ROOT)
    grade_batch(
        course=course,
        exercises=[course.exercise("ex05")],
        submissions=tmp_path / "class",
        out=tmp_path / "out",
        workers=1,
        device="cpu",
        strict=False,
        scheduler=scheduler,
    )


def test_a_batch_refused_before_it_grades_tells_the_dask_cluster_nothing(tmp_path, monkeypatch):
    """Is a batch that preflight refuses – while its client is still connecting from a thread – gone from the cluster
    after it: no worker keeps its plugin, so no warm grader is started for it or left running?"""
    import threading

    from distributed import Client, LocalCluster

    from grader.batch import preflight
    from grader.batch.cluster import PLUGIN
    from grader.errors import IsolationUnavailable

    def refuse(*args: object, **kwargs: object) -> list[str]:
        raise IsolationUnavailable("refused on this machine")

    monkeypatch.setattr(preflight, "check", refuse)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        with pytest.raises(IsolationUnavailable):
            ada_on_dask(tmp_path, cluster.scheduler_address)
        for thread in threading.enumerate():  # the connection under way when the batch ended: it ends by itself
            if thread.name == "dask-connect":
                thread.join(timeout=60)
        assert list(client.run(lambda dask_worker: [p for p in dask_worker.plugins if p.startswith(PLUGIN)]).values()) == [[]]
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_a_cluster_whose_workers_refuse_the_batch_keeps_no_plugin(tmp_path, monkeypatch):
    """When a worker cannot set the batch up (its warm grader does not start, or it lacks the grader package), does the
    batch end with the grader's own error, naming --scheduler, and leave no plugin on the scheduler – one that every
    worker joining later would set up, starting a warm grader no batch ends – and no client connected?"""
    from distributed import LocalCluster

    from grader.batch import cluster as cluster_module
    from grader.batch import preflight
    from grader.batch.cluster import PLUGIN
    from grader.errors import GraderError

    def cannot_start(*args: object, **kwargs: object) -> None:
        raise OSError("no warm grader here")

    monkeypatch.setattr(preflight, "check", lambda *args, **kwargs: [])
    monkeypatch.setattr(cluster_module, "WarmGrader", cannot_start)  # the worker's Popen fails (no memory, say)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with pytest.raises(GraderError, match="--scheduler"):
            ada_on_dask(tmp_path, cluster.scheduler_address)
        assert not [p for p in cluster.scheduler.worker_plugins if p.startswith(PLUGIN)]
        assert [c for c in cluster.scheduler.clients if c != "fire-and-forget"] == []


def test_a_refused_batch_ends_after_its_dask_connection(tmp_path, monkeypatch):
    """Does a batch refused while its client is still connecting return only once that connection has ended (closed
    by itself, nothing registered), so that the process never exits under a client distributed is still setting up –
    which logs a traceback of a closed connection after the refusal's message?"""
    import threading
    import time

    import distributed
    from distributed import LocalCluster

    from grader.batch import preflight
    from grader.batch.cluster import PLUGIN
    from grader.errors import IsolationUnavailable

    def refuse(*args: object, **kwargs: object) -> list[str]:
        raise IsolationUnavailable("refused on this machine")

    connect = distributed.Client

    def slow(*args: object, **kwargs: object) -> distributed.Client:
        time.sleep(1)  # a scheduler a little further away than the refusal
        return connect(*args, **kwargs)

    monkeypatch.setattr(preflight, "check", refuse)
    monkeypatch.setattr(distributed, "Client", slow)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with pytest.raises(IsolationUnavailable):
            ada_on_dask(tmp_path, cluster.scheduler_address)
        assert not [t for t in threading.enumerate() if t.name == "dask-connect" and t.is_alive()]
        assert not [p for p in cluster.scheduler.worker_plugins if p.startswith(PLUGIN)]
        assert [c for c in cluster.scheduler.clients if c != "fire-and-forget"] == []


def test_two_batches_on_one_scheduler_each_grade_on_their_own_warm_graders(tmp_path):
    """With a second batch (other exercises) started on the scheduler while the first runs, are the first's students
    still graded on its own exercises – never on the second's warm graders – and still graded once the second has
    ended and removed its own?"""
    from distributed import LocalCluster

    from grader.batch.cluster import Cluster
    from grader.batch.graders import setup
    from grader.batch.roster import Student
    from grader.results import StudentRow
    from grader.text import Text

    def failed(who: str, why: Text) -> StudentRow:
        pytest.fail(f"{who}: {why.en}")

    def graded(batch: Cluster, name: str) -> dict[str, float]:
        (row,) = batch.grade([Student(name, student(tmp_path / name), key=name * 64)], failed)
        assert row.result is not None, row
        return {e.id: e.score for e in row.result.exercises}

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        first = Cluster(cluster.scheduler_address, setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=True))
        second = Cluster(cluster.scheduler_address, setup(ROOT, ["ex01"], "cpu", False, (5.0, 4096), dask=True))
        try:
            assert graded(first, "a") == {"ex05": 14.0}
            assert graded(second, "b") == {"ex01": 6.0}  # the second batch is set up on the worker the first uses
            assert graded(first, "c") == {"ex05": 14.0}
        finally:
            second.close()
        try:
            assert graded(first, "d") == {"ex05": 14.0}
        finally:
            first.close()


def test_an_unreachable_scheduler_is_an_error_message_not_a_traceback(tmp_path, monkeypatch):
    """Does a --scheduler no cluster answers end the batch with a message naming the address and a usage exit code
    (never a traceback from inside distributed)?"""
    import dask

    from grader.batch import preflight

    monkeypatch.setattr(preflight, "check", lambda *args, **kwargs: [])
    student(tmp_path / "class" / "ada", REFERENCE)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        done = batch(str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--exercises", "ex05", "--scheduler", "tcp://127.0.0.1:1")
    assert done.returncode == 2, done.stderr
    assert "--scheduler tcp://127.0.0.1:1" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_warm_graders_on_one_machine_claim_cpus_of_their_own():
    """Does each CPU claim of a warm grader take a CPU no other live claim holds, none once every CPU is held, and
    give its CPU back when closed?"""
    from grader.batch.cpus import CpuClaim

    cpus = sorted(os.sched_getaffinity(0))
    claims = [CpuClaim() for _ in cpus]
    try:
        assert sorted(c.cpu for c in claims) == cpus
        extra = CpuClaim()
        assert extra.cpu is None
        claims[0].close()
        again = CpuClaim()
        assert again.cpu == claims[0].cpu
        again.close()
    finally:
        for claim in claims:
            claim.close()


def test_a_warm_grader_that_does_not_start_gives_its_cpu_back(monkeypatch):
    """When a Dask worker's warm grader cannot start (its process not made: no memory, too many processes), is the CPU
    claimed for it free again – not held for the worker's life, leaving the graders started after it unpinned?"""
    from grader.batch import cluster as cluster_module
    from grader.batch.cluster import WarmGraders
    from grader.batch.cpus import CpuClaim
    from grader.batch.graders import setup

    def cannot_start(*args: object, **kwargs: object) -> None:
        raise OSError("no process for a warm grader")

    monkeypatch.setattr(cluster_module, "WarmGrader", cannot_start)
    others = [CpuClaim() for _ in range(len(os.sched_getaffinity(0)) - 1)]  # every CPU but one claimed elsewhere
    try:
        plugin = WarmGraders(setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=True))
        with pytest.raises(OSError):
            plugin.setup(None)
        last = CpuClaim()
        assert last.cpu is not None
        last.close()
    finally:
        for claim in others:
            claim.close()


def test_a_dask_worker_grades_its_students_on_one_warm_grader(tmp_path):
    """Does a worker's WarmGraders grade three students, one after another, on one warm grader process (the course
    loaded and the sandbox started once), as the pool grades them, and end it at teardown?"""
    from grader.batch.cluster import WarmGraders
    from grader.batch.graders import setup

    students = [student(tmp_path / name, gated) for name, gated in (("ada", REFERENCE), ("bo", "def broken(:\n"), ("cy", REFERENCE))]
    plugin = WarmGraders(setup(ROOT, EXERCISES.split(","), "cpu", False, (5.0, 4096), dask=True))
    plugin.setup(None)
    try:
        rows = [plugin.grade(s.name, str(s)) for s in students]
        assert len(plugin.started) == 1
        (warm,) = plugin.started
        cpu = plugin.claims[warm].cpu
        assert cpu is not None and os.sched_getaffinity(warm.process.pid) == {cpu}  # pinned to its CPU
    finally:
        plugin.teardown(None)
    assert warm.process.poll() is not None  # ended with the plugin
    assert [r.student for r in rows] == ["ada", "bo", "cy"] and all(r.status.value == "graded" for r in rows), rows
    assert rows[0].score("ex05") == rows[2].score("ex05") > rows[1].score("ex05") == 0


def test_each_worker_of_a_pool_keeps_its_student_processes_on_one_cpu(tmp_path):
    """In a pool of two, does each student process run on one CPU – even one that widens its affinity, where cpusets exist?"""
    tell = "raise RuntimeError(f'on cpus {sorted(os.sched_getaffinity(0))}')\n"
    student(tmp_path / "class" / "pia", "import os\n" + tell, sheet=None)
    student(tmp_path / "class" / "quinn", "import os\nos.sched_setaffinity(0, range(os.cpu_count()))\n" + tell, sheet=None)
    done = batch(str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--exercises", "ex05", "--workers", "2")
    assert done.returncode == 0, done.stderr
    for name in ("pia", "quinn") if CPUSETS else ("pia",):
        said = re.findall(r"on cpus \[([0-9, ]+)\]", (tmp_path / "out" / "feedback" / f"{name}.md").read_text())
        assert said and all(len(cpus.split(",")) == 1 for cpus in said), (name, said)


SPY = """
import ctypes, gc, os
held = []
for fd in sorted(os.listdir("/proc/self/fd")):
    try:
        held.append(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        pass  # the listing's own
environ = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
c_env = []
while environ[len(c_env)]:
    c_env.append(environ[len(c_env)])
gc.unfreeze()  # the objects the process was forked with too
strings = [o for o in gc.get_objects() if isinstance(o, str) and "tok-3b1f" in o]
stat = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
start, end = int(stat[47]), int(stat[48])  # env_start, env_end: the block the process was started with
c_env.append(ctypes.string_at(start, end - start))
pipes = [h for h in held if h.startswith("pipe:")]
raise RuntimeError(f"spied: pipes {len(pipes)} environ {'TA_TOKEN' in os.environ} c-environ {any(b'tok-3b1f' in e for e in c_env)} strings {len(strings)}")
"""


def test_a_student_process_holds_nothing_of_its_warm_grader(tmp_path, monkeypatch):
    """A warm grader forks its zygote from itself: does a student process of a batch hold none of its pipes (which carry
    rows of grades) and nothing of the TA's environment – in its variables, C's environ, or the objects it was forked with?"""
    monkeypatch.setenv("TA_TOKEN", "tok-3b1f")
    student(tmp_path / "class" / "eve", SPY, sheet=None)
    done = batch(str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--exercises", "ex05", "--workers", "1")
    assert done.returncode == 0, done.stderr
    feedback = (tmp_path / "out" / "feedback" / "eve.md").read_text()
    assert "spied: pipes 0 environ False c-environ False strings 0" in feedback, feedback[:3000]


FORK = """
import sys
from pathlib import Path
import torch
from grader.course_modules import load
from grader.errors import SandboxError
from grader.sandbox.host import Limits, Sandbox
root = Path(sys.argv[1])
sandbox = Sandbox.forked(course_root=root, device="cpu", limits=Limits(5.0, 4096))
print("ready" if sandbox.ready() else "no protections")
sandbox.close()
load(root / "solutions" / "ex05_gated_steps" / "gated.py")
try:
    Sandbox.forked(course_root=root, device="cpu", limits=Limits(5.0, 4096))
except SandboxError as e:
    print(e)
"""


PLANTED = """
from pathlib import Path
Path(__file__).with_name("imported").write_text("the batch's folder was on a warm grader's path")
raise ImportError("planted")
"""


def test_a_warm_grader_imports_nothing_from_the_folder_the_batch_runs_in(tmp_path):
    """A TA may run `grade batch` from any folder (the course is found beside the grader), /tmp say, where a student
    process without namespaces may write: does a warm grader – and the zygote forked from it – import nothing from it
    (`python -m` puts the working folder first on sys.path), so that a classmate's planted torch.py runs nowhere?"""
    here = tmp_path / "cwd"
    here.mkdir()
    (here / "torch.py").write_text(PLANTED)
    student(tmp_path / "class" / "ada", sheet=None)
    done = cli(here, "batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--exercises", "ex05", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert not (here / "imported").exists()
    assert grades(tmp_path / "out")["ada"]["ex05"] == "14", grades(tmp_path / "out")


def test_a_zygote_is_forked_only_from_a_clean_process():
    """Does `Sandbox.forked` fork a zygote from a process that has imported torch alone, and refuse one that has loaded
    course code (here a reference), before forking anything?"""
    from grader.sandbox.host import zygote_env

    done = subprocess.run([sys.executable, "-c", FORK, str(ROOT)], capture_output=True, text=True, timeout=300, env=zygote_env())
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[0] == "ready", (done.stdout, done.stderr)
    assert "a zygote cannot be forked from this process" in lines[1] and "_gated" in lines[1], lines


def test_a_zygote_is_not_forked_from_a_process_whose_clean_variables_hold_other_values():
    """The env block a process was started with stays in the memory its zygote, and so every student process, is
    forked from: is a warm grader started by hand with one of `clean_env()`'s variables set to another value refused
    as one with a variable too many is?"""
    from grader.sandbox.host import zygote_env

    env = zygote_env() | {"PYTHONDONTWRITEBYTECODE": "tok-3b1f"}
    done = subprocess.run([sys.executable, "-c", FORK, str(ROOT)], capture_output=True, text=True, timeout=300, env=env)
    assert "a zygote cannot be forked from this process" in done.stdout + done.stderr and "PYTHONDONTWRITEBYTECODE" in done.stdout + done.stderr
    assert "tok-3b1f" not in done.stdout + done.stderr  # the value itself is never repeated


def test_a_warm_grader_that_dies_costs_only_its_students_row(tmp_path):
    """When a pool's warm grader dies mid-student (killed here), is that student a grader error saying so, and is the
    next student graded by a fresh warm grader?"""
    import threading

    from grader.batch.graders import Pool, setup
    from grader.batch.roster import Student
    from grader.results import Status

    hang = student(tmp_path / "hal", "while True:\n    pass\n", sheet=None)
    pool = Pool(setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 1)
    first = pool._graders[0].process
    try:
        killer = threading.Timer(3.0, first.kill)  # hal is graded for 5 s at least: killed while it is
        killer.start()
        rows = list(pool.grade([Student("hal", hang), Student("ada", student(tmp_path / "ada"))], lambda who, why: failed(who, why)))
        killer.cancel()
        replaced = pool._graders[0].process
    finally:
        pool.close()
    by = {r.student: r for r in rows}
    assert by["hal"].status is Status.INTERNAL_ERROR and "grading hal failed" in by["hal"].result.failure, by["hal"]
    assert by["ada"].status is Status.GRADED and by["ada"].score("ex05") == 14, by["ada"]
    assert replaced is not first and first.poll() is not None and replaced.poll() is not None


def test_a_warm_grader_whose_zygote_died_grades_the_next_student_on_a_fresh_one(tmp_path):
    """When a warm grader's zygote dies between students (it runs no student code: the OOM killer, say), is the next
    student graded in full, on a zygote started afresh?"""
    import signal

    from grader.batch.graders import WarmGrader, setup

    warm = WarmGrader(setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False))
    try:
        assert warm.grade("ada", str(student(tmp_path / "ada"))).score("ex05") == 14
        (zygote,) = _children(warm.process.pid)
        os.kill(zygote, signal.SIGKILL)
        while Path(f"/proc/{zygote}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":  # dead, not yet reaped
            time.sleep(0.01)
        row = warm.grade("bo", str(student(tmp_path / "bo")))
    finally:
        warm.close()
    assert row.status.value == "graded" and row.score("ex05") == 14, (row.result.failure, row.result.internal_errors)


def _pipes(pid: int) -> set[str]:
    """The pipes a process holds."""
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("pipe:"):
            found.add(target)
    return found


def test_a_pools_second_warm_grader_is_forked_by_the_first_and_holds_its_own_pipes_alone(tmp_path):
    """Is a pool's second warm grader forked by the first once torch is imported (one import of torch for the pool),
    holding its own two pipes and none of the first's (through which the first's rows travel, and whose end would
    never come while another process held them)? Killed while it grades, is that its student's failure alone?"""
    import threading

    from grader.batch.graders import Pool, setup

    pool = Pool(setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 2)
    try:
        rows = [grader.grade(f"s{n}", str(student(tmp_path / f"s{n}"))) for n, grader in enumerate(pool._graders)]
        first, second = (grader.process.pid for grader in pool._graders)
        parent = int(Path(f"/proc/{second}/stat").read_text().rsplit(")", 1)[1].split()[1])
        pipes = {pid: _pipes(pid) for pid in (first, second)}
        sibling = pool._graders[1]
        killer = threading.Timer(3.0, sibling.process.kill)  # hal is graded for 5 s at least: killed while it is
        killer.start()
        with pytest.raises(EOFError):
            sibling.grade("hal", str(student(tmp_path / "hal", "while True:\n    pass\n", sheet=None)))
        killer.cancel()
        assert sibling.process.wait(timeout=10) == -1 and sibling.process.poll() is not None
        assert pool._graders[0].grade("ada", str(student(tmp_path / "ada"))).score("ex05") == 14  # the first grades on
    finally:
        pool.close()
    assert all(r.status.value == "graded" and r.score("ex05") == 14 for r in rows), rows
    assert parent == first
    assert len(pipes[second]) == 2 and not pipes[first] & pipes[second], pipes


def test_a_batch_started_with_its_stdin_closed_grades_on_every_warm_grader(tmp_path):
    """Started with no stdin (cron, `<&-`), the batch's own files take the lowest numbers: is a sibling still handed its
    own pipes and log, not the first warm grader's stdin, so that no student gets a grader error?"""
    klass = tmp_path / "class"
    for name in ("ann", "ben", "cid", "dan"):
        student(klass / name)
    done = subprocess.run(
        [sys.executable, "-m", "grader.cli", "batch", str(klass), "--out", str(tmp_path / "out"), "--exercises", EXERCISES, "--workers", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(0),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert {row["total"] for row in grades(tmp_path / "out").values()} == {"20"}, done.stdout


def test_a_sibling_that_failed_and_was_not_replaced_is_closed_once(tmp_path):
    """A sibling killed, and no grader started in its place: does the pool's close leave the batch's other files open
    (its pidfd closed once, not again under a number the batch has reused)?"""
    from grader.batch import graders
    from grader.batch.roster import Student

    pool = graders.Pool(graders.setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 2)
    try:
        sibling = pool._graders[1].process
        pid = sibling.pid  # named: its pidfd open
        pidfd = sibling._pidfd
        os.kill(pid, signal.SIGKILL)
        sibling.wait(timeout=10)

        def no_more(number):
            raise OSError("too many open files")

        pool._start = no_more
        rows = list(pool.grade([Student(n, student(tmp_path / n)) for n in ("ann", "ben", "cid")], failed))
        opened = [open(os.devnull) for _ in range(4)]
        assert pidfd in [f.fileno() for f in opened]
    finally:
        pool.close()
    assert sorted(r.student for r in rows) == ["ann", "ben", "cid"]
    for f in opened:
        os.fstat(f.fileno())
        f.close()


def test_without_pidfds_a_pool_starts_each_warm_grader_itself(tmp_path, monkeypatch):
    """Where os.pidfd_open is missing (off Linux), is every warm grader of a pool started here, and does each grade?"""
    from grader.batch import graders

    monkeypatch.delattr(graders.os, "pidfd_open")
    pool = graders.Pool(graders.setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 2)
    try:
        assert all(isinstance(grader.process, subprocess.Popen) for grader in pool._graders)
        rows = [grader.grade(f"s{n}", str(student(tmp_path / f"s{n}"))) for n, grader in enumerate(pool._graders)]
    finally:
        pool.close()
    assert all(r.status.value == "graded" and r.score("ex05") == 14 for r in rows), rows


def test_students_left_when_no_warm_grader_can_start_get_a_row_saying_so(tmp_path, monkeypatch):
    """If a warm grader fails and no other can be started, does every student left still get a row, saying why?"""
    from grader.batch import graders
    from grader.batch.roster import Student

    class Broken:
        def __init__(self, *args, **kwargs):
            if Broken.started:
                raise OSError("too many open files")
            Broken.started += 1

        def grade(self, student, path):
            raise EOFError("it ended")

        def close(self, *, kill=False):
            pass

    Broken.started = 0
    monkeypatch.setattr(graders, "WarmGrader", Broken)
    pool = graders.Pool(graders.setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 1)
    rows = list(pool.grade([Student(n, tmp_path / n) for n in ("ann", "ben", "cid")], failed))
    pool.close()
    assert [r.student for r in rows] == ["ann", "ben", "cid"]
    assert "it ended" in rows[0].result.failure and all("no warm grader could be started" in r.result.failure for r in rows[1:])


def test_a_sibling_that_ended_before_its_pid_was_read_signals_no_other_process():
    """A sibling names its pid as it starts; the batch reads it when it first needs it. Had the sibling ended in between
    and its pid gone to another process, is that process neither taken for the sibling nor killed with it?"""
    from grader.batch.graders import Sibling

    other = subprocess.Popen(["sleep", "30"])
    sibling = Sibling(None, None)
    try:
        # a stand-in for the sibling: it names the other process's pid (its own, reused), then ends
        named = f"import os; os.write({sibling.fds[1]}, b'{{\"pid\": {other.pid}}}\\n')"
        subprocess.run([sys.executable, "-c", named], pass_fds=[sibling.fds[1]], check=True)
        sibling.handed_over()
        assert sibling.poll() == -1 and sibling.wait(timeout=1) == -1
        sibling.kill()
        time.sleep(0.2)
        assert other.poll() is None
    finally:
        sibling.stdin.close()
        sibling.close()
        sibling.log.close()
        other.kill()
        other.wait()


def test_a_student_whose_grading_raises_anything_gets_a_row_saying_so(tmp_path, monkeypatch):
    """If grading one student raises what no warm grader should (a bug of the batch's side, say), does that student
    still get a row saying so – and every other student theirs – rather than being left out of the grades?"""
    from grader.batch import graders
    from grader.batch.roster import Student

    class Buggy:
        def __init__(self, *args, **kwargs):
            pass

        def grade(self, student, path):
            if student == "ben":
                raise AttributeError("a bug")
            return failed(student, "graded by the fake")

        def close(self, *, kill=False):
            pass

    monkeypatch.setattr(graders, "WarmGrader", Buggy)
    pool = graders.Pool(graders.setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 1)
    rows = {r.student: r for r in pool.grade([Student(n, tmp_path / n) for n in ("ann", "ben", "cid")], failed)}
    pool.close()
    assert sorted(rows) == ["ann", "ben", "cid"]
    assert "a bug" in rows["ben"].result.failure and all("graded by the fake" in rows[n].result.failure for n in ("ann", "cid"))


def failed(student_id: str, why: str):
    from grader.batch.worker import failed_row
    from grader.course import load_course
    from grader.text import Text

    course = load_course(ROOT)
    return failed_row(course, [course.exercise("ex05")], "cpu", student_id, Text(why))


def _children(pid: int) -> list[int]:
    """A process's children (a warm grader's: its zygote)."""
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _cpus_of(pid: int) -> tuple[set[int], str]:
    """A process's affinity and its cpuset cgroup."""
    return os.sched_getaffinity(pid), next((line for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines() if "cpuset" in line), "")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: every worker shares it")
def test_warm_graders_take_cpus_in_turn_and_the_cpusets_go_with_the_pool(tmp_path):
    """Do a pool's two warm graders take two CPUs (and cpusets, as root), which their zygotes inherit – and are the
    cpusets removed with the pool? (Where each student process runs: the test above.)"""
    from grader.batch.graders import Pool, setup

    pool = Pool(setup(ROOT, ["ex05"], "cpu", False, (5.0, 4096), dask=False), 2)
    try:
        for n, grader in enumerate(pool._graders):  # each warm: its zygote forked
            assert grader.grade(f"s{n}", str(student(tmp_path / f"s{n}"))).status.value == "graded"
        seen = []
        warm = {grader.process.pid for grader in pool._graders}
        for grader in pool._graders:
            (zygote,) = set(_children(grader.process.pid)) - warm  # the first's children: its zygote, and the second
            seen.append((_cpus_of(grader.process.pid), _cpus_of(zygote)))
        groups = [g for g in pool._slots.groups if g is not None]
    finally:
        pool.close()
    assert all(own == zygote and len(own[0]) == 1 for own, zygote in seen) and seen[0][0][0] != seen[1][0][0], seen
    assert len(groups) == (2 if CPUSETS else 0)
    if CPUSETS:
        assert sorted(g.name for g in groups) == sorted(own[1].rsplit("/", 1)[1] for own, _ in seen)
    assert not any(g.exists() for g in groups)


REFUSED = {
    "absolute path": [("/etc/evil.py", b"x")],
    "parent folder": [("ex05_gated_steps/../../x.py", b"x")],
    "symbolic link": "symlink",
    "too many entries": [(f"f{i}.txt", b"") for i in range(501)],
    "zip bomb": [("ex05_gated_steps/gated.py", b"0" * (40 << 20))],
    "an entry twice": [("ex05_gated_steps/gated.py", b"x = 1"), ("ex05_gated_steps/gated.py", b"x = 2")],
}


def test_a_zip_without_file_types_is_read(tmp_path):
    """Is a zip whose entries record no file type (as Python's zipfile writes them) unpacked, not refused?"""
    from grader.submissions.archive import unpack

    archive = tmp_path / "s.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("ex05_gated_steps/gated.py")
        info.external_attr = 0o600 << 16
        zf.writestr(info, REFERENCE)
    (tmp_path / "dest").mkdir()
    assert (unpack(archive, tmp_path / "dest") / "ex05_gated_steps" / "gated.py").read_text() == REFERENCE


@pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile warns as it writes the "entry twice" archive
@pytest.mark.parametrize("case", REFUSED)
def test_refused_archives_say_why(tmp_path, case):
    """Is an archive with this problem refused with a message, for that student only?"""
    from grader.submissions.archive import ArchiveRefused, unpack

    archive = tmp_path / "s.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        if REFUSED[case] == "symlink":
            info = zipfile.ZipInfo("ex05_gated_steps/gated.py")
            info.external_attr = 0o120777 << 16
            zf.writestr(info, "/etc/passwd")
        else:
            for name, data in REFUSED[case]:
                zf.writestr(name, data)
    (tmp_path / "dest").mkdir()
    with pytest.raises(ArchiveRefused) as refused:
        unpack(archive, tmp_path / "dest")
    assert "s.zip" in str(refused.value)
    assert not (tmp_path / "escape.py").exists() and not Path("/etc/evil.py").exists()


def test_batch_cli_usage_errors(tmp_path):
    """Are a missing submissions folder and an unknown --student usage errors with a message?"""
    runner = CliRunner()
    result = runner.invoke(main, ["batch", str(tmp_path / "none"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "not a folder of submissions" in result.output
    (tmp_path / "class").mkdir()
    result = runner.invoke(main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--student", "zed"])
    assert result.exit_code == 2 and "no such student" in result.output


def _dead_pid() -> int:
    return next(p for p in range(4_000_000, 4_100_000) if not Path(f"/proc/{p}").exists())


def test_a_cgroup_another_process_ended_first_is_no_error(tmp_path, monkeypatch):
    """The zygotes of a pool's warm graders start together and each ends the cgroups a killed batch left: when the
    other removes one just as this one lists what is inside it, does ending it go on quietly?"""
    from grader.inside.cgroups import end_cgroup

    group = tmp_path / "grade-1-1"  # a plain folder stands in: what matters is that it goes as it is listed
    (group / "inner").mkdir(parents=True)
    listing = os.scandir

    def removed_meanwhile(path):
        if isinstance(path, (str, Path)) and Path(path) == group and group.exists():
            (group / "inner").rmdir()  # the other process, first
            group.rmdir()
        return listing(path)

    monkeypatch.setattr(os, "scandir", removed_meanwhile)
    end_cgroup(group)
    assert not group.exists()


@pytest.mark.skipif(not CPUSETS, reason="cgroup v1 cpusets as root only")
@pytest.mark.parametrize("hierarchy", ["cpuset", "memory"])
def test_what_a_killed_batch_left_in_its_cgroups_is_ended_by_the_next(hierarchy):
    """Does the next batch (its cpusets) or zygote (its memory cgroups) kill a student process that outlived a kill -9, and remove the cgroup?"""
    from grader.batch.cpus import CpuSlots, _own_cpuset
    from grader.inside.cgroups import MemoryCage

    if hierarchy == "cpuset":
        parent = _own_cpuset()
        group = parent / f"grade-batch-{_dead_pid()}-0"
        group.mkdir()
        (group / "cpuset.cpus").write_text((parent / "cpuset.cpus").read_text().strip())
        (group / "cpuset.mems").write_text((parent / "cpuset.mems").read_text().strip())
    else:
        cage = MemoryCage.here()
        if cage.parent is None:
            pytest.skip("no memory cgroup here")
        group = cage.parent / f"grade-{_dead_pid()}-1"
        group.mkdir()
    survivor = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(1)"])
    try:
        (group / "cgroup.procs").write_text(str(survivor.pid))
        if hierarchy == "cpuset":
            CpuSlots(2).close()
        else:
            MemoryCage.here().remove_stale()
        assert survivor.wait(timeout=10) == -signal.SIGKILL
        assert not group.exists()
    finally:
        survivor.kill()
        survivor.wait()
        if group.exists():
            group.rmdir()
