"""The submission loader copies only the files students edit, and refuses what it must not follow."""

import json
import os
import subprocess
import sys
import time
import tomllib
import zipfile

import pytest

from conftest import ROOT
from grader.submissions.workspace import default_submission, load_submission, looks_like_submission


def test_copies_student_files_only(course, tmp_path):
    """Are only gated.py copied – not the submission's own tests or extra files?"""
    ex05 = course.exercise("ex05")
    folder = tmp_path / ex05.folder
    folder.mkdir()
    (folder / "gated.py").write_text("# mine")
    (folder / "test_public.py").write_text("# a tampered public test")
    (folder / "notes.txt").write_text("extra")
    workspace = load_submission(tmp_path, [ex05])
    try:
        assert sorted(os.listdir(workspace.folder(ex05))) == ["gated.py"]
        assert workspace.problems == {}
    finally:
        workspace.remove()


def test_missing_symlinked_and_oversized_files_are_problems(course, tmp_path):
    """Is each refused file recorded with a message that says why?"""
    ex05 = course.exercise("ex05")
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 1")
    submission = tmp_path / "alice"
    (submission / ex05.folder).mkdir(parents=True)
    (submission / ex05.folder / "gated.py").symlink_to(secret)
    workspace = load_submission(submission, [ex05])
    try:
        assert "symbolic link" in workspace.problem(ex05, "gated.py")
        assert not (workspace.folder(ex05) / "gated.py").exists()
    finally:
        workspace.remove()

    (submission / ex05.folder / "gated.py").unlink()
    (submission / ex05.folder / "gated.py").write_bytes(b"#" * (2 << 20))
    workspace = load_submission(submission, [ex05])
    try:
        assert "limit" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()

    (submission / ex05.folder / "gated.py").unlink()
    workspace = load_submission(submission, [ex05])
    try:
        assert "missing" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()


def test_symlinked_exercise_folder_is_refused(course, tmp_path):
    """Is an exercise folder that links elsewhere (e.g. to solutions/) refused?"""
    ex05 = course.exercise("ex05")
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / ex05.folder).symlink_to(ex05.solution_dir)
    workspace = load_submission(tmp_path / "alice", [ex05])
    try:
        assert "symbolic link" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()


def test_default_submission(course, tmp_path):
    """Is the current folder the default when it holds exercise folders (or is one), else ./exercises?"""
    assert default_submission(tmp_path, course) == tmp_path / "exercises"
    (tmp_path / "ex05_gated_steps").mkdir()
    assert looks_like_submission(tmp_path, course)
    assert default_submission(tmp_path, course) == tmp_path
    assert default_submission(tmp_path / "ex05_gated_steps", course) == tmp_path


# --- archives: whatever zipfile cannot read is refused, naming the entry -------------------------------

SHEET = "c_t = 1.5\n" * 400  # long enough that a corrupted stream fails to inflate


def zipped(path, entries, *, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return path


def corrupted(path, name: bytes):
    """The zip at `path` with the first compressed bytes of entry `name` flipped."""
    data = bytearray(path.read_bytes())
    start = data.index(b"PK\x03\x04") + 30 + len(name)
    for i in range(start + 8, start + 40):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    return path


def utf8_flagged(path, old: bytes, new: bytes):
    """The zip at `path` with entry name `old` replaced by `new` and the UTF-8 flag set on every entry."""
    data = bytearray(path.read_bytes().replace(old, new))
    for signature, flag in ((b"PK\x03\x04", 7), (b"PK\x01\x02", 9)):
        at = 0
        while (at := data.find(signature, at)) >= 0:
            data[at + flag] |= 0x08
            at += 4
    path.write_bytes(bytes(data))
    return path


NAME = "ex01_cell_state/answers.toml"
CORRUPT = {
    "deflate stream": lambda p: corrupted(zipped(p, [(NAME, SHEET)]), NAME.encode()),
    "LZMA stream": lambda p: corrupted(zipped(p, [(NAME, SHEET)], method=zipfile.ZIP_LZMA), NAME.encode()),
    "bzip2 stream": lambda p: corrupted(zipped(p, [(NAME, SHEET)], method=zipfile.ZIP_BZIP2), NAME.encode()),
    "UTF-8 flag, invalid byte": lambda p: utf8_flagged(zipped(p, [(NAME, SHEET)]), b"answers", b"answ\xffrs"),
    "a/./b beside a/b": lambda p: zipped(p, [(NAME, SHEET), ("ex01_cell_state/./answers.toml", "c_t = 1\n")]),
    "A/B beside a/b": lambda p: zipped(p, [(NAME, SHEET), (NAME.upper(), "c_t = 1\n")]),
    "a//b beside a/b": lambda p: zipped(p, [(NAME, SHEET), ("ex01_cell_state//answers.toml", "c_t = 1\n")]),
}


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("case", CORRUPT)
def test_an_archive_zipfile_cannot_read_is_refused_naming_it(tmp_path, case):
    """Is a zip with a corrupt stream, an undecodable name or one file under two spellings refused as ArchiveRefused, naming the zip?"""
    from grader.submissions.archive import ArchiveRefused, unpack

    archive = CORRUPT[case](tmp_path / "bob.zip")
    (tmp_path / "dest").mkdir()
    with pytest.raises(ArchiveRefused) as refused:
        unpack(archive, tmp_path / "dest")
    assert str(refused.value).startswith("bob.zip: ") and str(refused.value).isprintable(), str(refused.value)


# --- notebooks: sizes before parsing, bounded parsing, huge numbers and deep nesting ---------------------


def notebook(*sources: str, metadata: dict | None = None) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None, "id": f"c{i}"} for i, s in enumerate(sources)]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {}, "cells": cells})


