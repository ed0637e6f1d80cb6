"""Exporters of the result model (grader.results): one module per format, and the files a batch writes, named once.

`CLASS_FILES` and `STUDENT_FILES` are the batch's outputs, each an `Exporter`: a file's path in OUT and its text, from
what a batch has at its end (`Class`) or from one student's final row. `grade batch` writes them in this order,
each written only when it differs; a new format is a module here and one line in one of these tables. The LMS files
are written on request instead, against a roster of their own: `LMS_FILES` names the LMSes of `grade export NAME`
(Canvas, Moodle), each an `LMS`; a new one is a module here and one line there. Gradescope and nbgrader are
integrations (grader.integrations), platforms of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from grader.results import Graded, StudentRow

if TYPE_CHECKING:
    from grader.export.lms import Finals, Option

Source = TypeVar("Source", contravariant=True)  # what an exporter renders: the whole class, or one student's row


class Exporter(Protocol[Source]):
    """One file of a batch's OUT: where it goes (a path relative to OUT) and its text, both from what it renders."""

    def path(self, source: Source) -> str: ...

    def render(self, source: Source) -> str: ...


@dataclass(frozen=True)
class ClassFile:
    """A file of the whole class: OUT/`name`."""

    name: str
    render: Callable[[Class], str]

    def path(self, source: Class) -> str:
        return self.name


@dataclass(frozen=True)
class StudentFile:
    """A file of each student: OUT/`folder`/<student id>`suffix`."""

    folder: str
    suffix: str
    render: Callable[[StudentRow], str]

    def path(self, source: StudentRow) -> str:
        return f"{self.folder}/{source.student}{self.suffix}"


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


# OUT's files of the whole class, in the order written
CLASS_FILES: tuple[Exporter[Class], ...] = (
    ClassFile("grades.csv", _grades),
    ClassFile("summary.json", _summary_json),
    ClassFile("summary.md", _summary_md),
    ClassFile("report.html", _report),
)
# OUT's files of each student: reports/<id>.json, feedback/<id>.md
STUDENT_FILES: tuple[Exporter[StudentRow], ...] = (
    StudentFile("reports", ".json", _result_json),
    StudentFile("feedback", ".md", _feedback),
)


class LMS(Protocol):
    """An LMS's grade import file, written by `grade export NAME` from OUT's final points (grader.export.lms): a module
    of this package with its command's help, its own options, and the file's text with how many students it holds."""

    SHORT_HELP: str
    HELP: str
    OPTIONS: tuple[Option, ...]

    def render(self, finals: Finals, /, *args: Any, **options: Any) -> tuple[str, int]: ...  # one keyword per option


def _canvas() -> LMS:
    from grader.export import canvas

    return canvas


def _moodle() -> LMS:
    from grader.export import moodle

    return moodle


# The LMSes `grade export` writes for: the command's name, and its module (loaded when the command is)
LMS_FILES: dict[str, Callable[[], LMS]] = {"canvas": _canvas, "moodle": _moodle}
