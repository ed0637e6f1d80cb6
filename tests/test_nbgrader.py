"""nbgrader round trip with nbgrader's real CLI: export, generate_assignment, autograde, notebook hand-ins, the gradebook."""

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from test_handout import secret_lines

from conftest import ROOT, cli, graded, mutate, with_answers
from grader.cli import main

pytestmark = pytest.mark.slow  # nbgrader

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()
# What each student hands in, as the files `grade run` would grade: ada the references, bob a known mistake in each.
WORK = {
    "ada": {"ex05": REFERENCE, "ex01": SHEET},
    "bob": {
        "ex05": mutate(REFERENCE, "h_new = o * torch.tanh(c_new)", "h_new = o * c_new"),  # missing tanh on c
        "ex01": with_answers(SHEET, c_t="1.7"),
    },
}
FILES = {"ex05": "gated.py", "ex01": "answers.toml"}
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # alembic


def nbgrader(course_dir: Path, *args: str) -> None:
    env = {**ENV, "JUPYTER_CONFIG_DIR": str(course_dir.parent / "jupyter"), "JUPYTER_RUNTIME_DIR": str(course_dir.parent / "runtime")}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def hand_in(notebook: Path, exercise_id: str, text: str, out: Path) -> Path:
    """The student notebook with its hand-in cell holding `text` (an answer sheet as `key = answer` lines)."""
    nb = nbformat.read(notebook, as_version=4)
    if exercise_id == "ex01":
        text = "\n".join(f"{key} = {value!r}" for key, value in tomllib.loads(text).items())
    [cell] = [c for c in nb.cells if c.metadata.get("grader", {}).get("file") == FILES[exercise_id]]
    cell.source = text
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory) -> Path:
    """An exported nbgrader course: every assignment generated, ada's and bob's ex05 and ex01 autograded by nbgrader."""
    course_dir = tmp_path_factory.mktemp("nbgrader") / "course"
    exported = CliRunner().invoke(main, ["nbgrader", "export", "--course-dir", str(course_dir)])
    assert exported.exit_code == 0, exported.output
    nbgrader(course_dir, "generate_assignment", "*")
    for student, work in WORK.items():
        for exercise_id, text in work.items():
            hand_in(
                course_dir / "release" / exercise_id / f"{exercise_id}.ipynb",
                exercise_id,
                text,
                course_dir / "submitted" / student / exercise_id / f"{exercise_id}.ipynb",
            )
    nbgrader(course_dir, "autograde", "*")  # every assignment with a submission: ex01 and ex05
    return course_dir


def gradebook_scores(db: Path) -> dict[tuple[str, str], float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}", course_id="gated-rnn") as gradebook:
        return {(s.student.id, a.name): s.score for a in gradebook.assignments for s in a.submissions}


def test_autograde_gives_grade_runs_points(course_dir, grade):
    """Does nbgrader's gradebook hold, for the reference and a known mistake, what `grade run` gives the notebook and the files?"""
    scores = gradebook_scores(course_dir / "gradebook.db")
    for student, work in WORK.items():
        run = CliRunner().invoke(main, ["run", "ex05", "ex01", "--submission", str(course_dir / "submitted" / student), "--json"])
        report = json.loads(run.output)
        by_run = {e["id"]: e["score"] for e in report["extra_data"]["exercises"]}
        for exercise_id, text in work.items():
            by_files = grade(exercise_id, {FILES[exercise_id]: text}).score
            assert scores[student, exercise_id] == pytest.approx(by_run[exercise_id], abs=1e-4) == pytest.approx(by_files, abs=1e-4), (student, exercise_id)
    assert scores["ada", "ex05"] == 14 and scores["ada", "ex01"] == 6
    assert 0 < scores["bob", "ex05"] < 14 and 0 < scores["bob", "ex01"] < 6


def test_autograder_cell_prints_our_feedback_and_nothing_on_stderr(course_dir):
    """Does bob's graded ex05 notebook show our diagnosis on stdout, no stderr or error, and the points as the cell's value?"""
    nb = nbformat.read(course_dir / "autograded" / "bob" / "ex05" / "ex05.ipynb", as_version=4)
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
    assert kinds == [("stream", "stdout"), ("execute_result", None)], kinds
    assert "missing tanh on c" in cell.outputs[0].text
    points = float(cell.outputs[1].data["text/plain"])
    assert points == pytest.approx(gradebook_scores(course_dir / "gradebook.db")["bob", "ex05"])


def notebook_text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join([cell.source for cell in nb.cells] + [json.dumps(cell.get("outputs", [])) for cell in nb.cells])


