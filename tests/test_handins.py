"""No hand-in stops the class: whatever one entry of `grade batch` (or one Gradescope upload) holds, the others are graded.

One class holds a good student and every entry that once ended the batch with a traceback; it is
graded on ex01 (an answer sheet: no student process), locally, again unchanged, and on a Dask cluster.
"""

import csv
import io
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from test_submission import CORRUPT, notebook

from conftest import ROOT, cli

SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()
DEEP: dict = {}
for _ in range(600):
    DEEP = {"a": DEEP}


def sheet_in(folder: Path) -> Path:
    (folder / "ex01_cell_state").mkdir(parents=True)
    (folder / "ex01_cell_state" / "answers.toml").write_text(SHEET)
    return folder


def notebook_in(folder: Path, text: str) -> None:
    folder.mkdir()
    (folder / "ex01.ipynb").write_text(text)


# id in grades.csv -> (how the entry is made in the class folder, what its row must say)
ENTRIES = {
    "hex": (lambda root: notebook_in(root / "hex", notebook("c_t = 0x" + "f" * 4000)), "graded"),
    "deep": (lambda root: notebook_in(root / "deep", notebook("c_t = 1", metadata=DEEP)), "graded"),
    **{f"zip{i}": (lambda root, make=make, i=i: make(root / f"zip{i}.zip"), "unreadable") for i, make in enumerate(CORRUPT.values())},
    "bob": (lambda root: (sheet_in(root / "bob"), zipfile.ZipFile(root / "bob.ZIP", "w").close()), "unreadable"),
    "cy\\xffd": (lambda root: sheet_in(Path(os.fsdecode(os.fsencode(root) + b"/cy\xffd"))), "graded"),
    "dee\\u000a# heading\\u000a": (lambda root: sheet_in(root / "dee\n# heading\n"), "graded"),
    "e\\u202eve": (lambda root: sheet_in(root / "e\u202eve"), "graded"),
    "f\\\\ay": (lambda root: sheet_in(root / "f\\ay"), "graded"),
    "g" * 183 + "~": (lambda root: sheet_in(root / ("g" * 240)), "graded"),  # cut, then a hash of the name
}


def batch(*args: str) -> subprocess.CompletedProcess:
    return cli(ROOT, "batch", *args, "--exercises", "ex01")


