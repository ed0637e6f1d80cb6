"""The grader's side of student processes: start the clean zygote, fork sandboxed student processes, end them.

Student code never runs in the grading process. `Sandbox.start` launches `python -m grader.inside.zygote`
(a fresh interpreter, so it inherits nothing – not CUDA state, not course material); a batch's warm grader,
as clean when it starts, forks its zygote from itself instead (`Sandbox.forked`). The zygote preloads
torch once and forks a student process in milliseconds, isolated as far as this machine allows
(`protections`; `grader.inside.isolation` says how), holding the given course code of its exercise only. The checks of one exercise share a student process, one
check at a time; the grader talks to it over its own socket with `grader.inside.wire` and enforces each
check's time limit from here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from grader.errors import IsolationUnavailable, SandboxError
from grader.failures import StudentError
from grader.inside import given, layout, wire, zygote
from grader.inside.isolation import OWN_UID, SECRETS_UNREADABLE, Protection
from grader.inside.zygote import SETUP_FAILED_FILE
from grader.results import Outcome
from grader.sandbox.services import MAX_CALLBACKS, Service, answer
from grader.text import printable

# What a reply from a student process may hold (sized to the largest legitimate reply of any check).
REPLY_BOUNDS = wire.Bounds()
# What all the replies of one request may hold together (the largest legitimate one, ex08's comparison, is about 1.3 MB):
# each reply is bounded alone, and a batch of calls (`many`) would otherwise bring back that much for every call.
REQUEST_REPLY_BYTES = 64 << 20
# Largest file (the captured output included) a student process may write.
WRITTEN_FILE_BYTES = 16 << 20
# How much of a submission's own output is shown in feedback.
OUTPUT_SHOWN = 1500
# How long the zygote may take to import torch before the grader gives up.
STARTUP_SECONDS = 300
# How long forking a student process and handing it its given code may take.
FORK_SECONDS = 30
# How long reaping a student process may take (without namespaces it includes sweeping what its uid left).
REAP_SECONDS = 300
# How many checks one student process serves before a fresh one is forked (its CPU-time limit
# covers this many checks' time limits); every exercise's checks fit in one process.
CHECKS_PER_PROCESS = 32


@dataclass(frozen=True)
class Limits:
    time_limit: float  # wall seconds per check
    memory_mib: int

    def for_child(self) -> dict[str, int]:
        return {
            "memory_mib": self.memory_mib,
            "cpu_seconds": int(CHECKS_PER_PROCESS * self.time_limit) + 1,
            "file_bytes": WRITTEN_FILE_BYTES,
        }


@dataclass(frozen=True)
class Arguments:
    """The arguments of one call of a request (every Service in them replaced by a Remote) and the services that those
    Remotes stand for: what the student process calls during this call, and only during it, is answered with these."""

    args: list[object]
    kwargs: dict[str, object]
    services: Sequence[Service] = ()


class StudentTimeout(StudentError):
    """The submission's function (or the import of a module, `importing` – not always the called function's: an import
    sent ahead of it that hung) did not finish within the check's time limit."""

    def __init__(self, en: str, zh: str, *, importing: str | None):
        super().__init__(en, zh, outcome=Outcome.TIMED_OUT)
        self.importing = importing


