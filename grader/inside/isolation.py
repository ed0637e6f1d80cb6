"""How a student process is shut in: namespaces, a file-system view, an unprivileged uid, memory and rlimits.

Where the zygote runs as root on Linux, a student process is PID 1 of a new PID namespace (its end
kills every process it started), with no network, a view of only system and Python files, its
submission's copy and a private /tmp, an unprivileged uid, a memory cgroup of its own and rlimits.
Where the zygote is root but namespaces are forbidden (Docker's default seccomp profile, as on
Gradescope), it still drops to an unprivileged uid with its rlimits, in a private folder holding a
copy of its files – provided the Python installation is readable by that uid. Without root (or
off Linux) it is only a separate, rlimited process in its own session.

`GRADE_SANDBOX_NAMESPACES=off` makes the zygote behave as in such a container (to try that mode).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import os
import platform
import resource
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.inside.cgroups import MemoryCage

if TYPE_CHECKING:
    import pyseccomp

# Each student process runs as a uid of its own: this base plus its pid as the zygote sees it (unique
# among live processes; pids stay below 2**22), so RLIMIT_NPROC, files and signals never mix two
# student processes – of one student's exercises side by side, or of two workers – or reach the grader.
UID_BASE = (1 << 31) - (1 << 22)
# What two student processes can both reach whatever their namespaces and uids, so a channel between them
# (one exercise's process could hand another the code it was given, or compute what the other may not):
# kernel keyrings (in no namespace, they outlive their processes); locks on a file both see (POSIX, open file
# description and flock locks: the same inode in every view, read-only or not); watches that report another
# process reading such a file (inotify, fanotify, a folder's F_NOTIFY); leases; io_uring, whose futex waits no
# filter sees; POSIX message queues (without namespaces they live in the machine's one queue namespace, where
# nothing can list them unless /dev/mqueue is mounted, and outlive their processes). Refused with EPERM.
CHANNEL_SYSCALLS = (
    "add_key",
    "keyctl",
    "request_key",
    "flock",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "io_uring_setup",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)
# fcntl's commands of that kind: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE,
# F_GETLEASE, F_NOTIFY. Only the 32 bits the kernel reads of `cmd` are compared (higher ones must not hide one).
CHANNEL_FCNTL_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
# A futex word on a page of a file every view shows (libc's, read-only) has the same key in every process: one
# process's wake, or its count of waiters woken, carries a bit to or from another. Waits that may queue on such a
# key – legacy futex FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI without FUTEX_PRIVATE_FLAG, futex2's
# futex_wait without FUTEX2_PRIVATE, futex_waitv whose flags a filter cannot read – return EAGAIN at once ("the
# word changed": every caller retries, so a shared wait spins instead of sleeping, as glibc's pthread_join then
# does). With no waiter on a shared key, a wake reaches nobody. PI futexes need the word writable, and no
# writable page is shared between student processes.
FUTEX_PRIVATE_FLAG, FUTEX2_PRIVATE = 128, 128
SHARED_FUTEX_WAITS = (0, 9, 11)  # FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI
# Processes plus threads, open files, and the size of the private /tmp of one isolated check.
PROCESSES = 64
OPEN_FILES = 256
TMP_SIZE = "64m"
# Where the student's own copy of its exercise folder appears inside the isolated view.
SUBMISSION_DIR = "/submission"
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWPID, _CLONE_NEWNET = 0x20000, 0x08000000, 0x20000000, 0x40000000
# Entered by the student process itself; the PID namespace is made for it by the zygote (`fork`).
CHECK_NAMESPACES = _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWNET
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 36, 38
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


class View:
    """What an isolated student process may see: these read-only binds, plus devices, /proc, /tmp and its copy."""

    def __init__(self, mountpoint: Path, binds: list[str], why_not_isolated: str):
        self.mountpoint = mountpoint
        self.binds = binds
        self.why_not_isolated = why_not_isolated  # why isolation is unavailable here; "" when it works
        self.why_no_uid = why_not_isolated  # why no unprivileged uid either; "" when a uid of its own is possible
        self.exposed = ""  # without namespaces: which secrets every user (so the student's uid) can read

    @property
    def isolated(self) -> bool:
        return not self.why_not_isolated

    @classmethod
    def here(cls, mountpoint: Path, *, secrets: list[Path]) -> View:
        """System directories and the Python installation (torch included); refused if a bind would show `secrets`."""
        mountpoint.mkdir(exist_ok=True)
        pythons = [sys.base_prefix, sys.prefix, sys.exec_prefix]
        pythons += [str(_origin(m).parent.parent) for m in ("torch", "safetensors")]
        candidates = [p for p in (*_SYSTEM_DIRS, *pythons) if os.path.lexists(p)]
        binds = [p for p in dict.fromkeys(candidates) if not any(inside(p, q) and p != q for q in candidates)]
        view = cls(mountpoint, binds, "")
        view.why_not_isolated = view._why_not_isolated(secrets)
        if not view.isolated:
            view.why_no_uid, view.exposed = _why_no_uid(secrets)
        return view

    def unseen_sources(self) -> list[str]:
        """The source files of the modules loaded here that an isolated student process cannot read (its engine's own,
        outside every bind); none without isolation, where what it can read is up to the files' modes."""
        if not self.isolated:
            return []
        real = [os.path.realpath(b) for b in self.binds]

        def seen(file: str) -> bool:  # most are below a bind as named: resolved (a dozen system calls each) only if not
            return any(inside(file, b) for b in self.binds) or any(inside(os.path.realpath(file), b) for b in real)

        files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
        return sorted(f for f in files if isinstance(f, str) and not seen(f))

    @property
    def own_uid(self) -> bool:
        """Whether a student process runs as an unprivileged uid of its own (isolated, or uid only)."""
        return not self.why_no_uid

    def _why_not_isolated(self, secrets: list[Path]) -> str:
        if sys.platform != "linux":
            return f"namespaces are Linux-only (this is {sys.platform})"
        if platform.machine() not in _SYS_PIVOT_ROOT:
            return f"no pivot_root syscall number known for {platform.machine()}"
        if os.geteuid() != 0:
            return "needs root (namespaces, mounts and a uid of its own); run grade as root, e.g. in CI"
        if os.environ.get("GRADE_SANDBOX_NAMESPACES") == "off":
            return "namespaces turned off (GRADE_SANDBOX_NAMESPACES=off)"
        for secret in secrets:
            exposed = [b for b in self.binds if inside(str(secret.resolve()), os.path.realpath(b))]
            if exposed:
                return f"{secret} lies inside {exposed[0]}, which student code needs to see; move the course"
        return _trial(self)


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _origin(module: str) -> Path:
    """The file `module` is imported from, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ImportError(f"{module} is not installed where the grader runs")
    return Path(spec.origin)


def _why_no_uid(secrets: list[Path]) -> tuple[str, str]:
    """Without namespaces: why an unprivileged uid cannot run Python here ('' if it can), and which secrets it could read."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "needs root on Linux", ""
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    probes = [stdlib / "colorsys.py", _origin("torch")]
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(UID_BASE, UID_BASE, UID_BASE)
            os.setresuid(UID_BASE, UID_BASE, UID_BASE)
            for probe in probes:
                with open(probe, "rb"):
                    pass
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return (
            f"no namespaces here, and an unprivileged uid cannot read the Python installation ({stdlib}): "
            "install Python where every user can read it to get a uid of its own"
        ), ""
    found = readable_by(UID_BASE, secrets)
    return "", (f"the references or hidden checks are readable by every user: chmod 700 {' '.join(str(s) for s in found)}" if found else "")


