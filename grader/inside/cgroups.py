"""Control groups: the memory cage of student processes, and ending a cgroup with everything in it.

Used by the zygote (a memory cgroup per student process, inside one of its own) and, from outside
the boundary, by batch workers' cpusets (`grader.batch.cpus`), which end cgroups the same way.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path


class MemoryCage:
    """The strongest memory limit this machine offers a student process, chosen once in the zygote.

    RLIMIT_DATA misses shared anonymous mappings (`mmap.mmap(-1, n)`) and tmpfs files. A memory
    cgroup of its own (v2 `memory.max`, or v1 `memory.limit_in_bytes`) counts every page the process
    and its children touch; where the grader may not create one, RLIMIT_AS on top of the address
    space the fork inherited counts every mapping (not on CUDA, whose driver reserves terabytes of it).
    """

    def __init__(self, parent: Path | None, version: int, note: str, *, zygote_own: bool = False):
        self.parent, self.version, self.note = parent, version, note
        self.zygote_own = zygote_own  # `parent` is the zygote's own cgroup (`for_zygote`), limited with its children

    @property
    def complete(self) -> bool:
        return self.parent is not None

    @classmethod
    def here(cls) -> MemoryCage:
        if sys.platform != "linux" or os.geteuid() != 0:
            return cls(None, 0, "RLIMIT_AS over the inherited address space (no cgroup without root); not with CUDA")
        for parent, version in _cgroup_candidates():
            trial = parent / f"grade-trial-{os.getpid()}"
            try:
                trial.mkdir()
                (trial / ("memory.max" if version == 2 else "memory.limit_in_bytes")).write_text(str(64 << 20))
                trial.rmdir()
                return cls(
                    parent,
                    version,
                    f"cgroup v{version} memory limit per student process, and for all of one student's processes together (every kind of memory)",
                )
            except OSError:
                try:
                    trial.rmdir()
                except OSError:
                    pass
        return cls(None, 0, "RLIMIT_AS over the inherited address space (no writable memory cgroup here); not with CUDA")

    def for_zygote(self) -> MemoryCage:
        """The cage of this zygote's student processes: their cgroups inside one of its own, `grade-<its pid>`,
        whose limit bounds them all together – one student's processes side by side – as each one's bounds it alone."""
        if self.parent is None:
            return self
        own = self.parent / f"grade-{os.getpid()}"
        own.mkdir()
        if self.version == 2:
            (own / "cgroup.subtree_control").write_text("+memory")
        return MemoryCage(own, self.version, self.note, zygote_own=True)

    def create(self, name: str, limit_bytes: int) -> Path | None:
        """A fresh cgroup limited to `limit_bytes` (in the zygote, before the fork), or None without cgroups;
        the zygote's own cgroup gets the same limit for all its student processes together."""
        if self.parent is None:
            return None
        if self.zygote_own:  # never the cgroup the grader itself runs in
            _limit(self.parent, limit_bytes, self.version)
        group = self.parent / name
        group.mkdir()
        _limit(group, limit_bytes, self.version)
        return group

    def close(self) -> None:
        """Remove the zygote's own cgroup (its student processes' are removed as each is reaped)."""
        if self.zygote_own and self.parent is not None:
            end_cgroup(self.parent)

    @staticmethod
    def enter(group: Path | None) -> None:
        """Join `group` (in the student process, while still root)."""
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    @staticmethod
    def remove(group: Path | None) -> None:
        """Delete a cgroup whose processes have all been reaped."""
        if group is not None:
            try:
                group.rmdir()
            except OSError:
                pass

    def remove_stale(self) -> None:
        """End what a zygote killed with -9 left in its student processes' cgroups (in `grade-<its pid>`), and remove them.

        A student process can clear its parent-death signal and live on after the zygote; it cannot leave its cgroup.
        """
        if self.parent is not None:
            remove_stale_cgroups(self.parent, "grade-*", owner=lambda name: name.split("-")[1])


def _limit(group: Path, limit_bytes: int, version: int) -> None:
    if version == 2:
        (group / "memory.max").write_text(str(limit_bytes))
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0")
    else:
        (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
        swap = group / "memory.memsw.limit_in_bytes"
        if swap.exists():
            try:
                swap.write_text(str(limit_bytes))
            except OSError:
                pass


def remove_stale_cgroups(parent: Path, pattern: str, *, owner: Callable[[str], str]) -> None:
    """End the cgroups of `parent` matching `pattern` whose owner pid (`owner(name)`) no longer runs."""
    for group in parent.glob(pattern):
        pid = owner(group.name)
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            end_cgroup(group)


def end_cgroup(group: Path) -> None:
    """Kill every process in `group` and in the cgroups inside it, and remove them, the innermost first.

    Another process may be ending the same cgroup meanwhile – the zygotes of a pool's warm graders start together, and
    each removes what a killed batch left – so a cgroup already gone is no error."""
    try:
        inner = sorted((p for p in group.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts))
    except FileNotFoundError:  # the group, or a cgroup inside it, removed by the other as this one looked
        inner = []
    for folder in [*inner, group]:
        for _ in range(50):
            try:
                tasks = [int(t) for t in (folder / "cgroup.procs").read_text().split()]
            except OSError:  # gone already
                break
            for task in tasks:
                try:
                    os.kill(task, signal.SIGKILL)
                except OSError:
                    pass
            try:
                folder.rmdir()
                break
            except OSError:  # busy until the killed processes have exited
                time.sleep(0.02)


def _cgroup_candidates() -> list[tuple[Path, int]]:
    """Where this process's own memory cgroup lives: the v2 path if it has the memory controller, the v1 path."""
    found: list[tuple[Path, int]] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0":
            for mount in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
                folder = mount / path.lstrip("/")
                try:
                    if "memory" in (folder / "cgroup.controllers").read_text().split():
                        found.append((folder, 2))
                except OSError:
                    pass
        elif "memory" in controllers.split(","):
            found.append((Path("/sys/fs/cgroup/memory") / path.lstrip("/"), 1))
    return found
