"""A term's gradebook: due dates, extensions and the late policy, overrides and their audit trail, changes.csv, and the
Canvas and Moodle imports – every one applied after grading, from the journal, never by regrading."""

import csv
import datetime as dt
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, cli, course_toml
from grader.course import load_course
from grader.deadlines import Policy
from grader.errors import CourseError

EXERCISES = "ex01,ex03"  # answer sheets: no student process, so a batch takes seconds
DUE = "2026-12-10T23:59:00+08:00"  # 15:59 UTC
TERM = f"\n[deadlines]\ndue = {DUE}\n\n[late]\nper_day = 0.10\nmax_days = 3\n"
SHEETS = {folder: (ROOT / "solutions" / folder / "answers.toml").read_text() for folder in ("ex01_cell_state", "ex03_gru_arithmetic")}
STUDENTS = ["ada", "bob", "cyd", "dan", "eve"]


def course_copy(root: Path, term: str = TERM, *, edit: tuple[str, str, str] | None = None) -> Path:
    """The course (course.toml with `term` added, statements, references, the course tree) in `root`; `edit` = (file,
    old, new) changes one of its files."""
    for part in ("exercises", "solutions", "course"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "course.toml").write_text(course_toml() + term)
    if edit is not None:
        path = root / edit[0]
        assert edit[1] in path.read_text()
        path.write_text(path.read_text().replace(edit[1], edit[2]))
    return root


def stamp(when: str) -> str:
    """A time as nbgrader writes timestamp.txt (`%Y-%m-%d %H:%M:%S.%f %Z`, UTC)."""
    return dt.datetime.fromisoformat(when).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def sheets(folder: Path, *which: str) -> Path:
    for name in which:
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "answers.toml").write_text(SHEETS[name])
    return folder


def batch(course: Path, klass: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return grade(course, "batch", str(klass), "--out", str(out), "--exercises", EXERCISES, *args)


def grade(course: Path, *args: str) -> subprocess.CompletedProcess:
    """`grade ARGS` run in `course`, its stderr as one line (the terminal's wrapping undone)."""
    done = cli(course, *args)
    done.stderr = " ".join(done.stderr.split())
    return done


def grades(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def journaled(out: Path) -> dict[str, tuple[str, str]]:
    """student -> (key, row) as the journal holds them: equal before and after a run that regraded no one."""
    with sqlite3.connect(out / "journal.sqlite") as db:
        return {s: (k, r) for s, k, r in db.execute("SELECT student, key, row FROM results")}


def outputs(out: Path) -> dict[str, bytes]:
    """Every file a batch publishes (not the journal)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith("journal.sqlite")}


@pytest.fixture(scope="module")
def term(tmp_path_factory) -> dict[str, Path]:
    """A course due 2026-12-10 23:59+08:00 (10% a started day, none after 3 days) and a class graded with two workers:
    ada on time, bob a day late (ex03) and two (ex01, its own timestamp), cyd without a time, dan five days late in a
    zip with one top folder, eve in nbgrader's tree (submitted/eve/ex01/ex01.ipynb beside its timestamp.txt)."""
    base = tmp_path_factory.mktemp("term")
    course, klass = course_copy(base / "course"), base / "class"
    sheets(klass / "ada", *SHEETS)
    (klass / "ada" / "timestamp.txt").write_text(stamp("2026-12-10T15:00:00+00:00"))
    sheets(klass / "bob", *SHEETS)
    (klass / "bob" / "timestamp.txt").write_text(stamp("2026-12-11T10:00:00+00:00"))
    (klass / "bob" / "ex01_cell_state" / "timestamp.txt").write_text(stamp("2026-12-12T10:00:00+00:00"))
    sheets(klass / "cyd", "ex01_cell_state")
    dan = sheets(base / "dan-src" / "homework", *SHEETS)
    (dan / "timestamp.txt").write_text(stamp("2026-12-15T10:00:00+00:00"))
    with zipfile.ZipFile(klass / "dan.zip", "w") as zf:
        for path in sorted(p for p in dan.rglob("*") if p.is_file()):
            zf.write(path, str(path.relative_to(dan.parent)))
    lines = [line.split("#")[0].rstrip() for line in SHEETS["ex01_cell_state"].splitlines() if "=" in line]
    (klass / "eve" / "ex01").mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("\n".join(lines))]), klass / "eve" / "ex01" / "ex01.ipynb")
    (klass / "eve" / "ex01" / "timestamp.txt").write_text(stamp("2026-12-11T15:00:00+00:00"))  # 23:00 at +08:00: 1 day late
    out = base / "out"
    done = batch(course, klass, out, "--workers", "2")
    assert done.returncode == 0, done.stderr
    return {"course": course, "class": klass, "out": out, "stderr": done.stderr, "base": base}


