"""The warm process of a course folder (grader.warm): grade run answered warm with a cold run's verdicts and text,
the student's saves picked up, a change of the course's own files that makes it step aside, none left by a TA's run,
a socket of the user's alone, and grade watch checking again on a save."""

import os
import queue
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, cli, course_toml, mutate
from grader.cli import main
from grader.warm import FOLDER, LOCK, SOCKET
from grader.warm.client import ask, connected, request
from grader.warm.server import Warm, claim, course_files, serve

GRADE = Path(sys.executable).parent / "grade"  # the installed entry point: grader.entry
GATED = "exercises/ex05_gated_steps/gated.py"
REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")
WRONG = mutate(REFERENCE, "h_new = o * torch.tanh(c_new)", "h_new = o * c_new")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """A student bundle as `grade release` writes it, whose grader package the `grade` runs below import (PYTHONPATH:
    the bundle installed, without a venv of its own); its warm process is stopped at the end."""
    out = tmp_path_factory.mktemp("warm") / "bundle"
    assert CliRunner().invoke(main, ["release", "--out", str(out)]).exit_code == 0
    yield out
    ask(out, "stop")


def grade(bundle: Path, *args: str, warm: bool = True) -> subprocess.CompletedProcess:
    """`grade ARGS` run in the bundle as a student types it; with `warm` false, GRADE_WARM=0: cold, and none left."""
    env = os.environ | {"PYTHONPATH": str(bundle), "GRADE_WARM": "1" if warm else "0"}
    return subprocess.run([GRADE, *args], cwd=bundle, env=env, capture_output=True, text=True, timeout=600)


def serving(bundle: Path, seconds: float = 120) -> dict:
    """The status of the bundle's warm process, once it answers (it warms up first)."""
    deadline = time.monotonic() + seconds
    while (status := ask(bundle, "status")) is None:
        assert time.monotonic() < deadline, "no warm process answered"
        time.sleep(0.2)
    return status


