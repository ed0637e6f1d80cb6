"""One CPU per warm grader of a batch: what a spinning student may take is its own grader's CPU.

`CpuSlots(n)`, made by `grade batch` before its warm graders start, gives each its CPU (in turn, when there are more
graders than CPUs) and, as root with a cgroup v1 cpuset hierarchy, a cpuset cgroup of that one CPU; each warm grader
calls `pin` first, before it starts its zygote, so that the zygote and every student process inherit them. A process
may widen its own affinity (`sched_setaffinity` needs no privilege), never its cpuset, so a student who spins in many
threads on purpose still cannot take another grader's CPU. Without cpusets (not root, cgroup v2 only, not Linux) the
pin holds for code that spins by mistake; the time limit bounds the rest, as in a single `grade run`.

`close()` (in the batch process, after its warm graders are gone) ends the cpusets and what is left in them.

On Dask, the warm graders of the workers of one machine each claim a CPU of their own (`CpuClaim`: a lock file per CPU,
held while the warm grader lives) and pin themselves to it, so that a student who spins takes their own warm grader's
CPU, not the other workers'; affinity only (a Dask worker is no root of cpusets), as where a pool has no cpusets.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
import tempfile
from pathlib import Path

from grader.inside.cgroups import end_cgroup, remove_stale_cgroups

_CPUSET = Path("/sys/fs/cgroup/cpuset")


class CpuSlots:
    def __init__(self, workers: int):
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.cpus = [cpus[n % len(cpus)] for n in range(workers)] if cpus else []
        parent = _own_cpuset()
        if parent is not None:
            _remove_stale(parent)
        self.groups = [_cpuset_of(parent, cpu, f"grade-batch-{os.getpid()}-{n}") if parent else None for n, cpu in enumerate(self.cpus)]

    def slot(self, number: int) -> tuple[int | None, Path | None]:
        """The CPU and cpuset (each None where there is none) of warm grader `number`."""
        if number >= len(self.cpus):
            return None, None
        return self.cpus[number], self.groups[number]

    def close(self) -> None:
        """End the cpusets once the warm graders have ended: whatever still runs in them is killed."""
        for group in self.groups:
            if group is not None:
                end_cgroup(group)


def pin(cpu: int | None, cpuset: Path | None) -> None:
    """In a warm grader, before it starts anything: its CPU (and cpuset) for itself and all it starts."""
    if cpuset is not None:
        try:
            (cpuset / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:  # gone (removed from outside): the affinity alone, as where there are no cpusets
            pass
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


class CpuClaim:
    """A CPU of this machine that no other live claim holds (`cpu`, None when every CPU is claimed or claims cannot be
    made here): a lock file per CPU in a folder of this user's alone in the temporary folder, held until `close()` or
    the claiming process's end."""

    def __init__(self) -> None:
        self.cpu: int | None = None
        self._held: int | None = None
        folder = Path(tempfile.gettempdir()) / f"grade-cpus-{os.getuid()}"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            found = os.lstat(folder)
            if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o077:
                return  # not a folder of this user's alone: no claim, no pin
            for cpu in sorted(os.sched_getaffinity(0)):
                fd = os.open(folder / str(cpu), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                self.cpu, self._held = cpu, fd
                return
        except OSError:
            return

    def close(self) -> None:
        if self._held is not None:
            os.close(self._held)
            self._held = None


def _own_cpuset() -> Path | None:
    """This process's cgroup v1 cpuset folder, where it may make cpusets (root on Linux); None otherwise."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mine = next(line.split(":", 2)[2] for line in lines if "cpuset" in line.split(":", 2)[1].split(","))
    except (OSError, StopIteration):
        return None
    return _CPUSET / mine.lstrip("/")


def _remove_stale(parent: Path) -> None:
    """End what a batch killed with -9 left in its cpusets (a student process can outlive its zygote), and remove them."""
    remove_stale_cgroups(parent, "grade-batch-*-*", owner=lambda name: name.split("-")[2])


def _cpuset_of(parent: Path, cpu: int, name: str) -> Path | None:
    """A fresh cpuset holding `cpu` alone in `parent`; None where it cannot be made."""
    group = parent / name
    try:
        group.mkdir()
        (group / "cpuset.cpus").write_text(str(cpu))
        (group / "cpuset.mems").write_text((parent / "cpuset.mems").read_text().strip())
        return group
    except OSError:
        try:
            group.rmdir()
        except OSError:
            pass
        return None