def rows(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def row_of(found: dict, student: str) -> dict:
    """The row of `student`, or of the one id that begins with it (the cut ids end with a hash)."""
    if student in found:
        return found[student]
    (match,) = [v for k, v in found.items() if student.endswith("~") and k.startswith(student)]
    return match


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("class")
    sheet_in(root / "ada")
    for make, _ in ENTRIES.values():
        make(root)
    return root


@pytest.fixture(scope="module")
def graded(klass, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("out")
    return out, batch(str(klass), "--out", str(out), "--workers", "2")


@pytest.mark.slow
def test_every_bad_entry_is_a_row_and_the_class_is_graded(graded):
    """Does the batch exit 0 with the good student's full marks, and a row for each bad entry: 0 points, graded or "could not be read"?"""
    out, done = graded
    assert done.returncode == 0, done.stderr
    found = rows(out)
    assert found.pop("ada")["total"] == "6"
    for student, (_, status) in ENTRIES.items():
        row = row_of(found, student)
        report = json.loads((out / "reports" / f"{row['student']}.json").read_text())
        notes = " ".join(e["note"] for e in report["extra_data"]["exercises"])
        assert (notes.startswith("could not be read: ")) == (status == "unreadable"), (student, notes)
        if student in ("hex", "deep", "bob") or student.startswith("zip"):
            assert row["total"] == "0", (student, row)
        else:  # a name that is no safe id is escaped, and the work under it graded
            assert row["total"] == "6", (student, row)
    assert len(found) == len(ENTRIES)
    assert json.loads((out / "summary.json").read_text())["unreadable"] == sum(s == "unreadable" for _, s in ENTRIES.values())


@pytest.mark.slow
def test_ids_are_safe_in_every_output(graded):
    """Is every id a printable line of at most 200 bytes, naming its report and feedback files, with no Markdown line injected?"""
    out, _ = graded
    for student in rows(out):
        assert student.isprintable() and len(student.encode()) <= 200, ascii(student)
        assert (out / "reports" / f"{student}.json").is_file() and (out / "feedback" / f"{student}.md").is_file()
    feedback = (out / "feedback" / "dee\\u000a# heading\\u000a.md").read_text()
    assert not any(line.startswith("# heading") for line in feedback.splitlines())


@pytest.mark.slow
def test_a_rerun_reads_no_unchanged_entry_again(klass, graded):
    """Are the refused and the oddly named entries journaled with their keys, so that an unchanged rerun grades nobody?"""
    out, _ = graded
    again = batch(str(klass), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert f"0 graded, {len(ENTRIES) + 1} unchanged" in again.stderr, again.stderr


@pytest.mark.slow
def test_removing_a_duplicate_grades_the_one_left(klass, graded, tmp_path):
    """When one of `bob/` and `bob.ZIP` is removed, is the other graded (its key changed), the rest unchanged?"""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(graded[0], out)
    changed = tmp_path / "class"
    shutil.copytree(klass, changed)
    (changed / "bob.ZIP").unlink()
    third = batch(str(changed), "--out", str(out))
    assert third.returncode == 0 and f"1 graded, {len(ENTRIES)} unchanged" in third.stderr, third.stderr
    assert rows(out)["bob"]["total"] == "6"


@pytest.mark.slow
def test_a_dask_cluster_grades_the_same_class_alike(klass, graded, tmp_path):
    """Does --scheduler give the grades.csv the local pool gave, exiting 0?"""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        done = batch(str(klass), "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address)
    if "no network" in done.stderr and done.returncode == 1:
        pytest.skip("this machine's sandbox may not grade on a cluster (no network namespace)")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dask" / "grades.csv").read_bytes() == (graded[0] / "grades.csv").read_bytes()


# --- the Gradescope runner ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    from grader import api
    from grader.course import load_course

    archive = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    api.autograder(course=load_course(ROOT), out=archive)
    return archive


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("case", ["deflate stream", "UTF-8 flag, invalid byte", "a/./b beside a/b"])
@pytest.mark.slow
def test_gradescope_says_could_not_be_read_not_internal_error(tmp_path, source, case):
    """Does a corrupt or ambiguous zip uploaded to Gradescope give score 0 and "could not be read: …" in results.json?"""
    from grader.integrations.gradescope import runner as gradescope

    root = tmp_path / "autograder"
    with zipfile.ZipFile(source) as zf:
        zf.extractall(root / "source")
    (root / "submission").mkdir()
    CORRUPT[case](root / "submission" / "handin.zip")
    doc = gradescope.run(root)
    assert doc["score"] == 0 and doc["tests"] == []
    assert doc["output"].startswith("the autograder failed: could not be read: handin.zip: "), doc["output"]
    assert json.loads((root / "results" / "results.json").read_text()) == doc


@pytest.mark.slow
def test_a_large_unrelated_file_hides_no_change_from_the_journal(tmp_path):
    """After a student's answer changes, is the student graded again, even beside a file larger than what keys a row
    (the key reads what grading reads, nothing else)?"""
    from grader import api
    from grader.course import load_course

    course = load_course(ROOT)
    klass, out = tmp_path / "class", tmp_path / "out"
    sheet = klass / "bob" / "ex01_cell_state" / "answers.toml"
    sheet.parent.mkdir(parents=True)
    with open(klass / "bob" / "aaa.bin", "wb") as f:
        f.truncate(65 << 20)  # sorts before the exercise folders, and is larger than any file grading reads
    sheet.write_text((course.exercise("ex01").stub_dir / "answers.toml").read_text())
    os.chmod(klass, 0o700)
    run = lambda: api.batch(course=course, exercises=[course.exercise("ex01")], submissions=klass, out=out, workers=1)  # noqa: E731
    assert run().rows[0].result.score == 0
    sheet.write_text((ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text())
    again = run()
    assert (again.graded, again.rows[0].result.score) == (1, 6)


def test_names_that_differ_by_more_than_case_are_two_students(tmp_path):
    """Are `strauss/` and `strauß/` (equal only under full case folding) two students, each graded?"""
    from grader.batch.roster import discover

    for name in ("strauss", "strauß", "Bob", "bob"):
        (tmp_path / name).mkdir()
    found = {s.id: s for s in discover(tmp_path)}
    assert not found["strauss"].refused and not found["strauß"].refused
    assert [s.refused != "" for s in found.values() if s.id.lower() == "bob"] == [True]


def test_names_that_grades_csv_shows_alike_are_one_student_refused(tmp_path):
    """Are `-bob/` and `'-bob/` (both `'-bob` in grades.csv, where a leading - gets a quote mark) refused as one
    student, naming both entries, while `bob/` is graded?"""
    from grader.batch.roster import discover

    for name in ("-bob", "'-bob", "bob"):
        (tmp_path / name).mkdir()
    found = {s.id: s for s in discover(tmp_path)}
    assert sorted(found) == ["'-bob", "bob"] and not found["bob"].refused
    assert found["'-bob"].refused == "the entries '-bob and -bob of the class are all student '-bob (as grades.csv shows ids, in any capitals); keep one"
