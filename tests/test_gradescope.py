"""Gradescope: the exported autograder zip, and its runner grading a temporary /autograder layout."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, course_toml, mutate
from grader import api
from grader.cli import main
from grader.course import load_course
from grader.errors import CourseError
from grader.grading import pipeline
from grader.integrations.gradescope import runner as gradescope
from grader.term.csvin import TermFileError

pytestmark = pytest.mark.slow  # the autograder zip built and run

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
SWAPPED = mutate(REFERENCE, "h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate")


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    result = CliRunner().invoke(main, ["gradescope", "export", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "the autograder is worth 100 points; the written answers are Gradescope manual questions" in result.output
    assert "ex08: What the two tables can and cannot show – interpretation.md, 2 points" in result.output
    assert "    -0.5  Claims that the gates (or the parameter count) caused a difference" in result.output
    return out


def autograder(tmp_path: Path, autograder_zip: Path) -> Path:
    """A fresh /autograder layout: source/ (the zip unpacked, as Gradescope does), an empty submission/ and results/."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(autograder_zip) as zf:
        zf.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return root


def run_autograder(root: Path) -> tuple[dict, str]:
    """What run_autograder runs, in a process of its own from /autograder: (results.json, what it printed)."""
    done = subprocess.run([sys.executable, "-m", "grader.integrations.gradescope.runner", str(root)], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8")), done.stdout


def by_exercise(doc: dict, exercise_id: str) -> list[dict]:
    return [t for t in doc["tests"] if t["name"].startswith(f"{exercise_id}: ")]


def test_export_holds_the_scripts_and_the_course_that_grades(autograder_zip):
    """Does the zip hold setup.sh, an executable run_autograder and the TA's course – no bench/, examples/, .ci or mutant banks?"""
    with zipfile.ZipFile(autograder_zip) as zf:
        names = set(zf.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in zf.infolist()}
        scripts = {n: zf.read(n).decode() for n in ("setup.sh", "run_autograder")}
    for name in (
        "course.toml",
        "pyproject.toml",
        "README.md",
        "exercises/ex05_gated_steps/gated.py",
        "solutions/ex05_gated_steps/gated.py",
        "course/ex05/checks.py",
        "course/ex05/given.py",
        "course/ex05/policy.py",
        "course/ex07/given_hidden.py",
        "course/ex08/training.py",
        "grader/integrations/gradescope/runner.py",
    ):
        assert name in names, name
    assert not [n for n in names if n.startswith(("bench/", "examples/", ".ci", "tests/")) or n.endswith("/mutants.py") or "__pycache__" in n]
    assert modes["run_autograder"] == 0o755 and modes["setup.sh"] == 0o755
    assert "pip install --no-cache-dir torch==2.13.0 ." in scripts["setup.sh"]
    assert "-m grader.integrations.gradescope.runner /autograder" in scripts["run_autograder"]
    for name, text in scripts.items():
        assert text.startswith("#!/usr/bin/env bash\n")
        assert subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0, name


def test_a_correct_handin_scores_full_marks(tmp_path, autograder_zip):
    """Does the zip grade pack makes of the references score 100, hidden checks after publication, the sandbox for instructors
    only, and the written answers left to Gradescope's manual questions (said to the student, never scored here)?"""
    root = autograder(tmp_path, autograder_zip)
    api.pack(course=load_course(ROOT), submission=ROOT / "solutions", out=root / "submission" / "handin.zip")
    doc, printed = run_autograder(root)
    assert doc["score"] == 100 and doc["extra_data"]["errors"] == []
    assert {"score", "execution_time", "tests", "output", "stdout_visibility"} <= set(doc)
    assert doc["stdout_visibility"] == "hidden"
    for test in doc["tests"]:
        assert set(test) == {"name", "score", "max_score", "status", "output", "visibility"}
    assert {t["visibility"] for t in doc["tests"]} == {"visible", "after_published", "hidden"}
    [sandbox] = [t for t in doc["tests"] if t["visibility"] == "hidden"]
    assert sandbox["max_score"] == 0 and sandbox["output"].startswith("sandbox: ") and "private file-system view" in sandbox["output"]
    assert "sandbox: " in printed and "score 100/100" in printed
    assert "100" not in doc["output"]  # students see their score once grades are published, not before
    # the written answers are Gradescope manual questions, marked there: no test of the autograder's, named to the student
    assert not [t for t in doc["tests"] if "written answer" in t["name"]] and doc["max_score"] == 100
    assert "ex08's written answer (interpretation.md, 2 points): handed in; the course staff mark it by hand in Gradescope" in doc["output"]
    assert (root / "source" / "solutions").stat().st_mode & 0o777 == 0o700


def test_the_zip_from_grade_pack_in_a_folder_of_its_own_is_graded(tmp_path, autograder_zip):
    """Is grade pack's zip uploaded inside one folder graded as the zip, not refused as a file no exercise asks for?"""
    root = autograder(tmp_path, autograder_zip)
    (root / "submission" / "my-work").mkdir()
    api.pack(course=load_course(ROOT), submission=ROOT / "solutions", out=root / "submission" / "my-work" / "handin.zip")
    doc = gradescope.run(root)
    assert doc["score"] == 100, doc.get("output")


def test_a_buggy_ex05_loses_points_with_its_diagnosis(tmp_path, autograder_zip):
    """Does a folder hand-in with ex05's GRU convention swapped score less, with the diagnosis in ex05's outputs?"""
    root = autograder(tmp_path, autograder_zip)
    shutil.copytree(ROOT / "solutions", root / "submission", dirs_exist_ok=True)
    (root / "submission" / "ex05_gated_steps" / "gated.py").write_text(SWAPPED)
    doc, _ = run_autograder(root)
    ex05 = by_exercise(doc, "ex05")
    assert 86 <= doc["score"] < 100 and sum(t["score"] for t in ex05) == pytest.approx(doc["score"] - 86)
    assert any("swapped GRU convention" in t["output"] for t in ex05 if t["status"] == "failed")


def test_loose_files_are_graded_in_their_exercise_folders(tmp_path, autograder_zip):
    """Are gated.py and parity.py uploaded loose graded as ex05 and ex06, with what was read, ignored and missing said?"""
    root = autograder(tmp_path, autograder_zip)
    (root / "submission" / "gated.py").write_text(REFERENCE)
    shutil.copy(ROOT / "solutions" / "ex06_framework_parity" / "parity.py", root / "submission" / "parity.py")
    (root / "submission" / "notes.txt").write_text("my notes")
    doc, _ = run_autograder(root)
    assert doc["score"] == 24
    assert sum(t["score"] for t in by_exercise(doc, "ex05")) == 14
    assert "Read gated.py as ex05_gated_steps/gated.py." in doc["output"]
    assert "Ignored (no exercise asks for it): notes.txt." in doc["output"]
    assert "Not in your hand-in, 0 points: ex01 (ex01_cell_state/)" in doc["output"]


@pytest.mark.parametrize("how", ["the whole upload", "an exercise folder beside a loose file"])
def test_a_symbolic_link_in_the_upload_is_refused(tmp_path, autograder_zip, how):
    """Does an upload that links to the course's own solutions/ (a repository submission keeps links) score 0, saying
    a link was refused, rather than grading the references?"""
    root = autograder(tmp_path, autograder_zip)
    solutions = root / "source" / "solutions"
    if how == "the whole upload":
        (root / "submission" / "mywork").symlink_to(solutions)
    else:
        (root / "submission" / "ex05_gated_steps").symlink_to(solutions / "ex05_gated_steps")
        shutil.copy(ROOT / "solutions" / "ex07_gate_bias_decay" / "decay.py", root / "submission" / "decay.py")
    doc, _ = run_autograder(root)
    assert doc["score"] == 0 and doc["tests"] == [], doc["score"]
    assert "a symbolic link, not a file or folder" in doc["output"]


@pytest.mark.parametrize("beside", [False, True])
def test_a_notebook_is_graded_as_its_exercise_loose_or_beside_loose_files(tmp_path, autograder_zip, beside):
    """Is ex05.ipynb uploaded loose graded as ex05, never said to be ignored, also when a loose file comes with it?"""
    import nbformat

    root = autograder(tmp_path, autograder_zip)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(REFERENCE)]), root / "submission" / "ex05.ipynb")
    if beside:
        shutil.copy(ROOT / "solutions" / "ex06_framework_parity" / "parity.py", root / "submission" / "parity.py")
    doc, _ = run_autograder(root)
    assert sum(t["score"] for t in by_exercise(doc, "ex05")) == 14, doc["output"]
    assert "Ignored" not in doc["output"] and "ex05 (ex05_gated_steps/)" not in doc["output"]


