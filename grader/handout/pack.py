"""`grade pack`: the hand-in zip – exactly the files students edit, in their exercise folders, as grading reads them; and
an exercise's notebook where grading reads one (`<folder>/<id>.ipynb`, `<id>/<id>.ipynb`, `<id>.ipynb`), from which it
then grades that exercise.

What grading would refuse (a symbolic link, a file over the size limit, two notebooks for one exercise, a missing
file in an exercise folder that is there and no notebook) is refused here first, naming the file, so that nothing is lost at
hand-in. An exercise folder that is absent is left out (it scores 0 as "not submitted").
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from grader.course import Course
from grader.errors import SubmissionError
from grader.submissions import HANDIN_ID_FILE, notebook
from grader.submissions.notebook import NOTEBOOK_BYTES
from grader.submissions.workspace import HANDIN_FILE_BYTES


def pack(*, course: Course, submission: Path, out: Path, student: str | None = None) -> list[str]:
    """Write `out` from the folder `submission` (laid out like exercises/); return the packed names. With `student`,
    the zip's `student.txt` records whose numbers the answers are (a batch lists a hand-in packed as another id)."""
    names, problems = [], []
    for exercise in course.exercises:
        notebooks = [p.relative_to(submission).as_posix() for p in notebook.find(submission, exercise)]
        if len(notebooks) > 1:
            problems.append(f"{' and '.join(notebooks)} are both notebooks for {exercise.id}; hand in one")
        wanted = [(name, NOTEBOOK_BYTES) for name in notebooks]  # a notebook is the exercise's work where there is one
        if (submission / exercise.folder).is_dir():
            wanted += [(f"{exercise.folder}/{name}", HANDIN_FILE_BYTES) for name in exercise.student_files]
        for shown, limit in wanted:
            path = submission / shown
            if path.is_symlink() or path.parent.is_symlink():
                problems.append(f"{shown} is (or is in) a symbolic link; copy the file itself there")
            elif not path.is_file():
                if not notebooks:  # else grading builds the files from the notebook
                    problems.append(f"{shown} is missing; copy it from the stub and fill it in")
            elif path.stat().st_size > limit:
                problems.append(f"{shown} is {path.stat().st_size} bytes; the limit is {limit} bytes")
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
    try:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in names:
                zf.write(submission / name, name)
            if student:
                zf.writestr(HANDIN_ID_FILE, student + "\n")
        temp.replace(out)
    except BaseException:
        temp.unlink(missing_ok=True)  # a zip half written, or one that could not take out's place (a folder there)
        raise
    return names
