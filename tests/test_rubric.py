"""grader/rubric.py: an exercise's rubric.toml – its written answer, items, points and reusable comments."""

import shutil

import pytest

from conftest import ROOT
from grader.course import load_course
from grader.errors import CourseError
from grader.rubric import RUBRIC_FILE, load

EX08 = ROOT / "exercises" / "ex08_delayed_copy"


def copied(tmp_path, text: str):
    """ex08's stub folder with `text` as its rubric.toml."""
    folder = tmp_path / "ex08_delayed_copy"
    shutil.copytree(EX08, folder)
    (folder / RUBRIC_FILE).write_text(text, encoding="utf-8")
    return folder


GOOD = """file = "interpretation.md"
points = 2
title = "t"
[[items]]
id = "a"
points = 1.5
description = "does a"
[[items]]
id = "b"
points = 1
description = "does b"
[[items]]
id = "wrong"
points = -1
description = "claims c"
[[comments]]
id = "hint"
text = "a hint"
"""


def test_the_shipped_rubrics_load_and_are_not_student_files():
    """Do ex08 and ex10 declare a rubric for interpretation.md (a student file, so `grade pack` hands it in), and is
    rubric.toml itself no student file, and does every other exercise have none?"""
    course = load_course(ROOT)
    for exercise in course.exercises:
        assert RUBRIC_FILE not in exercise.student_files
        if exercise.id in ("ex08", "ex10"):
            assert exercise.rubric is not None and exercise.rubric.file == "interpretation.md"
            assert "interpretation.md" in exercise.student_files and "interpretation.md" not in exercise.code_files
            assert exercise.checked_points == exercise.points - exercise.rubric.points
        else:
            assert exercise.rubric is None and exercise.checked_points == exercise.points


def test_a_mark_is_its_items_points_within_zero_and_the_rubric(tmp_path):
    """Is a mark's score the sum of its items' points, kept within 0 and the rubric's points, and does an item the
    rubric no longer has count nothing?"""
    rubric = load(copied(tmp_path, GOOD), "ex08")
    assert rubric is not None
    assert rubric.score(["a"]) == 1.5
    assert rubric.score(["a", "b"]) == 2  # 2.5, kept at the rubric's 2
    assert rubric.score(["b", "wrong"]) == 0
    assert rubric.score(["wrong"]) == 0  # never below 0
    assert rubric.score(["a", "gone"]) == 1.5
    assert rubric.comment("hint").text.en == "a hint" and rubric.comment("hint").text.zh == "a hint"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (("points = 2", "points = 0"), "points must be positive"),
        (('file = "interpretation.md"', 'file = "protocol.py"'), "file = 'protocol.py'"),
        (('id = "b"', 'id = "a"'), "id a given twice"),
        (('id = "b"', 'id = "B c"'), "items[1].id"),
        (("points = 1.5", "points = 3"), "item a: points must be non-zero and at most"),
        (("points = -1", "points = 0"), "item wrong: points must be non-zero"),
        (('description = "does a"', 'describe = "does a"'), "unknown key(s) describe"),
        (("points = 1.5", "points = 0.5"), "add up to less than its 2 points"),
        (('text = "a hint"', 'text = ""'), "comments[0].text"),
        (("title", "titel"), "unknown key(s) titel"),
    ],
)
def test_a_malformed_rubric_is_refused_naming_what(tmp_path, change, named):
    """Is a rubric.toml that would mark wrongly (no points, a code file, ids twice or not typeable, an item worth more
    than the answer, one no answer can reach) refused when the course loads, naming the key?"""
    folder = copied(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(CourseError, match="ex08: rubric.toml") as raised:
        load(folder, "ex08")
    assert named in str(raised.value)


def test_a_written_answer_that_was_not_taken_stays_to_mark_saying_why(grade):
    """Is an interpretation.md over the size limit, which is not copied for grading, kept "to mark" with why it was not
    taken – never a silent "no answer" and 0 – and said so where the student reads it?"""
    from grader.export.terminal import written_line

    reference = ROOT / "solutions" / "ex08_delayed_copy"
    files = {name: (reference / name).read_text() for name in ("protocol.py", "answers.toml")}
    result = grade("ex08", files | {"interpretation.md": "x" * (2 << 20)})
    written = result.written
    assert written is not None and not written.answered and written.refused and written.state == "to mark", written
    assert "not taken" in written_line(written).en
