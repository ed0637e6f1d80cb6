"""Gradescope: the autograder zip (`grade gradescope export`) and the runner it calls there.

The zip holds `setup.sh` (Gradescope runs it once, as root, when it builds the autograder image),
`run_autograder` (run for each submission) and the TA's course, which Gradescope unpacks into
/autograder/source. The runner, `python -m grader.handout.gradescope ROOT` with ROOT=/autograder,
grades ROOT/submission – a zip from `grade pack`, a folder laid out like exercises/, or the files
uploaded loose – against ROOT/source and always writes ROOT/results/results.json, a failed run
included ("the autograder failed: …", 0 points).

Students see the checks (hidden ones once grades are published) and the top-level `output`, which
never gives the score away. What only instructors should read – the sandbox's protections, the log,
a traceback – goes to stdout (Gradescope shows it to instructors only; `stdout_visibility` says so
again) and to a 0-point test of visibility `hidden`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from grader.course import Course
from grader.errors import CourseError, SubmissionError
from grader.text import Text, one_line, printable

# The course as the autograder needs it: what grades and what installs it; nothing of the developers'
# (bench/, examples/, .ci, the mutant banks).
COURSE_PATHS = ("course.toml", "pyproject.toml", "README.md", "exercises", "solutions", "tests/hidden", "tests/given",
                "grader")

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
exec /autograder/venv/bin/python -m grader.handout.gradescope /autograder
"""

# What results.json says while the run is under way, and after, if Gradescope stopped it.
DID_NOT_FINISH = "it did not finish (Gradescope stops a run at the assignment's time limit); your instructor can see how far it got"

_SCRIPTS = {"setup.sh": SETUP_SH, "run_autograder": RUN_AUTOGRADER}
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed entry times: the same course gives the same zip


class Refused(SubmissionError):
    """The upload cannot be graded as it is; `text` tells the student what to upload instead."""

    def __init__(self, text: Text):
        super().__init__(text.en)
        self.text = text


def export(*, course: Course, out: Path) -> list[str]:
    """Write the autograder zip `out` (setup.sh, run_autograder, the course); return its entries."""
    root = course.root
    missing = [p for p in COURSE_PATHS if not (root / p).exists()]
    if missing:
        raise CourseError(f"{root} has no {', '.join(missing)}: export the autograder from the TA's course, "
                          "not from a student bundle")
    found = (p for top in COURSE_PATHS for p in ([root / top] if (root / top).is_file() else (root / top).rglob("*")))
    files = sorted(rel for rel in (p.relative_to(root).as_posix() for p in found if p.is_file()) if not _ignored(rel))
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, script in _SCRIPTS.items():
            _add(zf, name, script.encode(), 0o755)
        for rel in files:
            _add(zf, rel, (root / rel).read_bytes(), 0o644)
    temp.replace(out)
    return [*_SCRIPTS, *files]


def _ignored(rel: str) -> bool:
    return rel.endswith(".pyc") or any(part.startswith(".") or part == "__pycache__" for part in rel.split("/"))