def test_student_notebooks_hold_no_reference_or_hidden_line(course_dir):
    """Is every non-trivial line of solutions/ and the hidden checks absent from all eleven generated student notebooks?"""
    secret = secret_lines()
    released = sorted((course_dir / "release").glob("*/*.ipynb"))
    assert len(released) == 11
    texts = {path.name: notebook_text(path) for path in released}
    leaks = [f"{name}: {line}" for name, text in texts.items() for line in secret if line in text]
    assert not leaks, leaks[:10]
    source = "\n".join(notebook_text(p) for p in (course_dir / "source").glob("*/*.ipynb"))
    assert sum(line in source for line in secret) > 50, "the scan would not see a reference in a notebook"


def test_source_notebooks_score_full_marks_and_student_notebooks_zero(course_dir, course, sandbox):
    """Graded as hand-ins, do the instructor's notebooks earn every point of the checks and the generated student
    notebooks none, and is a written answer's markdown cell the reference's in the one and unanswered in the other
    ("YOUR ANSWER HERE" is nbgrader's, not the student's)?"""
    exercises = [e for e in course.exercises if e.available]
    source, release = (graded(sandbox, course, exercises, course_dir / folder) for folder in ("source", "release"))
    assert source.internal_errors == release.internal_errors == []
    assert source.score == source.max_score == sum(e.checked_points for e in exercises)
    assert release.score == 0
    for s, r, exercise in zip(source.exercises, release.exercises, exercises):
        if exercise.rubric is not None:
            reference = (exercise.solution_dir / exercise.rubric.file).read_text().strip()
            assert s.written.state == "to mark" and reference in s.written.text, exercise.id
            assert r.written.state == "no answer", (exercise.id, r.written.text)
    for result, exercise in zip(release.exercises, exercises):
        expected = "NotImplementedError" if exercise.runs_code else "unanswered"
        assert any(expected in v.feedback for v in result.checks), exercise.id


def batch(monkeypatch, *args: str) -> None:
    """`grade batch`, with no alembic on PATH: the gradebook writer finds nbgrader's own."""
    with monkeypatch.context() as m:
        m.setenv("PATH", "/usr/bin:/bin")
        done = cli(ROOT, "batch", *args, "--exercises", "ex01,ex05", "--workers", "2")
    assert done.returncode == 0, done.stderr[-3000:]


def table_sizes(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as connection:
        return {
            t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("student", "assignment", "submitted_assignment", "submitted_notebook", "grade")
        }


def test_batch_grades_notebooks_into_a_gradebook_and_a_malformed_one_costs_its_exercise_alone(course_dir, tmp_path, monkeypatch):
    """Does `grade batch --nbgrader-db` write autograde's scores (a rerun adding no row), a broken notebook costing only its exercise?"""
    klass = tmp_path / "submitted"
    shutil.copytree(course_dir / "submitted", klass)
    good_ex01 = klass / "ada" / "ex01" / "ex01.ipynb"
    for student in ("cyd", "dan", "eve"):
        (klass / student).mkdir()
        shutil.copy(good_ex01, klass / student / "ex01.ipynb")  # the flat layout: <student>/<id>.ipynb
    (klass / "cyd" / "ex05.ipynb").write_text('{"cells": [', encoding="utf-8")
    hand_in(course_dir / "release" / "ex05" / "ex05.ipynb", "ex05", "def lstm_step(:\n", klass / "dan" / "ex05.ipynb")
    (klass / "eve" / "ex05.ipynb").write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}), encoding="utf-8")
    out, fresh = tmp_path / "graded", tmp_path / "fresh.db"
    batch(monkeypatch, str(klass), "--out", str(out), "--nbgrader-db", str(fresh))

    with open(out / "grades.csv", newline="") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    nbgraders = gradebook_scores(course_dir / "gradebook.db")
    for student in ("ada", "bob"):
        for exercise_id in ("ex01", "ex05"):
            assert float(grades[student][exercise_id]) == pytest.approx(nbgraders[student, exercise_id], abs=1e-2)
    for student, why in {"cyd": "its JSON does not parse", "dan": "cell 4 is not valid Python", "eve": "has nbformat 3"}.items():
        assert grades[student]["ex05"] == "0" and grades[student]["ex01"] == "6", grades[student]
        assert why in (out / "feedback" / f"{student}.md").read_text(), student
    written = gradebook_scores(fresh)
    assert written == {(s, e): pytest.approx(float(grades[s][e]), abs=1e-4) for s in grades for e in ("ex01", "ex05")}
    sizes = {"student": 5, "assignment": 2, "submitted_assignment": 10, "submitted_notebook": 10, "grade": 10}
    assert table_sizes(fresh) == sizes

    batch(monkeypatch, str(klass), "--out", str(out), "--nbgrader-db", str(fresh))  # a rerun updates the same rows
    assert table_sizes(fresh) == sizes and gradebook_scores(fresh) == written

    theirs = tmp_path / "nbgrader.db"  # nbgrader's own gradebook: autograde's rows updated, the new students added
    shutil.copy(course_dir / "gradebook.db", theirs)
    before = table_sizes(theirs)
    batch(monkeypatch, str(klass), "--out", str(out), "--nbgrader-db", str(theirs))
    after = table_sizes(theirs)
    assert after["student"] == before["student"] + 3 and after["grade"] == before["grade"] + 6
    assert {k: v for k, v in gradebook_scores(theirs).items() if k[1] in ("ex01", "ex05")} == written
    nbgrader(course_dir, "export", f"--db=sqlite:///{theirs}", f"--to={tmp_path / 'export.csv'}")
    with open(tmp_path / "export.csv", newline="") as f:
        exported = {(row["student_id"], row["assignment"]): float(row["raw_score"]) for row in csv.DictReader(f)}
    assert {k: v for k, v in exported.items() if k[1] in ("ex01", "ex05")} == written
    nbgrader(course_dir, "generate_feedback", "ex05", f"--db=sqlite:///{theirs}")  # on autograde's notebooks
    html = (course_dir / "feedback" / "bob" / "ex05" / "ex05.html").read_text()
    assert "missing tanh on c" in html and f"Score: {written['bob', 'ex05']:g} / 14.0" in html