_MAX_PROBED = 10_000  # files of one secret a uid tries to open


def readable_by(uid: int, secrets: list[Path]) -> list[Path]:
    """The `secrets` that `uid` (without groups) can read something of: list the folder, or open a regular file below
    it – a folder it may enter but not list (mode 711) still opens the files whose names the course's layout tells."""
    files = [_regular_files(secret) for secret in secrets]  # as this process (root) sees them
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.write(write, bytes(n for n, secret in enumerate(secrets) if _opens(secret, files[n])))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as reply:
        found = reply.read()
    os.waitpid(pid, 0)
    return [secrets[n] for n in found if n < len(secrets)]


def _regular_files(folder: Path) -> list[str]:
    """Up to _MAX_PROBED regular files below `folder` (links not followed)."""
    files: list[str] = []
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    files.append(path)
            if len(files) >= _MAX_PROBED:
                return files
    return files


def _opens(folder: Path, files: list[str]) -> bool:
    """Whether this process can list `folder` or open any of `files` (never blocking, never following a link)."""
    try:
        os.listdir(folder)
        return True
    except OSError:
        pass
    for path in files:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW))
            return True
        except OSError:
            continue
    return False


def process_uid() -> int:
    """This student process's own uid (call before it mounts its own /proc, which would show it as pid 1)."""
    return UID_BASE + int(os.readlink("/proc/self"))


