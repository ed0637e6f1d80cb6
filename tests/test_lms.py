"""An LMS's import file is a module of grader/export and one line of export.LMS_FILES: does `grade export` offer each
registered LMS as the module declares it?"""

import inspect

import pytest
from click.testing import CliRunner

from conftest import ROOT
from grader.cli import main
from grader.export import LMS_FILES


@pytest.mark.parametrize("name", sorted(LMS_FILES))
def test_an_lms_renders_with_exactly_the_options_it_declares(name):
    """Are the keywords of each LMS's `render` the names of its declared options, no more and no fewer (the CLI
    passes one keyword per option, and mypy cannot see them)?"""
    lms = LMS_FILES[name]()
    keywords = [p.name for p in inspect.signature(lms.render).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert sorted(keywords) == sorted(o.name for o in lms.OPTIONS)


@pytest.mark.parametrize("name", sorted(LMS_FILES))
def test_grade_export_offers_each_registered_lms_with_its_options(name, monkeypatch):
    """Is there a `grade export NAME` for each LMS of the registry, with its help and every option it declares?"""
    monkeypatch.chdir(ROOT)
    lms = LMS_FILES[name]()
    listed = CliRunner().invoke(main, ["export", "--help"])
    assert listed.exit_code == 0 and f"  {name} " in listed.output, listed.output
    helped = CliRunner().invoke(main, ["export", name, "--help"])
    assert helped.exit_code == 0, helped.output
    assert all(o.flag in helped.output for o in lms.OPTIONS) and "--out FILE" in helped.output, helped.output


def test_canvas_refuses_one_assignment_id_for_many_columns(tmp_path):
    """Is --assignment-id with --per-exercise refused as a usage error (exit code 2), before the roster is read?"""
    from grader.course import load_course
    from grader.errors import USAGE
    from grader.export import canvas
    from grader.export.lms import Finals, MisusedOptions

    finals = Finals(load_course(ROOT), {"ada": {"ex01": 3.0}}, ["ex01"])
    with pytest.raises(MisusedOptions, match="--assignment-id names one assignment") as refused:
        canvas.render(finals, roster=tmp_path / "absent.csv", assignment=None, assignment_id="4242", per_exercise=True, match=None, missing="empty")
    assert refused.value.exit_code == USAGE


def test_canvas_refuses_a_title_it_would_read_as_an_assignment_id(tmp_path):
    """Canvas reads a column `TITLE (ID)` as the assignment with that id: is a title ending in "(2)" without
    --assignment-id refused as a usage error, before the roster is read, rather than imported into assignment 2?"""
    from grader.course import load_course
    from grader.errors import USAGE
    from grader.export import canvas
    from grader.export.lms import Finals, MisusedOptions
    from grader.term.csvin import TermFileError

    finals = Finals(load_course(ROOT), {"ada": {"ex01": 3.0}}, ["ex01"])
    with pytest.raises(MisusedOptions, match="'Homework \\(2\\)' ends like `TITLE \\(ID\\)`") as refused:
        canvas.render(finals, roster=tmp_path / "absent.csv", assignment="Homework (2)", assignment_id=None, per_exercise=False, match=None, missing="empty")
    assert refused.value.exit_code == USAGE
    # with its id, or one column per exercise (each ends in the exercise's title), the title is the TA's to choose
    for assignment_id, per_exercise in (("4242", False), (None, True)):
        with pytest.raises(TermFileError, match="absent.csv: no such file"):  # past the title, at the roster
            canvas.render(
                finals,
                roster=tmp_path / "absent.csv",
                assignment="Homework (2)",
                assignment_id=assignment_id,
                per_exercise=per_exercise,
                match=None,
                missing="empty",
            )


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x1e", "\x0c"])
def test_a_students_name_holding_a_line_separator_stays_one_roster_row(tmp_path, separator):
    """Is a roster row whose student name (the student's own text in the LMS) holds a character Python ends lines at,
    but CSV does not, still one student, written back as the LMS exported it – no row split off with its ids?"""
    import csv
    import io

    from grader.course import load_course
    from grader.export import canvas, moodle
    from grader.export.lms import Finals

    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Username,Email address\n"
        f"Bob{separator}Evil,102,s102,bob,A,bob,bob@x.org\nAda,101,s101,ada,A,ada,ada@x.org\n",
        encoding="utf-8",
    )
    finals = Finals(load_course(ROOT), {"ada": {"ex01": 3.0}, "bob": {"ex01": 2.0}}, ["ex01"])
    text, students = canvas.render(finals, roster=roster, assignment="A", assignment_id=None, per_exercise=False, match=None, missing="empty")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert students == 2 and rows[2:] == [[f"Bob{separator}Evil", "102", "s102", "bob", "A", "2"], ["Ada", "101", "s101", "ada", "A", "3"]], rows
    text, students = moodle.render(finals, id_column="email", roster=roster)
    assert students == 2 and text.splitlines()[1:] == ["ada@x.org,3,3", "bob@x.org,2,2"], text


def test_a_student_named_points_possible_is_still_a_student(tmp_path):
    """Is a roster student whose name (their own text in Canvas) holds `Points Possible` kept and graded – not taken for
    Canvas's points row, which would leave them out and refuse the whole class's import?"""
    import csv
    import io

    from grader.course import load_course
    from grader.export import canvas
    from grader.export.lms import Finals

    roster = tmp_path / "roster.csv"
    roster.write_text(
        'Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"Points Possible, Bob",102,s102,bob,A\nAda,101,s101,ada,A\n',
        encoding="utf-8",
    )
    finals = Finals(load_course(ROOT), {"ada": {"ex01": 3.0}, "bob": {"ex01": 2.0}}, ["ex01"])
    text, students = canvas.render(finals, roster=roster, assignment="A", assignment_id=None, per_exercise=False, match=None, missing="empty")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert students == 2 and rows[2:] == [["Points Possible, Bob", "102", "s102", "bob", "A", "2"], ["Ada", "101", "s101", "ada", "A", "3"]], rows


def test_an_id_that_is_one_students_canvas_id_and_anothers_sis_id_is_refused(tmp_path):
    """Is a batch id found in two roster rows through two columns (7002: Ben's Canvas ID, and Ann's SIS User ID) refused,
    nothing written – where the first column searched gave Ben's points to Ann without a word – and does --match name
    the column that settles it?"""
    import csv
    import io

    from grader.course import load_course
    from grader.export import canvas, moodle
    from grader.export.lms import Finals, NotInRoster

    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Username,ID number\nAnn,5001,7002,ann,A,ann,7002\nBen,7002,9100,ben,A,7002,9100\n", encoding="utf-8"
    )
    finals = Finals(load_course(ROOT), {"7002": {"ex01": 3.0}}, ["ex01"])
    with pytest.raises(NotInRoster, match=r"7002 is in 2 rows of .*roster.csv \(1 in column SIS User ID, 1 in column ID\)"):
        canvas.render(finals, roster=roster, assignment="A", assignment_id=None, per_exercise=False, match=None, missing="empty")
    with pytest.raises(NotInRoster, match=r"7002 is in 2 rows .*\(1 in column Username, 1 in column ID number\)"):
        moodle.render(finals, id_column="username", roster=roster)
    text, _ = canvas.render(finals, roster=roster, assignment="A", assignment_id=None, per_exercise=False, match="ID", missing="empty")
    assert list(csv.reader(io.StringIO(text)))[2:] == [["Ann", "5001", "7002", "ann", "A", ""], ["Ben", "7002", "9100", "ben", "A", "3"]]
