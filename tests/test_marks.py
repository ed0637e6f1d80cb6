"""grader/term/marks.py and `grade mark` / `grade rubric`: written answers marked by the course staff against their
exercise's rubric – in the journal with audit rows, in every export, updated for every student when an item's points
change. The class is graded on ex01 alone (an answer sheet: no student process, so a batch takes seconds), in a copy of
the course whose ex01 has ex08's rubric and written answer."""

import csv
import io
import json
import shutil
import sqlite3

import pytest
from test_term import course_copy, grade, grades, journaled

from conftest import ROOT

ANSWER = "The equal-width table cannot tell the budget from the gating; with three seeds and one lr the claim is narrow.\n"
RUBRIC = ROOT / "exercises" / "ex08_delayed_copy"
ROSTER = "Student,ID,SIS User ID,SIS Login ID,Section\nAda,1,s1,ada,A\nBob,2,s2,bob,A\nCyd,3,s3,cyd,A\nDan,4,s4,dan,A\n"


def written_course(root):
    """The course with ex01 worth 8 points: its checks' 6 and a written answer's 2, marked against ex08's rubric."""
    course = course_copy(root, "", edit=("course.toml", "points = 6\n", "points = 8\n"))
    for name in ("rubric.toml", "interpretation.md"):
        shutil.copy(RUBRIC / name, course / "exercises" / "ex01_cell_state" / name)
    return course


def batch(course, klass, out):
    done = grade(course, "batch", str(klass), "--out", str(out), "--exercises", "ex01")
    assert done.returncode == 0, done.stderr
    return done


def audit_rows(course, out, student=None):
    done = grade(course, "audit", str(out), "--json", *(["--student", student] if student else []))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def graded_class(base):
    """ada and bob wrote an answer, cyd handed in the stub's, dan none at all; all four hand in ex01's reference sheet."""
    course, klass = written_course(base / "course"), base / "class"
    sheet = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()
    for student, answer in (("ada", ANSWER), ("bob", "Bob: " + ANSWER), ("cyd", (RUBRIC / "interpretation.md").read_text()), ("dan", None)):
        folder = klass / student / "ex01_cell_state"
        folder.mkdir(parents=True)
        (folder / "answers.toml").write_text(sheet)
        if answer is not None:
            (folder / "interpretation.md").write_text(answer)
    out = base / "out"
    done = batch(course, klass, out)
    return {"course": course, "class": klass, "out": out, "stderr": done.stderr, "base": base}


def copied(graded, tmp_path):
    """A copy of a graded class's output and course, for a test that marks, edits and publishes."""
    course, out = tmp_path / "course", tmp_path / "out"
    shutil.copytree(graded["course"], course)
    shutil.copytree(graded["out"], out)
    return {**graded, "course": course, "out": out}