@functools.cache  # tried once in the zygote; its forks inherit the answer
def why_channels_open() -> str:
    """'' where a seccomp filter can refuse the channel system calls here (tried in a child), else why not."""
    if sys.platform != "linux":
        return "seccomp is Linux only"
    try:
        channel_filter()  # built here, in the zygote: each student process then only loads it
    except (ImportError, OSError) as e:
        return f"no libseccomp here ({type(e).__name__}: {e})"
    except Exception as e:  # pyseccomp's own errors
        return f"the seccomp filter cannot be built here ({type(e).__name__}: {e})"
    pid = os.fork()
    if pid == 0:
        try:
            block_channels()
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    return "" if ok else "a seccomp filter cannot be loaded here (a container's own seccomp profile may forbid it)"


def block_channels() -> None:
    """Refuse, for this process and all it starts, what could carry data to another student process (a seccomp filter)."""
    channel_filter().load()


@functools.cache
def channel_filter() -> pyseccomp.SyscallFilter:
    """The seccomp filter `block_channels` loads, built once (its rules cost each fork more than loading it)."""
    import errno

    import pyseccomp

    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    refuse, wait_again = pyseccomp.ERRNO(errno.EPERM), pyseccomp.ERRNO(errno.EAGAIN)
    low32 = 0xFFFFFFFF
    for name in CHANNEL_SYSCALLS:
        _add_rule(rules, refuse, name)
    for command in CHANNEL_FCNTL_COMMANDS:
        _add_rule(rules, refuse, "fcntl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, low32, command))
    for command in SHARED_FUTEX_WAITS:  # the command and the private flag; higher bits make any command invalid
        _add_rule(rules, wait_again, "futex", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0x7F | FUTEX_PRIVATE_FLAG, command))
    _add_rule(rules, wait_again, "futex_wait", pyseccomp.Arg(3, pyseccomp.MASKED_EQ, FUTEX2_PRIVATE, 0))
    _add_rule(rules, wait_again, "futex_waitv")
    return rules


def _add_rule(rules: pyseccomp.SyscallFilter, action: int, name: str, *args: pyseccomp.Arg) -> None:
    """One rule, for a system call this architecture has (inotify_init, say, is x86's only)."""
    import pyseccomp

    if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) >= 0:
        rules.add_rule(action, name, *args)


def drop_to(uid: int, workspace: str, private: Path) -> Path:
    """Without namespaces: copy the submission into `private`, give it to `uid`, become `uid` there; return the copy."""
    copy = private / "submission"
    _copy_files(workspace, copy)
    for path in (private, copy, *copy.iterdir()):
        os.chown(path, uid, uid)
    os.chmod(private, 0o700)
    os.chdir(private)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    prctl(_PR_SET_NO_NEW_PRIVS, 1)
    os.environ.update(HOME=str(private), TMPDIR=str(private))
    tempfile.tempdir = str(private)
    return copy


