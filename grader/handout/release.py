"""`grade release`: the student bundle – statements, stubs, public checks, the engine, the course tree's public files
(the given code a student process receives), course.toml and a student README.

Nothing that grades reaches it: no solutions/, no hidden checks or their given code, no mutant banks (the course
tree's other files), no tests/, examples/, bench/ or TA documentation, and no stub that earns a point on the hidden
checks (a reference left in exercises/ refuses the release). It installs on its own (`pip install DIR`) and runs the
public checks there.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path

from grader.course import Course, stub_record
from grader.inside import layout

_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*", "*~", "*.bak", "*.orig", "*.rej")  # caches, editors' and patches' leftovers
# The bundle's record of its stubs as released (`sha256sum` lines): the student edits exercises/ in place, so
# `grade status` can tell an edited stub from an untouched one only against this record.


def build_release(*, course: Course, out: Path) -> list[Path]:
    """Write the bundle into `out` (which must not exist); return the files written, relative to it."""
    if out.exists():
        from grader.errors import SubmissionError

        raise SubmissionError(f"{out} already exists; give a new folder for the release")
    _refuse_worked_stubs(course)
    root = course.root
    shutil.copytree(root / layout.EXERCISES, out / layout.EXERCISES, ignore=_IGNORED)
    shutil.copytree(root / layout.ENGINE, out / layout.ENGINE, ignore=_IGNORED)
    for path in layout.public_files(root):  # the given code a student process receives, and what students may read
        copy = out / path.relative_to(root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy)
    shutil.copy(root / layout.COURSE_FILE, out / layout.COURSE_FILE)
    lines = [f"{sha}  {layout.EXERCISES}/{name}" for name, sha in stub_digests(course).items()]
    (out / layout.STUBS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(Path(__file__).with_name("STUDENT_README.md"), out / "README.md")
    (out / ".gitignore").write_text(f"{layout.WARM_FOLDER}/\n", encoding="utf-8")  # the warm process's socket folder (grader.warm)
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    # The student's install is the base: no TA or test extras. The TA's pytest settings point at tests/, which
    # the bundle does not have (`grade run` runs the checks); setuptools' own settings stay: they install grader/
    # alone, where the bundle's course/ would otherwise be taken for a second package.
    (out / "pyproject.toml").write_text(_base_only(pyproject), encoding="utf-8")
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


def _refuse_worked_stubs(course: Course) -> None:
    """SubmissionError, before anything is written, where a stub as exercises/ holds it earns points on the hidden
    checks: a reference or a worked answer was left in it (a TA who ran `grade run` in the course folder), which the
    bundle would hand every student."""
    from grader.errors import CourseError, IsolationUnavailable, SubmissionError
    from grader.grading.pipeline import Grader

    exercises = [e for e in course.exercises if e.available]
    if not course.has_hidden_checks or not exercises:
        return
    copies: list[str] = []
    try:
        with Grader(course, exercises, "cpu") as grader:
            stubs = grader.grade(course.root / layout.EXERCISES, label=layout.EXERCISES)
    except IsolationUnavailable:  # no stub code may run here (root without a uid of its own): the answer sheets graded,
        with Grader(course, [e for e in exercises if not e.runs_code], "cpu") as grader:  # code files compared
            stubs = grader.grade(course.root / layout.EXERCISES, label=layout.EXERCISES)
        copies = [
            f"{e.id}: {name} is its reference's copy"
            for e in exercises
            for name in e.code_files
            if name.endswith(".py") and _same(e.stub_dir / name, course.root / layout.SOLUTIONS / e.folder / name)
        ]
    worked = copies + [
        f"{e.id}: {e.score:g} of {e.max_score:g} points (from {', '.join(v.name for v in e.checks if v.earned)})" for e in stubs.exercises if e.score
    ]
    if worked:
        raise SubmissionError(
            "not released: stubs in exercises/ hold answers (they earn points on the hidden checks, or copy a reference), "
            f"which the bundle would hand every student – put the stubs back (git checkout -- exercises/): {'; '.join(worked)}"
        )
    if stubs.internal_errors:  # the course's own failure (a hidden check that does not import, say): no stub to put back
        raise CourseError(
            "not released: the stubs could not be graded on the hidden checks, so whether they hold answers is unknown – "
            f"fix the course (grade check names each problem), then release: {'; '.join(stubs.internal_errors)}"
        )


def _same(stub: Path, reference: Path) -> bool:
    found = digest(stub)
    return found is not None and found == digest(reference)


def _base_only(pyproject: str) -> str:
    """The course's pyproject.toml with its `[project.optional-dependencies]` and `[tool.*]` tables left out, but for
    `[tool.setuptools.*]`."""
    kept, keep = [], True
    for line in pyproject.splitlines():
        if line.startswith("["):  # a table or an array of tables ([[tool.mypy.overrides]])
            table = line.lstrip("[")
            keep = table.startswith("tool.setuptools") or not table.startswith(("project.optional-dependencies]", "tool."))
        if keep:
            kept.append(line)
    return "\n".join(kept).rstrip() + "\n"


def digest(path: Path) -> str | None:
    """The SHA-256 of a file's bytes, or None where there is no file."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def stub_digests(course: Course) -> Mapping[str, str | None]:
    """{"<folder>/<file>": SHA-256} of every file a student edits, as the stubs were released: the bundle's record
    where there is one (a student's exercises/ are the stubs edited in place), else the stub folders' files."""
    record = stub_record(course.root)
    if record is not None:
        return record
    return {f"{e.folder}/{n}": digest(e.stub_dir / n) for e in course.exercises for n in e.student_files}
