"""The TA's outputs: grades.csv cells a spreadsheet cannot run, summaries counted from the result model."""

import csv
import io

import pytest

from grader.export import grades

FORMULAS = ["=99+1", '=HYPERLINK("http://x.invalid","click")', "@SUM(1+1)", "+1+1", "-2+3", "\t=1", "\r=1"]


def report(score: float) -> dict:
    return {"extra_data": {"exercises": [{"id": "ex01", "score": score}]}}


@pytest.mark.parametrize("student", FORMULAS)
def test_grades_csv_cells_are_never_formulas(student):
    """Does grades.csv write a student id that a spreadsheet would run as text, and keep ordinary ids as they are?"""
    text = grades.to_csv([{"student": student, "report": report(3.0)}, {"student": "bob", "report": report(2.5)}],
                         ["ex01"])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    cells = [cell for row in rows for cell in row]
    assert not any(cell.startswith(grades._FORMULA_STARTS) for cell in cells), cells
    assert len(rows) == 3 and ["bob", "2.5", "2.5"] in rows
    assert ["'" + student.replace("\r", "?"), "3", "3"] in rows