@pytest.mark.slow
def test_unmarked_answers_are_to_mark_not_silently_zero(written):
    """Before any mark, are ada's and bob's answers "to mark" – named by grade batch, grade stats, summary.json and
    report.html – while cyd's stub and dan's missing file are "no answer", and does the exercise count out of 8?"""
    out, course = written["out"], written["course"]
    assert "written answers to mark (ex01 2; 0 points until marked)" in written["stderr"]
    assert {s: row["ex01"] for s, row in grades(out).items()} == {"ada": "6", "bob": "6", "cyd": "6", "dan": "6"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["written_answers"] == {"ex01": {"to mark": ["ada", "bob"], "marked": [], "no answer": ["cyd", "dan"]}}
    report = json.loads((out / "reports" / "ada.json").read_text())
    assert report["max_score"] == 8 and report["extra_data"]["exercises"][0]["written"]["state"] == "to mark"
    stats = grade(course, "stats", str(out))
    assert stats.returncode == 0 and "to mark" in stats.stdout and "ex01: ada, bob" in stats.stdout
    html = (out / "report.html").read_text()
    assert "Written answers, marked by the course staff" in html and html.count("✎</span>") == 2
    assert "ada, bob" in (out / "summary.md").read_text()


@pytest.mark.slow
def test_a_mark_is_audited_and_reaches_every_export(written_copy, tmp_path):
    """Does `grade mark` record ada's items and comments with an audit row at once, refuse an LMS export until a batch
    publishes it, and then add its points to grades.csv, reports/ (a Gradescope test of its own), feedback, changes.csv,
    the summary, Canvas and Moodle?"""
    course, out = written_copy["course"], written_copy["out"]
    done = grade(
        course,
        "mark",
        str(out),
        "ada",
        "ex01",
        "--item",
        "equal-width",
        "--item",
        "scope",
        "--comment",
        "spread",
        "--comment",
        "Good point on seeds.",
        "--by",
        "tim",
    )
    assert done.returncode == 0, done.stderr
    assert "ada ex01: written answer unmarked -> 1" in done.stdout
    [row] = audit_rows(course, out, "ada")
    assert (row["cause"], row["actor"], row["old"], row["new"]) == ("mark", "tim", None, 1.0)
    assert "equal-width, scope" in row["reason"] and "Good point on seeds." in row["reason"]
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    early = grade(course, "export", "canvas", str(out), "--roster", str(roster), "--out", str(tmp_path / "canvas.csv"))
    assert early.returncode == 2 and "1 written answer marked (or rubric.toml edited) since" in early.stderr and "ada ex01" in early.stderr
    assert not (tmp_path / "canvas.csv").exists()

    published = batch(course, written_copy["class"], out)
    assert "final points changed for 1 student" in published.stderr
    assert (out / "changes.csv").read_text() == "student,exercise,old,new,cause\nada,ex01,6,7,mark\n"
    assert grades(out)["ada"]["ex01"] == "7" and grades(out)["bob"]["ex01"] == "6"
    report = json.loads((out / "reports" / "ada.json").read_text())
    [written] = [t for t in report["tests"] if "written answer" in t["name"]]
    assert (written["score"], written["max_score"], written["visibility"]) == (1.0, 2.0, "after_published")
    assert "Report the spread over seeds" in written["output"] and report["score"] == 7
    assert report["extra_data"]["exercises"][0]["written"] == {
        "file": "interpretation.md",
        "state": "marked",
        "points": 1.0,
        "max_points": 2.0,
        "items": ["equal-width", "scope"],
        "by": "tim",
    }
    feedback = (out / "feedback" / "ada.md").read_text()
    assert "Written answer (interpretation.md), marked by the course staff** — 1/2" in feedback and "Good point on seeds." in feedback
    assert "+0.5: The equal-d\\_h table" in feedback
    assert json.loads((out / "summary.json").read_text())["written_answers"]["ex01"]["marked"] == ["ada"]

    canvas = grade(course, "export", "canvas", str(out), "--roster", str(roster), "--out", str(tmp_path / "canvas.csv"))
    assert canvas.returncode == 0, canvas.stderr
    assert "warning: 1 written answer still to mark count 0 in this file: bob ex01" in canvas.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "canvas.csv").read_text())))
    assert rows[1][-1] == "8" and [r[-1] for r in rows[2:]] == ["7", "6", "6", "6"]  # Points Possible, then ada..dan
    moodle = grade(course, "export", "moodle", str(out), "--out", str(tmp_path / "moodle.csv"))
    assert moodle.returncode == 0 and "ada,7,7\n" in (tmp_path / "moodle.csv").read_text()