def test_a_loose_answers_toml_is_refused_saying_where_it_goes(tmp_path, autograder_zip):
    """Is answers.toml uploaded loose (several exercises have one) refused with 0 points and the folders it may belong to?"""
    root = autograder(tmp_path, autograder_zip)
    (root / "submission" / "gated.py").write_text(REFERENCE)
    (root / "submission" / "answers.toml").write_text("c_t = 1.5\n")
    doc, _ = run_autograder(root)
    assert doc["score"] == 0 and doc["tests"] == []
    assert doc["output"].startswith("the autograder failed: answers.toml belongs to 8 exercises")
    assert "ex01_cell_state/answers.toml" in doc["output"] and "grade pack" in doc["output"]


def test_a_corrupt_zip_still_writes_a_results_json(tmp_path, autograder_zip):
    """Does a hand-in that is not a zip give a valid results.json: score 0, the reason, the time it took?"""
    root = autograder(tmp_path, autograder_zip)
    (root / "submission" / "handin.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    doc, printed = run_autograder(root)
    assert doc["score"] == 0 and doc["tests"] == [] and doc["max_score"] == 100
    assert doc["output"] == "the autograder failed: could not be read: handin.zip: not a valid zip file (File is not a zip file)"
    assert doc["execution_time"] >= 0 and doc["stdout_visibility"] == "hidden"
    assert "the autograder failed" in printed


def test_a_grader_crash_still_writes_a_results_json(tmp_path, autograder_zip, monkeypatch, capsys):
    """Does a failure inside the grader give score 0 and a message for the student, with the traceback for instructors only?

    While grading runs, results.json already says the run did not finish: what Gradescope keeps if it stops the run.
    """
    root = autograder(tmp_path, autograder_zip)
    (root / "submission" / "gated.py").write_text(REFERENCE)
    during = []

    def crash(*args, **kwargs):
        during.append(json.loads((root / "results" / "results.json").read_text()))
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline.Grader, "grade", crash)
    doc = gradescope.run(root)
    assert json.loads((root / "results" / "results.json").read_text()) == doc
    assert doc["score"] == 0
    assert doc["output"] == ("the autograder failed: internal error (RuntimeError: boom); your instructor can see the details")
    assert "Traceback" in capsys.readouterr().out
    assert during[0]["score"] == 0 and during[0]["output"].startswith("the autograder failed: it did not finish")


