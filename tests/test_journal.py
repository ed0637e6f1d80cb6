"""The batch's journal as the TA's term keeps it: a row it can no longer read, a journal it cannot open, an OUT it cannot
write, and two batches into one OUT – each costs no student their grade and no change its single audit row."""

import csv
import fcntl
import io
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import ROOT, cli
from grader import api
from grader.errors import OutputError
from grader.store import journal

pytestmark = pytest.mark.slow  # each grades a class (answer sheets: a few seconds)

SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()


def graded(tmp_path: Path, course) -> tuple[Path, Path]:
    """A class of three, all full marks on ex01, graded into OUT: (SUBMISSIONS, OUT)."""
    klass, out = tmp_path / "class", tmp_path / "out"
    for name in ("ada", "bob", "cyd"):
        (klass / name / "ex01_cell_state").mkdir(parents=True)
        (klass / name / "ex01_cell_state" / "answers.toml").write_text(SHEET)
    batch(course, klass, out)
    return klass, out


def batch(course, klass: Path, out: Path):
    return api.batch(course=course, exercises=api.select(course, ["ex01"]), submissions=klass, out=out, workers=1)


def grades(out: Path) -> dict[str, str]:
    return {row["student"]: row["total"] for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def outputs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith("journal.sqlite")}


def audited(out: Path) -> list[tuple]:
    with sqlite3.connect(out / journal.FILE) as db:
        return db.execute("SELECT actor, cause, student, exercise, old, new, reason FROM audit ORDER BY n").fetchall()


def test_a_journal_row_that_cannot_be_read_is_graded_again_never_dropped(course, tmp_path):
    """bob's row edited by hand (cut short) while its key still matches: is he graded again and in grades.csv, rather
    than silently left out of it and of what was published?"""
    klass, out = graded(tmp_path, course)
    with sqlite3.connect(out / journal.FILE) as db:
        db.execute("UPDATE results SET row = substr(row, 1, 50) WHERE student = 'bob'")
    again = batch(course, klass, out)
    assert (again.graded, again.skipped) == (1, 2)
    assert grades(out) == {"ada": "6", "bob": "6", "cyd": "6"}


@pytest.mark.parametrize("damage", ["not sqlite", "truncated"])
def test_a_journal_sqlite_cannot_open_is_a_message_naming_it(course, tmp_path, damage):
    """A journal.sqlite replaced by another file or cut short: do batch, override and audit each say which file and
    what to do (exit 2), never a traceback?"""
    klass, out = graded(tmp_path, course)
    path = out / journal.FILE
    (out / "journal.sqlite-wal").unlink(missing_ok=True)
    if damage == "not sqlite":
        path.write_text("student,total\nbob,12\n")
    else:
        os.truncate(path, 3000)
    for args in (
        ["batch", str(klass), "--out", str(out), "--exercises", "ex01"],
        ["override", str(out), "bob", "ex01", "3", "--reason", "x"],
        ["audit", str(out)],
    ):
        done = cli(ROOT, *args)
        assert done.returncode == 2, done.stderr
        assert f"{path}: the journal cannot be opened and written" in " ".join(done.stderr.split()), done.stderr


def test_an_out_that_cannot_be_written_stops_the_batch_with_a_message_and_the_rerun_publishes_it_all(course, tmp_path, monkeypatch):
    """A disk that fills while reports are written: does the batch stop with an OutputError naming the file (no
    traceback), and does the next run give the files, changes.csv and audit trail of an uninterrupted run?"""
    from grader.batch import run
    from grader.term import overrides

    klass, out = graded(tmp_path, course)
    overrides.set_points(out=out, student="bob", exercise="ex01", points=3.0, reason="copied", by="ta")
    whole = tmp_path / "whole"
    shutil.copytree(out, whole)
    batch(course, klass, whole)
    write, written = run.write_atomic, []

    def full(path, text, **kw):
        written.append(path)
        if path.name == "grades.csv":
            raise OSError(28, "No space left on device")
        write(path, text, **kw)

    monkeypatch.setattr(run, "write_atomic", full)
    with pytest.raises(OutputError, match=r"grades\.csv: cannot be written \(No space left on device\)"):
        batch(course, klass, out)
    monkeypatch.setattr(run, "write_atomic", write)
    again = batch(course, klass, out)
    assert [(c.student, c.cause) for c in again.changes] == [("bob", "override")]
    assert outputs(out) == outputs(whole)
    assert audited(out) == audited(whole) == [("ta", "override", "bob", "ex01", 6.0, 3.0, "copied")]


def test_a_second_batch_into_the_same_out_is_refused_while_one_runs(course, tmp_path):
    """While another batch holds OUT, is a second one refused before it writes anything – two at once both compared
    against what was last published and wrote each change's audit row twice?"""
    from grader.term import overrides

    klass, out = graded(tmp_path, course)
    overrides.set_points(out=out, student="bob", exercise="ex01", points=3.0, reason="copied", by="ta")
    before = outputs(out)
    held = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # as a running batch holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match="another grade batch is writing it"):
            batch(course, klass, out)
        assert outputs(out) == before
    finally:
        os.close(held)
    assert [(c.student, c.cause) for c in batch(course, klass, out).changes] == [("bob", "override")]
    assert [cause for _, cause, *_ in audited(out)] == ["override"]
