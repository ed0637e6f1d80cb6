"""The warm process of a course folder: `grade run` answered by one process that keeps torch, its sandboxes and its
check sessions from one request to the next.

    claim    the socket's folder checked (the user's alone), its lock taken (one server a folder), the socket bound 0600
    Warm     sandboxes by device and strictness, a started Grader per selection of exercises; a request's
             `grade run` run in this process, its output captured as the client's terminal would have shown it
    serve    answer requests until idle for IDLE_SECONDS, told to stop, or the course's own files change

It answers only `run` (a `grade run` for its own course folder, from the same Python and grader package, in the same
environment as far as grading reads it), `status` and `stop`, and only to a process of its own user; student code
runs in the sandbox as in every `grade run`.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import select
import signal
import socket
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.inside import layout
from grader.inside.layout import COURSE_FILE, STUBS
from grader.location import course_folder
from grader.rubric import RUBRIC_FILE
from grader.warm import FOLDER, IDLE_SECONDS, LOCK, LOG, PER_CALL, SOCKET, interpreter, private, shared_env
from grader.warm.client import same_user

if TYPE_CHECKING:
    import click

    from grader.course import Course, Exercise
    from grader.grading.pipeline import Grader

CLAIM_SECONDS = 10.0  # how long a new server waits for the one it replaces to let go of the folder
REQUEST_SECONDS = 5.0  # how long a client may take to send its request
REQUEST_BYTES = 1 << 20


class Stopped(BaseException):
    """A signal to end (SIGTERM, SIGINT, SIGHUP): the server closes its sandboxes and goes; click's handlers pass it by."""


class Listener:
    """The bound socket of a course folder's warm process, with the lock that makes it the only one there."""

    def __init__(self, sock: socket.socket, lock: int, folder: Path, bound: tuple[int, int]):
        self.socket, self._lock, self.folder, self._bound = sock, lock, folder, bound  # bound: the socket file's identity

    def close(self) -> None:
        with contextlib.suppress(OSError):
            # Ours while the lock is held – unless the folder was deleted meanwhile and a new server holds a new one there.
            if _identity(self.folder / SOCKET) == self._bound:
                os.unlink(self.folder / SOCKET)
        self.socket.close()
        os.close(self._lock)


def _identity(path: Path) -> tuple[int, int]:
    found = os.lstat(path)
    return found.st_dev, found.st_ino


def claim(root: Path, *, wait: float = 0.0) -> Listener | None:
    """The listening socket of `root`'s warm process, where `root/.grade` is (or can be made) the user's alone and no
    other server holds it within `wait` seconds; else None."""
    folder = root / FOLDER
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if not private(folder):
            return None
        lock = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(lock)
                return None
            time.sleep(0.1)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with contextlib.chdir(folder):  # relative: see grader.warm.client.connected
            with contextlib.suppress(FileNotFoundError):
                os.unlink(SOCKET)  # a server that was killed left it
            mask = os.umask(0o177)
            try:
                sock.bind(SOCKET)
            finally:
                os.umask(mask)
            os.chmod(SOCKET, 0o600)
            bound = _identity(Path(SOCKET))
        sock.listen(8)
    except OSError:
        sock.close()
        os.close(lock)
        return None
    return Listener(sock, lock, folder, bound)


def course_files(root: Path) -> dict[str, tuple[int, ...] | None]:
    """(mtime, ctime, inode, size) of what a warm process of `root` reads besides the student's files: course.toml, the bundle's
    record of its stubs, each exercise's public checks, numbers and rubric (the points it prints), the course tree (its given code, and whether hidden
    checks are there) and the grader package. A change in any makes the process step aside: it cannot read them again (modules stay imported).
    The change time and inode catch what mtime and size miss: a file of the same size unpacked, copied (`cp -p`) or
    edited with its old mtime kept."""
    import grader

    package = Path(grader.__file__).resolve().parent
    exercises = root / layout.EXERCISES
    paths = [
        root / COURSE_FILE,
        root / STUBS,
        *layout.tree_files(root),
        *exercises.glob("*/test_*.py"),
        *exercises.glob("*/variant.toml"),
        *exercises.glob(f"*/{RUBRIC_FILE}"),
    ]
    found: dict[str, tuple[int, ...] | None] = {}
    for path in [*paths, *package.rglob("*.py")]:
        try:
            info = path.stat()
            found[str(path)] = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size)
        except OSError:
            found[str(path)] = None
    return found


class Screen(io.TextIOBase):
    """One of the client's two output streams as the command sees it – a terminal or not, its encoding – keeping what
    is written, in order with the other's."""

    def __init__(self, chunks: list[list[Any]], fd: int, tty: bool, encoding: str):
        super().__init__()
        self._chunks, self._fd, self._tty, self._encoding = chunks, fd, tty, encoding

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # as a text stream refuses bytes (click tries a stream so)
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._chunks and self._chunks[-1][0] == self._fd:
            self._chunks[-1][1] += text
        elif text:
            self._chunks.append([self._fd, text])
        return len(text)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]  # a plain attribute of TextIOBase's
        return self._encoding