def _add(zf: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with this mode: run_autograder must be executable
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def run(root: Path) -> dict:
    """Grade root/submission with the course in root/source; write root/results/results.json and return it."""
    from grader.export.gradescope import to_dict
    from grader.results import GradeResult

    started = time.monotonic()
    results = root / "results" / "results.json"
    course = None
    try:
        # Replaced when the run ends: one that Gradescope stops at its time limit still leaves a results.json.
        _write(results, _finished(to_dict(GradeResult.of_failure("submission", [], DID_NOT_FINISH)), started))
        from grader import api

        course = api.course(root=root / "source")
        _lock(course.root)
        doc = _graded(course, root, root / "submission")
    except BaseException as error:  # whatever went wrong, Gradescope gets a results.json
        doc = _failed(course, error)
    _write(results, _finished(doc, started))
    return doc


def _finished(doc: dict, started: float) -> dict:
    doc["execution_time"] = round(time.monotonic() - started, 3)
    doc["stdout_visibility"] = "hidden"  # Gradescope's default, said again: what the runner prints is for instructors
    return doc


def _say(text: str) -> None:
    """A line for instructors; a closed or broken stdout never costs the student a grade."""
    try:
        print(printable(text), flush=True)  # an uploaded file's name may hold bytes stdout cannot encode
    except OSError:
        pass


def _lock(course_root: Path) -> None:
    """Make solutions/ and tests/ the owner's alone (root's, on Gradescope).

    Where Gradescope forbids namespaces, a student process has no private file-system view; under
    an unprivileged uid it then still cannot read what grades it.
    """
    from grader.inside.zygote import secrets_of

    for path in secrets_of(course_root):
        if path.exists():
            os.chmod(path, 0o700)


def _graded(course: Course, root: Path, upload: Path) -> dict:
    from grader import api
    from grader.export.gradescope import to_dict

    with arranged(course, upload) as (submission, notes):
        label = str(submission.relative_to(root)) if submission.is_relative_to(root) else upload.name
        _say(f"grading {label} with the course in {course.root}")
        result = api.grade(course=course, exercises=list(course.exercises), submission=submission, label=label)
    doc = to_dict(result)
    sandbox = _sandbox_report(result.protections, course.root)
    doc["tests"].append({"name": "autograder: sandbox", "score": 0.0, "max_score": 0.0, "status": "passed",
                         "output": sandbox, "visibility": "hidden"})
    absent = [e for e in result.exercises if e.max_score and not e.checks]  # points at stake, no check run: not submitted
    if absent:
        names = ", ".join(f"{e.id} ({course.exercise(e.id).folder}/)" for e in absent)
        notes.append(Text(f"Not in your hand-in, 0 points: {names}.", f"你的提交中没有以下练习（0 分）：{names}。"))
    if result.internal_errors:
        notes.append(Text("Some checks could not run because of a problem in the autograder, not in your work; "
                          "tell your instructor.", "部分检查因自动评分器本身的问题未能运行（不是你的代码的问题）；请告知老师。"))
    summary = Text(f"Graded {len(result.exercises)} exercises. The public checks are shown now; the graded checks "
                   "and your score once grades are published.",
                   f"已评定 {len(result.exercises)} 个练习。公开检查现在可见；计分检查和你的分数在成绩发布后可见。")
    doc["output"] = Text.join("\n", [summary, *notes]).render(course.language)
    _say(f"score {doc['score']:g}/{doc['max_score']:g} in {result.seconds:.1f} s\n{sandbox}")
    for error in result.internal_errors:
        _say(f"grader error: {error}")
    return doc


def _sandbox_report(found: list[dict] | None, course_root: Path) -> str:
    """For instructors: the summary line, then each protection on or off and why."""
    from grader.sandbox.doctor import summary

    lines = [summary(found)]
    lines += [f"{'on ' if p['active'] else 'off'} {p['name']}: {p['note']}" for p in found or []]
    lines.append(f"solutions/ and tests/ of {course_root} are readable by their owner alone (mode 700)")
    return "\n".join(lines)


def _failed(course: Course | None, error: BaseException) -> dict:
    from grader.export.gradescope import to_dict
    from grader.results import GradeResult

    if isinstance(error, Refused) and course:  # the upload's layout: the student can fix it
        message = error.text.render(course.language)
    elif isinstance(error, SubmissionError):  # a zip or folder that cannot be read: 0 points, saying why
        message = f"could not be read: {error}"
    else:
        _say("".join(traceback.format_exception(error)).rstrip())
        message = (f"internal error ({type(error).__name__}: {one_line(str(error), limit=300)}); "
                   "your instructor can see the details")
    _say(f"the autograder failed: {message}")
    failed = GradeResult.of_failure("submission", course.exercises if course else [], message,
                                    language=course.language if course else "en")
    return to_dict(failed)


def _write(path: Path, doc: dict) -> None:
    from grader.export.files import write_atomic
    from grader.export.gradescope import dumps

    write_atomic(path, dumps(doc) + "\n")


@contextlib.contextmanager
def arranged(course: Course, upload: Path):
    """(what to grade, what to tell the student about it) for Gradescope's `upload` folder.

    One .zip (from `grade pack`) is graded as it is, and so is a folder laid out like exercises/
    or one holding a single such folder. A file uploaded loose goes into the one exercise folder
    whose files bear its name (gated.py into ex05_gated_steps/). Refused, saying what to upload:
    nothing uploaded, a zip beside other files, a loose file that several exercises have
    (answers.toml), a file uploaded both loose and in its folder, nothing any exercise asks for.
    """
    from grader.submissions.workspace import looks_like_submission

    entries = _visible(upload)
    if not entries:
        raise Refused(Text("nothing was uploaded; upload the zip that `grade pack` writes",
                           "没有上传任何文件；请上传 `grade pack` 生成的 zip"))
    zips = [p for p in entries if p.is_file() and p.suffix.lower() == ".zip"]
    if zips:
        if len(entries) > 1:
            others = ", ".join(p.name for p in entries if p != zips[0])
            raise Refused(Text(f"{zips[0].name} was uploaded with other files ({others}); upload either the zip "
                               "from `grade pack` alone or your files, not both",
                               f"{zips[0].name} 与其他文件（{others}）一起上传；请只上传 `grade pack` 生成的 zip，"
                               "或只上传你的文件"))
        yield zips[0], []
        return
    if len(entries) == 1 and entries[0].is_dir() and not looks_like_submission(upload, course):
        upload = entries[0]  # the exercises/ folder itself, or a zip's single top folder
        entries = _visible(upload)

    owners: dict[str, list] = {}  # file name -> the exercises whose students edit a file of that name
    for exercise in course.exercises:
        for name in exercise.student_files:
            owners.setdefault(name, []).append(exercise)
    mapped, ignored, problems = [], [], []
    for path in (p for p in entries if not p.is_dir()):
        found = owners.get(path.name, [])
        if not found:
            ignored.append(path.name)
        elif len(found) > 1:
            places = ", ".join(f"{e.folder}/{path.name}" for e in found)
            problems.append(Text(f"{path.name} belongs to {len(found)} exercises; upload it inside its exercise "
                                 f"folder ({places}), or upload the zip from `grade pack`",
                                 f"{path.name} 属于 {len(found)} 个练习；请把它放在所属练习的文件夹中上传（{places}），"
                                 "或上传 `grade pack` 生成的 zip"))
        elif (upload / found[0].folder / path.name).exists():
            problems.append(Text(f"{path.name} was uploaded twice, loose and in {found[0].folder}/; upload it once",
                                 f"{path.name} 上传了两次（单独一份，{found[0].folder}/ 中一份）；请只上传一次"))
        else:
            mapped.append((path, found[0]))
    if problems:
        raise Refused(Text.join("\n", problems))
    if not mapped and not looks_like_submission(upload, course):
        names = ", ".join(p.name for p in entries)
        raise Refused(Text(f"none of the uploaded files ({names}) is one an exercise asks for; upload the zip that "
                           "`grade pack` writes, or your files such as gated.py in their exercise folders",
                           f"上传的文件（{names}）都不是练习要求的文件；请上传 `grade pack` 生成的 zip，"
                           "或把 gated.py 等文件放在所属练习的文件夹中上传"))
    notes = [Text(f"Ignored (no exercise asks for it): {', '.join(ignored)}.",
                  f"已忽略（没有练习要求这些文件）：{', '.join(ignored)}。")] if ignored else []
    if not mapped:
        yield upload, notes
        return
    scratch = Path(tempfile.mkdtemp(prefix="gradescope-upload-"))
    try:
        for exercise in course.exercises:
            if (upload / exercise.folder).is_dir():
                shutil.copytree(upload / exercise.folder, scratch / exercise.folder, symlinks=True)
        for path, exercise in mapped:
            (scratch / exercise.folder).mkdir(exist_ok=True)
            shutil.copy(path, scratch / exercise.folder / path.name, follow_symlinks=False)
            notes.append(Text(f"Read {path.name} as {exercise.folder}/{path.name}.",
                              f"已将 {path.name} 作为 {exercise.folder}/{path.name} 读取。"))
        yield scratch, notes
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _visible(folder: Path) -> list[Path]:
    """The entries of `folder` a student meant to upload (no dot files, no macOS zip debris)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.name != "__MACOSX")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m grader.handout.gradescope ROOT   (ROOT=/autograder on Gradescope)", file=sys.stderr)
        return 2
    run(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
