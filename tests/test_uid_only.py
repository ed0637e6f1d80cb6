"""Root without namespaces (Docker's default seccomp profile, as on Gradescope): student processes still drop to a uid of their own.

The mode needs a Python every user can read; root's default Python here is not, so this test
builds a venv on Debian's system Python (skipped where there is none) and turns namespaces off
with GRADE_SANDBOX_NAMESPACES=off.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, course_toml, venv_with_torch

SYSTEM_PYTHON = Path("/usr/bin/python3")
pytestmark = [
    pytest.mark.slow,  # a second sandbox of its own
    pytest.mark.skipif(
        sys.platform != "linux" or os.geteuid() != 0 or not SYSTEM_PYTHON.exists(),
        reason="the uid-only mode is for root on Linux; it needs a Python every user can read",
    ),
]

PROBE = """import os

def lstm_step(**inputs):
    seen = []
    for path in {secrets!r}:
        try:
            open(path).read(1)
            seen.append("read " + path)
        except OSError:
            seen.append("refused " + path)
    try:
        os.kill(1, 9)
        seen.append("signalled pid 1")
    except OSError:
        seen.append("could not signal pid 1")
    raise RuntimeError(f"uid={{os.getuid()}}; " + "; ".join(seen))


def gru_step(**inputs):
    raise RuntimeError("unused")
