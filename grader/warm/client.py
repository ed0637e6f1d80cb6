"""The client of a course folder's warm process: a `grade run` answered by it (printed as that process captured it,
with its exit code), and the calls that leave one behind, ask it how it is and stop it. Standard library and
grader.location only: the `grade` entry point (grader.entry) asks before it imports anything heavy.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.location import course_folder
from grader.warm import FOLDER, PER_CALL, SOCKET, enabled, interpreter, private, shared_env

TAKE_SECONDS = 20.0  # how long a client waits for the server to take its request (one still warming up takes seconds)


def answered(argv: list[str]) -> int | None:
    """`grade ARGV` as the warm process of this folder's course ran it: its output written here in its order, its exit
    code returned; None where no warm process took it (then nothing was written)."""
    if argv[:1] != ["run"] or not enabled() or not hasattr(socket, "AF_UNIX"):
        return None
    try:
        cwd = Path.cwd()
        root = course_folder(cwd)
        reply = exchange(root, request(argv, cwd)) if root is not None else {}
    except (OSError, ValueError):
        return None
    output, code = reply.get("output"), reply.get("code")
    if not isinstance(code, int) or not isinstance(output, list) or not all(_chunk(c) for c in output):
        return None
    for fd, text in output:
        stream = sys.stdout if fd == 1 else sys.stderr
        stream.write(text)
        stream.flush()  # the two streams' order as the command wrote them
    return code


def _chunk(chunk: object) -> bool:
    return isinstance(chunk, list) and len(chunk) == 2 and chunk[0] in (1, 2) and isinstance(chunk[1], str)


def request(argv: list[str], cwd: Path) -> dict[str, Any]:
    """The request for `grade ARGV` run in `cwd` from this process: what the command would read here besides its files."""
    import grader

    size = None
    for fd in (0, 1, 2):  # as rich looks for the terminal's size
        with contextlib.suppress(OSError, ValueError):
            size = list(os.get_terminal_size(fd))
            break
    return {
        "kind": "run",
        "argv": argv,
        "cwd": str(cwd),
        "prog": os.path.basename(sys.argv[0]),
        "env": {k: v for k, v in os.environ.items() if k in PER_CALL} | shared_env(os.environ),
        "streams": [[_isatty(s), s.encoding or "utf-8"] for s in (sys.stdout, sys.stderr)],
        "size": size,
        "python": interpreter(),
        "grader": str(Path(grader.__file__).resolve().parent),
    }


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def exchange(root: Path, message: dict[str, Any], *, take: float = TAKE_SECONDS) -> dict[str, Any]:
    """Send `message` to the warm process of the course folder `root` and return its answer: a run's output once it took
    the run (it says so within `take` seconds), else its one reply. OSError where none answers as the user's own."""
    with connected(root) as sock:
        sock.sendall(json.dumps(message).encode() + b"\n")
        replies = sock.makefile("rb")
        sock.settimeout(take)
        reply = json.loads(replies.readline())
        if isinstance(reply, dict) and reply.get("taken") is True:
            sock.settimeout(None)  # it runs the command now: as long as the command takes, bounded by the sandbox's limits
            reply = json.loads(replies.readline())
        if not isinstance(reply, dict):
            raise ValueError("the warm process's reply is no JSON object")
        return reply


@contextlib.contextmanager
def connected(root: Path) -> Iterator[socket.socket]:
    """A connection to the warm process of `root`, refused (OSError) unless its folder and its process are the user's."""
    folder = root / FOLDER
    if not private(folder):
        raise OSError(f"{folder}: no folder of this user's alone")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(1.0)
        with contextlib.chdir(folder):  # a relative address: a deep course folder's path may exceed what an address holds
            sock.connect(SOCKET)
        if not same_user(sock):
            raise OSError("the warm process is not this user's")
        yield sock
    finally:
        sock.close()


def same_user(sock: socket.socket) -> bool:
    """Whether the process at the other end of `sock` runs as this user (where the system says; the folder's mode else)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return bool(uid == os.getuid())


def ask(root: Path, kind: str) -> dict[str, Any] | None:
    """The warm process's reply to a "status" or "stop" request, or None where none answers."""
    try:
        return exchange(root, {"kind": kind}, take=5.0)
    except (OSError, ValueError):
        return None


def leave(root: Path, argv: list[str], cwd: Path) -> None:
    """Start the warm process of the course folder `root` in the background, warmed by running `grade ARGV` in `cwd` once
    (its output dropped), to answer the next grade runs there. Nothing where GRADE_WARM=0."""
    import subprocess

    if not enabled() or not hasattr(socket, "AF_UNIX"):
        return
    folder = root / FOLDER
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if not private(folder):
            return
        server = subprocess.Popen(  # its own session: no terminal's signals, no pipe of ours kept open but its request
            [sys.executable, "-P", "-m", "grader.entry", str(root)],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert server.stdin is not None
        with server.stdin:  # the request on stdin, not in argv, which any user's ps shows
            server.stdin.write(json.dumps(request(argv, cwd)).encode())
    except OSError:
        return
