"""The TA's outputs: grades.csv cells a spreadsheet cannot run, summaries counted from the result model, feedback
that a student's words cannot restructure."""

import csv
import io

import pytest

from grader.export import feedback, grades, summary
from grader.results import ExerciseResult, GradeResult, Outcome, Status, StudentRow, Verdict
from grader.text import _FORMULA_STARTS, Text

FORMULAS = ["=99+1", '=HYPERLINK("http://x.invalid","click")', "@SUM(1+1)", "+1+1", "-2+3", "\t=1", "\r=1"]
SWAPPED = Text("swapped GRU convention", "GRU 约定弄反了")


def verdict(name: str, *, outcome=Outcome.FAILED, diagnosis=(), feedback_en: str = "", exercise: str = "ex03") -> Verdict:
    earned = 2.0 if outcome is Outcome.PASSED else 0.0
    return Verdict(exercise, name, 2.0, earned, Text(feedback_en), False, outcome, tuple(diagnosis))


def row(student: str, *checks: Verdict, status=Status.GRADED, exercise: str = "ex03") -> StudentRow:
    score = sum(v.earned for v in checks)
    result = GradeResult(student, "cpu", "en", [ExerciseResult(exercise, "GRU arithmetic", score, 2.0 * len(checks), list(checks))])
    return StudentRow(student, status, result, 0.1)


@pytest.mark.parametrize("student", FORMULAS)
def test_grades_csv_cells_are_never_formulas(student):
    """Does grades.csv write a student id that a spreadsheet would run as text, and keep ordinary ids as they are?"""
    text = grades.to_csv([row(student, verdict("a", outcome=Outcome.PASSED)), row("bob", verdict("a"))], ["ex03"])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    cells = [cell for line in rows for cell in line]
    assert not any(cell.startswith(_FORMULA_STARTS) for cell in cells), cells
    assert len(rows) == 3 and ["bob", "0", "0", "0", "0"] in rows
    assert ["'" + student.replace("\r", "?"), "2", "2", "2", "0"] in rows


@pytest.mark.parametrize("student", ["x;=1+1;", "x;@SUM(1+1)", "a;b;-2+3"])
def test_grades_csv_cells_are_never_formulas_where_lists_are_split_at_semicolons(student):
    """Opened where the locale separates lists with ";" (German, French: a spreadsheet splits a .csv at them, not at
    commas), does grades.csv still hold no cell that starts a formula – an id `x;=1+1;` no cell `=1+1`?"""
    text = grades.to_csv([row(student, verdict("a", outcome=Outcome.PASSED))], ["ex03"])
    cells = [cell for line in csv.reader(io.StringIO(text, newline=""), delimiter=";") for cell in line]
    assert not any(cell.startswith(_FORMULA_STARTS) for cell in cells), cells


def test_summary_counts_sheet_diagnoses_once_per_student():
    """Are mistakes named by the answer-sheet judge counted, once per student even when several checks name them?"""
    rows = [
        row("ann", verdict("h_t", diagnosis=[SWAPPED]), verdict("h_t_other", diagnosis=[SWAPPED])),
        row("bob", verdict("h_t", diagnosis=[SWAPPED])),
        row("cyd", verdict("h_t", outcome=Outcome.PASSED)),
    ]
    figures = summary.summarize(rows, ["ex03"])
    assert figures["mistakes"] == [{"exercise": "ex03", "diagnosis": "swapped GRU convention", "students": 2, "outcome": "failed"}]
    assert {"check": "ex03: h_t", "students": 2} in figures["most_failed_checks"]
    assert "| ex03 | swapped GRU convention | 2 |" in summary.to_markdown(figures)


def test_a_file_that_does_not_import_is_one_line_not_one_per_check():
    """Is a student whose file does not parse – every check failed with the outcome NOT_IMPORTED – one line of the
    mistakes (not a crash), and none of the checks failed most often, which count wrong work?"""
    broken = [verdict(f"check {i}", outcome=Outcome.NOT_IMPORTED, feedback_en="SyntaxError", exercise="ex05") for i in range(16)]
    figures = summary.summarize([row("eve", *broken, exercise="ex05")], ["ex05"])
    assert figures["most_failed_checks"] == [] and figures["crashed"] == 0 and figures["did_not_import"] == 1
    text = summary.to_markdown(figures)
    assert text.count("did not import (") == 1 and "did not import: 1" in text


