"""The student-process sandbox against hostile submissions (issue 5's threat model).

Each hostile submission is the reference gated.py with lstm_step replaced by code that does one
hostile thing, graded on ex05 with one shared sandbox. Each test asks: does the submission score
zero on the checks that call lstm_step (gru_step's own checks still pass), does the call return,
and does nothing outside the check's scratch change (files, connections, processes)? The last test
grades the reference with the same sandbox after all of them. Timing goes in bench/, not here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import graded
from grader.cli import main
from grader.course import load_course
from grader.errors import IsolationUnavailable
from grader.failures import StudentError
from grader.grading.pipeline import Grader
from grader.inside.isolation import PROCESSES
from grader.inside.zygote import probe
from grader.sandbox.host import OUTPUT_SHOWN, Limits, Sandbox, StudentTimeout

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")
COURSE = dataclasses.replace(load_course(ROOT), time_limit=1.0)
EXERCISE = COURSE.exercise("ex05")
# Checks that call only gru_step: a submission whose lstm_step misbehaves still earns these, but for the one that also
# reads the whole file (what lstm_step's code reaches is refused for the file).
GRU_ONLY = ("gru_step",)
FILE_WIDE = "gru_step computes the gates itself"
# Scores partly on which bad inputs raise ValueError, so an lstm_step that always raises may earn some.
SHAPES = "lstm_step: bad shapes raise ValueError"
PROTECTIONS = {p.name: p.active for p in probe(ROOT)}
ISOLATED = PROTECTIONS["private file-system view"]
needs_isolation = pytest.mark.skipif(not ISOLATED, reason="full isolation needs root on Linux (see `grade doctor`)")


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=COURSE.time_limit, memory_mib=1024))
    with Grader(COURSE, [EXERCISE], "cpu", sandbox=box) as grader:
        GRADERS[box] = grader
        yield box
    del GRADERS[box]
    box.close()


GRADERS: dict[Sandbox, Grader] = {}  # ex05's grading session on each module sandbox


def submission(tmp_path: Path, lstm_step: str | None = None, *, source: str | None = None) -> Path:
    """A submission folder whose gated.py is `source`, or the reference with lstm_step's body replaced."""
    if source is None:
        body = textwrap.indent(textwrap.dedent(lstm_step), "    ")
        source = f"{REFERENCE}\n\ndef lstm_step(**inputs):\n{body}\n"
    folder = tmp_path / "sub"
    (folder / EXERCISE.folder).mkdir(parents=True)
    (folder / EXERCISE.folder / "gated.py").write_text(source, encoding="utf-8")
    return folder


def grade(sandbox: Sandbox, folder: Path) -> dict:
    """Grade ex05; return {check name: verdict}."""
    result = GRADERS[sandbox].grade(folder)
    assert not result.internal_errors
    return {v.name: v for e in result.exercises for v in e.checks}


def assert_lstm_checks_zero(verdicts: dict) -> None:
    """Every check calling lstm_step earns nothing; gru_step's own checks still pass (only its own checks lose)."""
    for name, v in verdicts.items():
        if name.startswith(GRU_ONLY):
            assert v.passed or name.startswith(FILE_WIDE), f"{name}: {v.feedback.en}"
        elif not name.startswith(SHAPES):
            assert v.earned == 0, f"{name} earned {v.earned}"


def feedback(verdicts: dict) -> str:
    return "\n".join(v.feedback.en for v in verdicts.values())


def one_call(sandbox: Sandbox, folder: Path, module: str, function: str) -> object:
    """What `module.function()` of `folder` returns in a fresh student process of its own."""
    process = sandbox.open(folder)
    try:
        process.begin_check()
        return process.call(module, function, [], {})["value"]
    finally:
        process.close()


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


# -- broken, not hostile --------------------------------------------------------------------------


@pytest.mark.slow
def test_syntax_error(sandbox, tmp_path):
    """Does a gated.py with a syntax error score zero everywhere, saying where the error is?"""
    verdicts = grade(sandbox, submission(tmp_path, source="import torch\ndef lstm_step(:\n    pass\n"))
    assert all(v.earned == 0 for v in verdicts.values())
    assert "SyntaxError" in feedback(verdicts) and "gated.py, line 2" in feedback(verdicts)