def test_no_student_process_may_read_the_checks_or_the_earlier_results(tmp_path, autograder_zip):
    """Without namespaces a student process reads what every user may: does the runner make solutions/, the course
    tree and submission_metadata.json (whose previous_submissions hold earlier results: hidden checks' feedback and
    scores not yet published) root's alone before any student code runs?"""
    root = autograder(tmp_path, autograder_zip)
    earlier = {"score": 37.0, "results": {"tests": [{"name": "ex05: hidden", "output": "your forget gate ...", "visibility": "after_published"}]}}
    about = root / "submission_metadata.json"
    about.write_text(json.dumps({"users": [], "previous_submissions": [earlier]}))
    about.chmod(0o644)
    doc = gradescope.run(root)  # nothing uploaded: refused after the lock, before any student process
    assert doc["output"].startswith("the autograder failed: nothing was uploaded")
    modes = {p: (root / p).stat().st_mode & 0o777 for p in ("source/solutions", "source/course", "submission_metadata.json")}
    assert modes == {"source/solutions": 0o700, "source/course": 0o700, "submission_metadata.json": 0o600}, modes


def test_a_missing_course_still_writes_a_results_json(tmp_path):
    """Without a course in source/, is there still a results.json saying so?"""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    doc, _ = run_autograder(root)
    assert doc["score"] == 0 and "course.toml: not found" in doc["output"]


def test_export_refuses_a_student_bundle(tmp_path):
    """Is exporting from a course without solutions/ and hidden checks refused, naming what is missing?"""
    bundle = tmp_path / "bundle"
    api.release(course=load_course(ROOT), out=bundle)
    with pytest.raises(CourseError, match=r"has no solutions, course/<id>/checks\.py"):
        api.autograder(course=load_course(bundle), out=tmp_path / "autograder.zip")


# -- a term on Gradescope: the due date, the late policy and each student's extension --------------------------

TERM = "\n[deadlines]\ndue = 2026-12-10T23:59:00+08:00\n\n[late]\nper_day = 0.10\nmax_days = 3\n"
EXTENSIONS = (
    "student,exercise,due\nAda@Example.org,ex01,2026-12-12T23:59:00+08:00\nbob@example.org,*,2026-12-20T00:00:00Z\n"
    "dan@example.org,ex01,2026-12-11T23:59:00+08:00\n"
)