def rerun_copy(term, tmp_path: Path, *args: str, course: Path | None = None) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the graded batch, run again (over `course`, else the term's own) with `args`."""
    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    return out, batch(course or term["course"], term["class"], out, *args)


@pytest.mark.slow
def test_nbgrader_timestamps_set_each_exercises_penalty(term):
    """Does each student lose 10% of an exercise's points per started day late, as nbgrader's timestamp.txt says (the
    exercise's own before the entry's; in a folder, a zip and nbgrader's tree), and everything past 3 days?"""
    g = grades(term["out"])
    assert sorted(g) == STUDENTS
    assert (g["ada"]["total"], g["ada"]["raw_total"], g["ada"]["late_days"]) == ("12", "12", "0")
    assert (g["bob"]["ex01"], g["bob"]["ex03"], g["bob"]["total"], g["bob"]["raw_total"], g["bob"]["late_days"]) == ("4.8", "5.4", "10.2", "12", "2")
    assert (g["dan"]["total"], g["dan"]["raw_total"], g["dan"]["late_days"]) == ("0", "12", "5")
    assert (g["eve"]["ex01"], g["eve"]["late_days"]) == ("5.4", "1")


@pytest.mark.slow
def test_a_student_without_a_submission_time_is_named_never_silent(term):
    """Is a student with no time graded without penalty and named on stderr, in summary.md and in their report?"""
    assert grades(term["out"])["cyd"]["total"] == "6"
    assert re.search(r"no submission time.*: cyd", term["stderr"]), term["stderr"]
    assert "No submission time (graded without late penalty) (1): cyd." in (term["out"] / "summary.md").read_text()
    summary = json.loads((term["out"] / "summary.json").read_text())
    assert (summary["no_submission_time"], summary["late"]) == (["cyd"], ["bob", "dan", "eve"])
    assert json.loads((term["out"] / "reports" / "cyd.json").read_text())["extra_data"]["no_submission_time"] is True
    assert "3 late, 0 overridden" in term["stderr"]


@pytest.mark.slow
def test_feedback_and_report_show_due_date_days_late_penalty_and_final_points(term):
    """Do bob's feedback and JSON report say, per exercise, the due date used, the days late, raw points, the penalty
    and the final points, the report's score being the final total?"""
    text = (term["out"] / "feedback" / "bob.md").read_text()
    assert "## ex01 Cell-state arithmetic — 4.8/6" in text and "**Total: 10.2/12 points**" in text
    assert "Due 2026-12-10 23:59+08:00; handed in 2026-12-12 18:00+08:00: 2 days late. Graded 6 points, late penalty 1.2, final 4.8." in text
    report = json.loads((term["out"] / "reports" / "bob.json").read_text())
    ex01 = report["extra_data"]["exercises"][0]
    assert (report["score"], report["extra_data"]["late_days"]) == (10.2, 2)
    assert (ex01["score"], ex01["raw_score"], ex01["days_late"], ex01["penalty"], ex01["extended"]) == (4.8, 6, 2, 1.2, False)
    assert dt.datetime.fromisoformat(ex01["due"]) == dt.datetime.fromisoformat(DUE) and ex01["override"] is None


def test_feedback_speaks_the_course_language():
    """Is the late note and an override's reason written in Chinese for a course whose language is zh?"""
    from grader.results import Adjustment
    from grader.term.finals import describe

    late = describe(Adjustment(6, 2, 1.2, DUE, True, "2026-12-12T10:00:00+00:00"), 4.8).render("zh")
    assert "截止时间 2026-12-10 23:59+08:00（你的延期）" in late and "迟交 2 天" in late and "最终 4.8 分" in late
    staff = describe(Adjustment(6, override=3, reason="（b）部分给分"), 3).render("zh")
    assert "课程教师调整了你的分数：（b）部分给分" in staff


@pytest.mark.slow
def test_submitted_at_comes_before_timestamp_txt(term, tmp_path):
    """With --submitted-at, does its time replace timestamp.txt's – recomputed from the journal, no one regraded – and
    does changes.csv list what moved, with the cause?"""
    times = tmp_path / "times.csv"
    times.write_text("student,submitted_at\nbob,2026-12-10T20:00:00+08:00\ncyd,2026-12-11T00:30:00+08:00\n")
    before = journaled(term["out"])
    out, done = rerun_copy(term, tmp_path, "--submitted-at", str(times))
    assert done.returncode == 0 and "0 graded, 5 unchanged" in done.stderr, done.stderr
    assert journaled(out) == before
    g = grades(out)
    assert (g["bob"]["total"], g["cyd"]["total"], g["cyd"]["late_days"]) == ("12", "5.4", "1")
    changed = list(csv.DictReader(io.StringIO((out / "changes.csv").read_text())))
    assert changed == [
        {"student": "bob", "exercise": "ex01", "old": "4.8", "new": "6", "cause": "late policy"},
        {"student": "bob", "exercise": "ex03", "old": "5.4", "new": "6", "cause": "late policy"},
        {"student": "cyd", "exercise": "ex01", "old": "6", "new": "5.4", "cause": "late policy"},
    ]
    assert "final points changed for 2 students" in done.stderr and "| bob | ex01 | 4.8 | 6 | late policy |" in (out / "changes.md").read_text()


TERM_FILES = {
    "--submitted-at": "student,submitted_at\ncyd,2026-12-11T00:30:00+08:00\n",  # cyd a day late
    "--extensions": "student,exercise,due\nbob,*,2026-12-13T23:59:00+08:00\n",
}  # bob on time


def term_files(folder: Path, texts: dict[str, str] = TERM_FILES) -> list[str]:
    """The options and files of a run given the term's CSV files `texts` (option -> the file's text)."""
    args = []
    for n, (option, text) in enumerate(texts.items()):
        (folder / f"{n}.csv").write_text(text)
        args += [option, str(folder / f"{n}.csv")]
    return args


@pytest.mark.slow
def test_a_run_without_the_term_files_keeps_the_ones_given_before(term, tmp_path):
    """After a run with --submitted-at and --extensions, do a run of one student (--student) and `grade reseed
    --submissions`, neither given the files, keep every student's penalties as those files make them (saying so), and
    does a file with its header alone remove them?"""
    out, done = rerun_copy(term, tmp_path, *term_files(tmp_path))
    assert done.returncode == 0 and (grades(out)["cyd"]["total"], grades(out)["bob"]["total"]) == ("5.4", "12"), done.stderr
    one = cli(term["course"], "batch", str(term["class"]), "--out", str(out), "--exercises", EXERCISES, "--student", "bob")  # stderr as printed
    assert one.returncode == 0 and "1 graded, 4 unchanged" in " ".join(one.stderr.split()), one.stderr
    kept = [line for line in one.stderr.splitlines() if line.startswith("warning: ")]
    assert [line.split()[1] for line in kept] == ["--submitted-at", "--extensions"], one.stderr  # one line per kept file, however narrow
    assert all(line.endswith("still counts; a header-only file removes it") for line in kept), one.stderr
    assert (grades(out)["cyd"]["total"], grades(out)["bob"]["total"]) == ("5.4", "12")
    assert len([e for e in audit_entries(out) if e["cause"] == "late policy"]) == 3  # the first run's, no more
    course = sheets_only(course_copy(tmp_path / "course", edit=("course.toml", 'enabled = false\nsalt = ""', 'enabled = true\nsalt = "t"')))
    reseeded = grade(course, "reseed", str(out), "bob", "--reason", "numbers leaked", "--submissions", str(term["class"]))
    assert reseeded.returncode == 0 and "regraded bob" in reseeded.stdout, reseeded.stdout + reseeded.stderr
    assert (grades(out)["cyd"]["total"], grades(out)["bob"]["late_days"]) == ("5.4", "0")
    removed = batch(term["course"], term["class"], out, *term_files(tmp_path, {"--submitted-at": "student,submitted_at\n"}))
    assert removed.returncode == 0 and "--submitted-at not given" not in removed.stderr, removed.stderr
    assert (grades(out)["cyd"]["total"], grades(out)["bob"]["total"]) == ("6", "12")


@pytest.mark.slow
def test_a_final_score_the_term_rules_change_is_an_audit_row(term, tmp_path):
    """Is each final score that a hand-in time or an extension changed an audit row (cause "late policy", old and new
    final points, the due date and hand-in time as the reason), written with what the run published?"""
    out, done = rerun_copy(term, tmp_path, *term_files(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = {(e["student"], e["exercise"]): e for e in audit_entries(out) if e["cause"] == "late policy"}
    assert len(rows) == 3, rows
    assert (rows["cyd", "ex01"]["old"], rows["cyd", "ex01"]["new"]) == (6, 5.4)
    assert rows["cyd", "ex01"]["reason"].startswith("Due 2026-12-10 23:59+08:00; handed in 2026-12-11 00:30+08:00: 1 day late.")
    assert rows["bob", "ex01"]["reason"].startswith("Due 2026-12-13 23:59+08:00 (the student's extension)")  # worded for the TA, not "your"
    again = batch(term["course"], term["class"], out)
    assert again.returncode == 0 and len([e for e in audit_entries(out) if e["cause"] == "late policy"]) == 3


@pytest.mark.slow
def test_an_extension_moves_that_students_due_date_alone(term, tmp_path):
    """Does --extensions move one student's due date for every exercise (`*`) or one, say so in their feedback, and
    leave the others' penalties as they were?"""
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,exercise,due\nbob,*,2026-12-13T23:59:00+08:00\ndan,ex03,2026-12-16T00:00:00+08:00\n")
    out, done = rerun_copy(term, tmp_path, "--extensions", str(extensions))
    assert done.returncode == 0 and "0 graded" in done.stderr, done.stderr
    g = grades(out)
    assert (g["bob"]["total"], g["dan"]["ex01"], g["dan"]["ex03"], g["eve"]["ex01"]) == ("12", "0", "6", "5.4")
    assert "Due 2026-12-13 23:59+08:00 (your extension); handed in" in (out / "feedback" / "bob.md").read_text()


@pytest.mark.slow
def test_changing_the_due_date_recomputes_everyone_and_regrades_no_one(term, tmp_path):
    """After course.toml's due date moves a day later, does a rerun give every student's new final points without
    regrading anyone (the journal untouched), and does a second rerun leave changes.csv as it was?"""
    course = course_copy(tmp_path / "course", TERM.replace("2026-12-10T23:59", "2026-12-11T23:59"))
    before = journaled(term["out"])
    out, done = rerun_copy(term, tmp_path, course=course)
    assert done.returncode == 0 and "0 graded, 5 unchanged" in done.stderr, done.stderr
    assert journaled(out) == before
    g = grades(out)
    assert (g["bob"]["ex01"], g["bob"]["ex03"], g["eve"]["ex01"], g["dan"]["total"]) == ("5.4", "6", "6", "0")
    assert "Due 2026-12-11 23:59+08:00" in (out / "feedback" / "bob.md").read_text()
    first = (out / "changes.csv").stat().st_mtime_ns, (out / "changes.csv").read_bytes()
    again = batch(course, term["class"], out)
    assert again.returncode == 0 and "final points changed" not in again.stderr, again.stderr
    assert ((out / "changes.csv").stat().st_mtime_ns, (out / "changes.csv").read_bytes()) == first


KILL = """
import os, signal, sys
from grader.batch import run
from grader.store import published
where = sys.argv.pop(1)
if where == "between reports":
    write, written = run._write_student, []
    def dying(out, row):
        write(out, row)
        written.append(row)
        if len(written) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    run._write_student = dying
else:
    published.publish = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from grader.cli import main
main()
"""


@pytest.mark.parametrize("where", ["between reports", "before the journal records what was published"])
@pytest.mark.slow
def test_kill_9_during_a_rerun_after_a_date_change(term, tmp_path, where):
    """Killed with SIGKILL in the middle of a rerun after a date change, does the next rerun give byte for byte the
    outputs (grades, reports, feedback, changes.csv) of an uninterrupted one, regrading no one?"""
    course = course_copy(tmp_path / "course", TERM.replace("2026-12-10T23:59", "2026-12-11T23:59"))
    whole, done = rerun_copy(term, tmp_path / "whole", course=course)
    assert done.returncode == 0, done.stderr
    killed = tmp_path / "killed"
    shutil.copytree(term["out"], killed)
    dying = subprocess.run(
        [sys.executable, "-c", KILL, where, "batch", str(term["class"]), "--out", str(killed), "--exercises", EXERCISES],
        capture_output=True,
        text=True,
        cwd=course,
        timeout=600,
    )
    assert dying.returncode == -9, dying.stderr
    if where == "between reports":
        assert outputs(killed) != outputs(whole)  # it died half-way
    resumed = batch(course, term["class"], killed)
    assert resumed.returncode == 0 and "0 graded, 5 unchanged" in resumed.stderr, resumed.stderr
    assert "final points changed for 2 students" in resumed.stderr  # nothing was taken as published
    assert outputs(killed) == outputs(whole)


@pytest.mark.slow
def test_one_and_two_workers_give_identical_results(term, tmp_path):
    """Does --workers 1 publish byte for byte what --workers 2 did: grades, reports, feedback and the summary?"""
    one = tmp_path / "one"
    done = batch(term["course"], term["class"], one, "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert outputs(one) == outputs(term["out"])


def audit_rows(out: Path, *args: str) -> list[str]:
    """`grade audit`'s table, its header line left out (or its one line saying nothing changed)."""
    done = grade(ROOT, "audit", str(out), *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines[1:] if lines[0].startswith("at (UTC)") else lines


def audit_entries(out: Path, *args: str) -> list[dict]:
    """`grade audit --json`: the rows, every field as the journal keeps it."""
    done = grade(ROOT, "audit", str(out), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_an_override_replaces_the_final_points_and_is_on_record(term, tmp_path):
    """Does an override set bob's final points (no late penalty on top) at the next rerun, show its reason in his
    feedback, survive a rerun, and – cleared – give back the penalized points, each step an audit row and a change?"""
    from grader.store import audit

    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    done = grade(ROOT, "override", str(out), "bob", "ex01", "5.5", "--reason", "c_t was right, h_t a typo", "--by", "ta-li")
    assert done.returncode == 0 and "bob ex01: 4.8 -> 5.5" in done.stdout, done.stdout + done.stderr
    assert grades(out)["bob"]["ex01"] == "4.8"  # published at the next rerun
    rerun = batch(term["course"], term["class"], out)
    assert "0 graded" in rerun.stderr and "3 late, 1 overridden" in rerun.stderr, rerun.stderr
    assert (grades(out)["bob"]["ex01"], grades(out)["bob"]["raw_total"]) == ("5.5", "12")
    assert "adjusted by the course staff: c\\_t was right, h\\_t a typo — 5.5 points" in (out / "feedback" / "bob.md").read_text()
    assert list(csv.reader(io.StringIO((out / "changes.csv").read_text())))[1:] == [["bob", "ex01", "4.8", "5.5", "override"]]
    assert json.loads((out / "reports" / "bob.json").read_text())["extra_data"]["overridden"] == ["ex01"]
    assert "Scores adjusted by the course staff (1): bob." in (out / "summary.md").read_text()
    batch(term["course"], term["class"], out)
    assert grades(out)["bob"]["ex01"] == "5.5"
    cleared = grade(ROOT, "override", str(out), "bob", "ex01", "--clear", "--reason", "regraded by hand: the typo counts")
    assert cleared.returncode == 0, cleared.stderr
    batch(term["course"], term["class"], out)
    assert grades(out)["bob"]["ex01"] == "4.8"
    assert list(csv.reader(io.StringIO((out / "changes.csv").read_text())))[1:] == [["bob", "ex01", "5.5", "4.8", "override cleared"]]
    rows = audit_entries(out, "--student", "bob")
    assert [(e["actor"], e["cause"], e["student"], e["exercise"], e["old"], e["new"]) for e in rows] == [
        ("ta-li", "override", "bob", "ex01", 4.8, 5.5),
        (audit.login(), "override cleared", "bob", "ex01", 5.5, None),
    ]
    assert rows[0]["reason"] == "c_t was right, h_t a typo" and rows[1]["course_hash"]
    table = audit_rows(out, "--student", "bob")
    assert len(table) == 2 and table[0].split()[2:7] == ["ta-li", "override", "bob", "ex01", "4.8"] and table[1].endswith("regraded by hand: the typo counts")
    assert audit_rows(out, "--student", "ada") == ["no score has changed for ada yet"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bob", "ex01", "6.5"], "ex01 is worth 0 to 6 points, got 6.5"),
        (["bob", "ex01", "6.0000001"], "ex01 is worth 0 to 6 points, got 6.0000001"),
        (["bob", "ex01", "--", "-1"], "ex01 is worth 0 to 6 points, got -1"),
        (["zed", "ex01", "1"], "no student zed"),
        (["bob", "ex05", "1"], "no exercise ex05 in this batch; graded here: ex01, ex03"),
        (["--clear", "bob", "ex01", "1"], "give POINTS, or --clear without POINTS"),
        (["--clear", "ada", "ex01"], "ada has no override of ex01 to clear"),
    ],
)
@pytest.mark.slow
def test_an_override_that_cannot_be_is_refused(term, args, message):
    """Is an override out of the exercise's range, of an unknown student or exercise, or a clear of nothing a usage
    error (exit 2) that says so, with nothing recorded?"""
    done = grade(ROOT, "override", "--reason", "r", str(term["out"]), *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert audit_rows(term["out"]) == ["no score has changed yet"]


@pytest.mark.slow
def test_an_override_takes_the_id_as_grades_csv_shows_it(term, tmp_path):
    """Is student -bob, whom grades.csv shows as '-bob (a spreadsheet would run -bob), overridden by either form, and
    is their history printed by `grade audit --student` in either form – where '-bob said "no score has changed"?"""
    klass = sheets(tmp_path / "class" / "-bob", *SHEETS).parent
    out = tmp_path / "out"
    assert batch(term["course"], klass, out).returncode == 0
    assert list(grades(out)) == ["'-bob"]
    for shown, points in (("'-bob", "5"), ("-bob", "4")):
        done = grade(ROOT, "override", "--reason", "r", "--", str(out), shown, "ex01", points)
        assert done.returncode == 0, done.stderr
    assert [(e["student"], e["exercise"], e["old"], e["new"]) for e in audit_entries(out)] == [("-bob", "ex01", 6, 5), ("-bob", "ex01", 5, 4)]
    for shown in ("'-bob", "-bob"):
        done = grade(ROOT, "audit", str(out), "--student", shown, "--json")
        assert done.returncode == 0 and [(e["student"], e["new"]) for e in json.loads(done.stdout)] == [("-bob", 5), ("-bob", 4)], done.stdout


@pytest.mark.slow
def test_an_override_of_a_name_that_is_two_students_is_refused(term, tmp_path):
    """With -bob and '-bob both in the journal (two runs into OUT), is `grade override '-bob'` – '-bob as typed, and
    -bob as grades.csv shows it – refused naming both, where it changed the other student's points?"""
    out = tmp_path / "out"
    for name in ("-bob", "'-bob"):
        klass = sheets(tmp_path / name / name, *SHEETS).parent
        assert batch(term["course"], klass, out).returncode == 0
    done = grade(ROOT, "override", "--reason", "r", "--", str(out), "'-bob", "ex01", "5")
    assert done.returncode == 2, done.stderr
    assert "'-bob is two students of its journal, '-bob and -bob (shown as '-bob in grades.csv); nothing changed" in done.stderr, done.stderr
    # the second run's class left -bob out of the grades (audited as such); no override was recorded
    assert [r.split()[3] for r in audit_rows(out)] == ["no", "no"] and not any(" override " in r for r in audit_rows(out)), audit_rows(out)


def test_override_needs_a_batch_and_a_reason(tmp_path):
    """Does `grade override` refuse a folder with no journal (saying to grade first) and an override without --reason?"""
    done = grade(ROOT, "override", str(tmp_path), "bob", "ex01", "1", "--reason", "r")
    assert done.returncode == 2 and "no journal.sqlite here; grade the class into it first" in done.stderr
    assert not (tmp_path / "journal.sqlite").exists()
    done = grade(ROOT, "override", str(tmp_path), "bob", "ex01", "1")
    assert done.returncode == 2 and "--reason" in done.stderr


def test_an_audit_row_of_text_that_is_no_utf8_is_refused_before_it_is_written(tmp_path):
    """Is a --reason (or an id) holding a byte that is not UTF-8 – a lone surrogate, as the shell passes it on – a
    usage error naming the field, with nothing written, not a traceback from the journal?"""
    from grader.errors import OutputError
    from grader.store import audit
    from grader.store.journal import Journal

    journal = Journal(tmp_path)
    for field, bad in (("reason", {"reason": "late \udcff again"}), ("student", {"student": "b\udcffob"})):
        with pytest.raises(OutputError, match=field):
            audit.record(journal, **{"cause": "override", "student": "bob", "exercise": "ex05", "old": 3.0, "new": 4.0, "reason": "why"} | bad)
    assert audit.history(journal) == []
    journal.close()


def test_audit_rows_are_append_only(tmp_path):
    """Can an audit row be neither changed nor deleted, even by SQL on the journal itself?"""
    from grader.store import audit
    from grader.store.journal import Journal

    journal = Journal(tmp_path)
    audit.record(journal, cause="reseed", student="bob", exercise="ex05", old=3.0, new=4.0, reason="a new variant")
    for sql in ("UPDATE audit SET new = 14", "DELETE FROM audit"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            journal.execute(sql)
    assert [(e.cause, e.old, e.new, e.actor != "") for e in audit.history(journal)] == [("reseed", 3.0, 4.0, True)]
    journal.close()


def test_an_audit_row_cannot_be_replaced_by_insert_or_replace(tmp_path):
    """Is INSERT OR REPLACE of an existing row's n – which deletes the row without firing a delete trigger – refused, the
    row left as written?"""
    from grader.store import audit
    from grader.store.journal import Journal

    journal = Journal(tmp_path)
    audit.record(journal, cause="override", student="bob", exercise="ex05", old=3.0, new=4.0, reason="r")
    (n,) = [e.n for e in audit.history(journal)]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        journal.execute("INSERT OR REPLACE INTO audit VALUES (?, 'then', 'x', 'override', 'bob', 'ex05', 3, 14, 'r', '', '')", (n,))
    assert [(e.n, e.new) for e in audit.history(journal)] == [(n, 4.0)]
    journal.close()


@pytest.mark.slow
def test_a_new_upload_is_regraded_on_record(term, tmp_path):
    """Is a student whose upload changed regraded alone, the raw change an audit row saying "a new submission" and a
    row of changes.csv, with the late penalty applied to the new points?"""
    klass = tmp_path / "class"
    shutil.copytree(term["class"], klass)
    sheet = klass / "bob" / "ex01_cell_state" / "answers.toml"
    sheet.write_text(re.sub(r"^c_t = .*$", "c_t = 2.5", sheet.read_text(), count=1, flags=re.M))  # a wrong c_t
    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    done = batch(term["course"], klass, out)
    assert done.returncode == 0 and "1 graded, 4 unchanged" in done.stderr, done.stderr
    change = next(csv.DictReader(io.StringIO((out / "changes.csv").read_text())))
    assert (change["student"], change["exercise"], change["old"], change["cause"]) == ("bob", "ex01", "4.8", "new submission")
    assert float(change["new"]) == round(float(grades(out)["bob"]["raw_total"]) - 6 - 0.2 * 6, 4)  # still 2 days late
    (row,) = audit_entries(out)
    assert (row["cause"], row["student"], row["exercise"], row["old"]) == ("regrade", "bob", "ex01", 6) and "a new submission" in row["reason"]


KEY_FIX = ("course/ex03/checks.py", '"direct_factor": z,', '"direct_factor": 1 - z,')  # a hidden check's key, changed


@pytest.mark.slow
def test_a_changed_answer_key_regrades_on_record_and_keeps_an_override(term, tmp_path):
    """After the answer key (what the hidden checks compare with) changes, is every student regraded, each raw change an audit row, and does bob's override
    stay, the raw change under it listed in changes.csv for the TA?"""
    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    assert grade(ROOT, "override", str(out), "bob", "ex03", "4", "--reason", "r").returncode == 0
    assert "0 graded" in batch(term["course"], term["class"], out).stderr  # the override published
    course = course_copy(tmp_path / "course", edit=KEY_FIX)
    done = batch(course, term["class"], out)
    assert done.returncode == 0 and "5 graded, 0 unchanged" in done.stderr, done.stderr
    g = grades(out)
    assert g["bob"]["ex03"] == "4" and float(g["ada"]["ex03"]) < 6 and float(g["bob"]["raw_total"]) < 12
    changed = {(c["student"], c["exercise"]): c for c in csv.DictReader(io.StringIO((out / "changes.csv").read_text()))}
    assert changed[("bob", "ex03")]["cause"] == "regrade under override" and changed[("bob", "ex03")]["old"] == "6"
    assert changed[("ada", "ex03")]["cause"] == "course changed"
    regrades = [e for e in audit_entries(out) if e["cause"] == "regrade"]
    assert sorted(e["student"] for e in regrades) == ["ada", "bob", "dan"]
    assert all("the course changed" in e["reason"] for e in regrades)
    assert "regrade under override" in (out / "changes.md").read_text()
    assert "raw points changed under an override, which stays: bob ex03 6 -> " in done.stderr


@pytest.mark.parametrize(
    ("option", "text", "message"),
    [
        ("--submitted-at", "student,submitted_at\nbob,2026-12-10T20:00:00\n", "line 2: submitted_at: 2026-12-10T20:00:00 has no time zone"),
        ("--submitted-at", "student,when\nbob,2026-12-10T20:00:00+08:00\n", "line 1: no column submitted_at"),
        ("--submitted-at", "student,submitted_at\nbob,yesterday\n", "line 2: submitted_at: not an ISO 8601 date-time"),
        ("--extensions", "student,exercise,due\nbob,ex99,2026-12-13T23:59:00+08:00\n", "line 2: unknown exercise 'ex99'"),
        (
            "--submitted-at",
            "student,submitted_at\ndave,0001-01-01T00:00:00+14:00\n",
            "line 2: submitted_at: 0001-01-01T00:00:00+14:00 is outside the years 1900 to 9000",
        ),
        (
            "--extensions",
            "student,exercise,due\ndave,*,9999-12-31T23:59:00-10:00\n",
            "line 2: due: 9999-12-31T23:59:00-10:00 is outside the years 1900 to 9000",
        ),
        ("--extensions", "student,exercise,due\nbob,*,2026-12-13T23:59:00+08:00\nbob,*,2026-12-14T23:59:00+08:00\n", "line 3: a second extension of bob"),
    ],
)
@pytest.mark.slow
def test_a_malformed_term_file_is_a_clear_error(term, tmp_path, option, text, message):
    """Is a malformed --submitted-at or --extensions file a usage error naming the file, the line and the problem,
    before OUT is made?"""
    path = tmp_path / "term.csv"
    path.write_text(text)
    done = batch(term["course"], term["class"], tmp_path / "out", option, str(path))
    assert done.returncode == 2 and f"{path}, {message}" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("read", "text", "message"),
    [
        ("submitted_at", "student,submitted_at,student\nbob,2026-12-12T10:00:00+08:00,alice\n", "line 1: the header names column student twice"),
        ("extensions", "student,exercise,due,exercise\nbob,ex01,2026-12-20T00:00:00+08:00,ex05\n", "line 1: the header names column exercise twice"),
        (
            "submitted_at",
            "student,submitted_at\nbob,2026-12-12T10:00:00+08:00\nBOB,2026-12-09T10:00:00+08:00\n",
            "line 3: student BOB a second time (line 2 has bob: one student in any capitals)",
        ),
        (
            "extensions",
            "student,exercise,due\nBob@x.edu,*,2026-12-20T00:00:00+08:00\nbob@x.edu,*,2026-12-01T00:00:00+08:00\n",
            "line 3: a second extension of bob@x.edu for * (line 2 has Bob@x.edu: one student in any capitals)",
        ),
    ],
)
def test_a_term_file_that_names_one_thing_twice_is_refused(tmp_path, read, text, message):
    """Is a --submitted-at or --extensions file whose header names a column twice (each row's cell was the last such
    column's: bob's time given to alice), or that gives one student two lines in other capitals (a batch's `bob/` and
    `Bob.zip` are one student, and Gradescope read the last line's, an extension of bob@x.edu ending before the course's
    due date), an error naming the file and line?"""
    from grader.term import times
    from grader.term.csvin import TermFileError

    path = tmp_path / "term.csv"
    path.write_text(text)
    with pytest.raises(TermFileError) as error:
        times.submitted_at(path) if read == "submitted_at" else times.extensions(path, ["ex01", "ex05"])
    assert f"{path}, {message}" in str(error.value)


@pytest.mark.parametrize(
    ("term_text", "message"),
    [
        ("\n[deadlines]\ndue = 2026-12-10T23:59:00\n", "deadlines.due: 2026-12-10T23:59:00 has no time zone"),
        ("\n[deadlines]\ndue = 2026-12-10\n", "deadlines.due: expected a date-time with its time zone"),
        ("\n[deadlines]\nex99 = 2026-12-10T23:59:00Z\n", "[deadlines]: unknown key(s) ex99"),
        (f"\n[deadlines]\ndue = {DUE}\n[late]\nper_day = 1.5\n", "late.per_day: a share of the exercise's points, between 0 and 1"),
        (f"\n[deadlines]\ndue = {DUE}\n[late]\nper_dya = 0.1\n", "[late]: unknown key(s) per_dya"),
        (f"\n[deadlines]\ndue = {DUE}\n[late]\nmax_days = 2.5\n", "late.max_days: expected a whole number"),
        ("\n[late]\nper_day = 0.1\n", "[late] without [deadlines]"),
        (f"\n[deadlines]\ndue = {DUE}\n[late]\ngrace_minutes = 1e300\n", "late.grace_minutes: at most 527040 (a year), got 1e+300"),
        ("\n[deadlines]\ndue = 9999-12-31T23:59:00-10:00\n", "deadlines.due: 9999-12-31T23:59:00-10:00 is outside the years"),
    ],
)
def test_course_toml_term_errors_name_the_key(tmp_path, term_text, message):
    """Are a date-time without offset, an unknown key and a share outside [0, 1] errors that name the key?"""
    (tmp_path / "course.toml").write_text(course_toml())
    with open(tmp_path / "course.toml", "a") as f:
        f.write(term_text)
    for exercise in load_course(ROOT).exercises:
        (tmp_path / "exercises" / exercise.folder).mkdir(parents=True)
    with pytest.raises(CourseError) as error:
        load_course(tmp_path)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "text",
    [
        "9999-12-31 23:59:00.000000 UTC",
        "0001-01-01 00:00:00.000000 UTC",
        "2026-12-10 15:00:00.000000 PST",
        "2026-12-10 15:00:00.000000 CST",
        "2026-12-10 15:00:00.000000",
        "2026-12-10",
        "2026-12-10 15:00:00.000000 +0800",
    ],
)
def test_an_unusable_timestamp_costs_that_student_their_time_alone(tmp_path, text):
    """Is a timestamp.txt that no time zone can show (year 9999), or that is not nbgrader's UTC (another zone's
    abbreviation, no zone, a date alone), that student's "timestamp unreadable" warning, naming them and the text?"""
    from grader.term.times import hand_ins

    (tmp_path / "frank").mkdir()
    (tmp_path / "frank" / "timestamp.txt").write_text(text + "\n")
    found, problem = hand_ins(tmp_path / "frank", [("ex01", "ex01_cell_state")], None)
    assert found == {} and problem.startswith("frank/timestamp.txt: timestamp unreadable") and repr(text) in problem, problem


def test_nbgraders_own_timestamp_is_read_as_utc(tmp_path):
    """Is timestamp.txt as nbgrader writes it (UTC, with or without its microseconds) read as that UTC time?"""
    from grader.term.times import hand_ins

    for n, text in enumerate(("2026-12-10 15:00:00.250000 UTC", "2026-12-10 15:00:00 UTC")):
        (tmp_path / str(n)).mkdir()
        (tmp_path / str(n) / "timestamp.txt").write_text(text)
        found, problem = hand_ins(tmp_path / str(n), [("ex01", "ex01_cell_state")], None)
        assert problem == "" and found["ex01"].at == dt.datetime(2026, 12, 10, 15, 0, 0, 250000 * (n == 0), tzinfo=dt.UTC)


def zip_with_timestamp(path: Path, *, flag: int = 0, method: int = zipfile.ZIP_STORED) -> Path:
    """A hand-in zip whose timestamp.txt has the general-purpose `flag` bits and compression `method` in its headers."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ex01_cell_state/answers.toml", SHEETS["ex01_cell_state"])
        zf.writestr("timestamp.txt", stamp("2026-12-10T15:00:00+00:00"))
    data = bytearray(path.read_bytes())
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local header, central directory entry
        start = data.rfind(signature)  # timestamp.txt is the last of each
        data[start + at : start + at + 4] = flag.to_bytes(2, "little") + method.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(("flag", "method"), [(1, zipfile.ZIP_STORED), (0, 99)])
def test_a_zip_whose_timestamp_cannot_be_read_costs_that_student_their_time_alone(tmp_path, flag, method):
    """Is a zip whose timestamp.txt is encrypted, or compressed in a way zipfile lacks, that student's "timestamp
    unreadable" warning rather than an error?"""
    from grader.term.times import hand_ins

    found, problem = hand_ins(zip_with_timestamp(tmp_path / "frank.zip", flag=flag, method=method), [("ex01", "ex01_cell_state")], None)
    assert found == {} and problem.startswith("frank.zip: timestamp unreadable"), problem


def test_lateness_counts_started_days_after_the_grace():
    """Is a minute past the grace one day late, a day and a minute two, and past max_days the whole exercise?"""
    due = dt.datetime.fromisoformat(DUE)
    policy = Policy(due, {"ex08": due + dt.timedelta(days=7)}, per_day=0.1, max_days=3, grace=dt.timedelta(minutes=10))
    late = {m: policy.lateness("ex01", due + dt.timedelta(minutes=m)) for m in (-60, 10, 11, 1450, 1451, 4 * 1440 + 11)}
    assert {m: (x.days, round(x.share, 4)) for m, x in late.items() if x} == {
        -60: (0, 0),
        10: (0, 0),
        11: (1, 0.1),
        1450: (1, 0.1),
        1451: (2, 0.2),
        5771: (5, 1.0),
    }
    assert policy.lateness("ex08", due + dt.timedelta(days=2)).days == 0  # its own due date
    extended = policy.lateness("ex01", due + dt.timedelta(days=2), due + dt.timedelta(days=3))
    assert (extended.days, extended.extended) == (0, True)


def test_changing_only_the_term_tables_keeps_the_course_hash(tmp_path):
    """Is the course's hash – what regrades everyone – the same whatever [deadlines] and [late] say, and different
    when another key changes?"""
    from grader.batch.keys import course_hash

    hashes = []
    for text in (TERM, TERM.replace("0.10", "0.25").replace("2026-12-10", "2027-01-10"), TERM + "\n# a comment\n"):
        root = tmp_path / str(len(hashes))
        course_copy(root, text)
        hashes.append(course_hash(load_course(root)))
    (root / "course.toml").write_text((root / "course.toml").read_text().replace("rtol = 1e-3", "rtol = 1e-2"))
    assert hashes[0] == hashes[1] == hashes[2] != course_hash(load_course(root))


# -- LMS imports -----------------------------------------------------------------------------------------------------

CANVAS_ROSTER = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (991),Current Score\n"
    "    Points Possible,,,,,10,(read only)\n"
    '"Lovelace, Ada",101,s101,ada,LSTM-A,8,80\n'
    '"Babbage, Bob",102,bob,bbabbage,LSTM-A,,\n'
    '"Cyd, C",cyd,s103,ccyd,LSTM-B,,\n'
    '"Dee, D",104,s104,dan,LSTM-B,,\n'
    '"Eve, E",105,s105,eve,LSTM-B,,\n'
    '"Fay, F",106,s106,fay,LSTM-B,,\n'
)


def canvas_rules(text: str) -> list[list[str]]:
    """The rows of `text`, after checking the rules of Canvas's gradebook importer on them."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert "Student" in header[0] and "ID" in header[1] and header[4].endswith("Section"), header
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    assert all(len(r) == len(header) for r in rows)
    return rows


@pytest.mark.slow
def test_canvas_import_matches_the_roster_and_follows_canvas_rules(term, tmp_path):
    """Does the Canvas file match each student by SIS Login ID, then SIS User ID, then ID, hold Canvas's five student
    columns, `Title (id)` and the Points Possible row, and leave a student without a grade empty (or 0)?"""
    roster = tmp_path / "roster.csv"
    roster.write_text(CANVAS_ROSTER, encoding="utf-8")
    target = tmp_path / "canvas.csv"
    done = grade(
        ROOT, "export", "canvas", str(term["out"]), "--roster", str(roster), "--out", str(target), "--assignment", "Gated RNNs", "--assignment-id", "4242"
    )
    assert done.returncode == 0, done.stderr
    rows = canvas_rules(target.read_text())
    assert re.fullmatch(r"(.+) \((\d+)\)", rows[0][5]).groups() == ("Gated RNNs", "4242") and len(rows[0]) == 6
    assert rows[1][5] == "12"
    assert {r[3]: r[5] for r in rows[2:]} == {"ada": "12", "bbabbage": "10.2", "ccyd": "6", "dan": "0", "eve": "5.4", "fay": ""}
    assert rows[2][:5] == ["Lovelace, Ada", "101", "s101", "ada", "LSTM-A"]
    zero = grade(ROOT, "export", "canvas", str(term["out"]), "--roster", str(roster), "--out", str(target), "--missing", "zero", "--per-exercise")
    assert zero.returncode == 0, zero.stderr
    rows = canvas_rules(target.read_text())
    assert rows[0][5:] == [
        "Gated recurrent networks: LSTM and GRU: ex01 Cell-state arithmetic",
        "Gated recurrent networks: LSTM and GRU: ex03 GRU arithmetic and conventions",
    ]
    assert rows[1][5:] == ["6", "6"] and rows[3][5:] == ["4.8", "5.4"] and rows[-1][5:] == ["0", "0"]


@pytest.mark.slow
def test_canvas_refuses_a_graded_student_it_cannot_find_and_writes_nothing(term, tmp_path):
    """Is a graded student missing from the roster named on stderr, with exit code 1 and no file written?"""
    roster = tmp_path / "roster.csv"
    roster.write_text("\n".join(line for line in CANVAS_ROSTER.splitlines() if "Eve" not in line) + "\n")
    target = tmp_path / "canvas.csv"
    done = grade(ROOT, "export", "canvas", str(term["out"]), "--roster", str(roster), "--out", str(target))
    assert done.returncode == 1 and "eve is not in" in done.stderr and "nothing written" in done.stderr, done.stderr
    assert not target.exists()
    roster.write_text("Student,ID,Section\nAda,1,A\n")
    done = grade(ROOT, "export", "canvas", str(term["out"]), "--roster", str(roster), "--out", str(target))
    assert done.returncode == 2 and "line 1: no column SIS User ID, SIS Login ID" in done.stderr and not target.exists()


def test_lms_numbers_are_written_as_people_write_them():
    """Do 3.0000000000000004 and 2.675000001 come out as `3` and `2.68` in both LMS formats?"""
    from grader.export import canvas, moodle

    text = canvas.to_csv(
        [{"Student": "Ada", "ID": "1", "SIS User ID": "", "SIS Login ID": "ada", "Section": "A"}],
        [("Gated (7)", 6.0)],
        {0: [3.0000000000000004]},
        zero_missing=False,
    )
    assert canvas_rules(text)[2] == ["Ada", "1", "", "ada", "A", "3"]
    assert moodle.to_csv("username", ["ex01", "ex03"], [("ada", {"ex01": 3.0000000000000004, "ex03": 2.675000001})]) == (
        "username,ex01,ex03,total\nada,3,2.68,5.68\n"
    )


def test_lms_import_files_carry_the_exact_identifier():
    """Do Moodle's and Canvas's import files hold -bob as -bob – the LMS matches it exactly – where they held '-bob
    (grades.csv's quote mark), which names no LMS user?"""
    from grader.export import canvas, moodle

    text = canvas.to_csv(
        [{"Student": "=Bob", "ID": "-102", "SIS User ID": "+s102", "SIS Login ID": "-bob", "Section": "@A"}], [("Gated", 6.0)], {0: [3.0]}, zero_missing=False
    )
    assert canvas_rules(text)[2] == ["=Bob", "-102", "+s102", "-bob", "@A", "3"]
    assert moodle.to_csv("username", ["ex01"], [("-bob", {"ex01": 3.0})]) == "username,ex01,total\n-bob,3,3\n"


@pytest.mark.slow
def test_moodle_email_without_a_roster_is_refused_when_the_ids_are_no_emails(term, tmp_path):
    """Is `--id-column email` without --roster, over a batch of folder names, refused naming them, nothing written –
    where it wrote the folder names under `email` without a word?"""
    target = tmp_path / "moodle.csv"
    done = grade(ROOT, "export", "moodle", str(term["out"]), "--out", str(target), "--id-column", "email")
    assert done.returncode == 1 and "--id-column email without --roster" in done.stderr and "ada, bob, cyd" in done.stderr, done.stderr
    assert not target.exists()


@pytest.mark.slow
def test_moodle_import_has_one_identifier_column_and_one_per_exercise(term, tmp_path):
    """Does the Moodle file hold the chosen identifier (the batch ids, or looked up in a roster of Moodle's own column
    names), one column per exercise and the total?"""
    target = tmp_path / "moodle.csv"
    done = grade(ROOT, "export", "moodle", str(term["out"]), "--out", str(target))
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(target.read_text())))
    assert rows[0] == ["username", "ex01", "ex03", "total"] and ["bob", "4.8", "5.4", "10.2"] in rows and len(rows) == 6
    roster = tmp_path / "participants.csv"
    roster.write_text(
        "First name,Last name,Username,ID number,Email address\n" + "".join(f"{s.title()},X,{s},{100 + n},{s}@uni.example\n" for n, s in enumerate(STUDENTS))
    )
    done = grade(ROOT, "export", "moodle", str(term["out"]), "--out", str(target), "--id-column", "email", "--roster", str(roster))
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(target.read_text())))
    assert rows[0][0] == "email" and ["cyd@uni.example", "6", "0", "6"] in rows


@pytest.mark.slow
def test_an_entry_that_is_no_student_is_named_never_dropped_silently(term, tmp_path):
    """Are a hand-in that is no folder or .zip (carol.tar.gz, a loose answers.toml) and a link to a folder named on
    stderr as not graded – where the batch graded the others and said nothing of them – and hidden files left alone?"""
    klass = sheets(tmp_path / "class" / "ada", "ex01_cell_state").parent
    (klass / "carol.tar.gz").write_bytes(b"\x1f\x8b")
    (klass / "answers.toml").write_text(SHEETS["ex01_cell_state"])
    (klass / "dave").symlink_to(sheets(tmp_path / "dave", "ex01_cell_state"))
    (klass / ".DS_Store").write_bytes(b"")
    done = batch(term["course"], klass, tmp_path / "out")
    assert done.returncode == 0 and list(grades(tmp_path / "out")) == ["ada"], done.stderr
    assert (
        "not graded, no student's entry (one folder or .zip per student): answers.toml (neither a folder nor a .zip), "
        "carol.tar.gz (neither a folder nor a .zip), dave (a link to a folder)" in done.stderr
    ), done.stderr
    assert "DS_Store" not in done.stderr


@pytest.mark.slow
def test_an_export_holds_the_students_and_exercises_grades_csv_holds(term, tmp_path):
    """After an entry leaves the class (dan.zip renamed to the roster's ddan.zip) and a run grades other --exercises,
    does the LMS import hold exactly grades.csv's students and exercises – where it kept dan, whom Canvas's roster
    lacks (refusing the whole import, for good), and ex03's old points in each total – and OUT dan's files no more?"""
    klass = tmp_path / "class"
    shutil.copytree(term["class"], klass)
    (klass / "dan.zip").rename(klass / "ddan.zip")
    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    for exercises in (EXERCISES, "ex01"):
        done = grade(term["course"], "batch", str(klass), "--out", str(out), "--exercises", exercises)
        assert done.returncode == 0, done.stderr
        shown = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))
        target = tmp_path / "moodle.csv"
        done = grade(ROOT, "export", "moodle", str(out), "--out", str(target))
        assert done.returncode == 0, done.stderr
        exported = list(csv.DictReader(io.StringIO(target.read_text())))
        assert [r["username"] for r in exported] == [r["student"] for r in shown] == ["ada", "bob", "cyd", "ddan", "eve"]
        assert [r["total"] for r in exported] == [r["total"] for r in shown] and list(exported[0])[1:-1] == exercises.split(",")
        # and OUT holds no report or feedback of dan's any more, which a TA handing out feedback/ would send on
        assert (
            sorted(p.stem for p in (out / "feedback").iterdir()) == sorted(p.stem for p in (out / "reports").iterdir()) == ["ada", "bob", "cyd", "ddan", "eve"]
        )
        # what left the grades is listed and audited as such, never dropped without a word
        listed = {(r["student"], r["exercise"], r["cause"]) for r in csv.DictReader(io.StringIO((out / "changes.csv").read_text()))}
        everyone = ("ada", "bob", "cyd", "ddan", "eve")
        gone = {("dan", e, "no longer shown") for e in EXERCISES.split(",")} if exercises == EXERCISES else {(s, "ex03", "no longer shown") for s in everyone}
        assert gone <= listed, listed
    done = grade(term["course"], "batch", str(klass), "--out", str(out), "--exercises", EXERCISES)
    assert done.returncode == 0, done.stderr
    listed = {(r["student"], r["exercise"], r["cause"]) for r in csv.DictReader(io.StringIO((out / "changes.csv").read_text()))}
    assert {(s, "ex03", "shown again") for s in everyone} <= listed, listed
    trail = grade(ROOT, "audit", str(out), "--student", "bob").stdout
    assert "no longer shown" in trail and "shown again" in trail, trail