@pytest.mark.slow
def test_syntax_error_is_found_without_a_process_and_reads_as_the_import_would(sandbox, tmp_path, monkeypatch):
    """Is a file that does not compile failed in the grader, with the very feedback its import in a process gives?"""
    folder = submission(tmp_path, source="import torch\ndef lstm_step(:\n    pass\n")
    opened = []
    monkeypatch.setattr(sandbox, "open", lambda *a, **k: opened.append(a) or Sandbox.open(sandbox, *a, **k))
    compiled = grade(sandbox, folder)
    assert opened == []
    monkeypatch.setattr("grader.sandbox.proxy.syntax_error", lambda path: None)  # the import in a process instead
    imported = grade(sandbox, folder)
    assert opened and {n: v.feedback.en for n, v in compiled.items()} == {n: v.feedback.en for n, v in imported.items()}


@pytest.mark.slow
def test_imports_are_sent_side_by_side(sandbox, tmp_path, monkeypatch):
    """Are all exercises' imports sent before any of them can time out, each timing out once (one limit in all)?"""
    from grader.sandbox.host import StudentProcess

    code = [e for e in COURSE.exercises if e.runs_code]
    for e in code:
        (tmp_path / e.folder).mkdir()
        for name in e.student_files:
            if name.endswith(".py"):
                (tmp_path / e.folder / name).write_text("while True:\n    pass\n")
    events = []
    start_import, exchange = StudentProcess.start_import, StudentProcess._exchange

    def sent(self, module):
        events.append(("sent", module))
        return start_import(self, module)

    def received(self, label, *args, **kw):
        try:
            return exchange(self, label, *args, **kw)
        except StudentTimeout:
            events.append(("timed out", label))
            raise

    monkeypatch.setattr(StudentProcess, "start_import", sent)
    monkeypatch.setattr(StudentProcess, "_exchange", received)
    result = graded(sandbox, COURSE, code, tmp_path)
    assert not result.internal_errors
    kinds = [kind for kind, _ in events]
    assert kinds == ["sent"] * len(code) + ["timed out"] * len(code), events
    for e in result.exercises:
        assert sum("did not finish within its" in v.feedback.en for v in e.checks) == 1, e.id
        assert e.score == 0 or e.id in ("ex04", "ex07", "ex08", "ex10")  # their answer sheets still count


@pytest.mark.parametrize("order", [("second", "first"), ("first", "second")])
@pytest.mark.parametrize("first", ["def f():\n    return 'first'\n", "raise ImportError('first is broken')\n"])
def test_two_imports_sent_ahead_each_get_their_own_reply_whichever_is_called_first(sandbox, tmp_path, first, order):
    """An exercise of two code files has both imports sent ahead: is each module's call answered with its own value
    (not with the other import's reply, which the process sends before it, read as its own: "a malformed reply"), or
    the first module's with its own import error – in either order of the calls?"""
    (tmp_path / "first.py").write_text(first)
    (tmp_path / "second.py").write_text("def g():\n    return 'second'\n")
    process = sandbox.open(tmp_path)
    try:
        process.begin_check()
        process.start_import("first")
        process.start_import("second")
        for module in order:
            if module == "second":
                assert process.call("second", "g", [], {})["value"] == "second"
            elif "raise" in first:
                with pytest.raises(StudentError, match="first is broken"):
                    process.call("first", "f", [], {})
            else:
                assert process.call("first", "f", [], {})["value"] == "first"
    finally:
        process.close()


@pytest.mark.slow
def test_no_check_shows_an_earlier_submissions_output(sandbox, tmp_path):
    """Checks run again for every submission in one session: does feedback show only this submission's output?"""
    first = grade(sandbox, submission(tmp_path / "a", source="print('SECRET-OF-A')\ndef lstm_step(**kw):\n    raise ValueError\n"))
    second = grade(sandbox, submission(tmp_path / "b", source="def lstm_step(**kw):\n    raise ValueError\n"))
    assert "SECRET-OF-A" in feedback(first)
    assert "SECRET-OF-A" not in feedback(second)


def test_missing_function(sandbox, tmp_path):
    """Does a gated.py without gru_step fail gru_step's checks, naming the missing function?"""
    source = REFERENCE.replace("def gru_step(", "def not_gru_step(")
    verdicts = grade(sandbox, submission(tmp_path, source=source))
    for name, v in verdicts.items():
        if name.startswith(GRU_ONLY):
            assert v.earned == 0 and "no function named 'gru_step'" in v.feedback.en