def _trial(view: View) -> str:
    """Set up one isolated process that does nothing; return what went wrong ('' if nothing)."""
    with tempfile.TemporaryDirectory() as empty:
        r, w = os.pipe()
        uid = UID_BASE + os.getpid()
        try:
            pid = fork(isolated=True)
        except OSError as e:
            return f"PID namespace: {e}"
        if pid == 0:
            os.close(r)
            try:
                unshare(CHECK_NAMESPACES)
                isolate(empty, "cpu", view, uid)
                os._exit(0)
            except BaseException as e:
                os.write(w, f"{type(e).__name__}: {e}".encode())
                os._exit(1)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            why = f.read().decode(errors="replace")
        _, status = os.waitpid(pid, 0)
    return why or ("" if status == 0 else "the trial isolated process failed")


# The protections the grader's own decisions name (`grade doctor` prints every one by its name).
OWN_UID = "unprivileged uid"
NO_NETWORK = "no network"
PRIVATE_VIEW = "private file-system view"
SECRETS_UNREADABLE = "references and hidden checks unreadable"


@dataclass(frozen=True)
class Protection:
    """One protection of a student process: its name, whether it is active here, and how it works or why it is not."""

    name: str
    active: bool
    note: str


def describe(view: View, memory: MemoryCage) -> list[Protection]:
    """Each protection a check gets here."""
    linux, isolated = sys.platform == "linux", view.isolated
    why = view.why_not_isolated
    return [
        Protection("separate process", True, "student code never runs in the grading process"),
        Protection("wall-time limit", True, "per check, enforced by the grader"),
        Protection("output limits", True, "captured output and replies are size-capped"),
        Protection("rlimits", True, "CPU time, data segment, file size, open files, no core dumps"),
        Protection("memory limit (all kinds)", memory.complete, memory.note),
        Protection(
            "leftover processes killed",
            linux or isolated,
            "PID namespace" if isolated else ("subreaper sweep (best effort)" if linux else "process group only"),
        ),
        Protection(
            OWN_UID,
            view.own_uid,
            "a uid per check; RLIMIT_NPROC"
            if isolated
            else "a uid per check, RLIMIT_NPROC, in a private folder (no namespaces here)"
            if view.own_uid
            else view.why_no_uid,
        ),
        Protection(
            "no channel between student processes",
            not why_channels_open(),
            why_channels_open()
            or "seccomp refuses kernel keyrings, file locks and leases, inotify, fanotify, "
            "F_NOTIFY, io_uring and POSIX message queues; futex waits on a key another process could share "
            "return at once",
        ),
        Protection(NO_NETWORK, isolated, "network namespace" if isolated else why),
        Protection(
            PRIVATE_VIEW,
            isolated,
            "mount namespace: system and Python files, the submission's copy, private /tmp" if isolated else why,
        ),
        Protection(
            SECRETS_UNREADABLE,
            isolated or (view.own_uid and not view.exposed),
            "outside the view"
            if isolated
            else view.exposed or "other users may not read them (or there are none: a student bundle)"
            if view.own_uid
            else "student code runs as this user and reads what it may",
        ),
    ]


def fork(*, isolated: bool) -> int:
    """os.fork, the child isolated as PID 1 of a new PID namespace: when it ends, all it started ends with it.

    unshare(CLONE_NEWPID) only moves this process's future children; setns moves them back after.
    """
    if not isolated:
        return os.fork()
    own = os.open("/proc/self/ns/pid", os.O_RDONLY)
    try:
        unshare(_CLONE_NEWPID)
        pid = os.fork()
        if pid:
            _check(_libc().setns(own, _CLONE_NEWPID), "setns back to the zygote's PID namespace")
        return pid
    finally:
        os.close(own)


