"""The student side: a clean server process (the zygote) that forks sandboxed student processes.

Started by `grader.sandbox` as `python -m grader.student FD`. It imports torch, this module and the
public course code of `grader.injected` only – never solutions or checks – so a fork of it holds
nothing a submission may not see. It stays
single-threaded and never touches CUDA, so its forks can use threads and CUDA; it reaps each check
and, as a subreaper, kills whatever the check left behind.

A student process (serving one exercise's checks, one at a time) is, where the zygote runs as root on Linux, PID 1 of a new PID
namespace (its end kills every process it started), with no network, a file-system view of only
system and Python files, its submission's copy and a private /tmp, an unprivileged uid, and rlimits.
It imports the submission and answers `call` requests with plain data (`grader.wire`).
Without root (or off Linux) the namespaces and the uid are unavailable: the student process is then
only a separate, rlimited process in its own session.
`python -m grader.student --probe` prints which protections are active here.
Nothing the student process says is trusted: the grader checks every reply.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import platform
import resource
import shutil
import signal
import socket
import sys
import tempfile
import traceback
from pathlib import Path

import grader
from grader import wire

# Bytes of an error message or traceback line kept from the submission.
_TEXT_LIMIT = 2000
# Student processes run as a uid of their own: this base plus the zygote's pid (unique among live
# processes; pids stay below 2**22), so RLIMIT_NPROC, files and signals never mix two graders' checks
# or reach the grader. A zygote runs one check at a time and reaps all of it before the next.
UID_BASE = (1 << 31) - (1 << 22)
# Processes plus threads, open files, and the size of the private /tmp of one isolated check.
PROCESSES = 64
OPEN_FILES = 256
TMP_SIZE = "64m"
# Written in a check's scratch folder, on the grader's side of the view, only when setting up the
# student process failed: the grader's fault, not the student's. Student code never sees the file,
# so unlike an exit status it cannot be forged.
SETUP_FAILED_FILE = "setup-failed.log"

# Where the student's own copy of its exercise folder appears inside the isolated view.
SUBMISSION_DIR = "/submission"
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWPID, _CLONE_NEWNET = 0x20000, 0x08000000, 0x20000000, 0x40000000
# Entered by the student process itself; the PID namespace is made for it by the zygote (_fork).
_CHECK_NAMESPACES = _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWNET
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 36, 38
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


# -- the zygote ---------------------------------------------------------------------------------

def serve_forks(control: socket.socket) -> None:
    """Zygote loop: fork a student process per `fork` request, reap it on `reap`; exit when the grader goes."""
    view = _View.here(Path.cwd() / "view")
    protections = describe(view)
    if sys.platform == "linux":
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # a check's orphans come here, to be killed when it is reaped
    alive, alive_w = os.pipe()  # students read EOF once the zygote is gone
    uid = UID_BASE + os.getpid()
    import torch  # noqa: F401 - preloaded once so each fork starts in milliseconds
    import safetensors.torch  # noqa: F401
    import grader.injected  # noqa: F401 - the view may not show the grader's folder to a check

    control.send(json.dumps({"ready": True, "protections": protections}).encode())
    live: set[int] = set()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "fork":
            pid = _fork(isolated=view.isolated)
            if pid == 0:
                control.close()
                os.close(alive_w)
                try:
                    _student_process(fds[0], request, view, uid, alive)
                finally:
                    os._exit(1)
            os.close(fds[0])
            live.add(pid)
            control.send(json.dumps({"pid": pid}).encode())
        elif request["op"] == "reap":
            _, status = os.waitpid(request["pid"], 0)
            live.discard(request["pid"])
            _kill_orphans(keep=live)
            control.send(json.dumps({"status": _describe_status(status)}).encode())


def _fork(*, isolated: bool) -> int:
    """os.fork, the child isolated as PID 1 of a new PID namespace: when it ends, all it started ends with it.

    unshare(CLONE_NEWPID) only moves this process's future children; setns moves them back after.
    """
    if not isolated:
        return os.fork()
    own = os.open("/proc/self/ns/pid", os.O_RDONLY)
    try:
        _unshare(_CLONE_NEWPID)
        pid = os.fork()
        if pid:
            _check(_libc().setns(own, _CLONE_NEWPID), "setns back to the zygote's PID namespace")
        return pid
    finally:
        os.close(own)


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


class _View:
    """What an isolated student process may see: these read-only binds, plus devices, /proc, /tmp and its copy."""

    def __init__(self, mountpoint: Path, binds: list[str], why_not: str):
        self.mountpoint = mountpoint
        self.binds = binds
        self.why_not = why_not  # why isolation is unavailable here; "" when it works

    @property
    def isolated(self) -> bool:
        return not self.why_not

    @classmethod
    def here(cls, mountpoint: Path) -> _View:
        """System directories and the Python installation (torch included), never the course's secrets; probed once."""
        mountpoint.mkdir(exist_ok=True)
        pythons = [sys.base_prefix, sys.prefix, sys.exec_prefix]
        pythons += [str(Path(importlib.util.find_spec(m).origin).parent.parent) for m in ("torch", "safetensors")]
        candidates = [p for p in (*_SYSTEM_DIRS, *pythons) if os.path.lexists(p)]
        binds = [p for p in dict.fromkeys(candidates) if not any(_inside(p, q) and p != q for q in candidates)]
        view = cls(mountpoint, binds, "")
        view.why_not = view._why_not()
        return view

    def _why_not(self) -> str:
        if sys.platform != "linux":
            return f"namespaces are Linux-only (this is {sys.platform})"
        if platform.machine() not in _SYS_PIVOT_ROOT:
            return f"no pivot_root syscall number known for {platform.machine()}"
        if os.geteuid() != 0:
            return "needs root (namespaces, mounts and a uid of its own); run grade as root, e.g. in CI"
        course = Path(grader.__file__).resolve().parent.parent
        for secret in (course / "solutions", course / "tests"):
            exposed = [b for b in self.binds if _inside(str(secret), os.path.realpath(b))]
            if exposed:
                return f"{secret} lies inside {exposed[0]}, which student code needs to see; move the course"
        return _trial(self)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _trial(view: _View) -> str:
    """Set up one isolated process that does nothing; return what went wrong ('' if nothing)."""
    with tempfile.TemporaryDirectory() as empty:
        r, w = os.pipe()
        uid = UID_BASE + os.getpid()
        try:
            pid = _fork(isolated=True)
        except OSError as e:
            return f"PID namespace: {e}"
        if pid == 0:
            os.close(r)
            try:
                _unshare(_CHECK_NAMESPACES)
                _isolate(empty, "cpu", view, uid)
                os._exit(0)
            except BaseException as e:
                os.write(w, f"{type(e).__name__}: {e}".encode())
                os._exit(1)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            why = f.read().decode(errors="replace")
        _, status = os.waitpid(pid, 0)
    return why or ("" if status == 0 else "the trial isolated process failed")