class Warm:
    """The warm state of one course folder: the sandbox of each (device, strictness) and a started Grader per
    selection of exercises, as `grade run` would build them, kept from request to request; `command` is the `grade`
    command group (grader.cli.main) that runs each request, handed this object as click's `obj`."""

    def __init__(self, root: Path, command: click.Command, *, watching: bool = False):
        import grader

        self.root, self.command = root.resolve(), command
        self.files = course_files(self.root)  # before anything is read: a change after this is seen
        self.environ = shared_env(os.environ)
        self.python, self.package = interpreter(), str(Path(grader.__file__).resolve().parent)
        self.since, self.answered, self.watching = time.time(), 0, watching
        self.broken = ""  # why this process may answer no more (the course changed, a sandbox stopped, an error of its own)
        self._sandboxes: dict[tuple[str, bool], Grader] = {}
        self._graders: dict[tuple[object, ...], Grader] = {}

    def lend(self, course: Course, exercises: list[Exercise], device: str, strict: bool) -> AbstractContextManager[Grader]:
        """A started Grader that grades `exercises` as `Grader(course, exercises, device, strict=strict)` would, left
        running for the next request: its sandbox the one of every selection on that device and strictness."""
        from grader.grading.pipeline import Grader

        key = (tuple((e.id, tuple(e.student_files)) for e in exercises), device, strict)  # files added to a folder: a new one
        if key not in self._graders:
            sandbox = None
            if any(e.runs_code and e.available for e in exercises):
                if (device, strict) not in self._sandboxes:  # started (and, if strict, refused) as a cold grade run's
                    code = [e for e in course.exercises if e.runs_code and e.available]
                    self._sandboxes[device, strict] = Grader(course, code, device, strict=strict).start()
                sandbox = self._sandboxes[device, strict].sandbox
            self._graders[key] = Grader(course, exercises, device, strict=strict, sandbox=sandbox).start()
        return contextlib.nullcontext(self._graders[key])

    def stale(self) -> list[str]:
        """The course's own files that changed (or came, or went) since this process started."""
        now = course_files(self.root)
        return sorted(p for p in now.keys() | self.files.keys() if now.get(p, ()) != self.files.get(p, ()))

    def run(self, argv: list[str], prog: str) -> int:
        """`grade ARGV` in this process, printed to sys.stdout and sys.stderr as they are now; its exit code."""
        try:
            with warnings.catch_warnings():  # a warning shown to one request is shown to the next (as each cold run shows it)
                self.command.main(args=argv, prog_name=prog, obj=self, standalone_mode=True)
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                return e.code or 0
            print(e.code, file=sys.stderr)  # as Python prints sys.exit("...")
            return 1
        except Exception:  # noqa: BLE001 – a bug of the grader: its traceback, as a cold run shows it; then this process goes
            traceback.print_exc()
            self.broken = "the last request failed with an error of the grader's own"
            return 1
        return 0

    def refusal(self, request: dict[str, Any]) -> str:
        """Why this process may not answer `request` ("" where it may)."""
        if self.broken:
            return self.broken
        if not _well_formed(request):
            return "not a grade run request"
        if request["python"] != self.python or request["grader"] != self.package:
            return "another Python or grader package"
        if shared_env(request["env"]) != self.environ:
            return "another environment"
        cwd = Path(request["cwd"])
        if not cwd.is_absolute() or not cwd.is_dir() or course_folder(cwd) != self.root:
            return "another course folder"
        if any(g.sandbox is not None and not g.sandbox.alive for g in self._sandboxes.values()):
            self.broken = "a sandbox stopped"
        self.broken = self.broken or _changed(self.stale())
        return self.broken

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The output and exit code of the run `request` asks for (one `refusal` allowed), as its client would have
        printed them."""
        chunks: list[list[Any]] = []
        (out_tty, out_encoding), (err_tty, err_encoding) = request["streams"]
        out, err = Screen(chunks, 1, out_tty, out_encoding), Screen(chunks, 2, err_tty, err_encoding)
        with _environment(request["env"], request["size"]), contextlib.chdir(request["cwd"]):
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = self.run(request["argv"], request["prog"])
        self.answered += 1
        return {"output": chunks, "code": code}

    def status(self) -> dict[str, Any]:
        """What a "status" request is told: the folder, the process, since when, how many runs it answered, and whether
        it is a `grade watch` (which another one does not stop)."""
        return {"root": str(self.root), "pid": os.getpid(), "since": self.since, "answered": self.answered, "watch": self.watching}

    def close(self) -> None:
        for grader in [*self._graders.values(), *self._sandboxes.values()]:  # the sandboxes' owners last
            grader.close()
        self._graders.clear()
        self._sandboxes.clear()


def _changed(paths: list[str]) -> str:
    return f"the course's own files changed: {', '.join(paths[:3])}{' ...' if len(paths) > 3 else ''}" if paths else ""


def _well_formed(request: dict[str, Any]) -> bool:
    def strings(value: object) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    streams, size, env = request.get("streams"), request.get("size"), request.get("env")
    return (
        request.get("kind") == "run"
        and strings(request.get("argv"))
        and request["argv"][:1] == ["run"]
        and all(isinstance(request.get(k), str) for k in ("cwd", "prog", "python", "grader"))
        and isinstance(env, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        and isinstance(streams, list)
        and len(streams) == 2
        and all(isinstance(s, list) and len(s) == 2 and isinstance(s[0], bool) and isinstance(s[1], str) for s in streams)
        and (size is None or (isinstance(size, list) and len(size) == 2 and all(isinstance(n, int) for n in size)))
    )


@contextlib.contextmanager
def _environment(env: dict[str, str], size: list[int] | None) -> Iterator[None]:
    """The client's PER_CALL variables in this process's environment while its command runs; COLUMNS and LINES its
    terminal's size where it set none (rich reads them before the size of its own streams, which here are no terminal)."""
    mine = dict(env)
    for name, number in zip(("COLUMNS", "LINES"), size or ()):
        if not mine.get(name, "").isdigit():
            mine[name] = str(number)
    before = {name: os.environ.get(name) for name in PER_CALL}
    try:
        _set({name: mine.get(name) for name in PER_CALL})
        yield
    finally:
        _set(before)