def gone(pid: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def shown(done: subprocess.CompletedProcess) -> tuple[str, str, int]:
    return done.stdout, done.stderr, done.returncode


@pytest.mark.slow
def test_a_warm_rerun_prints_what_a_cold_run_prints_and_picks_up_a_save(bundle):
    """In a bundle, after a grade run left its warm process, does the next grade run print exactly what a cold run
    prints – output, errors, exit code – for a correct gated.py, for a wrong one saved since, and for a usage error?"""
    (bundle / GATED).write_text(REFERENCE, encoding="utf-8")
    first = grade(bundle, "run", "ex05")  # cold: it leaves the warm process
    before = serving(bundle)
    cases = {"correct": ("run", "ex05"), "unknown id": ("run", "ex99")}
    for name, args in cases.items():
        assert shown(grade(bundle, *args)) == shown(grade(bundle, *args, warm=False)), name
    assert "2/2 public checks passed" in first.stdout and shown(first) == shown(grade(bundle, "run", "ex05"))
    (bundle / GATED).write_text(WRONG, encoding="utf-8")
    warm, cold = grade(bundle, "run", "ex05"), grade(bundle, "run", "ex05", warm=False)
    assert shown(warm) == shown(cold) and "1/2 public checks passed" in warm.stdout
    after = ask(bundle, "status")
    assert after["pid"] == before["pid"] and after["answered"] == before["answered"] + 4  # all four answered warm


@pytest.mark.slow
def test_a_changed_course_file_makes_the_warm_process_step_aside(bundle):
    """After a public check changes (a bundle updated with git pull, say), does grade run refuse the warm process's
    answer, run cold with the new check, and does that process end?"""
    grade(bundle, "run", "ex05")
    before = serving(bundle)
    public = bundle / "exercises" / "ex05_gated_steps" / "test_public.py"
    public.write_text(public.read_text(encoding="utf-8").replace("def test_", "def test_renamed_", 1), encoding="utf-8")
    now, cold = grade(bundle, "run", "ex05"), grade(bundle, "run", "ex05", warm=False)
    assert shown(now) == shown(cold)
    assert gone(before["pid"])
    assert serving(bundle)["pid"] != before["pid"]  # the cold run left a warm process of the new course


@pytest.mark.slow
def test_grade_watch_checks_again_on_a_save_and_stops_on_ctrl_c(bundle):
    """Does grade watch ex05 print grade run's table at once, the table of the file as saved after each save (with
    what was saved), and on Ctrl-C end with exit code 0, its sandbox stopped?"""
    (bundle / GATED).write_text(REFERENCE, encoding="utf-8")
    correct = grade(bundle, "run", "ex05", warm=False).stdout
    env = os.environ | {"PYTHONPATH": str(bundle), "GRADE_WARM": "1"}
    watching = subprocess.Popen([GRADE, "watch", "ex05"], cwd=bundle, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()
    threading.Thread(target=lambda: [lines.put(line) for line in watching.stdout], daemon=True).start()

    def block() -> str:
        """What watch printed up to its next line saying what it watches."""
        got = []
        while not (line := lines.get(timeout=300)).startswith("watching your files of ex05"):
            got.append(line)
        return "".join(got)

    try:
        assert block() == correct
        (bundle / GATED).write_text(WRONG, encoding="utf-8")
        saved, _, table = block().partition("\n")
        assert saved.endswith("saved: ex05_gated_steps/gated.py")
        assert table == grade(bundle, "run", "ex05", warm=False).stdout
        sandboxes = children(watching.pid)
        assert sandboxes
        watching.send_signal(signal.SIGINT)
        assert watching.wait(timeout=60) == 0
        assert all(gone(pid) for pid in sandboxes)
    finally:
        watching.kill()


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the watch's zygote)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_tas_run_leaves_no_warm_process(monkeypatch):
    """In the TA's course (hidden checks present), does grade run leave no warm process, and does the warm process
    itself refuse to start there?"""
    import grader.warm.client

    left = []
    monkeypatch.setenv("GRADE_WARM", "1")
    monkeypatch.setattr(grader.warm.client, "leave", lambda *args: left.append(args))
    done = cli(ROOT, "run", "ex11", "--submission", str(ROOT / "exercises"))
    assert done.returncode == 0 and left == []
    started = subprocess.run([sys.executable, "-m", "grader.entry", str(ROOT)], input="{}", capture_output=True, text=True, timeout=60)
    assert started.returncode == 0 and not (ROOT / FOLDER).exists(), started.stderr


def test_the_socket_and_its_folder_are_the_users_alone(tmp_path):
    """Is the socket's folder 0700, the socket and lock 0600, one server a folder; and is a folder others may enter
    refused by the server and by the client?"""
    listener = claim(tmp_path)
    assert listener is not None
    try:
        folder = tmp_path / FOLDER
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE((folder / SOCKET).stat().st_mode) == stat.S_IMODE((folder / LOCK).stat().st_mode) == 0o600
        assert claim(tmp_path) is None  # the lock is held
    finally:
        listener.close()
    assert not (folder / SOCKET).exists()
    folder.chmod(0o750)
    assert claim(tmp_path) is None
    with pytest.raises(OSError, match="no folder of this user's alone"), connected(tmp_path):
        pass


def test_a_server_whose_folder_was_deleted_leaves_its_successors_socket_in_place(tmp_path):
    """When .grade/ is deleted under a running server and the next grade run leaves a new one there, does the old
    server, as it ends, leave the new one's socket alone (else every grade run after it is cold until the new one
    idles out)?"""
    import shutil
    import socket

    old = claim(tmp_path)
    assert old is not None
    shutil.rmtree(tmp_path / FOLDER)
    new = claim(tmp_path)
    assert new is not None
    try:
        old.close()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(tmp_path / FOLDER / SOCKET))
    finally:
        new.close()
    assert not (tmp_path / FOLDER / SOCKET).exists()


def test_only_a_grade_run_of_its_own_folder_in_the_same_setting_is_answered(tmp_path, monkeypatch):
    """Does the warm process refuse what is not a grade run, a run from another course folder, from another Python or
    grader package, or in another environment – and take a grade run of its own folder?"""
    (tmp_path / "course.toml").write_text(course_toml(), encoding="utf-8")
    warm = Warm(tmp_path, main)
    good = request(["run", "ex05"], tmp_path)
    assert warm.refusal(good) == ""
    other = tmp_path.parent / "elsewhere"
    other.mkdir(exist_ok=True)
    for why, changed in {
        "not a grade run request": {"argv": ["release", "--out", "x"]},
        "another course folder": {"cwd": str(other)},
        "another Python or grader package": {"python": "/usr/bin/python3"},
        "another environment": {"env": good["env"] | {"PYTHONPATH": "/elsewhere"}},
    }.items():
        assert warm.refusal(good | changed) == why
    assert warm.refusal(good) == ""  # none of them made it step aside


def test_a_request_runs_with_its_clients_terminal_and_student_and_gives_back_the_process_own(tmp_path, monkeypatch):
    """Does the command a request runs see the client's GRADE_STUDENT, terminal size and tty – none of the process's
    own – and do its stdout and stderr come back in the order written, with its exit code, the process's variables
    as they were after it?"""
    import click

    @click.group()
    def grade() -> None:
        pass

    @grade.command("run")
    def probe() -> None:
        click.echo(f"{os.environ.get('GRADE_STUDENT')} {os.environ.get('COLUMNS')} {sys.stdout.isatty()}")
        click.echo("a note", err=True)
        click.echo("the end")
        sys.exit(3)

    (tmp_path / "course.toml").write_text(course_toml(), encoding="utf-8")
    monkeypatch.setenv("GRADE_STUDENT", "mine")
    monkeypatch.delenv("COLUMNS", raising=False)
    asked = request(["run"], tmp_path) | {"size": [123, 40], "streams": [[True, "utf-8"], [False, "utf-8"]]}
    asked["env"] = {k: v for k, v in asked["env"].items() if k not in ("GRADE_STUDENT", "COLUMNS")} | {"GRADE_STUDENT": "alice"}
    reply = Warm(tmp_path, grade).answer(asked)
    assert reply == {"output": [[1, "alice 123 True\n"], [2, "a note\n"], [1, "the end\n"]], "code": 3}
    assert os.environ["GRADE_STUDENT"] == "mine" and "COLUMNS" not in os.environ


def test_a_warm_process_ends_when_idle_and_when_the_course_changes(tmp_path):
    """Does the serving loop end after its idle time without a request, and at its next look once course.toml
    changes (naming it)?"""
    (tmp_path / "course.toml").write_text(course_toml(), encoding="utf-8")
    warm = Warm(tmp_path, main)
    assert serve(None, warm, every=0.01, idle=0.05) == "no request for 0.05 s"
    (tmp_path / "course.toml").write_text(course_toml() + "\n", encoding="utf-8")
    assert serve(None, warm, every=0.01) == f"the course's own files changed: {tmp_path.resolve() / 'course.toml'}"


def test_a_course_file_edited_with_its_size_and_mtime_kept_makes_the_warm_process_step_aside(tmp_path):
    """Does the warm process see a change of a public check that keeps its size and its mtime (an older bundle's file
    copied over it with `cp -p`, an archive unpacked), which a cold run would read?"""
    (tmp_path / "course.toml").write_text(course_toml(), encoding="utf-8")
    check = tmp_path / "exercises" / "ex05_gated_steps" / "test_public.py"
    check.parent.mkdir(parents=True)
    check.write_text("ATOL = 1e-8\n", encoding="utf-8")
    before = check.stat()
    warm = Warm(tmp_path, main)
    time.sleep(0.01)
    check.write_text("ATOL = 1e+8\n", encoding="utf-8")
    os.utime(check, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert warm.stale() == [str(check.resolve())]


def test_the_course_files_a_warm_process_depends_on(tmp_path):
    """Are course.toml, the public checks, an exercise's numbers and rubric, the stub record, the course tree (its given code, and
    hidden checks that come) and the grader package what a warm process watches of its course – and not the files the
    student edits?"""
    import grader

    watched = course_files(ROOT)
    for path in (
        "course.toml",
        "exercises/ex05_gated_steps/test_public.py",
        "exercises/ex01_cell_state/variant.toml",
        "exercises/ex08_delayed_copy/rubric.toml",
        "course/ex05/given.py",
        "course/ex05/checks.py",
    ):
        assert str(ROOT / path) in watched
    assert str(Path(grader.__file__).resolve().parent / "cli.py") in watched
    assert str(ROOT / "stubs.sha256") in watched and watched[str(ROOT / "stubs.sha256")] is None  # absent here: its coming counts
    assert not any(p.endswith(("gated.py", "answers.toml")) for p in watched)