def test_big_exception_message(sandbox, tmp_path):
    """Does an exception with a 1 MB message reach feedback only truncated?"""
    verdicts = grade(sandbox, submission(tmp_path, "raise ValueError('x' * (1 << 20))"))
    assert_lstm_checks_zero(verdicts)
    assert max(len(v.feedback.en) for v in verdicts.values()) < 2000


@pytest.mark.parametrize(
    "returned",
    [
        "__import__('numpy').zeros((3, 4))",
        "type('Odd', (), {'__reduce__': lambda self: (print, ('ran',))})()",
        "(k for k in 'ifo')",
        "__import__('functools').reduce(lambda inner, _: [inner], range(100_000), [])",
    ],
    ids=["numpy", "custom-class", "generator", "deep-list"],
)
@pytest.mark.slow
def test_odd_results(sandbox, tmp_path, returned):
    """Is a result that is not plain data (numpy, a class with __reduce__, a generator, a list nested 100,000 deep) refused?"""
    verdicts = grade(sandbox, submission(tmp_path, f"return {returned}"))
    assert_lstm_checks_zero(verdicts)


# -- exits and hangs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import os; os._exit(0)",
        "import os; os._exit(86)",
        "import sys; sys.exit(3)",
        "import sys\nclass Code:\n    def __repr__(self):\n        raise RuntimeError\nsys.exit(Code())",
        "import os, signal; os.kill(os.getpid(), signal.SIGKILL); raise RuntimeError('alive')",
    ],
    ids=["os._exit", "os._exit-any-status", "sys.exit", "sys.exit-hostile-repr", "kill-self"],
)
@pytest.mark.slow
def test_exits(sandbox, tmp_path, code):
    """Does exiting or killing itself cost only the checks that call lstm_step (never a grader error)?"""
    assert_lstm_checks_zero(grade(sandbox, submission(tmp_path, code)))


def test_forged_replies(sandbox, tmp_path):
    """Does a submission that rewrites the runtime to forge replies earn nothing from it, and no grader error?

    The exercise's checks share a process, so the forgery may also spoil the submission's own later
    checks; a malformed reply ends that process.
    """
    code = "import sys\nsys.modules['grader.inside.runtime']._call = lambda *a, **k: {'ok': True}\nraise RuntimeError('forged')"
    verdicts = grade(sandbox, submission(tmp_path, code))  # asserts there is no internal error
    assert all(v.earned == 0 for name, v in verdicts.items() if "lstm" in name.lower())
    assert "malformed reply" in feedback(verdicts)


def test_a_reply_cannot_claim_the_graders_error(sandbox, tmp_path):
    """Does a submission whose every reply claims the grader's "arguments" error lose its points as its own, never
    making the grader report an internal error of its own (which would keep a stale gradebook score)?"""
    code = textwrap.dedent("""\
        import sys
        runtime = sys.modules['grader.inside.runtime']
        def forged(*args):
            return {'ok': False, 'error': {'kind': 'arguments', 'message': 'the grader sent arguments that could not be built'}}
        runtime._call = forged
        """)
    verdicts = grade(sandbox, submission(tmp_path, source=REFERENCE + "\n" + code))  # asserts there is no internal error
    assert all(v.earned == 0 for v in verdicts.values()), {n: v.earned for n, v in verdicts.items() if v.earned}


def test_a_stopped_process_leaves_no_output_file(sandbox, tmp_path):
    """Is each ended process's captured output removed once read, while its feedback still shows the output?"""
    code = "import os\nprint('spoken before the crash', flush=True)\nos._exit(3)"
    before = set(sandbox._scratch.iterdir())
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    assert "spoken before the crash" in feedback(verdicts)
    left = [p for p in set(sandbox._scratch.iterdir()) - before if p.is_dir()]
    assert left == [], left


@pytest.mark.slow
def test_endless_loop(sandbox, tmp_path):
    """Does an endless loop fail on the time limit, and does grading go on?"""
    verdicts = grade(sandbox, submission(tmp_path, "while True:\n    pass"))
    assert_lstm_checks_zero(verdicts)
    assert "did not finish within the 1 s limit for this check" in feedback(verdicts)