def test_summary_believes_no_words_a_student_wrote():
    """Does feedback text a submission controls ("Likely mistake: <b>…", "process ended") count as neither a
    diagnosis nor a crash, while outcomes the grader set count once per student?"""
    forged = 'ex05: lstm_step raised Exception; the submission\'s message: "Likely mistake: <b>x</b> [link](y)" process ended'
    rows = [
        row("eve", *[verdict(f"check {i}", feedback_en=forged, exercise="ex05") for i in range(11)], exercise="ex05"),
        row("dan", verdict("a", outcome=Outcome.CRASHED, exercise="ex05"), verdict("b", outcome=Outcome.CRASHED, exercise="ex05"), exercise="ex05"),
        row("fay", verdict("a", outcome=Outcome.TIMED_OUT, exercise="ex05"), exercise="ex05"),
    ]
    figures = summary.summarize(rows, ["ex05"])
    assert figures["crashed"] == 1 and figures["hit_a_time_limit"] == 1
    assert [(m["diagnosis"], m["students"]) for m in figures["mistakes"]] == [("crashed", 1), ("hit a time limit", 1)]


def test_the_distribution_shows_each_score_as_given():
    """Are scores of 5.4 and 2.25 counted as 5.4 and 2.25 in summary.json and summary.md – beside "max 5.4" – and not
    moved to the nearest half point (5.5, 2)?"""

    def scored(student: str, points: float) -> StudentRow:
        result = GradeResult(student, "cpu", "en", [ExerciseResult("ex01", "Cell-state arithmetic", points, 6.0, [])])
        return StudentRow(student, Status.GRADED, result)

    figures = summary.summarize([scored("ann", 5.4), scored("bob", 2.25), scored("cyd", 5.4)], ["ex01"])
    assert figures["exercises"]["ex01"]["distribution"] == {"2.25": 1, "5.4": 2}
    assert "| ex01 | 4.35 | 5.4 | 5.4 | 2.25: 1, 5.4: 2 |" in summary.to_markdown(figures)


def test_the_max_is_given_to_the_same_places_as_the_mean():
    """Is a score that is a float sum (2 × 2/3 + 1.5 = 2.833333333333333) the max of summary.json and summary.md to the
    4 decimals of its mean, median and distribution – not 2.833333333333333 there and 2.83333 beside 2.8333?"""
    result = GradeResult("ann", "cpu", "en", [ExerciseResult("ex03", "GRU arithmetic", 2 * (2 / 3) + 1.5, 6.0, [])])
    figures = summary.summarize([StudentRow("ann", Status.GRADED, result)], ["ex03"])
    assert figures["exercises"]["ex03"]["max"] == 2.8333
    assert "| ex03 | 2.8333 | 2.8333 | 2.8333 | 2.8333: 1 |" in summary.to_markdown(figures)


def test_summary_markdown_escapes_what_it_shows():
    """Is a check's or mistake's text shown inert in summary.md (no HTML, links or extra lines)?"""
    hostile = Text("a <b>bold</b> [link](http://x.invalid)\n# heading")
    figures = summary.summarize([row("ann", verdict("x", diagnosis=[hostile]))], ["ex03"])
    text = summary.to_markdown(figures)
    assert "<b>" not in text and "[link]" not in text and "\n# heading" not in text


def test_feedback_keeps_a_hostile_id_on_its_line():
    """Does a newline, Markdown or HTML in a student's id stay inside the title line of their feedback?"""
    student = "bob\n## Total: 100/100 points\n<script>x</script>"
    text = feedback.to_markdown(row(student, verdict("a", outcome=Outcome.PASSED)).result)
    title, rest = text.split("\n", 1)
    assert title.startswith("# Feedback for bob") and "<script>" not in text and "## Total" not in rest
    assert rest.lstrip().startswith("**Total: 2/2 points**")


def test_feedback_speaks_the_course_language():
    """Is a feedback file's every fixed word in Chinese when the course's language is zh?"""
    checks = [Verdict("ex01", "c_t", 1.0, 1.0, Text(""), True), Verdict("ex01", "h_t", 1.0, 0.0, Text("wrong", "错"), True, Outcome.FAILED)]
    result = GradeResult("ada", "cpu", "zh", [ExerciseResult("ex01", "Cell-state arithmetic", 1.0, 2.0, checks)])
    text = feedback.to_markdown(result)
    assert "总分：1/2 分" in text and "，通过" in text and "未通过" in text and "错" in text
    assert not any(word in text for word in ("Feedback for", "Total", "passed", "failed", "wrong"))


def test_a_hand_in_packed_under_ones_own_id_in_other_capitals_is_no_other_students():
    """Is a zip packed with `--student alice` by the student whose LMS folder is `Alice/` (one student to the numbers:
    the same variant) kept out of the summary's hand-ins packed as another student, while one packed as bob is listed?"""
    from dataclasses import replace

    own, other = row("Alice", verdict("a")), row("carol", verdict("a"))
    rows = [replace(own, result=replace(own.result, packed_as="alice")), replace(other, result=replace(other.result, packed_as="bob"))]
    assert summary.summarize(rows, ["ex03"])["packed_as_another_student"] == [{"student": "carol", "packed_as": "bob"}]