def _set(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        os.environ.pop(name, None)
        if value is not None:
            os.environ[name] = value


def serve(listener: socket.socket | None, warm: Warm, *, every: float, idle: float | None = None, tick: Callable[[], None] | None = None) -> str:
    """Answer the requests that come to `listener` (with None, none) and call `tick` at least every `every` seconds, until
    a stop request, no request for `idle` seconds, or a change of the course's own files. Returns why it ended."""
    last = time.monotonic()
    while True:
        if listener is not None and select.select([listener], [], [], every)[0]:
            connection, _ = listener.accept()
            with connection:
                ended = _converse(connection, warm)
            last = time.monotonic()
            if ended:
                return ended
        elif listener is None:
            time.sleep(every)
        why = warm.broken or _changed(warm.stale())
        if why:
            return why
        if idle is not None and time.monotonic() - last > idle:
            return f"no request for {idle:g} s"
        if tick is not None:
            tick()


def _converse(connection: socket.socket, warm: Warm) -> str:
    """One client's request answered; why the server must end now ("" to go on)."""
    connection.settimeout(REQUEST_SECONDS)
    try:
        if not same_user(connection):
            return ""
        line = connection.makefile("rb").readline(REQUEST_BYTES)
        request = json.loads(line)
        if not isinstance(request, dict):
            return ""
        kind = request.get("kind")
        if kind in ("status", "stop"):
            _send(connection, warm.status() if kind == "status" else {"stopped": True})
            return "asked to stop" if kind == "stop" else ""
        why = warm.refusal(request)
        if why:
            _send(connection, {"refused": why})
            return warm.broken
        _send(connection, {"taken": True})
    except (OSError, ValueError):
        return ""
    try:
        reply = warm.answer(request)
    except OSError:  # its folder went away meanwhile: no reply, and the client runs cold
        return ""
    with contextlib.suppress(OSError):  # a client that went away: its command ran all the same
        _send(connection, reply)
    return warm.broken


def _send(connection: socket.socket, message: dict[str, Any]) -> None:
    connection.settimeout(None)
    connection.sendall(json.dumps(message).encode() + b"\n")


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM, SIGINT and SIGHUP raise Stopped while the block runs (in the main thread), so that the sandboxes close."""

    def stop(signum: int, frame: object) -> None:
        raise Stopped(signum)

    names = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
    before = {n: signal.signal(n, stop) for n in names}
    try:
        yield
    finally:
        for n, handler in before.items():
            signal.signal(n, handler)


def main(command: click.Command) -> None:
    """`python -m grader.entry ROOT` with a request on stdin, as grader.warm.client.leave starts it: serve ROOT with
    `command` (grade's) once it holds its folder, warmed by answering that request; never for a course with hidden
    checks (a TA's)."""
    from grader.course import load_course

    root, warmup = Path(sys.argv[1]).resolve(), json.loads(sys.stdin.buffer.read(REQUEST_BYTES))
    if load_course(root).has_hidden_checks:
        return
    listener = claim(root, wait=CLAIM_SECONDS)
    if listener is None:
        return
    log = os.open(listener.folder / LOG, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    warm = Warm(root, command)
    try:
        with stopped_by_signals():
            if not warm.refusal(warmup):
                warm.answer(warmup)
            why = serve(listener.socket, warm, every=1.0, idle=IDLE_SECONDS)
        print(f"{time.strftime('%H:%M:%S')} ended: {why}", file=sys.stderr)
    except Stopped as e:
        print(f"{time.strftime('%H:%M:%S')} ended by signal {e.args[0]}", file=sys.stderr)
    finally:
        warm.close()
        listener.close()
