"""Exporters of the result model (grader.results): one module per format, and the files a batch writes, named once.

`CLASS_FILES` and `STUDENT_FILES` are the batch's outputs: each a file name in OUT and the function that renders it
from what a batch has at its end (`Class`) or from one student's final row. `grade batch` writes them in this order,
each written only when it differs; a new format is a module here and one line in one of these tables. The LMS files
(Canvas, Moodle, Gradescope, nbgrader) are written on request by `grade export ...` and the integrations instead,
against a roster or a platform of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.results import Graded, StudentRow


@dataclass(frozen=True)
class Class:
    """What a batch's class files are rendered from: every student's final row, the exercises graded, the summary, in
    the course's language under its title."""

    language: str
    title: str
    rows: Sequence[StudentRow]
    exercises: Sequence[Graded]
    summary: dict[str, Any]

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.exercises]


def _grades(c: Class) -> str:
    from grader.export import grades

    return grades.to_csv(list(c.rows), c.ids)


def _summary_json(c: Class) -> str:
    from grader.export import summary

    return summary.to_json(c.summary)


def _summary_md(c: Class) -> str:
    from grader.export import summary

    return summary.to_markdown(c.summary)


def _report(c: Class) -> str:
    from grader.export import report

    return report.to_html(c.rows, c.exercises, c.summary, language=c.language, title=c.title)


def _result_json(row: StudentRow) -> str:
    from grader.export.gradescope import dumps, to_dict

    return dumps(to_dict(row.result, timing=False)) + "\n"


def _feedback(row: StudentRow) -> str:
    from grader.export import feedback

    return feedback.to_markdown(row.result)


# OUT's files of the whole class: (file name, renderer)
CLASS_FILES: tuple[tuple[str, Callable[[Class], str]], ...] = (
    ("grades.csv", _grades),
    ("summary.json", _summary_json),
    ("summary.md", _summary_md),
    ("report.html", _report),
)
# OUT's files of each student: (folder, suffix, renderer) – reports/<id>.json, feedback/<id>.md
STUDENT_FILES: tuple[tuple[str, str, Callable[[StudentRow], str]], ...] = (
    ("reports", ".json", _result_json),
    ("feedback", ".md", _feedback),
)
