"""Answer sheets (answers.toml): `load_sheet` reads one safely into an `AnswerSheet`, whose checks judge each answer
as the kind its key asks for (`forms`); `SheetError` is a sheet that cannot be read at all.

reading.py reads the file and its TOML, judging.py holds the sheet and its checks, values.py what a typed value means,
quoting.py how feedback quotes it.
"""

from grader.grading.answers.forms import Boolean, Choice, Form, Formula, Integer, Number, Shape
from grader.grading.answers.judging import AnswerSheet, Diagnosis
from grader.grading.answers.reading import SheetError, load_sheet

__all__ = ["AnswerSheet", "Boolean", "Choice", "Diagnosis", "Form", "Formula", "Integer", "Number", "Shape", "SheetError", "load_sheet"]