"""


@pytest.fixture(scope="module")
def shared_tmp():
    """A folder every user may enter (pytest's own are private to root): the student's uid must read the venv's torch."""
    folder = Path(tempfile.mkdtemp(prefix="grade-uid-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def system_venv(shared_tmp) -> Path:
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info >= (3, 11))"], capture_output=True, text=True)
    if version.stdout.strip() != "True":
        pytest.skip("the system Python is older than 3.11")
    venv = venv_with_torch(shared_tmp / "venv", SYSTEM_PYTHON)
    # distributed: --scheduler reaches the machine's refusal (it reports a missing install first)
    install = subprocess.run([venv / "bin" / "pip", "install", "-q", "torch==2.13.0", str(ROOT), "distributed"], capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    return venv


def grade(
    venv: Path, *args: str, cwd: Path = ROOT, stdin: str | None = None, command: tuple = ("grade",), env: dict | None = None
) -> subprocess.CompletedProcess:
    env = env or {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "GRADE_SANDBOX_NAMESPACES": "off", "COLUMNS": "200"}
    return subprocess.run([venv / "bin" / command[0], *command[1:], *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, timeout=600)


def test_doctor_reports_the_uid_without_namespaces(system_venv, private_course):
    """Does grade doctor say the uid is on and the namespaces off, with why?"""
    out = grade(system_venv, "doctor", cwd=private_course).stdout
    assert "on  unprivileged uid: a uid per check, RLIMIT_NPROC, in a private folder" in out, out
    assert "off no network: namespaces turned off" in out, out
    assert "off grader's command lines hidden: every user can read the grader's command line" in out, out
    assert "on  references and hidden checks unreadable: other users may not read them" in out, out


def test_run_refuses_a_course_whose_answers_every_user_may_read(system_venv, shared_tmp):
    """With the references and hidden checks every user's to read, does `grade run` refuse to run student code there
    (its uid would read them: a submission that re-exports solutions/ scored 8 of 8), saying what to chmod – and grade
    once they are root's alone?"""
    course = shared_tmp / "open-course"
    course.mkdir(mode=0o755)
    course.chmod(0o755)
    for part in ("exercises", "solutions", "course"):
        shutil.copytree(ROOT / part, course / part)
        subprocess.run(["chmod", "-R", "go+rX", course / part], check=True)
    (course / "course.toml").write_text(course_toml())
    borrow = course / "borrower" / "ex09_param_matching"
    borrow.mkdir(parents=True)
    (borrow / "matching.py").write_text(f"exec(open({str(course / 'solutions' / 'ex09_param_matching' / 'matching.py')!r}).read())\n")
    doctor = grade(system_venv, "doctor", cwd=course).stdout
    assert "off references and hidden checks unreadable: the references or hidden checks are readable by every user" in doctor, doctor
    done = grade(system_venv, "run", "ex09", "-s", str(borrow.parent), cwd=course)
    assert done.returncode == 1 and "could read the course's answers" in done.stderr and "chmod 700" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Total" not in done.stdout, done.stdout
    for secret in ("solutions", "course"):
        (course / secret).chmod(0o700)
    done = grade(system_venv, "run", "ex09", "-s", str(borrow.parent), "--json", cwd=course)
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == 0, done.stdout


def test_student_process_runs_as_its_own_uid(system_venv, shared_tmp, private_course):
    """Without namespaces, is the student's code an unprivileged uid that cannot read root's files or signal pid 1?"""
    secret = shared_tmp / "root-only.txt"
    secret.write_text("the grader's")
    secret.chmod(0o600)
    folder = shared_tmp / "sub" / "ex05_gated_steps"
    folder.mkdir(parents=True)
    (folder / "gated.py").write_text(PROBE.format(secrets=[str(secret)]))
    done = grade(system_venv, "run", "ex05", "-s", str(shared_tmp / "sub"), "--json", cwd=private_course)
    assert done.returncode == 0, done.stderr
    output = " ".join(t["output"] for t in json.loads(done.stdout)["tests"])
    assert "uid=0" not in output and "uid=" in output, output
    assert f"refused {secret}" in output and "could not signal pid 1" in output, output


def test_reference_scores_full_marks_as_its_own_uid(system_venv, private_course):
    """Does the reference still get every point when its process runs as an unprivileged uid in a private folder?"""
    done = grade(system_venv, "run", "ex05", "ex06", "-s", str(private_course / "solutions"), "--json", cwd=private_course)
    doc = json.loads(done.stdout)
    assert doc["score"] == doc["max_score"] == 24, [t for t in doc["tests"] if t["status"] == "failed"]


def test_a_course_tree_others_may_enter_but_not_list_is_reported_as_readable(shared_tmp):
    """Is a course tree of mode 711 (`chmod go-r course`: others cannot list it, but open course/ex05/checks.py, whose
    name the layout tells) reported as readable by the student's uid, and one of mode 700 not?"""
    from grader.inside.isolation import UID_BASE, readable_by

    enterable, private = shared_tmp / "enterable" / "course", shared_tmp / "private" / "course"
    for tree in (enterable, private):
        (tree / "ex05").mkdir(parents=True)
        (tree / "ex05" / "checks.py").write_text("EXPECTED = 0.25")
        os.mkfifo(tree / "ex05" / "pipe")  # never opened: it would block
        tree.parent.chmod(0o755)
    enterable.chmod(0o711)
    private.chmod(0o700)
    assert readable_by(UID_BASE, [enterable, private]) == [enterable]


@pytest.fixture(scope="module")
def private_course(shared_tmp) -> Path:
    """The course with its references and checks root's alone (as the batch demands in this mode), 512 MiB a student."""
    course = shared_tmp / "course"
    course.mkdir()
    for part in ("exercises", "solutions", "course"):
        shutil.copytree(ROOT / part, course / part)
    toml = course_toml()
    assert "memory_limit = 4096 " in toml
    (course / "course.toml").write_text(toml.replace("memory_limit = 4096 ", "memory_limit = 512 "))
    for secret in ("solutions", "course"):
        (course / secret).chmod(0o700)
    return course


def hand_in(klass: Path, name: str, gated: str) -> None:
    folder = klass / name / "ex05_gated_steps"
    folder.mkdir(parents=True)
    (folder / "gated.py").write_text(gated)


REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
# Correct, and needing 128 MiB at import: what a student left charged to the worker's memory would cost it everything.
NEEDS_MEMORY = REFERENCE + '\n\nWORKING_MEMORY = b"\\1" * (128 << 20)\n'
# Fills its uid's share of /var/tmp, /tmp, a SysV segment and /dev/shm (until its memory limit stops it), then ends.
FILLER = """import ctypes
import os

block = b"x" * (8 << 20)


def fill(folder, megabytes):
    for i in range(megabytes // 8):
        with open(f"{folder}/grade-test-fill-{os.getpid()}-{i}", "wb") as f:
            f.write(block)


libc = ctypes.CDLL(None)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(0, 64 << 20, 0o1600)
ctypes.memset(libc.shmat(segment, None, 0), 1, 64 << 20)
fill("/var/tmp", 8)
fill("/tmp", 8)
fill("/dev/shm", 1024)
"""
# Runs a classmate's file if it can read it, and says whether it could read the journal.
COPIER = """try:
    exec(open({classmate!r}).read())
except OSError:
    pass
try:
    open({journal!r}, "rb").read(1)
    JOURNAL = "journal read"
except OSError:
    JOURNAL = "journal refused"
if "lstm_step" not in globals():
    def lstm_step(**inputs):
        raise RuntimeError(JOURNAL)
"""


def totals(out: Path) -> dict[str, str]:
    return {row["student"]: row["total"] for row in csv.DictReader((out / "grades.csv").open())}


def leftovers() -> list[str]:
    """What a filler's uid still owns: its files in the shared folders, SysV segments of student uids."""
    from grader.inside.isolation import UID_BASE

    files = [str(p) for folder in ("/dev/shm", "/tmp", "/var/tmp") for p in Path(folder).glob("grade-test-fill-*")]
    segments = [line for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:] if int(line.split()[7]) >= UID_BASE]
    return files + segments


def test_a_student_that_fills_shared_memory_costs_the_next_nothing_and_no_one_reads_a_classmate(system_venv, shared_tmp, private_course):
    """After a student who filled /dev/shm, /tmp and SysV memory, does the next on that worker score as it does alone,
    with nothing of the first left – and does one who reads a classmate's file and the journal get neither?"""
    klass, alone = shared_tmp / "class", shared_tmp / "alone"
    out = shared_tmp / "out"
    hand_in(klass, "amy", FILLER)
    hand_in(klass, "bea", NEEDS_MEMORY)
    hand_in(klass, "cat", COPIER.format(classmate=str(klass / "bea" / "ex05_gated_steps" / "gated.py"), journal=str(out / "journal.sqlite")))
    hand_in(alone, "bea", NEEDS_MEMORY)
    for folder in (klass, alone):
        folder.chmod(0o700)
    options = ("--exercises", "ex05", "--workers", "1", "--sandbox", "auto")
    done = grade(system_venv, "batch", str(klass), "--out", str(out), *options, cwd=private_course)
    assert done.returncode == 0, done.stderr
    assert "sandbox degraded (--sandbox auto), without: no network, private file-system view" in done.stderr
    solo = grade(system_venv, "batch", str(alone), "--out", str(shared_tmp / "out-alone"), *options, cwd=private_course)
    assert solo.returncode == 0, solo.stderr
    assert totals(out)["bea"] == totals(shared_tmp / "out-alone")["bea"] == "14", (done.stdout, done.stderr)
    assert totals(out)["cat"] == "0" and "journal refused" in (out / "feedback" / "cat.md").read_text()
    assert leftovers() == []
    modes = {p.name: p.stat().st_mode & 0o777 for p in [out, *out.rglob("*")]}
    assert all(m in (0o700, 0o600) for m in modes.values()), modes
    assert "without: no network" in (out / "summary.md").read_text()


def test_batch_refuses_what_other_users_may_read(system_venv, shared_tmp, private_course):
    """Is a class folder, or an OUT, that other users may read refused, saying how to make it private?"""
    open_class = shared_tmp / "open-class"
    hand_in(open_class, "dee", REFERENCE)
    done = grade(system_venv, "batch", str(open_class), "--out", str(shared_tmp / "open-out"), "--sandbox", "auto", "--exercises", "ex05", cwd=private_course)
    assert done.returncode == 1 and f"chmod -R go-rwx {open_class}" in done.stderr, done.stderr
    open_class.chmod(0o700)
    readable_out = shared_tmp / "readable-out"
    readable_out.mkdir(mode=0o755)
    readable_out.chmod(0o755)
    done = grade(system_venv, "batch", str(open_class), "--out", str(readable_out), "--sandbox", "auto", "--exercises", "ex05", cwd=private_course)
    assert done.returncode == 1 and f"chmod -R go-rwx {readable_out}" in done.stderr, done.stderr
    assert not (readable_out / "grades.csv").exists()


def test_scheduler_is_refused_without_network_isolation(system_venv, shared_tmp, private_course):
    """Without a network namespace, is --scheduler refused before any task is sent, and does a Dask worker's warm grader
    refuse every student it is sent too?"""
    klass = shared_tmp / "dask-class"
    hand_in(klass, "eli", REFERENCE)
    klass.chmod(0o700)
    done = grade(
        system_venv,
        "batch",
        str(klass),
        "--out",
        str(shared_tmp / "dask-out"),
        "--sandbox",
        "auto",
        "--exercises",
        "ex05",
        "--scheduler",
        "tcp://127.0.0.1:9",
        cwd=private_course,
    )
    assert done.returncode == 1 and "--scheduler: grading on a Dask cluster needs student processes without the network" in done.stderr, done.stderr
    setup = {"course_root": str(private_course), "exercise_ids": ["ex05"], "device": "cpu", "strict": False, "limits": [5.0, 4096], "dask": True}
    job = {"student": "eli", "path": str(klass / "eli")}
    clean = {
        "PATH": f"{system_venv / 'bin'}:/usr/bin:/bin",
        "GRADE_SANDBOX_NAMESPACES": "off",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    warm = grade(system_venv, stdin=f"{json.dumps(job)}\n", command=("python", "-m", "grader.batch.worker", json.dumps(setup)), cwd=private_course, env=clean)
    row = json.loads(warm.stdout)
    assert row["status"] == "internal error" and row["result"]["exercises"][0]["score"] == 0, row
    assert "this Dask worker may not grade" in row["result"]["failure"], row


def test_student_code_never_runs_as_root(tmp_path):
    """Where no uid of its own can run this Python (root's home) and namespaces are off, do run and batch refuse, saying why?"""
    env = {**os.environ, "GRADE_SANDBOX_NAMESPACES": "off"}
    doctor = subprocess.run([sys.executable, "-m", "grader.cli", "doctor"], cwd=ROOT, env=env, capture_output=True, text=True)
    if "off unprivileged uid" not in doctor.stdout:
        pytest.skip("an unprivileged uid can read this Python: the uid-only mode applies, not the refusal")
    student = tmp_path / "class" / "fay"
    shutil.copytree(ROOT / "solutions" / "ex05_gated_steps", student / "ex05_gated_steps")
    for args in (["run", "ex05", "-s", str(student)], ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--sandbox", "auto"]):
        done = subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 1 and "student code would run as root" in done.stderr, (args, done.stderr)
    assert not (tmp_path / "out" / "grades.csv").exists()


@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="chown and the sweep need root on Linux")
def test_no_flood_of_another_uids_files_hides_one_from_the_sweep(tmp_path):
    """Is what a uid left in /dev/shm and /tmp removed when another uid (a live process of the same student) has
    filled those folders with newer files first, and do the other uid's files stay?"""
    from grader.inside.isolation import UID_BASE, sweep_uid

    left, flooder = UID_BASE + 4_000_001, UID_BASE + 4_000_002
    marker = uuid.uuid4().hex
    kept = [Path(f"/dev/shm/keep-{marker}"), Path(f"/tmp/keep-{marker}")]
    flood = Path(f"/dev/shm/flood-{marker}")
    try:
        for path in kept:
            path.write_text("a solution left for a friend")
            os.chown(path, left, left)
        flood.mkdir()
        os.chown(flood, flooder, flooder)
        for n in range(25_000):  # newer than the file left, so listed before it
            (Path("/dev/shm") / f"flood-{marker}-{n}").touch()
            os.chown(Path("/dev/shm") / f"flood-{marker}-{n}", flooder, flooder)
        sweep_uid(left)
        assert not any(path.exists() for path in kept)
        assert flood.is_dir() and (Path("/dev/shm") / f"flood-{marker}-24999").exists()
    finally:
        sweep_uid(flooder)
        for path in kept:
            path.unlink(missing_ok=True)
    assert not flood.exists()


ENDED_LEADER = r"""
import ctypes, sys, threading, time
path = sys.argv[1]

def keep_writing():
    while True:
        with open(path, "w") as f:
            f.write("left for the next student")
        time.sleep(0.01)

threading.Thread(target=keep_writing).start()
time.sleep(0.2)
ctypes.CDLL(None).syscall(60, 0)  # exit(2), the raw system call: this thread ends, the writer thread lives on
"""


@pytest.mark.skipif(
    sys.platform != "linux" or os.uname().machine != "x86_64" or os.geteuid() != 0, reason="the raw exit system call's number is x86_64's; the sweep needs root"
)
def test_a_process_whose_leader_ended_is_still_swept():
    """Does the sweep end a process whose leader left with the raw exit call (it shows as a zombie while a thread of
    it keeps writing), so that nothing it writes outlives the sweep?"""
    from grader.inside.isolation import UID_BASE, sweep_uid

    uid, left = UID_BASE + 4_000_003, Path(f"/dev/shm/left-{uuid.uuid4().hex}")
    process = subprocess.Popen([str(SYSTEM_PYTHON), "-c", ENDED_LEADER, str(left)], user=uid, group=uid, cwd="/")
    try:
        deadline = time.monotonic() + 10
        while not left.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left.exists(), "the writer never wrote"
        sweep_uid(uid)
        time.sleep(0.3)  # a writer still alive would have written the file again by now
        assert not left.exists()
    finally:
        process.kill()
        process.wait()
        left.unlink(missing_ok=True)


@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="chown and the sweep need root on Linux")
def test_many_folders_of_a_uid_are_all_swept(tmp_path):
    """Are thousands of (empty or full) folders a uid left in /tmp all removed by one sweep, nothing else touched?"""
    from grader.inside.isolation import UID_BASE, sweep_uid

    uid, marker = UID_BASE + 4_000_004, uuid.uuid4().hex
    folders = [Path(f"/tmp/{marker}-{n}") for n in range(5000)]
    for folder in folders:
        folder.mkdir()
        os.chown(folder, uid, uid)
    (folders[0] / "inner").mkdir()
    os.chown(folders[0] / "inner", uid, uid)
    other = Path(f"/tmp/{marker}-root")
    other.mkdir()
    try:
        sweep_uid(uid)
        assert not any(folder.exists() for folder in folders) and other.is_dir()
    finally:
        other.rmdir()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
