"""`grade pack`: the hand-in zip – exactly the files students edit, in their exercise folders, as grading reads them.

What grading would refuse (a symbolic link, a file over the size limit, a missing file in an
exercise folder that is there) is refused here first, naming the file, so that nothing is lost at
hand-in. An exercise folder that is absent is left out (it scores 0 as "not submitted").
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from grader.course import Course
from grader.errors import SubmissionError
from grader.submissions import HANDIN_ID_FILE
from grader.submissions.workspace import HANDIN_FILE_BYTES


def pack(*, course: Course, submission: Path, out: Path, student: str | None = None) -> list[str]:
    """Write `out` from the folder `submission` (laid out like exercises/); return the packed names. With `student`,
    the zip's `student.txt` records whose numbers the answers are (a batch lists a hand-in packed as another id)."""
    names, problems = [], []
    for exercise in course.exercises:
        folder = submission / exercise.folder
        if not folder.is_dir():
            continue
        for name in exercise.student_files:
            path, shown = folder / name, f"{exercise.folder}/{name}"
            if path.is_symlink() or folder.is_symlink():
                problems.append(f"{shown} is (or is in) a symbolic link; copy the file itself there")
            elif not path.is_file():
                problems.append(f"{shown} is missing; copy it from the stub and fill it in")
            elif path.stat().st_size > HANDIN_FILE_BYTES:
                problems.append(f"{shown} is {path.stat().st_size} bytes; the limit is {HANDIN_FILE_BYTES} bytes")
            else:
                names.append(shown)
    if problems:
        raise SubmissionError("nothing was packed:\n  " + "\n  ".join(problems))
    if not names:
        raise SubmissionError(f"{submission} holds no exercise folder; run grade pack in your course folder")
    student = (student or "").strip()
    if student and (not student.isprintable() or len(student.encode()) > 200):
        raise SubmissionError("--student: a student id is printable text of at most 200 bytes")
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in names:
            zf.write(submission / name, name)
        if student:
            zf.writestr(HANDIN_ID_FILE, student + "\n")
    temp.replace(out)
    return names
