"""The zygote: a clean server process that forks one sandboxed student process per exercise.

Started by `grader.sandbox.host` as `python -m grader.inside.zygote FD COURSE_ROOT`, or forked from a batch's warm
grader that has imported torch and nothing of the course (`become`). It imports
torch, safetensors, pyseccomp and `grader.inside` only – never solutions, checks or the exercises' given course
code – so a fork of it holds nothing a submission may not see. The given code of an exercise (`grader.inside.given`)
comes to the new student process over its own channel, as its first message from the grader, and runs there before
its isolation, so it exists in that exercise's process alone. The zygote stays single-threaded and
never touches CUDA, so its forks can use threads and CUDA; it reaps each check and, as a subreaper,
kills whatever the check left behind.

`python -m grader.inside.zygote --probe COURSE_ROOT` prints which protections are active here.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import traceback
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from grader.inside import given, isolation, layout, runtime, wire
from grader.inside.cgroups import MemoryCage, end_cgroup
from grader.inside.isolation import Protection, View

# Written in a check's scratch folder, on the grader's side of the view, only when setting up the
# student process failed: the grader's fault, not the student's. Student code never sees the file,
# so unlike an exit status it cannot be forged.
SETUP_FAILED_FILE = "setup-failed.log"


def become(control_fd: int, log_fd: int, scratch: Path, env: dict[str, str], course_root: Path) -> None:
    """Turn a fork of a batch's warm grader into its zygote (`Sandbox.forked`); never returns.

    The warm grader forks it with torch imported, single-threaded, before it reads anything of the course: what it
    holds in memory then (the engine's modules, its arguments, a clean environment) is what a fresh zygote holds. Of
    its open files only the control socket stays; stdout and stderr go to the zygote's log, stdin is /dev/null – a
    student process never holds the warm grader's pipes, through which rows of grades travel.
    """
    try:
        gc.collect()  # what the warm grader left unreachable closes its files now, before their numbers are reused
        gc.freeze()  # and what it holds is never collected here: no object of its closes a file of the zygote's
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.closerange(3, control_fd)
        os.closerange(control_fd + 1, os.sysconf("SC_OPEN_MAX"))
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(scratch)
        serve_forks(socket.socket(fileno=control_fd), course_root)
    except BaseException:
        traceback.print_exc()  # into the log, which the grader shows when the zygote stops answering
        os._exit(1)
    os._exit(0)


def serve_forks(control: socket.socket, course_root: Path) -> None:
    """Zygote loop: fork a student process per `fork` request, reap it on `reap`; exit when the grader goes."""
    view = View.here(Path.cwd() / "view", secrets=layout.guarded(course_root))
    found = MemoryCage.here()
    found.remove_stale()
    memory = found.for_zygote()
    protections = isolation.describe(view, memory)  # tries the seccomp filter: libseccomp is loaded for every fork
    isolation.become_subreaper()
    alive, alive_w = os.pipe()  # students read EOF once the zygote is gone
    import safetensors.torch  # noqa: F401
    import torch  # preloaded once so each fork starts in milliseconds

    torch.set_num_threads(1)  # before any op: a fork of a process that ran a multi-threaded op hangs
    _warm_up(torch)
    unseen = view.unseen_sources()
    # Every object the zygote holds now is left out of the garbage collector's generations: a student process's
    # collections never walk them, which would write to (so copy) the pages of torch's whole import in each fork.
    gc.collect()
    gc.freeze()

    control.send(json.dumps({"ready": True, "protections": [asdict(p) for p in protections]}).encode())
    try:
        _serve(control, view, memory, alive, alive_w, unseen)
    finally:
        memory.close()  # ends what is still running in its cgroups


def _serve(control: socket.socket, view: View, memory: MemoryCage, alive: int, alive_w: int, unseen: list[str]) -> None:
    live: dict[int, tuple[Path | None, Path | None]] = {}  # pid -> its memory cgroup and private folder (each None where unused)
    count = 0
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "fork":
            count += 1
            try:
                group = memory.create(f"grade-{os.getpid()}-{count}", request["limits"]["memory_mib"] << 20)
            except OSError as e:
                control.send(json.dumps({"id": request.get("id"), "error": f"memory cgroup: {e}"}).encode())
                os.close(fds[0])
                continue
            private = None if view.isolated or not view.own_uid else Path(tempfile.mkdtemp(prefix="grade-student-"))
            pid = isolation.fork(isolated=view.isolated)
            if pid == 0:
                control.close()
                os.close(alive_w)
                try:
                    _student_process(fds[0], request, view, alive, group, private, unseen, address_space=group is None)
                finally:
                    os._exit(1)
            os.close(fds[0])
            live[pid] = (group, private)
            control.send(json.dumps({"id": request.get("id"), "pid": pid}).encode())
        elif request["op"] == "reap":
            group, private = live.pop(request["pid"], (None, None))
            if private is not None:  # uid only: what its uid left, swept while its pid (so its uid) cannot be reused
                if group is not None:  # first all it started, by its cgroup, which no process can leave
                    end_cgroup(group)
                isolation.sweep_uid(isolation.UID_BASE + request["pid"])
            _, status = os.waitpid(request["pid"], 0)
            _kill_orphans(keep=set(live))
            MemoryCage.remove(group)
            if private is not None:
                shutil.rmtree(private, ignore_errors=True)
            control.send(json.dumps({"id": request.get("id"), "status": _describe_status(status)}).encode())


def _warm_up(torch: ModuleType) -> None:
    """Run once, single-threaded, what every check's first call would otherwise pay for in each fresh fork.

    A forward and backward pass through the ops of a gated step and of tiny RNN/GRU/LSTM models, in
    float32 and float64, and a safetensors round trip; the results are thrown away.
    """
    from safetensors.torch import load, save

    for dtype in (torch.float32, torch.float64):
        x = torch.randn(3, 5, dtype=dtype, requires_grad=True)
        w = torch.randn(4, 5, dtype=dtype, requires_grad=True)
        h = torch.sigmoid(x @ w.T) * torch.tanh(torch.cat([x, x], dim=-1) @ torch.ones(10, 4, dtype=dtype))
        torch.autograd.grad((h * h).sum(), [x, w])
    embed, head = torch.nn.Embedding(4, 3), torch.nn.Linear(3, 4)
    for kind in (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM):
        rnn = kind(3, 3, batch_first=True)
        logits = head(rnn(embed(torch.tensor([[1, 2]])))[0])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 4), torch.tensor([0, 1]))
        torch.autograd.grad(loss, [*rnn.parameters(), *head.parameters()])
    load(save({"t": torch.zeros(2)}))


def _kill_orphans(*, keep: set[int]) -> None:
    """Kill and reap the processes that ended checks left to this subreaper (Linux), until none is left."""
    children = Path(f"/proc/self/task/{os.getpid()}/children")
    while True:
        try:
            pids = [int(p) for p in children.read_text().split() if int(p) not in keep]
        except OSError:
            return
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return f"killed by signal {sig} ({signal.Signals(sig).name})"
    return f"exit code {os.WEXITSTATUS(status)}"


def _student_process(
    channel_fd: int,
    request: dict[str, Any],
    view: View,
    alive: int,
    group: Path | None,
    private: Path | None,
    unseen: list[str],
    *,
    address_space: bool,
) -> None:
    """Set up the student process (given code, sandbox, limits, captured output), then serve calls; never returns."""
    scratch = Path(request["scratch"])
    failed = os.open(scratch / SETUP_FAILED_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        output = os.open(scratch / "output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.setsid()
        uid = isolation.process_uid()
        MemoryCage.enter(group)
        channel = wire.Channel(socket.socket(fileno=channel_fd))
        modules = cast("dict[str, Any]", channel.recv(deadline=None))["given"]  # the grader's first message: believed
        given.load(modules)
        runtime.forget_sources([*unseen, *(path for path, _ in modules)])  # the course's given files are never readable here
        if view.isolated:
            isolation.unshare(isolation.CHECK_NAMESPACES)
            workspace = isolation.isolate(request["workspace"], request["device"], view, uid)
        elif private is not None:
            workspace = isolation.drop_to(uid, request["workspace"], private)
        else:
            workspace = Path(request["workspace"])
            os.chdir(request["scratch"])
        isolation.set_limits(request["limits"], isolated=view.own_uid, address_space=address_space and request["device"] != "cuda")
        isolation.end_with_zygote(alive)
        if not isolation.why_channels_open():
            isolation.block_channels()
    except BaseException:
        os.write(failed, traceback.format_exc().encode())
        os._exit(1)
    os.close(failed)  # before any student code runs
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    try:
        runtime.serve(channel, workspace, request)
    finally:
        os._exit(0)


def probe(course_root: Path) -> list[Protection]:
    """The protections a check would get here."""
    with tempfile.TemporaryDirectory() as folder:
        return isolation.describe(View.here(Path(folder) / "view", secrets=layout.guarded(course_root)), MemoryCage.here())


if __name__ == "__main__":
    if sys.argv[1] == "--probe":
        print(json.dumps([asdict(p) for p in probe(Path(sys.argv[2]))]))
    else:
        serve_forks(socket.socket(fileno=int(sys.argv[1])), Path(sys.argv[2]))
        os._exit(0)  # no interpreter teardown: unloading torch costs the grader ~0.4 s of waiting