@pytest.mark.slow
def test_marking_again_is_idempotent_and_a_changed_mark_is_audited(written_copy):
    """Does the same mark given twice change nothing (no second audit row), and is a changed mark one more row that
    says which items came and went?"""
    course, out = written_copy["course"], written_copy["out"]
    first = grade(course, "mark", str(out), "bob", "ex01", "--item", "scope", "--item", "equal-width")
    again = grade(course, "mark", str(out), "bob", "ex01", "--item", "equal-width", "--item", "scope")
    assert first.returncode == again.returncode == 0
    assert "already marked so (1 points); nothing changed" in again.stdout
    assert len(audit_rows(course, out, "bob")) == 1
    changed = grade(course, "mark", str(out), "bob", "ex01", "--item", "equal-width", "--item", "next-run", "--item", "one-seed")
    assert "written answer 1 -> 0.5" in changed.stdout
    rows = audit_rows(course, out, "bob")
    assert len(rows) == 2 and "(+next-run +one-seed -scope)" in rows[1]["reason"] and (rows[1]["old"], rows[1]["new"]) == (1.0, 0.5)
    cleared = grade(course, "mark", str(out), "bob", "ex01", "--clear")
    assert cleared.returncode == 0 and "0.5 -> unmarked" in cleared.stdout and audit_rows(course, out, "bob")[-1]["cause"] == "mark cleared"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("ada", "ex01", "--item", "nope"), "--item nope: not an item of ex01's rubric; its items: equal-width (+0.5), matched-params (+0.5)"),
        (("zed", "ex01", "--item", "scope"), "no student zed in its journal"),
        (("ada", "ex03", "--item", "scope"), "ex03 has no written answer (no rubric.toml in exercises/ex03_gru_arithmetic/); exercises with one: ex01"),
        (("ada", "ex99", "--item", "scope"), "unknown exercise ex99; exercises with a written answer to mark: ex01"),
        (("ada", "ex01", "--item", "scope", "--comment", "sprad"), "--comment sprad: not a comment id of ex01's rubric (its ids: spread, one-lr, which-cost)"),
        (("ada", "ex01"), "give --item (and any --comment), or --clear alone"),
        (("ada", "ex01", "--clear"), "ada has no mark of ex01's written answer to clear"),
    ],
)
def test_what_cannot_be_marked_is_refused_as_a_usage_error(written, args, said):
    """Is an unknown item, student, exercise or comment id, an exercise without a written answer, a mark without items
    and the clearing of no mark refused with exit code 2, saying what is valid, and nothing recorded?"""
    before = journaled(written["out"])
    done = grade(written["course"], "mark", str(written["out"]), *args)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert journaled(written["out"]) == before and audit_rows(written["course"], written["out"]) == []


@pytest.mark.slow
def test_editing_an_items_points_updates_every_student_who_has_it(written_copy):
    """After ada (equal-width, scope) and bob (equal-width) are marked and published, does raising equal-width from 0.5
    to 1 in rubric.toml show in `grade rubric` as what the next batch publishes, and does that batch change both –
    regrading no one – list them in changes.csv as "rubric edited" and audit each with the items edited?"""
    course, out = written_copy["course"], written_copy["out"]
    assert grade(course, "mark", str(out), "ada", "ex01", "--item", "equal-width", "--item", "scope").returncode == 0
    assert grade(course, "mark", str(out), "bob", "ex01", "--item", "equal-width").returncode == 0
    batch(course, written_copy["class"], out)
    rubric = course / "exercises" / "ex01_cell_state" / "rubric.toml"
    rubric.write_text(rubric.read_text().replace('id = "equal-width"\npoints = 0.5', 'id = "equal-width"\npoints = 1'))
    shown = grade(course, "rubric", str(out), "ex01")
    assert shown.returncode == 0, shown.stderr
    lines = {line.split()[0]: line for line in shown.stdout.splitlines() if line.startswith("  ")}
    assert "equal-width" in lines and "+1  2: ada, bob" in lines["equal-width"]
    assert "1.5/2" in lines["ada"] and "(OUT shows 1: the next grade batch publishes 1.5)" in lines["ada"]
    assert "1/2" in lines["bob"] and "(OUT shows 0.5: the next grade batch publishes 1)" in lines["bob"]
    assert "to mark" in lines["cyd"] or "no answer" in lines["cyd"]
    keys = journaled(out)
    published = batch(course, written_copy["class"], out)
    assert journaled(out) == keys  # nobody regraded: a rubric is applied after grading
    assert "final points changed for 2 students" in published.stderr
    assert (out / "changes.csv").read_text() == "student,exercise,old,new,cause\nada,ex01,7,7.5,rubric edited\nbob,ex01,6.5,7,rubric edited\n"
    edited = [r for r in audit_rows(course, out) if r["cause"] == "rubric edited"]
    assert [(r["student"], r["old"], r["new"]) for r in edited] == [("ada", 1.0, 1.5), ("bob", 0.5, 1.0)]
    assert all("equal-width 0.5 -> 1" in r["reason"] for r in edited)
    assert grades(out)["ada"]["ex01"] == "7.5" and "OUT shows" not in grade(course, "rubric", str(out), "ex01").stdout
    again = batch(course, written_copy["class"], out)
    assert "final points changed" not in again.stderr and len([r for r in audit_rows(course, out) if r["cause"] == "rubric edited"]) == 2
    # an item taken out of the rubric counts nothing for those who had it, once published; then the export goes ahead
    rubric.write_text(rubric.read_text().replace('id = "scope"', 'id = "limits"'))
    batch(course, written_copy["class"], out)
    assert grades(out)["ada"]["ex01"] == "7" and "ada,ex01,7.5,7,rubric edited" in (out / "changes.csv").read_text()
    assert grade(course, "export", "moodle", str(out), "--out", str(out.parent / "moodle.csv")).returncode == 0


