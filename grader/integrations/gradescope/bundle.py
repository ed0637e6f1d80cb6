"""Gradescope's autograder zip (`grade gradescope export`): setup.sh, run_autograder and the TA's course.

Gradescope runs `setup.sh` once, as root, when it builds the autograder image, `run_autograder` for
each submission (`python -m grader.integrations.gradescope.runner /autograder`), and unpacks the
course into /autograder/source.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from grader.course import Course
from grader.errors import CourseError
from grader.inside import layout

# The course as the autograder needs it: what grades and what installs it; nothing of the developers'
# (bench/, examples/, tests/, .ci, the mutant banks: `layout.for_developers`).
COURSE_PATHS = (*layout.GRADING, "pyproject.toml", "README.md")

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the autograder image.
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv
python=python3
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    # The grader needs Python 3.11 or later; Ubuntu 22.04's python3 is 3.10.
    apt-get install -y --no-install-recommends python3.11 python3.11-venv
    python=python3.11
fi
"$python" -m venv /autograder/venv
/autograder/venv/bin/pip install --no-cache-dir torch==2.13.0 .
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this, as /autograder/run_autograder, for each submission. The runner writes
# /autograder/results/results.json whatever happens; what it prints is shown to instructors only.
exec /autograder/venv/bin/python -m grader.integrations.gradescope.runner /autograder
"""

_SCRIPTS = {"setup.sh": SETUP_SH, "run_autograder": RUN_AUTOGRADER}
# The TA's extensions (`export --extensions`, the CSV `grade batch --extensions` reads), in the course tree: no student
# process sees it. Gradescope's submission_metadata.json holds no student's own due date.
EXTENSIONS = f"{layout.TREE}/gradescope_extensions.csv"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed entry times: the same course gives the same zip


def export(*, course: Course, out: Path, extensions: Path | None = None) -> list[str]:
    """Write the autograder zip `out` (setup.sh, run_autograder, the course, and the `extensions` file, checked
    first: TermFileError naming its line); return its entries."""
    from grader.term.times import extensions as read_extensions

    root = course.root
    extra = {}
    if extensions is not None:
        read_extensions(extensions, [e.id for e in course.exercises])
        extra[EXTENSIONS] = extensions.read_bytes()
    missing = [p for p in COURSE_PATHS if not (root / p).exists()]
    if not layout.has_hidden_checks(root):
        missing.append(f"{layout.TREE}/<id>/{layout.CHECKS}")
    if missing:
        raise CourseError(f"{root} has no {', '.join(missing)}: export the autograder from the TA's course, not from a student bundle")
    found = (p for top in COURSE_PATHS for p in ([root / top] if (root / top).is_file() else (root / top).rglob("*")))
    files = sorted(
        rel
        for rel in (p.relative_to(root).as_posix() for p in found if p.is_file())
        if not _ignored(rel) and rel != EXTENSIONS and not layout.for_developers(Path(rel))
    )  # a file left in the course is not this export's
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.tmp")
    try:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, script in _SCRIPTS.items():
                _add(zf, name, script.encode(), 0o755)
            for rel in files:
                _add(zf, rel, (root / rel).read_bytes(), 0o644)
            for rel, data in extra.items():
                _add(zf, rel, data, 0o644)
        temp.replace(out)
    except BaseException:
        temp.unlink(missing_ok=True)  # it holds the references and hidden checks: never left beside `out`
        raise
    return [*_SCRIPTS, *files, *extra]


def _ignored(rel: str) -> bool:
    return rel.endswith(".pyc") or any(part.startswith(".") or part == "__pycache__" for part in rel.split("/"))


def _add(zf: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with this mode: run_autograder must be executable
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def manual_questions(course: Course) -> list[str]:
    """What to add to the Gradescope assignment's outline beside the autograder: one manually graded question per
    written answer, with its rubric items (Gradescope's own rubric, entered once) – the autograder never scores them."""
    lines = []
    for r in (e.rubric for e in course.exercises if e.rubric is not None):
        lines.append(f"{r.exercise}: {r.title.en} – {r.file}, {r.points:g} points, positive scoring, score between 0 and {r.points:g}")
        lines += [f"    {'+' if i.points > 0 else ''}{i.points:g}  {i.description.en}" for i in r.items]
        lines += [f"    comment: {c.text.en}" for c in r.comments]
    return lines