def isolate(workspace: str, device: str, view: View, uid: int) -> Path:
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
    # Read-only binds: a device is still read and written through one, but its inode (the same in every view)
    # takes no change of times or mode that another student process could read back.
    for node in _DEVICES:
        _bind(node, root, readonly=True, device=True)
    for node in sorted(str(p) for p in Path("/dev").glob("nvidia*")) if cuda else []:
        _bind(node, root, readonly=False)
    _copy_files(workspace, Path(root + SUBMISSION_DIR))
    os.mkdir(root + "/proc")
    _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    os.chdir(root)
    _check(_libc().syscall(_SYS_PIVOT_ROOT[platform.machine()], b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", _MNT_DETACH), "umount the old root")
    _mount(None, "/", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    prctl(_PR_SET_NO_NEW_PRIVS, 1)
    os.chdir("/tmp")
    os.environ.pop("PYTHONPATH", None)
    os.environ.update(HOME="/tmp", TMPDIR="/tmp")
    tempfile.tempdir = "/tmp"
    return Path(SUBMISSION_DIR)


def _copy_files(workspace: str, copy: Path) -> None:
    """The student process's own copy of its submission's files (plain files only)."""
    copy.mkdir()
    for f in Path(workspace).iterdir():
        if f.is_file() and not f.is_symlink():
            shutil.copyfile(f, copy / f.name)


def _bind(path: str, root: str, *, readonly: bool, device: bool = False) -> None:
    """Show `path` at the same place inside the view (a symbolic link stays a link); a `device` stays usable."""
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
        _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | (0 if device else _MS_NODEV))


def set_limits(limits: Mapping[str, int], *, isolated: bool, address_space: bool) -> None:
    """Resource limits; the process count only as a uid of its own (it counts every process of the uid).

    With `address_space` (no memory cgroup, not CUDA), RLIMIT_AS allows the memory limit on top of what
    the fork already maps, so that shared mappings count too.
    """
    memory = limits["memory_mib"] << 20
    wanted = {
        resource.RLIMIT_DATA: memory,
        resource.RLIMIT_CPU: limits["cpu_seconds"],
        resource.RLIMIT_FSIZE: limits["file_bytes"],
        resource.RLIMIT_NOFILE: OPEN_FILES,
        resource.RLIMIT_CORE: 0,
    }
    if address_space:
        wanted[resource.RLIMIT_AS] = _mapped_bytes() + memory
    if isolated:
        wanted[resource.RLIMIT_NPROC] = PROCESSES
    for kind, value in wanted.items():
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


def _mapped_bytes() -> int:
    """This process's address-space size now (VmSize)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) << 10
    return 0


def end_with_zygote(alive: int) -> None:
    """Die with the zygote (Linux), even if it died before this was set: `alive` reads EOF then."""
    if sys.platform == "linux":
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        os.set_blocking(alive, False)
        try:
            if os.read(alive, 1) == b"":
                raise RuntimeError("the zygote is gone")
        except BlockingIOError:
            pass
    os.close(alive)


def become_subreaper() -> None:
    """A check's orphans come to this process, to be killed when the check is reaped (Linux)."""
    if sys.platform == "linux":
        prctl(_PR_SET_CHILD_SUBREAPER, 1)


# -- system calls -------------------------------------------------------------------------------

_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc().unshare(flags), "unshare")


def prctl(option: int, value: int) -> None:
    _check(_libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl({option})")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def encode(s: str | None) -> bytes | None:
        return None if s is None else os.fsencode(s)

    _check(_libc().mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)), f"mount {target}")


# -- what a uid-only student process leaves behind ----------------------------------------------

# World-writable places where a student process without namespaces can leave files that outlive it.
SHARED_DIRS = ("/dev/shm", "/tmp", "/var/tmp", "/run/lock", "/dev/mqueue")
_IPC_RMID = 0