@pytest.mark.slow
def test_a_ta_marks_a_written_answer_from_rubric_to_canvas(written_copy, tmp_path):
    """Can a TA go from the rubric to Canvas's import file with grade alone – see who is to mark, read bob's answer,
    mark it with two items and a comment, publish, export – and find bob's points in the file, no spreadsheet between?"""
    course, out = written_copy["course"], written_copy["out"]
    listed = grade(course, "rubric", str(out), "ex01")
    assert "4 students: 2 to mark, 0 marked, 2 no answer" in listed.stdout
    read = grade(course, "rubric", str(out), "ex01", "--student", "bob")
    assert read.returncode == 0 and "Bob: The equal-width table cannot tell" in read.stdout and "grade mark OUT bob ex01" in read.stdout
    assert grade(course, "mark", str(out), "bob", "ex01", "--item", "equal-width", "--item", "matched-params", "--comment", "one-lr").returncode == 0
    batch(course, written_copy["class"], out)
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    target = tmp_path / "canvas.csv"
    done = grade(course, "export", "canvas", str(out), "--roster", str(roster), "--out", str(target), "--per-exercise")
    assert done.returncode == 0, done.stderr
    rows = {r["SIS Login ID"]: r for r in csv.DictReader(io.StringIO(target.read_text()))}
    column = next(c for c in rows["bob"] if c.endswith("ex01 Cell-state arithmetic"))
    assert rows["bob"][column] == "7" and rows["ada"][column] == "6"
    assert "grade rubric OUT EXERCISE" in done.stderr  # ada's answer is still to mark: said, never silently 0
    with sqlite3.connect(out / "journal.sqlite") as db:
        assert db.execute("SELECT items FROM marks WHERE student = 'bob'").fetchone() == ('["equal-width", "matched-params"]',)


@pytest.mark.slow
def test_the_nbgrader_gradebook_gets_marks_in_its_manual_grade_cell(written_copy, tmp_path):
    """Does --nbgrader-db give ex01's written answer its manually graded cell (worth the rubric's 2 points beside the
    autograder cell's 6): ada's mark as manual_score with the items and comment as its comment, bob's answer "needs
    manual grade" with no score, cyd's unanswered one 0 with nothing to mark – and does marking bob later update the same rows?"""
    from nbgrader.api import Gradebook

    course, out, db = written_copy["course"], written_copy["out"], tmp_path / "gradebook.db"
    assert grade(course, "mark", str(out), "ada", "ex01", "--item", "equal-width", "--item", "next-run", "--comment", "one-lr").returncode == 0
    done = grade(course, "batch", str(written_copy["class"]), "--out", str(out), "--exercises", "ex01", "--nbgrader-db", str(db))
    assert done.returncode == 0, done.stderr

    def cells():
        with Gradebook(f"sqlite:///{db}", course_id="gated-rnn") as gradebook:
            assert gradebook.find_grade_cell("ex01_interpretation", "ex01", "ex01").max_score == 2
            assert gradebook.find_grade_cell("ex01_autograder", "ex01", "ex01").max_score == 6
            found = {}
            for s in ("ada", "bob", "cyd"):
                auto, manual = (gradebook.find_grade(f"ex01_{c}", "ex01", "ex01", s) for c in ("autograder", "interpretation"))
                comment = gradebook.find_comment("ex01_interpretation", "ex01", "ex01", s).manual_comment
                found[s] = (auto.auto_score, manual.manual_score, manual.needs_manual_grade, comment)
            return found

    found = cells()
    assert found["ada"][:3] == (6, 1, False) and "+0.5: The equal-d_h table" in found["ada"][3] and "same lr grid" in found["ada"][3]
    assert found["bob"] == (6, None, True, None) and found["cyd"] == (6, 0, False, None)
    assert grade(course, "mark", str(out), "bob", "ex01", "--item", "scope").returncode == 0
    assert grade(course, "batch", str(written_copy["class"]), "--out", str(out), "--exercises", "ex01", "--nbgrader-db", str(db)).returncode == 0
    assert cells()["bob"][:3] == (6, 0.5, False)