def term_autograder(tmp_path: Path, extensions: str | None) -> Path:
    """The autograder exported from a copy of the course with a due date and a late policy, and `extensions`."""
    course = tmp_path / "course"
    for part in ("exercises", "solutions", "course", "grader"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, course / name)
    (course / "course.toml").write_text(course_toml() + TERM)
    args = ["gradescope", "export", "--out", str(tmp_path / "autograder.zip")]
    if extensions is not None:
        (tmp_path / "extensions.csv").write_text(extensions)
        args += ["--extensions", str(tmp_path / "extensions.csv")]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(course)  # `grade` takes the course it is run in
        done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    return tmp_path / "autograder.zip"


def sheet_upload(root: Path, *emails: str) -> None:
    """ex01's right sheet uploaded two days after the due date (2026-12-12 10:00 UTC) by `emails` (the submitter first)."""
    folder = root / "submission" / "ex01_cell_state"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "ex01_cell_state" / "answers.toml", folder / "answers.toml")
    users = [{"email": email, "id": n, "name": "x"} for n, email in enumerate(emails)]
    (root / "submission_metadata.json").write_text(json.dumps({"created_at": "2026-12-12T18:00:00+08:00", "users": users}))


@pytest.mark.parametrize("email, late_days", [("ada@example.org", 0), ("bob@example.org", 0), ("cyd@example.org", 2)])
def test_an_extension_exported_with_the_autograder_moves_that_students_due_date(tmp_path, email, late_days):
    """Is ada's ex01 extension (typed Ada@…), and bob's for every exercise, applied to their uploads two days after the
    due date – and cyd, without one, two days late, 20 % off?"""
    autograder_zip = term_autograder(tmp_path, EXTENSIONS)
    with zipfile.ZipFile(autograder_zip) as zf:
        assert zf.read("course/gradescope_extensions.csv").decode() == EXTENSIONS
    root = autograder(tmp_path, autograder_zip)
    sheet_upload(root, email)
    doc = gradescope.run(root)
    ex01 = next(e for e in doc["extra_data"]["exercises"] if e["id"] == "ex01")
    assert doc["extra_data"]["late_days"] == late_days
    assert ex01["score"] == pytest.approx(6 * (1 - 0.1 * late_days)), ex01


@pytest.mark.parametrize(
    "emails, late_days",
    [
        (("bob@example.org", "cyd@example.org"), 2),
        (("cyd@example.org", "bob@example.org"), 2),
        (("bob@example.org", "ada@example.org"), 0),
        (("bob@example.org", "dan@example.org"), 1),
    ],
)
def test_a_groups_extension_is_the_earliest_due_date_of_its_members(tmp_path, emails, late_days):
    """Does a group upload keep an extension only as far as every member has it: bob's listed first with cyd, who
    has none, is two days late (it was on time on bob's extension); bob's with ada's, both extended past it, on time; and
    bob's with dan's, whose extension ends a day before it, one day late?"""
    root = autograder(tmp_path, term_autograder(tmp_path, EXTENSIONS))
    sheet_upload(root, *emails)
    doc = gradescope.run(root)
    ex01 = next(e for e in doc["extra_data"]["exercises"] if e["id"] == "ex01")
    assert doc["extra_data"]["late_days"] == late_days
    assert ex01["score"] == pytest.approx(6 * (1 - 0.1 * late_days)), ex01


def test_two_extensions_of_one_student_in_other_capitals_stop_the_export(tmp_path):
    """`Ada` and `ada` are one student on Gradescope (ids compared as the variants compare them): does an extensions
    file that gives each an ex01 due date stop the export, naming both, rather than keep one of them silently?"""
    (tmp_path / "extensions.csv").write_text("student,exercise,due\nAda,ex01,2026-12-12T23:59:00+08:00\nada,ex01,2026-12-20T23:59:00+08:00\n")
    with pytest.raises(TermFileError, match="line 3: a second extension of ada for ex01"):
        api.autograder(course=load_course(ROOT), out=tmp_path / "autograder.zip", extensions=tmp_path / "extensions.csv")
    assert not (tmp_path / "autograder.zip").exists()


def test_a_malformed_extensions_file_stops_the_export_naming_its_line(tmp_path):
    """Is an extension for an exercise the course lacks refused at export, naming the file's line, no zip written?"""
    with pytest.raises(TermFileError, match=r"extensions.csv, line 2: unknown exercise 'ex99'"):
        (tmp_path / "extensions.csv").write_text("student,exercise,due\nada,ex99,2026-12-12T23:59:00+08:00\n")
        api.autograder(course=load_course(ROOT), out=tmp_path / "autograder.zip", extensions=tmp_path / "extensions.csv")
    assert not (tmp_path / "autograder.zip").exists()
