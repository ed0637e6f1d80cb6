"""`grade release`: the student bundle – statements, stubs, public checks, the engine, course.toml and a student README.

Nothing that grades reaches it: no solutions/, no tests/ (hidden checks, their given code, mutant
banks), no examples/, bench/ or TA documentation. It installs on its own (`pip install DIR`) and
runs the public checks there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.course import Course

_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


def build_release(*, course: Course, out: Path) -> list[Path]:
    """Write the bundle into `out` (which must not exist); return the files written, relative to it."""
    if out.exists():
        from grader.errors import SubmissionError

        raise SubmissionError(f"{out} already exists; give a new folder for the release")
    root = course.root
    shutil.copytree(root / "exercises", out / "exercises", ignore=_IGNORED)
    shutil.copytree(root / "grader", out / "grader", ignore=_IGNORED)
    shutil.copy(root / "course.toml", out / "course.toml")
    shutil.copy(Path(__file__).with_name("STUDENT_README.md"), out / "README.md")
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    # The student's install is the base: no TA or test extras. The TA's pytest settings point at tests/, which
    # the bundle does not have (`grade run` runs the checks).
    (out / "pyproject.toml").write_text(_base_only(pyproject), encoding="utf-8")
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


def _base_only(pyproject: str) -> str:
    """The course's pyproject.toml with its `[project.optional-dependencies]` and `[tool.*]` tables left out."""
    kept, keep = [], True
    for line in pyproject.splitlines():
        if line.startswith("["):
            keep = not line.startswith(("[project.optional-dependencies]", "[tool."))
        if keep:
            kept.append(line)
    return "\n".join(kept).rstrip() + "\n"
