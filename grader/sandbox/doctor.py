"""`grade doctor`: which protections a check's student process gets on this machine, and why any is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.errors import SandboxError
from grader.inside.isolation import PRIVATE_VIEW, Protection
from grader.sandbox.host import active, zygote_env

COMMAND_LINES = "grader's command lines hidden"


def protections(course_root: Path) -> list[Protection]:
    """The student side's own probe (the same setup a check gets, without importing torch), and whether a student
    process can read the grader's command lines."""
    found = _probe(course_root)
    return [*found, _command_lines(found)]


def _command_lines(found: list[Protection]) -> Protection:
    """Whether a student process can read the grader's command lines (the class's and OUT's paths) in /proc."""
    if active(found, PRIVATE_VIEW):
        return Protection(COMMAND_LINES, True, "a /proc of the student process's own PID namespace")
    if _hidepid():
        return Protection(COMMAND_LINES, True, "/proc is mounted with hidepid: other users' processes are hidden")
    return Protection(
        COMMAND_LINES,
        False,
        "every user can read the grader's command line in /proc, so student code learns where the class and "
        "OUT are (the batch refuses them unless root's alone); mount /proc with hidepid=invisible to hide it",
    )


def _hidepid() -> bool:
    """Whether /proc is mounted with hidepid (1, 2, noaccess or invisible): other users' command lines unreadable."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    for line in mounts:
        fields = line.split()
        if len(fields) > 3 and fields[1] == "/proc" and fields[2] == "proc":
            options = dict(o.partition("=")[::2] for o in fields[3].split(","))
            return options.get("hidepid", "0") not in ("0", "off")
    return False


def _probe(course_root: Path) -> list[Protection]:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "grader.inside.zygote", "--probe", str(course_root.resolve())],
            capture_output=True,
            text=True,
            env=zygote_env(),
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        if done.returncode != 0:
            raise SandboxError(f"the sandbox probe failed:\n{done.stderr[-3000:]}")
        return [Protection(**p) for p in json.loads(done.stdout)]
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        raise SandboxError(f"the sandbox probe gave no answer: {e}") from None


def summary(found: Sequence[Mapping[str, Any]] | None) -> str:
    """One line for `grade run -v` from a result's protections (results.json's form, `GradeResult.protections`, which
    the Gradescope runner passes too); None when no student process was needed."""
    if found is None:
        return "sandbox: not started (the exercises graded run no student code)"
    active = [p["name"] for p in found if p["active"]]
    missing = [p["name"] for p in found if not p["active"]]
    return f"sandbox: {', '.join(active)}" + (f"; missing: {', '.join(missing)}" if missing else " (all protections)")