def sweep_uid(uid: int) -> None:
    """End everything `uid` still owns: its processes, its files in SHARED_DIRS, its SysV shared memory, semaphores
    and message queues. Without namespaces these outlive a student process – tmpfs pages still charged to the
    zygote's memory cgroup, a channel to the next one – so the zygote sweeps each one's uid before reaping it."""
    _kill_uid(uid)
    for folder in SHARED_DIRS:
        _sweep_folder(folder, uid, depth=2)
    _remove_ipc(uid)


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of `uid` until none runs (a zombie whose threads have all ended holds no files or
    mappings; its parent reaps it)."""
    for _ in range(200):
        running = _processes_of(uid)
        if not running:
            return
        for pid in running:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)


def _processes_of(uid: int) -> list[int]:
    """The pids of processes whose real uid is `uid` and that still run: not zombies, unless threads of them live on
    (a leader that ended with the raw exit system call shows as a zombie while its other threads run)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:  # the first lines: Name (the kernel escapes any newline in it), ..., State, ..., Uid
            with open(f"/proc/{name}/status", "rb") as f:
                head = f.read(1024)
            state = head.split(b"\nState:", 1)[1].split()[0]
            real_uid = int(head.split(b"\nUid:", 1)[1].split()[0])
        except (OSError, IndexError, ValueError):  # ended meanwhile
            continue
        if real_uid == uid and (state not in (b"Z", b"X") or _threads_left(name)):
            found.append(int(name))
    return found


def _threads_left(pid: str) -> bool:
    try:
        return len(os.listdir(f"/proc/{pid}/task")) > 1
    except OSError:
        return False


def _sweep_folder(name: str, uid: int, *, depth: int, dir_fd: int | None = None) -> None:
    """Remove what `uid` owns in the folder `name`, and look `depth - 1` levels into world-writable folders of others.

    Every entry is looked at, in whatever order and number others' entries come (a budget could be spent by a
    flood of another process's files, in front of what this uid left). The work is bounded all the same: what
    students make there is bounded by their limits and goes when each one's uid is swept. Every step is relative
    to an open folder and follows no link, so a folder renamed or swapped for a link by another user meanwhile
    cannot turn the removal elsewhere.
    """
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return
    folders = []  # the uid's own folders here: removed together, by one `rm` for many
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_uid == uid:  # as much as it made (bounded by its own limits), however deep
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.name)
                    else:
                        _unlink(entry.name, fd)
                    continue
                if depth > 1 and entry.is_dir(follow_symlinks=False) and info.st_mode & 0o002:
                    _sweep_folder(entry.name, uid, depth=depth - 1, dir_fd=fd)
        _remove_folders(folders, fd)
    finally:
        os.close(fd)


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _remove_folders(names: list[str], dir_fd: int) -> None:
    """Remove these folders of the open folder `dir_fd`, with all in them at any depth; no link is followed.

    They go by `rm -rf` through /proc/self/fd (which names that open folder, whatever is renamed meanwhile), a
    few thousand to one `rm` – tens of thousands of empty folders cost a second, not a process each: rm walks
    any depth, where shutil.rmtree would recurse past Python's limit.
    """
    import subprocess

    for start in range(0, len(names), 2000):
        paths = [f"/proc/self/fd/{dir_fd}/{name}" for name in names[start : start + 2000]]
        try:
            subprocess.run(
                ["rm", "-rf", "--one-file-system", "--", *paths],
                pass_fds=[dir_fd],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
                timeout=120,
            )
        except (OSError, subprocess.SubprocessError):
            pass


def _remove_ipc(uid: int) -> None:
    """Remove the SysV IPC objects `uid` owns or created (an owner can give one away; its creator stays)."""
    libc = _libc()
    removers: dict[str, Callable[[int], int]] = {
        "shm": lambda i: libc.shmctl(i, _IPC_RMID, None),
        "sem": lambda i: libc.semctl(i, 0, _IPC_RMID),
        "msg": lambda i: libc.msgctl(i, _IPC_RMID, None),
    }
    for kind, remove in removers.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        header = lines[0].split() if lines else []
        if "uid" not in header or "cuid" not in header:
            continue
        owner, creator = header.index("uid"), header.index("cuid")
        for fields in (line.split() for line in lines[1:]):
            if uid in (int(fields[owner]), int(fields[creator])):
                remove(int(fields[1]))