@pytest.mark.slow
def test_hanging_import_costs_one_time_limit(sandbox, tmp_path):
    """Does a gated.py whose import hangs wait out one time limit, later checks failing at once?"""
    verdicts = grade(sandbox, submission(tmp_path, source="while True:\n    pass\n"))
    waited = [n for n, v in verdicts.items() if "did not finish within its" in v.feedback.en]
    skipped = [n for n, v in verdicts.items() if "was not run" in v.feedback.en]
    assert len(waited) == 1 and skipped, (waited, skipped)
    assert "importing gated.py" in verdicts[waited[0]].feedback.en


@pytest.mark.slow
def test_functions_that_all_loop_cost_two_time_limits(sandbox, tmp_path):
    """Does a gated.py whose every function loops wait out at most two time limits?"""
    source = "def lstm_step(**kw):\n    while True:\n        pass\n\ndef gru_step(**kw):\n    while True:\n        pass\n"
    verdicts = grade(sandbox, submission(tmp_path, source=source))
    waited = [n for n, v in verdicts.items() if "limit for this check" in v.feedback.en]
    assert len(waited) == 2 and all(v.earned == 0 for v in verdicts.values()), waited
    assert all(v.earned == 0 for v in verdicts.values())


# -- resources ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_memory_bomb(sandbox, tmp_path):
    """Is allocating without bound stopped by the memory limit?"""
    verdicts = grade(sandbox, submission(tmp_path, "import torch\nhoard = []\nwhile True:\n    hoard.append(torch.ones(1 << 26))"))
    assert_lstm_checks_zero(verdicts)


@pytest.mark.parametrize("kind", ["shared anonymous mapping", "file on the private /tmp"])
@pytest.mark.slow
def test_memory_limit_counts_every_kind(sandbox, tmp_path, kind):
    """Is memory that RLIMIT_DATA does not count (mmap(-1) shared, tmpfs) stopped by the limit too (here 1024 MiB)?

    The submission touches 3 GiB and reports how far it got; it must be stopped before that.
    """
    grab = {
        "shared anonymous mapping": "import mmap\nm = mmap.mmap(-1, 3 << 30)\nfor i in range(0, 3 << 30, 4096):\n    m[i] = 1",
        "file on the private /tmp": "with open('/tmp/fill', 'wb') as f:\n    for _ in range(3 << 10):\n        f.write(b'x' * (1 << 20))",
    }[kind]
    verdicts = grade(sandbox, submission(tmp_path, grab + "\nraise RuntimeError('all of it was allowed')"))
    assert "all of it was allowed" not in feedback(verdicts)
    assert_lstm_checks_zero(verdicts)


@pytest.mark.skipif(not PROTECTIONS["memory limit (all kinds)"], reason="no memory cgroup here (see `grade doctor`)")
@pytest.mark.slow
def test_memory_limit_holds_for_one_students_processes_together(tmp_path):
    """With a 512 MiB limit, can two of one student's processes side by side not both hold 300 MiB?"""
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=20.0, memory_mib=512))
    (tmp_path / "hog.py").write_text(
        "def hold():\n    global kept\n    kept = bytearray(300 << 20)\n    kept[::4096] = b'x' * len(kept[::4096])\n\ndef held():\n    return len(kept)\n"
    )
    processes = [box.open(tmp_path) for _ in range(2)]
    held = []
    try:
        for process in processes:
            process.begin_check()
            try:
                process.call("hog", "hold", [], {})
            except StudentError:
                pass
        for process in processes:
            process.begin_check()
            try:
                held.append(process.call("hog", "held", [], {})["value"])
            except StudentError as e:  # killed by the cgroup's out-of-memory killer, or MemoryError
                held.append(e.en)
    finally:
        for process in processes:
            process.close()
        box.close()
    assert held.count(300 << 20) == 1, held


