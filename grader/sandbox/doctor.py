"""`grade doctor`: which protections a check's student process gets on this machine, and why any is missing."""

from __future__ import annotations

import json
import subprocess
import sys

from pathlib import Path

from grader.errors import SandboxError
from grader.sandbox.host import zygote_env


def protections(course_root: Path) -> list[dict]:
    """Run the student side's own probe (the same setup a check gets, without importing torch)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "grader.inside.zygote", "--probe", str(course_root.resolve())],
            capture_output=True, text=True, env=zygote_env(), stdin=subprocess.DEVNULL, timeout=60,
        )
        if done.returncode != 0:
            raise SandboxError(f"the sandbox probe failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        raise SandboxError(f"the sandbox probe gave no answer: {e}") from None


def summary(found: list[dict] | None) -> str:
    """One line for `grade run -v`; None when no student process was needed."""
    if found is None:
        return "sandbox: not started (the exercises graded run no student code)"
    active = [p["name"] for p in found if p["active"]]
    missing = [p["name"] for p in found if not p["active"]]
    return f"sandbox: {', '.join(active)}" + (f"; missing: {', '.join(missing)}" if missing else " (all protections)")
