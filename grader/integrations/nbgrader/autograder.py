"""What an nbgrader autograder cell runs: the exercise's checks on its notebook, in a fresh process; the points earned.

nbgrader takes the cell's value as its partial credit; the feedback goes to the cell's stdout, never
its stderr (which nbgrader would score 0). The course is the one GRADER_COURSE_ROOT names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from grader.errors import CourseError, GraderError
from grader.integrations.nbgrader.course import COURSE_ROOT


class AutogradeError(GraderError):
    """`grade run` could not grade the notebook: the cell fails (0 points) and says why."""


def autograde(exercise_id: str) -> float:
    """What an autograder cell runs: the exercise's checks on the notebook in the current folder; the points earned.

    The grading runs in a fresh process (`python -m grader.integrations.nbgrader.autograder`, as `grade run` grades: the
    sandbox's own output never reaches the cell's stderr, which nbgrader would score 0), which sends back
    the result model; its feedback is printed to stdout. A run the grader could not complete raises
    AutogradeError, so the cell fails and says why.
    """
    from grader.export.feedback import to_markdown
    from grader.results import GradeResult

    command = [sys.executable, "-m", "grader.integrations.nbgrader.autograder", exercise_id, str(Path.cwd())]
    done = subprocess.run(command, cwd=os.environ.get(COURSE_ROOT) or None, capture_output=True, text=True, check=False)
    try:
        result = GradeResult.from_json(done.stdout)
    except (ValueError, KeyError, TypeError):
        raise AutogradeError(f"grading {exercise_id} sent back no result (exit {done.returncode}): {done.stderr.strip()[-2000:]}") from None
    if result.internal_errors:
        raise AutogradeError(f"grading {exercise_id} failed: {'; '.join(result.internal_errors)}")
    print(to_markdown(result))
    return round(result.score, 4)


def student_of(folder: Path) -> str | None:
    """The student whose notebook nbgrader grades in `folder`: its parent in submitted/<student>/<assignment>/ or
    autograded/<student>/<assignment>/, whose numbers the numeric questions are (course.toml [variants]); else None."""
    if folder.resolve().parent.parent.name in ("submitted", "autograded"):
        return folder.resolve().parent.name
    return None


def _grade_notebook(exercise_id: str, folder: Path) -> str:
    """The result model of grading `folder`'s notebook for one exercise, as JSON (a grader failure's too)."""
    from grader.course import find_root, load_course
    from grader.grading.pipeline import Grader, resolve_device
    from grader.results import GradeResult

    label = f"{exercise_id}.ipynb"
    try:
        course = load_course(find_root(Path.cwd()))
        if exercise_id not in course.ids:
            raise CourseError(f"unknown exercise {exercise_id}; valid ids: {', '.join(course.ids)}")
        with Grader(course, [course.exercise(exercise_id)], resolve_device(course.device)) as grader:
            return grader.grade(folder, label=label, student=student_of(folder)).to_json()
    except GraderError as e:
        return GradeResult.of_failure(label, [], str(e)).to_json()


if __name__ == "__main__":
    sys.stdout.write(_grade_notebook(sys.argv[1], Path(sys.argv[2])))