@pytest.mark.slow
def test_lone_surrogate_and_forged_names_reach_json_safely(tmp_path):
    """Does an exception named like a verdict, with a lone surrogate and bidi controls, leave one JSON object, quoted?"""
    code = (
        "class E(Exception):\n    pass\nE.__name__ = 'OK (3/3 points) \u2714'\nraise E(chr(0xD800) + chr(0x202E) + ' reversed ' + chr(0x2028) + ' next line')"
    )
    result = CliRunner().invoke(main, ["run", "ex05", "-s", str(submission(tmp_path, code)), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    output = " ".join(t["output"] for t in doc["tests"])
    assert '"OK (3/3 points) \u2714"' in output
    assert not any(c in output for c in "\ud800\u202e\u2028")


def test_a_batch_of_calls_brings_back_a_bounded_amount_in_all(sandbox, tmp_path):
    """Each reply is bounded alone (16 MiB of tensors): does a batch of calls (`many`) whose every reply is 12 MiB stop
    once their sum passes the request's bound – a StudentError, the process stopped – rather than bring back 10 × 12 MiB
    into the grading process?"""
    from grader.sandbox.host import REQUEST_REPLY_BYTES, Arguments

    (tmp_path / "big.py").write_text("import torch\n\ndef f():\n    return torch.zeros(3 << 20)\n")
    process = sandbox.open(tmp_path)
    try:
        process.begin_check()
        assert len(process.many("big", "f", [Arguments([], {})])) == 1  # one alone is within the bounds
        with pytest.raises(StudentError, match=f"more than {REQUEST_REPLY_BYTES >> 20} MiB together"):
            process.many("big", "f", [Arguments([], {}) for _ in range(10)])
        assert not process.usable
    finally:
        process.close()


def test_output_flood(sandbox, tmp_path):
    """Does flooding stdout and stderr end at the file-size limit, with only a truncated part shown?"""
    code = "import sys\nfor _ in range(200):\n    print('A' * 1_000_000)\n    print('B' * 1_000_000, file=sys.stderr)\nreturn None"
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    assert all(len(v.feedback.en) < OUTPUT_SHOWN + 1000 for v in verdicts.values())


def test_what_failed_checks_were_sent_is_not_kept(sandbox, tmp_path):
    """Are the values a submission sent back to checks that failed let go once those checks have their verdicts – not
    kept, by each failure's traceback, until the next submission is graded (a batch's warm grader would hold a whole
    submission of large wrong results between students, and more than one submission's at the next one's peak)?"""
    import gc

    import torch

    code = """
    import torch
    return {k: torch.zeros(inputs["h"].shape[0], 4567, dtype=torch.float64) for k in ("i", "f", "o", "candidate", "c", "h")}
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    gc.collect()
    kept = [o for o in gc.get_objects() if issubclass(type(o), torch.Tensor) and o.shape[-1:] == (4567,)]
    assert kept == [], f"{len(kept)} tensors the submission sent are still held"


@needs_isolation
def test_fork_bomb(sandbox, tmp_path):
    """Is a fork bomb bounded by the process limit, and are all its processes gone after the check?"""
    marker = f"31{uuid.uuid4().int % 10**8}"
    code = f"""
    import os
    n = 0
    try:
        while True:
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "{marker}"])
            n += 1
    except OSError:
        raise RuntimeError(f"forked {{n}} times")
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    counts = [int(w) for v in verdicts.values() for w in v.feedback.en.replace('"', " ").split() if w.isdigit()]
    assert counts and max(counts) < PROCESSES
    assert processes_with(marker) == []


def test_setsid_grandchild(sandbox, tmp_path):
    """Is a grandchild that starts its own session (escaping a process-group kill) gone after the check?"""
    marker = f"32{uuid.uuid4().int % 10**8}"
    code = f"""
    import subprocess
    subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
    raise RuntimeError("left a sleeper")
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    assert processes_with(marker) == []


# -- escape attempts ------------------------------------------------------------------------------


@needs_isolation
def test_files_outside_scratch(sandbox, tmp_path):
    """Does writing outside scratch (/tmp, the course folder) and a huge file leave nothing behind?"""
    name = f"pwned-{uuid.uuid4().hex}"
    code = f"""
    for path in ("/tmp/{name}", "{ROOT}/{name}", "{tmp_path}/{name}"):
        try:
            open(path, "w").write("owned")
        except OSError:
            pass
    with open("/tmp/{name}-big", "wb") as f:
        f.write(b"x" * (200 << 20))
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    for folder in (Path("/tmp"), ROOT, tmp_path):
        assert not list(folder.glob(f"{name}*"))


@needs_isolation
def test_network(sandbox, tmp_path):
    """Does a connection to a listener on 127.0.0.1 fail, with nothing reaching the listener?"""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code = f"""
        import socket
        socket.create_connection(("127.0.0.1", {port}), timeout=1).sendall(b"hello")
        raise RuntimeError("connected")
        """
        verdicts = grade(sandbox, submission(tmp_path, code))
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert_lstm_checks_zero(verdicts)
    assert "connected" not in feedback(verdicts)


_ADD_KEY = {"x86_64": 248, "aarch64": 217}  # the add_key system call's number