def from_notebook(course, tmp_path, exercise_id: str, text: str) -> tuple[dict[str, str], dict[str, str]]:
    """({file: text} of the workspace, problems) for a submission holding only this notebook for `exercise_id`."""
    exercise = course.exercise(exercise_id)
    (tmp_path / f"{exercise_id}.ipynb").write_text(text)
    workspace = load_submission(tmp_path, [exercise])
    try:
        files = {p.name: p.read_text() for p in workspace.folder(exercise).iterdir()}
        return files, {k.split("/", 1)[1]: v for k, v in workspace.problems.items()}
    finally:
        workspace.remove()


def test_a_number_python_cannot_print_is_judged_as_the_text_typed(course, tmp_path):
    """Does `c_t = 0x` with 4000 hex digits become that text in answers.toml (a formula, judged), never a crash?"""
    files, problems = from_notebook(course, tmp_path, "ex01", notebook("c_t = 0x" + "f" * 4000 + "\nh_t = 2"))
    assert problems == {}
    assert tomllib.loads(files["answers.toml"]) == {"c_t": "0x" + "f" * 4000, "h_t": 2}


def test_a_notebook_nested_too_deeply_costs_its_exercise_with_a_message(course, tmp_path):
    """Is a notebook whose metadata is nested 600 deep (RecursionError in nbformat) a problem of its files?"""
    deep: dict = {}
    for _ in range(600):
        deep = {"a": deep}
    files, problems = from_notebook(course, tmp_path, "ex01", notebook("c_t = 1", metadata=deep))
    assert files == {} and "nested too deeply" in problems["answers.toml"]


def test_cells_over_the_size_limit_are_refused_before_parsing(course, tmp_path):
    """Is a cell over HANDIN_FILE_BYTES refused by its size, naming the cell, and are cells that together exceed a file's limit each refused?"""
    from grader.submissions.workspace import HANDIN_FILE_BYTES

    files, problems = from_notebook(course, tmp_path, "ex04", notebook("x = 1", "# " + "y" * HANDIN_FILE_BYTES))
    assert problems["params.py"].startswith("ex04.ipynb, cell 2 is") and f"the limit is {HANDIN_FILE_BYTES}" in problems["params.py"]
    half = "# " + "y" * (HANDIN_FILE_BYTES // 2)
    files, problems = from_notebook(course, tmp_path, "ex05", notebook(half, half, half))
    assert "code cells of ex05.ipynb come to" in problems["gated.py"]


MEASURE = """
import json, sys, tempfile
from pathlib import Path
from grader.course import load_course
from grader.submissions.workspace import load_submission
course = load_course(Path(sys.argv[1]))
folder = Path(tempfile.mkdtemp())
literal = "x = [" + "0," * int(sys.argv[3]) + "]"
if sys.argv[2] == "notebook":
    cell = {"cell_type": "code", "metadata": {}, "source": literal, "outputs": [], "execution_count": None, "id": "a"}
    (folder / "ex05.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}))
else:
    (folder / "ex05_gated_steps").mkdir()
    (folder / "ex05_gated_steps" / "gated.py").write_text(literal)
workspace = load_submission(folder, [course.exercise("ex05")])
# VmHWM, this process's own peak since its exec (ru_maxrss would keep the peak of the forked test runner).
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"problems": workspace.problems, "mb": peak >> 10}))
"""


@pytest.mark.parametrize(
    "kind, items, said",
    [
        ("notebook", 2 << 20, "the limit is"),  # a 4 MiB notebook with one list literal: its cell is refused by size
        ("notebook", 500_000, "cannot be read as Python"),  # under the size limit, but parsing it would take ~500 MB
        ("file", 500_000, "cannot be read as Python"),
    ],
)
@pytest.mark.slow
def test_parsing_student_text_costs_the_grader_little_memory(kind, items, said):
    """Does a hand-in whose one list literal would take GBs to parse cost the grading process under 250 MB, and say why?"""
    done = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT), kind, str(items)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout)
    assert said in measured["problems"]["ex05/gated.py"], measured
    assert measured["mb"] < 250, measured


def test_bounded_reading_gives_the_same_result_in_a_child(course, tmp_path, monkeypatch):
    """Is a notebook read in a limited child (as a large one is) read exactly as in this process?"""
    from grader.submissions import bounded

    text = notebook("def lstm_step(x):\n    return x  # \u00e9\ud800", "c_t = 0.5")
    for folder in ("here", "child"):
        (tmp_path / folder).mkdir()
    here = from_notebook(course, tmp_path / "here", "ex05", text)
    monkeypatch.setattr(bounded, "SMALL", 0)
    assert from_notebook(course, tmp_path / "child", "ex05", text) == here


@pytest.mark.slow
def test_a_child_that_runs_too_long_or_fails_is_said_so(monkeypatch):
    """Does bounded.run stop a child at its deadline (TooCostly), and raise a reader's own bug as the grader's?"""
    from grader.submissions import bounded

    monkeypatch.setattr(bounded, "SECONDS", 1.0)
    with pytest.raises(bounded.TooCostly, match="more than 1 s"):
        bounded.run(time.sleep, 30, size=bounded.SMALL + 1)
    with pytest.raises(RuntimeError, match="KeyError"):
        bounded.run({}.__getitem__, "x", size=bounded.SMALL + 1)
    assert bounded.run(len, "abc", size=bounded.SMALL + 1) == 3
