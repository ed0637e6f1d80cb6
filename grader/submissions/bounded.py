"""Student text read at a bounded cost: parsing JSON or Python takes memory and time that grow with what a student wrote.

A 1 MiB list literal takes about 500 MB and a second to parse, a 4 MiB one 2 GB. Text up to SMALL
bytes is read in this process (at worst some 50 MB and a fraction of a second); larger text is read
in a short-lived child forked for it, limited to MEMORY more address space and SECONDS, whose
answer alone (JSON) comes back. The child only parses: it never touches torch, so forking a grading
process that has run torch ops is safe, and it ends with `os._exit` (no buffers flushed twice).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

SMALL = 64 << 10  # bytes of text read in this process
MEMORY = 256 << 20  # address space a child may add to what it inherits; what this process then spends parsing it
SECONDS = 10.0  # wall time of a child (RLIMIT_CPU as a backstop)
MAX_REPLY = 64 << 20  # bytes of a child's answer read back
_OUT_OF_MEMORY = 3  # a child's exit status after MemoryError


T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class TooCostly(Exception):
    """Reading the text needed more memory or time than the bound; the message says which, for the student."""


def run(work: Callable[[*Ts], T], *args: *Ts, size: int) -> T:
    """`work(*args)`, whose result is plain JSON data: here when `size` <= SMALL, else in a limited child (whose
    tuples come back as lists, which unpack the same).

    TooCostly when the child runs out of memory or time; any other failure of `work` is the grader's own.
    """
    if size <= SMALL:
        return work(*args)
    return _in_child(work, args)


def _in_child(work: Callable[[*Ts], T], args: tuple[*Ts]) -> T:
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reading)
        _child(work, args, writing)
    os.close(writing)
    finished = False
    try:
        data, finished = _read(reading, time.monotonic() + SECONDS)
    finally:
        os.close(reading)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    if not finished or os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
        raise TooCostly(f"reading it takes more than {SECONDS:g} s")
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        reply = json.loads(data.decode("utf-8", "surrogatepass"))
        if "raised" in reply:
            raise RuntimeError(f"reading student text failed in the grader: {reply['raised']}")
        value: T = reply["value"]
        return value
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _OUT_OF_MEMORY or os.WIFSIGNALED(status):
        raise TooCostly(f"reading it needs more than {MEMORY >> 20} MB")  # MemoryError, or C code that gave up
    raise RuntimeError(f"reading student text failed in the grader: its process ended with status {status}")


def _child(work: Callable[[*Ts], object], args: tuple[*Ts], writing: int) -> None:
    """Run `work` under the limits and write {"value"} or {"raised"} as JSON to `writing`; exit without cleanup."""
    status = 0
    try:
        _limit()
        try:
            reply = {"value": work(*args)}
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001 – a bug of the grader's reader: said to the parent, which raises it
            reply = {"raised": f"{type(e).__name__}: {e}"}
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass")
        view = memoryview(data)
        while view:
            view = view[os.write(writing, view) :]
    except MemoryError:
        status = _OUT_OF_MEMORY
    except BaseException:  # noqa: BLE001 – whatever happens, the child must not return into the grader
        status = 1
    finally:
        os._exit(status)


def _limit() -> None:
    """At most MEMORY more address space than now (where /proc tells how much that is), and SECONDS of CPU."""
    try:
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * resource.getpagesize()
    except OSError:  # not Linux: the deadline alone bounds the child
        now = None
    if now is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = now + MEMORY if hard == resource.RLIM_INFINITY else min(now + MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu = int(SECONDS) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu if hard == resource.RLIM_INFINITY else min(cpu, hard), hard))


def _read(fd: int, deadline: float) -> tuple[bytes, bool]:
    """What the child writes until it closes its end, and whether it did so by `deadline` within MAX_REPLY bytes."""
    chunks: list[bytes] = []
    size = 0
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while (left := deadline - time.monotonic()) > 0:
        if not poller.poll(left * 1000):
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), True
        size += len(chunk)
        if size > MAX_REPLY:
            break
        chunks.append(chunk)
    return b"", False