@pytest.mark.skipif(
    not PROTECTIONS["no channel between student processes"] or os.uname().machine not in _ADD_KEY, reason="no seccomp here (see `grade doctor`)"
)
def test_kernel_keyrings_are_refused(sandbox, tmp_path):
    """Is add_key refused (EPERM), so that no key can carry data from one student process to another?"""
    code = f"""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    serial = libc.syscall({_ADD_KEY[os.uname().machine]}, b"user", b"note", b"secret", 6, -4)  # KEY_SPEC_USER_KEYRING
    raise RuntimeError(f"add_key gave {{serial}}, errno {{ctypes.get_errno()}}")
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    assert "add_key gave -1, errno 1" in feedback(verdicts)


@pytest.mark.skipif(not PROTECTIONS["unprivileged uid"], reason="no uid of its own here (see `grade doctor`)")
def test_student_processes_side_by_side_have_uids_of_their_own(sandbox, tmp_path):
    """Do two live student processes of one zygote run as two different unprivileged uids?"""
    (tmp_path / "who.py").write_text("import os\ndef uid():\n    return os.getuid()\n")
    processes = [sandbox.open(tmp_path) for _ in range(2)]
    try:
        uids = []
        for process in processes:
            process.begin_check()
            uids.append(process.call("who", "uid", [], {})["value"])
    finally:
        for process in processes:
            process.close()
    assert len(set(uids)) == 2 and all(u >= 1 << 20 for u in uids), uids


@needs_isolation
def test_reading_solutions(sandbox, tmp_path):
    """Does reading solutions/, the hidden tests or another workspace fail (so copying the reference cannot score)?"""
    code = f"""
    import glob
    for path in ["{ROOT}/course/ex05/checks.py", *glob.glob("/tmp/grade-workspace-*/*/gated.py")]:
        try:
            open(path).read()
            raise RuntimeError("read " + path)
        except OSError:
            pass
    scope = {{}}
    exec(open("{ROOT}/solutions/ex05_gated_steps/gated.py").read(), scope)
    return scope["lstm_step"](**inputs)
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    assert_lstm_checks_zero(verdicts)
    assert "FileNotFoundError" in feedback(verdicts)