def describe(view: _View) -> list[dict]:
    """Each protection a check gets here: name, whether active, and a note."""
    linux, isolated = sys.platform == "linux", view.isolated
    why = view.why_not
    return [
        {"name": "separate process", "active": True, "note": "student code never runs in the grading process"},
        {"name": "wall-time limit", "active": True, "note": "per check, enforced by the grader"},
        {"name": "output limits", "active": True, "note": "captured output and replies are size-capped"},
        {"name": "rlimits", "active": True, "note": "CPU time, data segment, file size, open files, no core dumps"},
        {"name": "leftover processes killed", "active": linux or isolated,
         "note": "PID namespace" if isolated else ("subreaper sweep (best effort)" if linux else "process group only")},
        {"name": "unprivileged uid", "active": isolated, "note": "a uid per check; RLIMIT_NPROC" if isolated else why},
        {"name": "no network", "active": isolated, "note": "network namespace" if isolated else why},
        {"name": "private file-system view", "active": isolated,
         "note": "mount namespace: system and Python files, the submission's copy, private /tmp" if isolated else why},
    ]


# -- one check ----------------------------------------------------------------------------------

def _student_process(channel_fd: int, request: dict, view: _View, uid: int, alive: int) -> None:
    """Set up the student process (sandbox, limits, captured output), then serve calls; never returns."""
    scratch = Path(request["scratch"])
    failed = os.open(scratch / SETUP_FAILED_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        output = os.open(scratch / "output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.setsid()
        if view.isolated:
            _unshare(_CHECK_NAMESPACES)
            workspace = _isolate(request["workspace"], request["device"], view, uid)
        else:
            workspace = Path(request["workspace"])
            os.chdir(request["scratch"])
        _limit(request["limits"], isolated=view.isolated)
        _end_with_zygote(alive)
    except BaseException:
        os.write(failed, traceback.format_exc().encode())
        os._exit(1)
    os.close(failed)  # before any student code runs
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    try:
        _serve(socket.socket(fileno=channel_fd), workspace, request)
    finally:
        os._exit(0)


def _isolate(workspace: str, device: str, view: _View, uid: int) -> Path:
    """Enter the view (in namespaces of its own already), then become `uid`; return the submission's copy.

    Order matters: mounts need root, so the uid changes last, and it drops every capability with it.
    """
    os.umask(0o022)
    root = str(view.mountpoint)
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=16m")
    # The private /tmp comes before the binds: a Python installed under /tmp (a venv in a clone
    # there, as in CI) is then bound inside it rather than hidden by it.
    os.mkdir(root + "/tmp")
    _mount("tmpfs", root + "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=0700,size={TMP_SIZE},uid={uid},gid={uid}")
    cuda = device == "cuda"
    for path in [*view.binds, *(["/sys"] if cuda else [])]:
        _bind(path, root, readonly=True)
    for node in [*_DEVICES, *(sorted(str(p) for p in Path("/dev").glob("nvidia*")) if cuda else [])]:
        _bind(node, root, readonly=False)
    copy = Path(root + SUBMISSION_DIR)
    copy.mkdir()
    for f in Path(workspace).iterdir():
        if f.is_file() and not f.is_symlink():
            shutil.copyfile(f, copy / f.name)
    os.mkdir(root + "/proc")
    _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    os.chdir(root)
    _check(_libc().syscall(_SYS_PIVOT_ROOT[platform.machine()], b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", _MNT_DETACH), "umount the old root")
    _mount(None, "/", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    os.chdir("/tmp")
    os.environ.pop("PYTHONPATH", None)
    os.environ.update(HOME="/tmp", TMPDIR="/tmp")
    tempfile.tempdir = "/tmp"
    return Path(SUBMISSION_DIR)


def _bind(path: str, root: str, *, readonly: bool) -> None:
    """Show `path` at the same place inside the view (a symbolic link stays a link)."""
    target = root + path
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(path):
        os.symlink(os.readlink(path), target)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        open(target, "wb").close()
    _mount(path, target, None, _MS_BIND | _MS_REC)
    if readonly:
        _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _limit(limits: dict, *, isolated: bool) -> None:
    """Resource limits; the process count only as a uid of its own (it counts every process of the uid)."""
    wanted = {
        resource.RLIMIT_DATA: limits["memory_mib"] << 20,
        resource.RLIMIT_CPU: limits["cpu_seconds"],
        resource.RLIMIT_FSIZE: limits["file_bytes"],
        resource.RLIMIT_NOFILE: OPEN_FILES,
        resource.RLIMIT_CORE: 0,
    }
    if isolated:
        wanted[resource.RLIMIT_NPROC] = PROCESSES
    for kind, value in wanted.items():
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


def _end_with_zygote(alive: int) -> None:
    """Die with the zygote (Linux), even if it died before this was set: `alive` reads EOF then."""
    if sys.platform == "linux":
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        os.set_blocking(alive, False)
        try:
            if os.read(alive, 1) == b"":
                raise RuntimeError("the zygote is gone")
        except BlockingIOError:
            pass
    os.close(alive)


def _serve(channel: socket.socket, workspace: Path, request: dict) -> None:
    """Answer `call` requests until the grader closes the channel."""
    sys.path.insert(0, str(workspace))
    import torch

    torch.set_num_threads(1)
    device = torch.device(request["device"])
    modules: dict = {}
    while True:
        try:
            message = wire.recv(channel, timeout=None, limit=request["limits"]["message_bytes"])
        except (EOFError, OSError):
            return
        reply = _call(message, modules, workspace, device)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        try:
            data = wire.pack(reply)
        except Exception as e:  # WireError, or whatever the result's own methods raise (RecursionError, ...)
            data = wire.pack({"ok": False, "error": {"kind": "unsendable", "message": f"{type(e).__name__}: {_text(e)}"}})
        channel.sendall(data)


# -- system calls -------------------------------------------------------------------------------

_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _unshare(flags: int) -> None:
    _check(_libc().unshare(flags), "unshare")


def _prctl(option: int, value: int) -> None:
    _check(_libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl({option})")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode = lambda s: None if s is None else os.fsencode(s)  # noqa: E731
    _check(_libc().mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)), f"mount {target}")


# -- calls into the submission ------------------------------------------------------------------

def _call(message: dict, modules: dict, workspace: Path, device) -> dict:
    """Run one requested function of the submission and return its result or what went wrong."""
    module_name, function = message["module"], message["function"]
    try:
        module = modules.get(module_name) or _import(module_name, workspace)
    except _SubmissionError as e:
        return {"ok": False, "error": e.info}
    modules[module_name] = module
    fn = getattr(module, function, None)
    if fn is None:
        return _error("missing", f"{module_name}.py has no function named '{function}'")
    if not callable(fn):
        return _error("missing", f"'{function}' in {module_name}.py is not a function")

    try:
        args = _to_device(message["args"], device)
        kwargs = _to_device(message["kwargs"], device)
    except ValueError as e:  # an Inject the course does not define: the grader's mistake, reported as such
        return _error("arguments", f"the grader sent arguments that could not be built: {e}")
    cotangent = message.get("cotangent")
    if cotangent is not None:
        args, kwargs = _require_grad(args), _require_grad(kwargs)
    try:
        value = fn(*args, **kwargs)
        grads = None if cotangent is None else _gradients(value, _to_device(cotangent, device), args, kwargs)
    except BaseException as e:  # the submission may raise anything, SystemExit included
        return {"ok": False, "error": _exception_info(e, workspace)}
    return {"ok": True, "value": value, "grads": grads}


class _SubmissionError(Exception):
    def __init__(self, info: dict):
        self.info = info


def _error(kind: str, message: str, where: str = "") -> dict:
    return {"ok": False, "error": {"kind": kind, "message": message[:_TEXT_LIMIT], "where": where}}


def _import(module_name: str, workspace: Path):
    path = workspace / f"{module_name}.py"
    if not path.is_file():
        raise _SubmissionError(_error("missing", f"{module_name}.py is missing")["error"])
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        where = f"{module_name}.py, line {e.lineno}"
        raise _SubmissionError(_error("import", f"SyntaxError: {e.msg}", where)["error"]) from None
    except BaseException as e:
        info = _exception_info(e, workspace)
        info["kind"] = "import"
        raise _SubmissionError(info) from None
    return module


def _exception_info(e: BaseException, workspace: Path) -> dict:
    """Type, message and the innermost line of the submission's own code where it was raised."""
    where = ""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if Path(frame.filename).parent == workspace:
            where = f"{Path(frame.filename).name}, line {frame.lineno}, in {frame.name}"
            break
    if isinstance(e, SystemExit):
        try:
            code = repr(e.code)[:_TEXT_LIMIT]
        except BaseException:  # a hostile __repr__
            code = "..."
        return {"kind": "exit", "message": f"called sys.exit({code})", "where": where}
    return {
        "kind": "exception",
        "type": type(e).__name__,
        "bases": [c.__name__ for c in type(e).__mro__],
        "message": _text(e),
        "where": where,
    }


def _text(e: BaseException) -> str:
    try:
        return str(e)[:_TEXT_LIMIT]
    except BaseException:  # a hostile __str__
        return "<message could not be read>"


def _to_device(obj, device):
    """Tensors moved to `device`, and each `Inject` replaced by the public course code it stands for."""
    import torch

    from grader import injected

    def leaf(v):
        if isinstance(v, torch.Tensor):
            return v.to(device)
        if isinstance(v, wire.Inject):
            return injected.build(wire.Inject(v.name, _to_device(v.args, device)), device)
        return v

    return wire.map_leaves(obj, leaf)


def _require_grad(obj):
    """Fresh leaf copies of every floating-point tensor, so gradients reach each input."""
    import torch

    def leaf(v):
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            return v.detach().clone().requires_grad_(True)
        return v

    return wire.map_leaves(obj, leaf)


def _gradients(value, cotangent, args, kwargs) -> dict:
    """Vector-Jacobian product: gradients of sum(value * cotangent) w.r.t. every tensor input.

    An input the output does not depend on (or reaches only through `.detach()`) gets None.
    """
    import torch

    leaves = []

    def pair(out, cot, where):
        if isinstance(cot, torch.Tensor):
            if not isinstance(out, torch.Tensor) or out.shape != cot.shape:
                raise ValueError(f"cannot take gradients: {where} is not a tensor of shape {tuple(cot.shape)}")
            if out.requires_grad:
                leaves.append((out * cot).sum())
        elif isinstance(cot, dict):
            if not isinstance(out, dict):
                raise ValueError(f"cannot take gradients: {where} is not a dict")
            for k, v in cot.items():
                if k not in out:
                    raise ValueError(f"cannot take gradients: {where} has no key {k!r}")
                pair(out[k], v, f"{where}[{k!r}]")

    pair(value, cotangent, "the result")
    inputs = [t for t in _tensors(args) + _tensors(kwargs) if t.requires_grad]
    grads = [None] * len(inputs)
    if leaves and inputs:
        grads = torch.autograd.grad(sum(leaves), inputs, allow_unused=True)
    found = dict(zip(map(id, inputs), grads))
    return {"args": _grads_like(args, found), "kwargs": _grads_like(kwargs, found)}


def _tensors(obj) -> list:
    """Every tensor input, an injected cell's parameters included."""
    import torch

    found = []
    for v in wire.leaves(obj):
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, torch.nn.Module):
            found += v.parameters()
    return found


def _grads_like(obj, found: dict):
    """The gradients in the shape of the inputs: None where no gradient (or no tensor) is."""
    import torch

    def leaf(v):
        if isinstance(v, torch.Tensor):
            return found.get(id(v))
        if isinstance(v, torch.nn.Module):
            return {name: found.get(id(p)) for name, p in v.named_parameters()}
        return None

    return wire.map_leaves(obj, leaf)


def probe() -> list[dict]:
    """The protections a check would get here (`python -m grader.student --probe`)."""
    with tempfile.TemporaryDirectory() as folder:
        return describe(_View.here(Path(folder) / "view"))


if __name__ == "__main__":
    if sys.argv[1] == "--probe":
        print(json.dumps(probe()))
    else:
        serve_forks(socket.socket(fileno=int(sys.argv[1])))
        os._exit(0)  # no interpreter teardown: unloading torch costs the grader ~0.4 s of waiting
