"""course.toml is validated on load, with messages that name the key."""

import re
from pathlib import Path

import pytest

from conftest import ROOT, course_toml
from grader.course import CourseError, load_course


@pytest.fixture
def course_dir(tmp_path):
    """A copy of the real course.toml next to empty exercise folders."""
    (tmp_path / "course.toml").write_text(course_toml())
    for exercise in load_course(ROOT).exercises:
        (tmp_path / "exercises" / exercise.folder).mkdir(parents=True)
    return tmp_path


def edit(course_dir, old, new):
    path = course_dir / "course.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_real_course_loads():
    """Does the shipped course.toml list eleven exercises worth 104 points in all: 100 the checks', 4 the written
    answers' of ex08 and ex10, which the course staff mark?"""
    course = load_course(ROOT)
    assert course.ids == [f"ex{n:02d}" for n in range(1, 12)]
    assert sum(e.points for e in course.exercises) == 104
    assert sum(e.checked_points for e in course.exercises) == 100
    assert {e.id: e.rubric.points for e in course.exercises if e.rubric} == {"ex08": 2, "ex10": 2}
    assert course.rtol == 1e-3


def test_every_title_is_also_in_chinese():
    """Does course.toml give the course and every exercise a Chinese title (title_zh) for feedback in Chinese?"""
    course = load_course(ROOT)
    assert re.search(r"[\u4e00-\u9fff]", course.title_zh)
    assert [e.id for e in course.exercises if not re.search(r"[\u4e00-\u9fff]", e.title_zh)] == []
    assert course.exercise("ex01").heading.render("zh") == course.exercise("ex01").title_zh


def test_malformed_toml_names_the_line(course_dir):
    """Is a TOML syntax error reported with its line?"""
    edit(course_dir, 'title = "Cell-state arithmetic"', 'title = "Cell-state arithmetic')
    with pytest.raises(CourseError, match=r"not valid TOML.*line \d+"):
        load_course(course_dir)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('language = "en"', 'language = "en"\ncolour = "red"', r"\[course\]: unknown key\(s\) colour"),
        ('language = "en"', 'language = "fr"', r"course.language: expected one of en, zh"),
        ('device = "cpu"', 'device = "tpu"', r"limits.device: expected one of cpu, cuda, auto"),
        ("rtol = 1e-3", "rtol = -1.0", r"limits.rtol: must be positive"),
        ("time_limit = 5.0", "time_limit = inf", r"limits.time_limit: must be positive and at most 3600"),
        ("memory_limit = 4096", "memory_limit = 99999999999", r"limits.memory_limit: must be positive and at most"),
        ("symbolic_limit = 2.0", "symbolic_limit = nan", r"limits.symbolic_limit: must be positive"),
        ("points = 6\n", "points = inf\n", r"exercises\[0\].points: must be a finite number"),
        ('folder = "ex01_cell_state"', 'folder = "ex01_cell_state/../ex01_cell_state"', r"exercises\[0\].folder: must be a plain name"),
        ('id = "ex01"', 'id = "../ex01"', r"exercises\[0\].id: must be a plain name"),
        ("time_limit = 5.0", 'time_limit = "10"', r"limits.time_limit: expected float"),
        ('id = "ex02"', 'id = "ex01"', r"exercises: duplicate id 'ex01'"),
        ("points = 6\n", "points = 6\nweight = 2\n", r"exercises\[0\]: unknown key\(s\) weight"),
        ('folder = "ex01_cell_state"\n', "", r"exercises\[0\].folder: missing"),
        ('folder = "ex01_cell_state"', 'folder = "ex01_nowhere"', r"exercises\[0\].folder: .*ex01_nowhere does not exist"),
    ],
)
def test_bad_values_name_their_key(course_dir, old, new, message):
    """Does each inconsistency raise a CourseError naming the file and the offending key (`limits.rtol` alone does not
    say which course.toml: a student bundle's, or the one beside the installed grader)?"""
    edit(course_dir, old, new)
    with pytest.raises(CourseError, match=message) as caught:
        load_course(course_dir)
    assert str(caught.value).startswith(f"{course_dir.resolve() / 'course.toml'}: ")


def test_missing_course_file(tmp_path):
    """Is a missing course.toml a clear error rather than a traceback?"""
    with pytest.raises(CourseError, match="not found"):
        load_course(tmp_path)


def test_a_relative_course_root_becomes_absolute(monkeypatch):
    """Is a course loaded from a relative path given absolute paths (the zygote runs in another folder)?"""
    monkeypatch.chdir(ROOT.parent)
    course = load_course(Path(ROOT.name))
    assert course.root.is_absolute() and all(p.is_absolute() for e in course.exercises for p in e.given_code(hidden=True))


def test_grade_outside_any_course_says_what_to_do(tmp_path, monkeypatch):
    """Where no course.toml is found (a grader installed into site-packages, run from an unrelated folder), does the
    error say where it looked and what to do, not just that a file is missing?"""
    import grader.course as course_module
    import grader.location

    installed = tmp_path / "site-packages" / "grader"
    installed.mkdir(parents=True)
    monkeypatch.setattr(grader.location, "__file__", str(installed / "location.py"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(CourseError, match="no course here") as caught:
        course_module.find_root(elsewhere)
    assert str(elsewhere) in str(caught.value) and "pip install -e ." in str(caught.value)


def test_an_editors_own_files_are_no_student_files(tmp_path):
    """In a bundle the student edits the stub folder in place: are vim's swap file, a backup and emacs's autosave beside
    gated.py left out of the files to grade and pack (and of what grade watch watches)?"""
    from grader.course import student_names

    for name in ("README.md", "test_public.py", "gated.py", "helper.py", ".gated.py.swp", "gated.py~", "#gated.py#"):
        (tmp_path / name).write_text("x")
    assert student_names(tmp_path) == ["gated.py", "helper.py"]