def notebook(*cells) -> str:
    """A notebook file's text: ("code" or "markdown", source) cells, or ready nbformat cells."""
    made = [c if isinstance(c, dict) else getattr(nbformat.v4, f"new_{c[0]}_cell")(c[1]) for c in cells]
    return nbformat.writes(nbformat.v4.new_notebook(cells=made))


def test_code_cells_become_the_module_and_answer_cells_the_sheet(course, tmp_path):
    """Without any cell metadata, do code cells make params.py, `key = value` cells answers.toml (an expression kept as a formula), a test cell neither?"""
    from grader.submissions.workspace import load_submission

    exercise = course.exercise("ex04")
    test_cell = nbformat.v4.new_code_cell(
        "assert count_params('rnn', 1, 1) == 3",
        metadata={"nbgrader": {"grade": True, "solution": False, "locked": True, "grade_id": "t", "points": 1, "schema_version": 3}},
    )
    text = notebook(
        ("markdown", "# my work"),
        ("code", "def count_params(cell, d_x, d_h):\n    return 0"),
        ("code", 'N_rnn = "d_h*(d_x + d_h + 1)"\ngru_count = 3 * (4 * (5 + 4 + 1))\nN_gru: str = ""'),
        test_cell,
        ("code", "import math  # a helper cell\nDEFAULT = 1"),
    )
    (tmp_path / exercise.folder).mkdir()
    (tmp_path / exercise.folder / "ex04.ipynb").write_text(text)
    workspace = load_submission(tmp_path, [exercise])
    try:
        assert workspace.problems == {}
        folder = workspace.folder(exercise)
        assert (folder / "params.py").read_text() == "def count_params(cell, d_x, d_h):\n    return 0\n\nimport math  # a helper cell\nDEFAULT = 1\n"
        assert tomllib.loads((folder / "answers.toml").read_text()) == {"N_rnn": "d_h*(d_x + d_h + 1)", "gru_count": "3 * (4 * (5 + 4 + 1))", "N_gru": ""}
    finally:
        workspace.remove()


def test_unreadable_cells_and_two_notebooks_are_problems_of_their_own_files(course, tmp_path):
    """Does an answer cell with other code cost answers.toml alone, and do two notebooks for one exercise say to hand in one?"""
    from grader.submissions.workspace import load_submission

    ex04, ex05 = course.exercise("ex04"), course.exercise("ex05")
    (tmp_path / "ex04.ipynb").write_text(notebook(("code", "def count_params():\n    pass"), ("code", "import math\nN_rnn = math.pi")))
    (tmp_path / "ex05.ipynb").write_text(notebook(("code", "x = 1")))
    (tmp_path / "ex05").mkdir()
    (tmp_path / "ex05" / "ex05.ipynb").write_text(notebook(("code", "x = 1")))
    workspace = load_submission(tmp_path, [ex04, ex05])
    try:
        assert set(workspace.problems) == {"ex04/answers.toml", "ex05/gated.py"}
        assert "ex04.ipynb, cell 2, line 1: an answer cell holds only `key = answer` lines" in workspace.problems["ex04/answers.toml"]
        assert "hand in one" in workspace.problems["ex05/gated.py"]
        assert (workspace.folder(ex04) / "params.py").is_file()
    finally:
        workspace.remove()


