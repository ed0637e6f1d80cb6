"""No channel between two live student processes, and no process given code that answers another exercise (issue 18).

Two student processes of one zygote run side by side, as one student's exercises do while they are
graded (and other workers' students do beside them). Each test lets one process try to signal
through something both can reach – a lock, a futex or a file-access watch on a file every view
shows read-only – and asks the other what arrived: nothing may.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from grader.failures import StudentError
from grader.inside import given, layout
from grader.inside.zygote import probe
from grader.sandbox.host import Limits, Sandbox

PROTECTIONS = {p.name: p.active for p in probe(ROOT)}

# Run in both student processes: each function does one side of one attempt and says what it saw.
RELAY = r'''
import ctypes, errno, fcntl, os, platform, signal, struct, sysconfig, threading, time

SHARED = os.path.join(sysconfig.get_paths()["stdlib"], "colorsys.py")  # read-only in every view, the same inode
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
SYS = {"x86_64": {"fcntl": 72, "futex": 202, "futex_waitv": 449, "futex_wait": 455},
       "aarch64": {"fcntl": 25, "futex": 98, "futex_waitv": 449, "futex_wait": 455}}[platform.machine()]
HIGH = 1 << 32  # set above the 32 bits the kernel reads of an int argument: a filter must not be fooled by it
kept, seen = [], {"futex": [], "signals": 0}


def _flock(kind, start):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


def _raw_fcntl(fd, cmd, kind, start):
    buf = ctypes.create_string_buffer(_flock(kind, start), 32)
    if libc.syscall(SYS["fcntl"], fd, ctypes.c_long(cmd), buf) == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return struct.unpack("hhqqi4x", buf.raw)[0]


def _open():
    fd = os.open(SHARED, os.O_RDONLY)
    kept.append(fd)
    return fd


def _attempt(fn):
    try:
        return fn()
    except OSError as e:
        return f"refused: {errno.errorcode.get(e.errno, e.errno)}"


# -- locks: one process locks byte 7 of the shared file; the other asks who holds it ----------------

LOCKS = {
    "posix": (fcntl.F_SETLK, fcntl.F_GETLK),
    "posix, high bits in cmd": (HIGH | fcntl.F_SETLK, HIGH | fcntl.F_GETLK),
    "open file description": (37, 36),  # F_OFD_SETLK, F_OFD_GETLK
    "open file description, high bits in cmd": (HIGH | 37, HIGH | 36),
}


def lock(how):
    if how == "flock":
        return _attempt(lambda: fcntl.flock(_open(), fcntl.LOCK_SH) or "held")
    return _attempt(lambda: _raw_fcntl(_open(), LOCKS[how][0], fcntl.F_RDLCK, 7) and "held")


def probe_lock(how):
    """True if another process's lock is seen."""
    if how == "flock":
        try:
            fcntl.flock(_open(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        except OSError as e:
            return f"refused: {errno.errorcode.get(e.errno, e.errno)}"
    return _attempt(lambda: _raw_fcntl(_open(), LOCKS[how][1], fcntl.F_WRLCK, 7) != fcntl.F_UNLCK)


# -- futexes: one process waits on a word of the shared file's page; the other wakes that word -----

def _word():
    addr = libc.mmap(None, 4096, 1, 2, _open(), 0)  # PROT_READ, MAP_PRIVATE: a page-cache page every process shares
    return addr, ctypes.c_uint32.from_address(addr).value


def _wait(how, addr, value):
    if how == "futex":
        args = (SYS["futex"], ctypes.c_void_p(addr), 0, value, struct.pack("qq", 10, 0), None, 0)  # FUTEX_WAIT, not private
    elif how == "futex_wait":  # futex2: flags FUTEX2_SIZE_U32 without FUTEX2_PRIVATE, no time limit
        args = (SYS["futex_wait"], ctypes.c_void_p(addr), ctypes.c_ulong(value), ctypes.c_ulong(0xFFFFFFFF), ctypes.c_ulong(2), None, 1)
    else:
        waiter = struct.pack("QQII", value, addr, 2, 0)  # struct futex_waitv: val, uaddr, flags (U32), __reserved
        args = (SYS["futex_waitv"], waiter, 1, 0, None, 0)
    result = libc.syscall(*args)
    seen["futex"].append("woken" if result == 0 else errno.errorcode.get(ctypes.get_errno(), "?"))


def wait(how):
    addr, value = _word()
    threading.Thread(target=_wait, args=(how, addr, value), daemon=True).start()
    time.sleep(0.3)  # into the system call before the other process wakes the word
    return seen["futex"]


def waited():
    return seen["futex"]


def wake():
    """How many waiters another process had queued on that word."""
    return libc.syscall(SYS["futex"], ctypes.c_void_p(_word()[0]), 1, 1, None, None, 0)  # FUTEX_WAKE, not private


# -- watches: one process watches the shared file (or its folder); the other reads it ---------------

def watch(how):
    def inotify():
        fd = libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0 or libc.inotify_add_watch(fd, SHARED.encode(), 0x1 | 0x20) < 0:  # IN_ACCESS | IN_OPEN
            raise OSError(ctypes.get_errno(), "inotify")
        kept.append(("inotify", fd))

    def fanotify():
        fd = libc.fanotify_init(0x200 | 0x2, os.O_RDONLY)  # FAN_REPORT_FID | FAN_NONBLOCK
        if fd < 0 or libc.fanotify_mark(fd, 1, ctypes.c_uint64(0x1 | 0x20), -100, SHARED.encode()) < 0:
            raise OSError(ctypes.get_errno(), "fanotify")  # FAN_MARK_ADD, FAN_ACCESS | FAN_OPEN, AT_FDCWD
        kept.append(("fanotify", fd))

    def dnotify():
        signal.signal(signal.SIGIO, lambda *_: seen.__setitem__("signals", seen["signals"] + 1))
        folder = os.open(os.path.dirname(SHARED), os.O_RDONLY)
        kept.append(folder)
        fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)

    return _attempt(lambda: {"inotify": inotify, "fanotify": fanotify, "dnotify": dnotify}[how]() or "watching")


def io_uring():
    """The outcome of setting up an io_uring, whose operations (futex waits among them) no seccomp filter sees."""
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    fd = libc.syscall(425, 4, params)  # io_uring_setup, the same number on every architecture
    return "set up" if fd >= 0 else f"refused: {errno.errorcode.get(ctypes.get_errno(), '?')}"


def touch():
    with open(SHARED, "rb") as f:
        f.read()


def message_queue():
    """The outcome of opening a POSIX message queue (without namespaces, one every uid of the machine can open)."""
    libc.mq_open.restype = ctypes.c_int
    fd = libc.mq_open(b"/grade-channel-test", os.O_CREAT | os.O_RDWR, 0o666, None)
    return "opened" if fd >= 0 else f"refused: {errno.errorcode.get(ctypes.get_errno(), '?')}"


def device_times():
    """What changing /dev/null's times (the same inode in every view) does; writing to it must still work."""
    with open("/dev/null", "w") as f:
        f.write("still a device")
    try:
        os.utime("/dev/null")
    except OSError as e:
        return f"refused: {errno.errorcode.get(e.errno, '?')}"
    return "changed"


def events():
    """What the watches saw: events read, signals received."""
    found = [seen["signals"]]
    for entry in kept:
        if isinstance(entry, tuple):
            try:
                found.append(len(os.read(entry[1], 4096)))
            except BlockingIOError:
                found.append(0)
    return found
'''
CHANNELS = ["posix", "posix, high bits in cmd", "open file description", "open file description, high bits in cmd", "flock"]


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=10.0, memory_mib=1024))
    yield box
    box.close()


@pytest.fixture
def pair(sandbox, tmp_path):
    """Two live student processes of one zygote, each importing `relay`; call(i, fn, *args) runs relay.fn in process i."""
    (tmp_path / "relay.py").write_text(RELAY)
    processes = [sandbox.open(tmp_path) for _ in range(2)]

    def call(i, fn, *args):
        processes[i].begin_check()
        return processes[i].call("relay", fn, list(args), {})["value"]

    yield call
    for process in processes:
        process.close()


@pytest.mark.parametrize("how", CHANNELS)
@pytest.mark.slow
def test_no_lock_reaches_another_process(pair, how):
    """Does a lock one process takes on a file both can see stay unseen by the other (POSIX, OFD, flock)?"""
    pair(0, "lock", how)
    assert pair(1, "probe_lock", how) is not True


@pytest.mark.parametrize("how", ["futex", "futex_wait", "futex_waitv"])
@pytest.mark.slow
def test_no_futex_wait_is_woken_from_another_process(pair, how):
    """Can a process wake, or count, a waiter another process queued on a word of a shared file's page? (It must not.)"""
    pair(0, "wait", how)
    assert pair(1, "wake") <= 0
    assert "woken" not in pair(0, "waited")


@pytest.mark.parametrize("how", ["inotify", "fanotify", "dnotify"])
def test_no_watch_sees_another_process_read_a_shared_file(pair, how):
    """Does a watch on a shared file (inotify, fanotify, a folder's F_NOTIFY) see nothing of another process reading it?"""
    pair(0, "watch", how)
    pair(1, "touch")
    assert not any(pair(0, "events")), how


def test_io_uring_is_refused(pair):
    """Is io_uring refused (its futex waits on a shared page would bypass the filter on the futex system call)?"""
    assert pair(0, "io_uring") == "refused: EPERM"


def test_posix_message_queues_are_refused(pair):
    """Is a POSIX message queue refused (without namespaces it outlives its process and nothing lists it)?"""
    assert pair(0, "message_queue") == "refused: EPERM"


@pytest.mark.skipif(not PROTECTIONS["private file-system view"], reason="the view's device binds need full isolation")
def test_the_shared_devices_take_no_change_of_their_times(pair):
    """Are /dev/null's times (its inode is every view's) unchangeable from a student process, the device still usable?"""
    assert pair(0, "device_times") == "refused: EROFS"


@pytest.mark.skipif(not PROTECTIONS["no channel between student processes"], reason="no seccomp filter here (see `grade doctor`)")
def test_the_filter_is_built_in_the_zygote_and_only_loaded_by_each_process(sandbox, tmp_path):
    """Does a student process load the seccomp filter the zygote built once, rather than building its own?"""
    (tmp_path / "built.py").write_text(
        "import sys\ndef counts():\n    info = sys.modules['grader.inside.isolation'].channel_filter.cache_info()\n    return [info.misses, info.hits]\n"
    )
    process = sandbox.open(tmp_path)
    try:
        process.begin_check()
        assert process.call("built", "counts", [], {})["value"] == [1, 1]  # built in the zygote, loaded here
    finally:
        process.close()


def test_ex07s_graded_step_computes_nothing_in_ex05s_process(sandbox, tmp_path):
    """Relayed to ex05's process, would the step ex07's graded process is given compute ex05's answer? (It must not.)"""
    (tmp_path / "relayed.py").write_text(
        textwrap.dedent("""
        import torch
        from grader.inside.given import BUILDERS

        def run():
            x, h = torch.zeros(1, 3), torch.zeros(1, 4)
            lstm = {**{f"W_{g}": torch.zeros(4, 7) for g in "ifoc"}, **{f"b_{g}": torch.zeros(4) for g in "ifoc"}}
            gru = {**{f"{m}_{g}": torch.zeros(4, 3 if m == "W" else 4) for m in "WU" for g in "zrh"},
                   **{f"b_{g}": torch.zeros(4) for g in "zrh"}}
            BUILDERS["lstm_step"](device="cpu")(x=x, h=h, c=h, **lstm)
            BUILDERS["gru_step"](device="cpu")(x=x, h=h, **gru)
    """)
    )
    files = layout.given(ROOT, "ex05", hidden=True) + layout.given(ROOT, "ex07", hidden=True)
    process = sandbox.open(tmp_path, given=files)
    try:
        process.begin_check()
        with pytest.raises(StudentError, match="library recurrent cells are unavailable"):
            process.call("relayed", "run", [], {})
    finally:
        process.close()


def test_no_given_code_loads_the_solutions():
    """Does any exercise's given course code (public or the hidden checks') read solutions/? (None may.)"""
    sources = [*Path(given.__file__).parent.glob("*.py"), *(p for d in (ROOT / layout.TREE).iterdir() for p in layout.given(ROOT, d.name, hidden=True))]
    assert sources and not [p.name for p in sources if "solutions" in p.read_text(encoding="utf-8")]
