"""A class's scores in an nbgrader gradebook (`grade batch ... --nbgrader-db PATH`), through nbgrader's Gradebook API.

The layout is the one `grade nbgrader export` gives nbgrader: per exercise an assignment and a
notebook named by its id, with one autograder cell `<id>_autograder` worth the exercise's points.
Each student of the journal becomes a student with a submission per graded exercise, and that
cell's grade gets the exercise's score as `auto_score`; formgrader, `nbgrader generate_feedback`
and `nbgrader export` read them from there. nbgrader's update_or_create_* make a rerun update
every row, never add one twice. A student whose grading failed in the grader itself gets no score
and is marked "needs manual grade" (formgrader lists it), so no earlier score stays silently.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

from grader.course import Course, Exercise
from grader.integrations.nbgrader.course import grade_cell
from grader.results import Status, StudentRow


def write(*, db: Path, course: Course, exercises: list[Exercise], rows: list[StudentRow]) -> int:
    """Write the scores of `rows` (the batch journal's) on `exercises` into the gradebook `db`; return the grades written."""
    from grader.errors import need

    api = need("nbgrader.api", "--nbgrader-db")
    Grade, Gradebook, MissingEntry = api.Grade, api.Gradebook, api.MissingEntry
    written = 0
    db.parent.mkdir(parents=True, exist_ok=True)
    with _alembic_on_path(), Gradebook(f"sqlite:///{db.resolve()}", course_id=course.id) as gradebook:
        for exercise in exercises:
            gradebook.update_or_create_assignment(exercise.id)
            gradebook.update_or_create_notebook(exercise.id, exercise.id)
            gradebook.update_or_create_grade_cell(grade_cell(exercise), exercise.id, exercise.id, max_score=exercise.points, cell_type="code")
        for row in rows:
            failed = row.status is Status.INTERNAL_ERROR
            scores = {x.id: round(x.score, 4) for x in row.result.exercises}
            gradebook.update_or_create_student(row.student)
            for exercise in (e for e in exercises if e.id in scores):
                gradebook.update_or_create_submission(exercise.id, row.student)
                args = (grade_cell(exercise), exercise.id, exercise.id, row.student)
                try:
                    grade = gradebook.find_grade(*args)
                except MissingEntry:  # a submission made before the cell existed (an older assignment layout)
                    cell = gradebook.find_grade_cell(*args[:3])
                    notebook = gradebook.find_submission_notebook(*args[1:])
                    grade = Grade(cell_id=cell.id, notebook=notebook)
                    gradebook.db.add(grade)
                grade.auto_score = None if failed else float(scores[exercise.id])
                grade.needs_manual_grade = failed  # the grader failed: for the TA to grade, never a stale score
                written += 1
            gradebook.db.commit()
    return written


@contextlib.contextmanager
def _alembic_on_path():
    """nbgrader runs `alembic` when it creates a gradebook: the one installed beside this interpreter, if PATH lacks one."""
    if shutil.which("alembic"):
        yield
        return
    before = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), before])
    try:
        yield
    finally:
        os.environ["PATH"] = before