def test_export_refuses_to_overwrite_a_config_of_the_tas_own(tmp_path):
    """Does `grade nbgrader export` leave an nbgrader_config.py it did not write alone, saying so (a usage error)?"""
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    result = CliRunner().invoke(main, ["nbgrader", "export", "--course-dir", str(tmp_path)])
    assert result.exit_code == 2 and "was not written by `grade nbgrader export`" in result.output
    assert (tmp_path / "nbgrader_config.py").read_text() == "c = get_config()\n" and not (tmp_path / "source").exists()


@pytest.mark.parametrize("inside", ["course", "exercises/nbgrader", "solutions"])
def test_export_refuses_a_folder_that_grading_reads_or_a_bundle_ships(tmp_path, monkeypatch, inside):
    """Is an nbgrader course inside the course tree (README's `--course-dir course/` run in the course folder), exercises/
    or solutions/ refused, nothing written – its source notebooks hold the references, and exercises/ goes to every
    student in `grade release`'s bundle, the course tree to Gradescope with the autograder?"""
    course = tmp_path / "course"
    for part in ("exercises", "solutions", "course", "grader"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.toml", course / "course.toml")
    before = sorted(p.relative_to(course) for p in course.rglob("*"))
    monkeypatch.chdir(course)
    result = CliRunner().invoke(main, ["nbgrader", "export", "--course-dir", inside])
    assert result.exit_code == 2 and f"inside the course's {inside.split('/')[0]}/" in result.output, result.output
    assert sorted(p.relative_to(course) for p in course.rglob("*")) == before


def test_autograder_cell_fails_with_the_reason_when_grading_cannot_run(tmp_path, monkeypatch):
    """When `grade run` cannot grade (here: an exercise the course lacks), does the cell raise, saying why, rather than score?"""
    from grader.integrations.nbgrader.autograder import AutogradeError, autograde

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRADER_COURSE_ROOT", str(ROOT))
    with pytest.raises(AutogradeError, match="unknown exercise ex99"):
        autograde("ex99")


def test_a_grader_failure_leaves_no_stale_score_in_the_gradebook(tmp_path):
    """When the grader itself failed for a student, is the gradebook's earlier score gone and the grade marked for the TA?"""
    from nbgrader.api import Gradebook

    from grader.course import load_course
    from grader.integrations.nbgrader import gradebook as nbgrader_db
    from grader.results import ExerciseResult, GradeResult, Status, StudentRow

    course = load_course(ROOT)
    exercises = [course.exercise("ex05")]
    db = tmp_path / "gradebook.db"

    def row(status: str, score: float) -> StudentRow:
        result = GradeResult("bob", "cpu", "en", [ExerciseResult("ex05", "Gated steps", score, 14.0, [])])
        return StudentRow("bob", Status(status), result)

    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        nbgrader_db.write(db=db, course=course, exercises=exercises, rows=[row("graded", 14.0)])
        assert gradebook_scores(db) == {("bob", "ex05"): 14.0}
        nbgrader_db.write(db=db, course=course, exercises=exercises, rows=[row("internal error", 0.0)])
    assert gradebook_scores(db) == {("bob", "ex05"): 0.0}
    with Gradebook(f"sqlite:///{db}", course_id=course.id) as gradebook:
        grade = gradebook.find_grade("ex05_autograder", "ex05", "ex05", "bob")
        assert grade.auto_score is None and grade.needs_manual_grade


def test_a_missing_ta_extra_says_what_to_install(tmp_path, monkeypatch):
    """Without nbgrader installed (a student's base install), does --nbgrader-db's writer say which extra to install?"""
    from grader.course import load_course
    from grader.errors import MissingExtra
    from grader.integrations.nbgrader import gradebook as nbgrader_db

    monkeypatch.setitem(sys.modules, "nbgrader.api", None)  # as if not installed: importing it raises ImportError
    course = load_course(ROOT)
    with pytest.raises(MissingExtra, match=r"gated-rnn-grader\[ta\]"):
        nbgrader_db.write(db=tmp_path / "gradebook.db", course=course, exercises=[course.exercise("ex05")], rows=[])