class Sandbox:
    """A running zygote; `open()` forks a fresh student process."""

    def __init__(self, process: subprocess.Popen[bytes] | _Forked, control: socket.socket, scratch: Path, device: str, limits: Limits, strict: bool):
        self._process = process
        self._control = control
        self._scratch = scratch
        self._device = device
        self.limits = limits
        self._strict = strict
        self._protections: list[Protection] | None = None
        self._count = 0
        self._requests = 0  # ids of requests to the zygote, which its replies carry

    @classmethod
    def start(cls, *, course_root: Path, device: str, limits: Limits, strict: bool = False) -> Sandbox:
        """Launch the zygote now; it imports torch while the grader goes on with its own work.

        With `strict`, the first `open()` raises IsolationUnavailable unless every protection is active.
        """
        scratch = Path(tempfile.mkdtemp(prefix="grade-sandbox-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with open(scratch / "zygote.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "grader.inside.zygote", str(theirs.fileno()), str(course_root.resolve())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=zygote_env(),
                cwd=scratch,
            )
        theirs.close()
        return cls(process, ours, scratch, device, limits, strict)

    @classmethod
    def forked(cls, *, course_root: Path, device: str, limits: Limits, strict: bool = False) -> Sandbox:
        """A zygote forked from this process rather than started afresh: a batch's warm grader saves the zygote's own
        import of torch (about as long as a student's grading). Only for a process that is as clean as a fresh zygote
        would be – started with `clean_env()`'s environment, torch imported, single-threaded, nothing of the course
        read: its memory is what student processes are forked from (`grader.inside.zygote.become`)."""
        threads = Path("/proc/self/status").read_text().split("Threads:", 1)[1].split()[0] if sys.platform == "linux" else "1"
        folders = tuple(f"{folder}{os.sep}" for secret in layout.secrets(course_root) for folder in {secret.absolute(), secret.resolve()})
        loaded = [name for name, module in list(sys.modules.items()) if str(getattr(module, "__file__", None) or "").startswith(folders)]
        clean = clean_env()
        extra = sorted(k for k, v in os.environ.items() if clean.get(k) != v)  # a value too: its start's env block stays
        if threads != "1" or loaded or extra:
            raise SandboxError(f"a zygote cannot be forked from this process ({threads} threads; course modules loaded: {loaded}; other variables: {extra})")
        scratch = Path(tempfile.mkdtemp(prefix="grade-sandbox-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        log = os.open(scratch / "zygote.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        pid = os.fork()
        if pid == 0:
            ours.close()
            zygote.become(theirs.fileno(), log, scratch, zygote_env(), course_root.resolve())  # never returns
        os.close(log)
        theirs.close()
        return cls(_Forked(pid), ours, scratch, device, limits, strict)

    @property
    def pid(self) -> int:
        """The zygote's process id (bench/ reads the CPU time of its student processes from it)."""
        return self._process.pid

    @property
    def alive(self) -> bool:
        """Whether the zygote still runs (a warm process that outlives it must step aside)."""
        return self._process.poll() is None

    @property
    def protections(self) -> list[Protection]:
        """What isolates each check here (waits for the zygote)."""
        return self.ready()

    def ready(self) -> list[Protection]:
        """Wait for the zygote; its protections. IsolationUnavailable when this sandbox may not run student code here
        (strict and a protection is missing, or root without a uid of its own)."""
        if self._protections is None:
            self._protections = [Protection(**p) for p in self._reply(timeout=STARTUP_SECONDS)["protections"]]
        why = refusal(self._protections, strict=self._strict)
        if why:
            raise IsolationUnavailable(why)
        return self._protections

    def open(self, workspace: Path, *, given: Sequence[Path] = ()) -> StudentProcess:
        """Fork a student process that imports modules from `workspace` (a copy of the student's files).

        `given` is the exercise's course code (grader.inside.given), compiled here once and sent to that process alone
        as its first message, never through the zygote.
        """
        self.ready()
        self._count += 1
        scratch = self._scratch / f"check-{self._count}"
        scratch.mkdir(mode=0o700)  # the student process's output and setup log: root's alone
        ours, theirs = socket.socketpair()
        request = {
            "op": "fork",
            "workspace": str(workspace),
            "scratch": str(scratch),
            "device": self._device,
            "limits": self.limits.for_child(),
        }
        try:
            reply = self._request(request, timeout=FORK_SECONDS, fds=[theirs.fileno()])
        finally:
            theirs.close()
        if "pid" not in reply:
            raise SandboxError(f"a student process could not be started: {reply.get('error')}")
        process = StudentProcess(self, reply["pid"], ours, scratch)
        process.send_given(given)
        return process

    def close(self) -> None:
        self._control.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _reap(self, pid: int) -> str:
        # Without namespaces the zygote first sweeps what the process's uid left: work bounded by that student's
        # own limits, which may take a while; it is waited for here, never left to answer a later request.
        status: str = self._request({"op": "reap", "pid": pid}, timeout=REAP_SECONDS)["status"]
        return status

    def _request(self, request: Mapping[str, object], *, timeout: float, fds: Sequence[int] = ()) -> dict[str, Any]:
        """Send `request` with an id of its own and return the zygote's reply to it (replies carry the id, so a
        late reply to an earlier request can never be read as this one's)."""
        self._requests += 1
        socket.send_fds(self._control, [json.dumps({**request, "id": self._requests}).encode()], list(fds))
        return self._reply(timeout=timeout, expect=self._requests)

    def _reply(self, *, timeout: float, expect: int | None = None) -> dict[str, Any]:
        """The zygote's next message (with `expect`, the reply to that request; earlier ones are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            self._control.settimeout(max(1e-3, deadline - time.monotonic()))
            try:
                data = self._control.recv(1 << 16)
            except (TimeoutError, OSError):
                data = b""
            if not data:
                log = (self._scratch / "zygote.log").read_text(errors="replace")[-3000:]
                raise SandboxError(f"the student-process server stopped answering; its log:\n{log}")
            reply: dict[str, Any] = json.loads(data)  # the zygote's: it runs no student code
            if expect is None or reply.get("id") == expect:
                return reply


class _Forked:
    """The zygote `Sandbox.forked` made, with what the sandbox asks of a `subprocess.Popen`."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"zygote {self.pid}", timeout or 0.0)
            time.sleep(0.005)
        return code

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


class StudentProcess:
    """A student process serving the checks of one exercise, one at a time, each within its deadline.

    `begin_check()` starts a check's clock and output; a process that failed in any way is stopped
    and the next check gets a fresh one (`usable`).
    """

    def __init__(self, sandbox: Sandbox, pid: int, channel: socket.socket, scratch: Path):
        self._sandbox = sandbox
        self.pid = pid
        self._channel = wire.Channel(channel)
        self._scratch = scratch
        # What the process prints, kept open here and read by offset (the process opens the same file as it starts).
        self._output = os.open(scratch / "output.log", os.O_RDONLY | os.O_CREAT, 0o600)
        self._status: str | None = None
        self._checks = 0
        self._deadline = 0.0
        self._output_start = 0
        self._ids = 0  # each call of a request has an id of its own, which its reply carries
        self._imported: set[str] = set()
        self._importing: dict[str, tuple[float, int]] = {}  # module -> deadline and id of its import, sent ahead
        self._last_output: str | None = None  # the current check's output, once read (kept after the process ends)

    @property
    def usable(self) -> bool:
        """Alive, and not yet at its share of checks."""
        return self._status is None and self._checks < CHECKS_PER_PROCESS

    def begin_check(self) -> None:
        """Start the clock of a new check; its output is what the process prints from now on (from the start for
        the first check, so that it shows what an import sent ahead printed)."""
        self._checks += 1
        self._deadline = time.monotonic() + self._sandbox.limits.time_limit
        self._output_start = self._output_size() if self._checks > 1 else 0
        self._last_output = None

    def send_given(self, paths: Sequence[Path]) -> None:
        """Send the exercise's given code, which the process reads first and runs before its isolation."""
        try:
            self._channel.send(wire.pack({"given": given.compiled(paths)}), deadline=time.monotonic() + FORK_SECONDS)
        except OSError:  # the process is already gone (or does not read): the first call says so
            self._stop()

    def start_import(self, module: str) -> None:
        """Send the import of `module` now, with a time limit of its own from now; the first call to it reads the outcome.

        The grader sends every exercise's import as grading starts, so that the exercises' imports (and the
        setup of their processes) run side by side: files that all hang at import cost about one limit in all.
        """
        if self._status is not None or module in self._imported or module in self._importing:
            return
        request = self._import_request(module)
        try:
            self._channel.send(wire.pack(request), deadline=time.monotonic() + 1.0)
        except OSError:  # the process is already gone (or does not read): the first call says so
            self._stop()
            return
        self._importing[module] = (time.monotonic() + self._sandbox.limits.time_limit, request["id"])

    def _import_request(self, module: str) -> dict[str, Any]:
        self._ids += 1
        return {"id": self._ids, "module": module, "function": None, "calls": []}

    def _output_size(self) -> int:
        return os.fstat(self._output).st_size if self._output >= 0 else 0

    def call(
        self, module: str, function: str, args: list[object], kwargs: dict[str, object], cotangent: object = None, services: Sequence[Service] = ()
    ) -> dict[str, Any]:
        """`many` of one call: its reply `{"value", "grads"}`."""
        return self.many(module, function, [Arguments(args, kwargs, services)], cotangent)[0]

    def many(self, module: str, function: str, calls: Sequence[Arguments], cotangent: object = None) -> list[dict[str, Any]]:
        """Run `module.function(*c.args, **c.kwargs)` there for each of `calls`, one after another, sent in one request;
        return their replies `{"value", "grads"}`. The calls each makes of its services are answered here while it runs.

        Raises StudentError when a call raised (the later ones are not run, as in a loop that calls them one by one),
        hung, died or replied with junk; every call shares the check's time limit.
        """
        if self._status is not None:
            raise StudentError(
                f"not run: the submission's process had already stopped ({self._status})",
                f"未运行：提交的进程已结束（{self._status}）",
                outcome=Outcome.NOT_RUN,
            )
        self._settle_imports(module)
        if module not in self._imported:  # on its own, so that an import that hangs is known as such
            request = self._import_request(module)
            self._exchange(f"importing {module}.py", request, request["id"], [()], importing=module)
            self._imported.add(module)
        first = self._ids + 1
        self._ids += len(calls)
        request = {"id": first, "module": module, "function": function, "calls": [[c.args, c.kwargs] for c in calls], "cotangent": cotangent}
        return self._exchange(f"{module}.{function}", request, first, [c.services for c in calls], importing=None)

    def _settle_imports(self, module: str) -> None:
        """Read the outcomes of every import sent ahead, each within its own limit and in the order sent: the process
        answers them before anything sent later, whichever module is called first. `module`'s failure is this call's
        error; another's is its own module's, imported again when first called; one that hung or broke the process
        stops it, and that is this call's error too, as the process never reached this call."""
        for earlier, (deadline, first) in list(self._importing.items()):
            del self._importing[earlier]
            try:
                self._exchange(f"importing {earlier}.py", None, first, [()], importing=earlier, deadline=deadline)
                self._imported.add(earlier)
            except StudentError:
                if earlier == module or self._status is not None:
                    raise

    def _exchange(
        self,
        label: str,
        request: dict[str, object] | None,
        first: int,
        services: Sequence[Sequence[Service]],
        *,
        importing: str | None,
        deadline: float | None = None,
    ) -> list[dict[str, Any]]:
        """Send `request` (None: it was sent ahead; `importing`: the module it imports) and read by `deadline` (default:
        the check's) the replies of its calls, which carry the ids from `first` on, answering the calls of each one's
        `services` that come first; stop at the first that failed and raise its StudentError."""
        deadline = self._deadline if deadline is None else deadline
        replies: list[dict[str, Any]] = []
        start = self._channel.received
        try:
            if request is not None:
                self._channel.send(wire.pack(request), deadline=deadline)
            for place, reachable in enumerate(services):
                reply = self._reply(list(reachable), deadline)
                if self._channel.received - start > REQUEST_REPLY_BYTES:
                    raise wire.WireError(f"its replies came to more than {REQUEST_REPLY_BYTES >> 20} MiB together")
                if not _well_formed(reply, first + place):
                    self._stop()  # whatever answers like this is not the runtime any more: the next check gets a fresh process
                    raise StudentError(f"{label} sent back a malformed reply", f"{label} 返回的应答格式错误", outcome=Outcome.CRASHED)
                replies.append(reply)
                if not reply["ok"]:
                    break
            if self._channel.pending and not self._importing:  # a runtime sends nothing it was not asked for
                raise wire.WireError(f"more replies than the {len(services)} calls asked for")
        except TimeoutError:
            self._stop()
            limit = self._sandbox.limits.time_limit
            if importing:
                raise StudentTimeout(
                    f"{label} did not finish within its {limit:g} s limit (code at the top level of the file that never ends?)",
                    f"{label} 未在 {limit:g} 秒时限内结束（文件顶层有不会结束的代码？）",
                    importing=importing,
                ) from None
            raise StudentTimeout(
                f"{label} did not finish within the {limit:g} s limit for this check (an endless loop?)",
                f"{label} 未在本项检查的 {limit:g} 秒时限内结束（死循环？）",
                importing=None,
            ) from None
        except (EOFError, OSError):
            self._stop()
            raise StudentError(
                f"the submission's process ended while running {label} ({self._status}); it may have called os._exit, crashed, or run out of memory",
                f"运行 {label} 时提交的进程意外结束（{self._status}），可能调用了 os._exit、崩溃或内存不足",
                outcome=Outcome.CRASHED,
            ) from None
        except wire.WireError as e:
            self._stop()
            raise StudentError(
                f"{label} sent back data the grader cannot read: {e}",
                f"{label} 返回了评分程序无法读取的数据：{e}",
                outcome=Outcome.CRASHED,
            ) from None
        if replies and not replies[-1]["ok"]:
            # Whatever the reply says (an "arguments" error included: the grader checked its injects before sending),
            # it is the submission's result: only what the grader observes itself can be the grader's error.
            raise StudentError.from_report(label, replies[-1]["error"])
        return replies

    def _reply(self, services: list[Service], deadline: float) -> object:
        """The next reply, the calls of `services` that come before it answered."""
        reply = self._channel.recv(deadline=deadline, bounds=REPLY_BOUNDS)
        for _ in range(MAX_CALLBACKS):
            if not (isinstance(reply, dict) and wire.CALLBACK in reply):
                return reply
            if time.monotonic() >= deadline:
                raise TimeoutError
            self._channel.send(wire.pack(answer(services, reply)), deadline=deadline)
            reply = self._channel.recv(deadline=deadline, bounds=REPLY_BOUNDS)
        raise wire.WireError(f"more than {MAX_CALLBACKS:,} calls of the course code in one call")

    def output(self) -> str:
        """What the submission printed during the current check, truncated."""
        if self._last_output is None:
            self._last_output = self._read_output()
        return self._last_output

    def _read_output(self) -> str:
        if self._output < 0:  # the process has ended and its output was read then
            return ""
        data = os.pread(self._output, OUTPUT_SHOWN + 1, self._output_start)
        text = printable(data[:OUTPUT_SHOWN].decode("utf-8", errors="replace"))
        return text + ("\n[... truncated]" if len(data) > OUTPUT_SHOWN else "")

    def close(self) -> None:
        if self._status is None:
            self._stop()

    def _stop(self) -> None:
        """Kill the process and its session (its PID namespace, where isolated), then collect its exit status.

        The zygote reaps `pid` only after this, so the signal cannot reach a reused pid.
        """
        self._channel.close()
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._status = self._sandbox._reap(self.pid)
        self._last_output = self._read_output()
        os.close(self._output)
        self._output = -1
        failed = self._scratch / SETUP_FAILED_FILE
        why = failed.read_text(errors="replace")[-3000:] if failed.exists() else ""
        # Its captured output (up to the file-size limit) goes now, not with the sandbox: a submission that
        # fills it and crashes in every call would otherwise leave one such file per check.
        shutil.rmtree(self._scratch, ignore_errors=True)
        if why:
            raise SandboxError(f"a student process could not be set up:\n{why}")


def zygote_env() -> dict[str, str]:
    """The zygote's whole environment: one thread per library, the grader importable, nothing else inherited."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent),  # the folder holding the grader package
        "PYTHONDONTWRITEBYTECODE": "1",
        # The heap torch leaves in the zygote (about 85 MB) on transparent huge pages: forking and ending
        # a student process copies and frees a few hundred page-table entries instead of ~20,000 (a fresh
        # sandboxed process 22 ms -> 14 ms here). Ignored where glibc or the kernel has no such thing.
        "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
    } | {k: os.environ[k] for k in ("GRADE_SANDBOX_NAMESPACES",) if k in os.environ}  # to try the no-namespace mode


def clean_env() -> dict[str, str]:
    """The whole environment of a process a zygote may be forked from (a batch's warm grader): the zygote's, and which
    GPUs it sees and where temporary files go."""
    return zygote_env() | {k: os.environ[k] for k in ("CUDA_VISIBLE_DEVICES", "TMPDIR") if k in os.environ}


def active(found: Sequence[Protection], name: str) -> bool:
    """Whether the protection called `name` is active in `found` (a probe's or a zygote's list)."""
    return any(p.name == name and p.active for p in found)


def refusal(found: Sequence[Protection], *, strict: bool) -> str:
    """Why student code may not run under the protections `found` ('' if it may): never as root, never as a uid that
    can read the references or hidden checks (root without namespaces, their modes open); with `strict`, only with
    every protection active."""
    if os.geteuid() == 0 and not active(found, OWN_UID):
        note = next(p.note for p in found if p.name == OWN_UID)
        return (
            f"refused: student code would run as root here – {note} (e.g. a venv of /usr/bin/python3), "
            "or grade where namespaces are allowed (`grade doctor` shows what is active)"
        )
    if os.geteuid() == 0 and not active(found, SECRETS_UNREADABLE):  # uid only, and they are every user's to read
        note = next(p.note for p in found if p.name == SECRETS_UNREADABLE)
        return f"refused: a student process here could read the course's answers – {note}, then run again"
    missing = [p for p in found if not p.active]
    return unavailable_text(missing) if strict and missing else ""


def unavailable_text(missing: Sequence[Protection]) -> str:
    """Why strict mode cannot run here, naming each missing protection."""
    lines = [f"  {p.name}: {p.note}" for p in missing]
    return "--sandbox strict: these protections are unavailable on this machine:\n" + "\n".join(lines)


def _well_formed(reply: object, id: int) -> TypeGuard[dict[str, Any]]:
    """Whether a reply has the runtime's shape and is the reply to the call `id`, checked before anything in it is believed."""
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool) or type(reply.get("id")) is not int or reply["id"] != id:
        return False
    if reply["ok"]:
        return "value" in reply and (reply.get("grads") is None or isinstance(reply["grads"], dict))
    return isinstance(reply.get("error"), dict)