def sheets_only(course: Path) -> Path:
    """`course` with only ex01 and ex03 in its course.toml: graded without a student process."""
    text = (course / "course.toml").read_text()
    head, *entries = text.split("[[exercises]]")
    kept = [e for e in entries if re.search(r'id = "ex0[13]"', e)]
    tail = entries[-1][entries[-1].index("\n[deadlines]") :]  # the term's tables follow the last entry
    (course / "course.toml").write_text(head + "".join("[[exercises]]" + e.split("\n[deadlines]")[0] for e in kept) + tail)
    return course


@pytest.mark.parametrize("created_at", ["2026-12-11T02:00:00+08:00", None])
def test_gradescope_takes_the_time_from_submission_metadata(tmp_path, created_at, capsys):
    """On Gradescope, does submission_metadata.json's created_at set the late penalty – and, without it, is the upload
    graded without one, the instructors' log saying so?"""
    from grader.integrations.gradescope.runner import run

    sheets_only(course_copy(tmp_path / "source"))
    sheets(tmp_path / "submission", *SHEETS)
    if created_at:
        (tmp_path / "submission_metadata.json").write_text(json.dumps({"created_at": created_at, "id": 1}))
    doc = run(tmp_path)
    assert doc["max_score"] == 12 and json.loads((tmp_path / "results" / "results.json").read_text())["score"] == doc["score"]
    if created_at:
        assert (doc["score"], doc["extra_data"]["late_days"]) == (10.8, 1)
        assert "1 day late" in doc["extra_data"]["exercises"][0]["note"]
    else:
        assert (doc["score"], doc["extra_data"]["no_submission_time"]) == (12, True)
        assert "no submission time" in capsys.readouterr().out


@pytest.mark.slow
def test_the_nbgrader_gradebook_gets_the_final_points(term, tmp_path):
    """Does --nbgrader-db write final points (after the penalty and an override), as grades.csv shows them?"""
    from nbgrader.api import Gradebook

    out = tmp_path / "out"
    shutil.copytree(term["out"], out)
    assert grade(ROOT, "override", str(out), "ada", "ex03", "2.5", "--reason", "r").returncode == 0
    done = batch(term["course"], term["class"], out, "--nbgrader-db", str(tmp_path / "gradebook.db"))
    assert done.returncode == 0, done.stderr
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", course_id="gated-rnn") as gradebook:
        scores = {(s, e): gradebook.find_grade(f"{e}_autograder", e, e, s).auto_score for s in ("ada", "bob") for e in ("ex01", "ex03")}
    assert scores == {("ada", "ex01"): 6, ("ada", "ex03"): 2.5, ("bob", "ex01"): 4.8, ("bob", "ex03"): 5.4}