def test_monkeypatching(sandbox, tmp_path):
    """Does patching torch.allclose, torch.testing and math in the student process leave verdicts unchanged?"""
    code = """
    import math, torch
    torch.allclose = lambda *a, **k: True
    torch.testing.assert_close = lambda *a, **k: None
    torch.Tensor.__eq__ = lambda *a: True
    math.isclose = lambda *a, **k: True
    return {k: torch.zeros(inputs["h"].shape, dtype=inputs["h"].dtype) for k in ("i", "f", "o", "candidate", "c", "h")}
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    for name, v in verdicts.items():
        if name.startswith(("lstm_step:", "lstm_step reproduces")):
            assert v.earned == 0, name


def test_inherited_memory(sandbox, tmp_path):
    """Does ex05's student process hold no grader module beyond grader.inside, no given code but ex05's own public one,
    nothing from solutions or the hidden checks?"""
    code = """
    import sys
    raise RuntimeError("modules: " + " ".join(sorted(m for m in sys.modules if m.startswith(("grader", "_reference", "ex", "given_", "checks")))))
    """
    verdicts = grade(sandbox, submission(tmp_path, code))
    text = verdicts[next(n for n in verdicts if n.startswith("lstm_step:"))].feedback.en
    modules = text.split("modules:")[1].strip(' "').split()
    given = [m for m in modules if m.startswith("given_")]
    assert given == ["given_given_ex05"], modules  # ex05's prepare() blocks the library cells: its given code is loaded
    assert all(m == "grader" or m.startswith("grader.inside") for m in modules if m not in given), modules


def test_a_student_process_starts_with_the_zygotes_objects_frozen(sandbox, tmp_path):
    """Are the objects a student process was forked with (torch's import, the engine) out of its garbage collector's
    generations, so that its collections never walk them and copy the zygote's pages, which only they would write?"""
    (tmp_path / "heap.py").write_text("import gc\ndef frozen():\n    return gc.get_freeze_count()\n")
    frozen = one_call(sandbox, tmp_path, "heap", "frozen")
    assert frozen > 100_000, frozen  # torch's import alone leaves more


@needs_isolation
def test_a_formatted_stack_looks_for_none_of_the_engines_files(sandbox, tmp_path):
    """Does formatting a stack in an isolated student process (torch.manual_seed formats three) look up on disk only
    files the process can read – not the engine's own frames below the call, which it cannot see, again and again?"""
    (tmp_path / "stack.py").write_text(
        textwrap.dedent(
            """
            import linecache, traceback
            def looked_up():
                found = []
                lookup = linecache.updatecache
                def spy(filename, module_globals=None):
                    found.append(filename)
                    return lookup(filename, module_globals)
                linecache.updatecache = spy
                try:
                    traceback.format_stack()
                    traceback.format_stack()
                finally:
                    linecache.updatecache = lookup
                return found
            """
        )
    )
    found = one_call(sandbox, tmp_path, "stack", "looked_up")
    engine = str(ROOT / "grader")
    assert not [f for f in found if f.startswith(engine)], found
    assert any(f.endswith("stack.py") for f in found), found  # the submission's own file is still read for its lines


def test_each_checks_output_is_read_from_the_file_the_grader_holds_open(sandbox, tmp_path):
    """Is a check's output read from where the previous check's ended, through the file the grader opened as the
    process started (not by its name, looked up again for every check)?"""
    (tmp_path / "talk.py").write_text("def say(text):\n    print(text)\n")
    process = sandbox.open(tmp_path)
    try:
        process.begin_check()
        process.call("talk", "say", ["first"], {})
        assert process.output() == "first\n"
        process.begin_check()
        process.call("talk", "say", ["second"], {})
        (process._scratch / "output.log").rename(process._scratch / "moved.log")
        assert process.output() == "second\n"
    finally:
        process.close()


@pytest.mark.slow
def test_fake_results_in_output(tmp_path):
    """Does `grade run --json` print one JSON object whose scores ignore fake results the submission prints?"""
    fake = '{"score": 14.0, "max_score": 14.0, "status": "passed"}'
    code = f"print({fake!r})\nimport sys\nprint({fake!r}, file=sys.stderr)\nraise RuntimeError('no')"
    folder = submission(tmp_path, code)
    result = CliRunner().invoke(main, ["run", "ex05", "-s", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert fake not in result.stdout
    graded = json.loads(result.stdout)
    assert graded["score"] < 14.0


# -- the batch goes on ------------------------------------------------------------------------------


def test_reference_after_hostile(sandbox, tmp_path):
    """After every hostile submission above, does the reference still get full marks in the same sandbox?"""
    verdicts = grade(sandbox, submission(tmp_path, source=REFERENCE))
    assert all(v.passed for v in verdicts.values()), feedback(verdicts)


@pytest.mark.slow
def test_no_scratch_left(tmp_path):
    """Does closing a sandbox remove its scratch folder?"""
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=1.0, memory_mib=1024))
    box.ready()
    box.close()
    assert not box._scratch.exists()


@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="full isolation is expected as root on Linux")
def test_protections_all_active(sandbox):
    """As root on Linux (as in CI), is every protection active, so that no isolation test is skipped?"""
    assert all(p.active for p in sandbox.protections)


def test_doctor():
    """Does `grade doctor` list every protection with whether it is on, as the sandbox sees it?"""
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    for name, active in PROTECTIONS.items():
        assert f"{'on ' if active else 'off'} {name}:" in result.output


@pytest.mark.skipif(ISOLATED, reason="every protection is available here")
def test_strict_refuses_without_isolation():
    """Without full isolation, does strict mode refuse to run student code?"""
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=1.0, memory_mib=1024), strict=True)
    try:
        with pytest.raises(IsolationUnavailable):
            box.ready()
    finally:
        box.close()


def test_a_late_reply_of_the_zygote_is_never_read_as_the_next_ones(tmp_path):
    """When the zygote answers a request after the grader stopped waiting (a long sweep), is that late reply dropped,
    so the next request gets its own answer and no worker falls out of step?"""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    box = Sandbox(None, ours, tmp_path, "cpu", Limits(time_limit=1.0, memory_mib=256), strict=False)
    try:
        theirs.send(json.dumps({"id": 1, "status": "the reap the grader gave up on"}).encode())
        theirs.send(json.dumps({"id": 2, "pid": 4242}).encode())
        assert box._reply(timeout=5, expect=2) == {"id": 2, "pid": 4242}
    finally:
        ours.close()
        theirs.close()
