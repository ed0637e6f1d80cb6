"""A class's scores in an nbgrader gradebook (`grade batch ... --nbgrader-db PATH`), through nbgrader's Gradebook API.

The layout is the one `grade nbgrader export` gives nbgrader: per exercise an assignment and a
notebook named by its id, with one autograder cell `<id>_autograder` worth the exercise's points.
Each student of the journal becomes a student with a submission per graded exercise, and that
cell's grade gets the exercise's score as `auto_score`. An exercise with a written answer also has its manually
graded markdown cell `<id>_interpretation` (a grade and a solution cell, worth the rubric's points): the staff's mark
is its `manual_score`, the rubric items and comments its comment, and an answer still to mark "needs manual grade",
so formgrader lists it; the autograder cell then holds the rest of the final points. formgrader, `nbgrader generate_feedback`
and `nbgrader export` read them from there. nbgrader's update_or_create_* make a rerun update
every row, never add one twice. A student whose grading failed in the grader itself gets no score
and is marked "needs manual grade" (formgrader lists it), so no earlier score stays silently.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.course import Course, Exercise
from grader.integrations.nbgrader.course import grade_cell, written_grade_cell
from grader.results import Status, StudentRow, Written
from grader.text import Text


def write(*, db: Path, course: Course, exercises: list[Exercise], rows: list[StudentRow]) -> int:
    """Write the scores of `rows` (the batch journal's) on `exercises` into the gradebook `db`; return the grades written."""
    from grader.errors import need

    api = need("nbgrader.api", "--nbgrader-db")
    Grade, Gradebook, MissingEntry, Comment = api.Grade, api.Gradebook, api.MissingEntry, api.Comment
    written = 0
    db.parent.mkdir(parents=True, exist_ok=True)
    with _alembic_on_path(), Gradebook(f"sqlite:///{db.resolve()}", course_id=course.id) as gradebook:
        for exercise in exercises:
            gradebook.update_or_create_assignment(exercise.id)
            gradebook.update_or_create_notebook(exercise.id, exercise.id)
            gradebook.update_or_create_grade_cell(grade_cell(exercise), exercise.id, exercise.id, max_score=exercise.checked_points, cell_type="code")
            if exercise.rubric is not None:
                name = written_grade_cell(exercise)
                gradebook.update_or_create_grade_cell(name, exercise.id, exercise.id, max_score=exercise.rubric.points, cell_type="markdown")
                gradebook.update_or_create_solution_cell(name, exercise.id, exercise.id)
        for row in rows:
            failed = row.status is Status.INTERNAL_ERROR
            found = {x.id: x for x in row.result.exercises}
            gradebook.update_or_create_student(row.student)
            for exercise in (e for e in exercises if e.id in found):
                gradebook.update_or_create_submission(exercise.id, row.student)
                done, answer = found[exercise.id], found[exercise.id].written
                manual = answer.earned if answer is not None and answer.counted else 0.0
                auto = max(0.0, round(done.score - manual, 4))  # an override or a late penalty below the mark leaves the code none
                grade = _grade(gradebook, Grade, MissingEntry, grade_cell(exercise), exercise.id, row.student)
                grade.auto_score = None if failed else auto
                grade.needs_manual_grade = failed  # the grader failed: for the TA to grade, never a stale score
                written += 1
                if answer is not None and answer.counted and exercise.rubric is not None:
                    _mark(gradebook, Grade, Comment, MissingEntry, exercise, row.student, answer, round(done.score - auto, 4), failed, course.language)
                    written += 1
            gradebook.db.commit()
    return written


def _grade(gradebook: Any, Grade: Any, MissingEntry: Any, cell: str, exercise: str, student: str) -> Any:
    """The student's grade of one cell, made where the submission predates the cell (an older assignment layout)."""
    try:
        return gradebook.find_grade(cell, exercise, exercise, student)
    except MissingEntry:
        notebook = gradebook.find_submission_notebook(exercise, exercise, student)
        grade = Grade(cell_id=gradebook.find_grade_cell(cell, exercise, exercise).id, notebook=notebook)
        gradebook.db.add(grade)
        return grade


def _mark(
    gradebook: Any, Grade: Any, Comment: Any, MissingEntry: Any, exercise: Exercise, student: str, answer: Written, points: float, failed: bool, language: str
) -> None:
    """The written answer's manual grade: the staff's points and, as its comment, the items and comments they chose;
    an answer still to mark (or a grader failure) "needs manual grade", with no score; no answer at all scores 0."""
    cell = written_grade_cell(exercise)
    grade = _grade(gradebook, Grade, MissingEntry, cell, exercise.id, student)
    grade.manual_score = None if failed or answer.state == "to mark" else points  # no answer: 0, nothing to mark
    grade.needs_manual_grade = failed or answer.state == "to mark"
    try:
        comment = gradebook.find_comment(cell, exercise.id, exercise.id, student)
    except MissingEntry:
        notebook = gradebook.find_submission_notebook(exercise.id, exercise.id, student)
        comment = Comment(cell_id=gradebook.find_solution_cell(cell, exercise.id, exercise.id).id, notebook=notebook)
        gradebook.db.add(comment)
    comment.manual_comment = Text.join("\n", answer.comments).render(language) if answer.marked else None


@contextlib.contextmanager
def _alembic_on_path() -> Iterator[None]:
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
