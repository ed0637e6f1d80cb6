"""The course as an nbgrader course (`grade nbgrader export`): nbgrader_config.py and a source notebook per exercise.

`export` writes `nbgrader_config.py` and `source/<id>/<id>.ipynb` per exercise: the statement, one
solution cell per student file – the stub, with the reference between `### BEGIN SOLUTION` and
`### END SOLUTION` where the stub raises NotImplementedError (nbgrader's generate_assignment
turns each region into `# YOUR CODE HERE`, so a student sees exactly the stub) – and one
autograder cell worth the exercise's points, which calls `grader.integrations.nbgrader.autograder`.
No hidden check, reference or expected value is copied into a notebook: the course stays where it
is, and the config tells the cells where (GRADER_COURSE_ROOT, which nbgrader's kernels inherit).
"""

from __future__ import annotations

import ast
import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.course import Course, Exercise
from grader.errors import CourseError, OutputError, SubmissionError
from grader.inside import layout
from grader.submissions.notebook import METADATA, SHEET

COURSE_ROOT = "GRADER_COURSE_ROOT"  # the environment variable naming the course the autograder cells grade with
CONFIG = "nbgrader_config.py"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = "# YOUR CODE HERE"  # what generate_assignment leaves of a solution region (ClearSolutions.code_stub)
CELL_TIMEOUT = 600  # seconds nbgrader allows one cell: an autograder cell grades a whole exercise

_CONFIG_MARK = "# Written by `grade nbgrader export`"
_CONFIG_TEXT = (
    _CONFIG_MARK
    + """ (the {title} course); every export rewrites it.
import os

c = get_config()  # noqa: F821 (nbgrader's config loader provides get_config)
c.CourseDirectory.course_id = {course_id!r}
# The autograder cells grade with the hidden checks of the course at this path; nothing of it is
# copied here. nbgrader's kernels inherit the variable.
os.environ[{variable!r}] = {root!r}
# A solution region becomes this line; the stub's code around it stays, so a student sees the stub.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
c.Execute.timeout = {timeout}
"""
)

_HOW_TO = (
    "**Hand-in.** Each code cell below is one file of the exercise (its heading names it): write your "
    "code where `# YOUR CODE HERE` stands, and answers as `key = answer` lines. Keep IPython magics "
    "(`%...`, `!...`) out of these cells. The last cell runs the course's checks on this notebook, as "
    "`grade run {id}` does. A markdown cell headed `interpretation.md`, where there is one, is your written answer: "
    "the course staff mark it by hand.\n\n**提交方式。** 下面每个代码单元格是本练习的一个文件（标题给出文件名）：在 "
    "`# YOUR CODE HERE` 处写代码，答案写成 `key = answer` 形式的行。这些单元格中不要使用 IPython 魔法命令"
    "（`%...`、`!...`）。最后一个单元格对本笔记本运行课程的检查，与 `grade run {id}` 相同。标题为 `interpretation.md` 的 markdown "
    "单元格（如果有）是你的书面回答，由课程教师人工评分。"
)


def export(*, course: Course, course_dir: Path) -> list[Path]:
    """Write the nbgrader course into `course_dir`; return the files written, relative to it."""
    if not course.has_hidden_checks or not (course.root / layout.SOLUTIONS).is_dir():
        hidden = f"{layout.TREE}/<id>/{layout.CHECKS}"
        raise CourseError(f"{course.root} has no hidden checks ({hidden}) or {layout.SOLUTIONS}/: export from the TA's course, not from a student bundle")
    inside = next((part for part in layout.GRADING if course_dir.resolve().is_relative_to((course.root / part).resolve())), None)
    if inside is not None:  # the source notebooks hold the references: exercises/ and grader/ go to every student
        raise OutputError(
            f"--course-dir {course_dir}: inside the course's {inside}/, which `grade release` or `grade gradescope export` ships; "
            "the source notebooks hold the references: export into a folder of its own, such as nbgrader/"
        )
    config = course_dir / CONFIG
    if config.exists() and not config.read_text(encoding="utf-8").startswith(_CONFIG_MARK):
        raise SubmissionError(f"{config} exists and was not written by `grade nbgrader export`; export into a new folder, or move that file away")
    import nbformat

    course_dir.mkdir(parents=True, exist_ok=True)
    written = [Path(CONFIG)]
    notebooks = {Path("source", e.id, f"{e.id}.ipynb"): source_notebook(e) for e in course.exercises if e.available}
    for path, notebook in notebooks.items():
        (course_dir / path).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, course_dir / path)
        written.append(path)
    config.write_text(
        _CONFIG_TEXT.format(title=course.title, course_id=course.id, variable=COURSE_ROOT, root=str(course.root.resolve()), stub=STUB, timeout=CELL_TIMEOUT),
        encoding="utf-8",
    )
    return written


def source_notebook(exercise: Exercise) -> Any:
    """The instructor's notebook of one exercise: statement, solution cells (stub + reference), autograder cell."""
    from nbformat import v4

    cells = [
        v4.new_markdown_cell(
            (exercise.stub_dir / "README.md").read_text(encoding="utf-8"), id="statement", metadata=_nbgrader(f"{exercise.id}_statement", locked=True)
        ),
        v4.new_markdown_cell(_HOW_TO.format(id=exercise.id), id="how-to"),
    ]
    for name in exercise.student_files:
        stub = (exercise.stub_dir / name).read_text(encoding="utf-8")
        reference = (exercise.solution_dir / name).read_text(encoding="utf-8")
        where = f"{exercise.folder}/{name}"
        if name not in exercise.code_files:  # the written answer: a markdown cell the course staff grade by hand
            cells.append(v4.new_markdown_cell(f"### `{name}`", id=f"{Path(name).stem}-heading"))
            cells.append(written_cell(exercise, stub, reference))
            continue
        source = _sheet_cell(stub, reference, where) if name == SHEET else _module_cell(stub, reference, where)
        stem = Path(name).stem
        cells.append(v4.new_markdown_cell(f"### `{name}`", id=f"{stem}-heading"))
        cells.append(v4.new_code_cell(source, id=stem, metadata={**_nbgrader(f"{exercise.id}_{stem}", solution=True), METADATA: {"file": name}}))
    cells.append(
        v4.new_code_cell(
            f"# The course's checks on this notebook (`grade run {exercise.id}`); the cell's value is the points earned.\n"
            f"from grader.integrations.nbgrader.autograder import autograde\n\nautograde({exercise.id!r})",
            id="autograder",
            metadata={**_nbgrader(grade_cell(exercise), grade=True, locked=True, points=exercise.checked_points), METADATA: {"role": "autograde"}},
        )
    )
    return v4.new_notebook(
        cells=cells,
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}, "language_info": {"name": "python"}},
    )


def grade_cell(exercise: Exercise) -> str:
    """The grade_id of an exercise's autograder cell (the gradebook's grade cell)."""
    return f"{exercise.id}_autograder"


def written_grade_cell(exercise: Exercise) -> str:
    """The grade_id of an exercise's written answer: a manually graded markdown cell worth the rubric's points."""
    assert exercise.rubric is not None
    return f"{exercise.id}_{Path(exercise.rubric.file).stem}"


def written_cell(exercise: Exercise, stub: str, reference: str) -> Any:
    """The written answer's cell: the stub, then the reference answer in a solution region (generate_assignment leaves
    the stub and "YOUR ANSWER HERE"); formgrader marks it by hand, `grade mark` too (both reach the gradebook)."""
    from nbformat import v4

    assert exercise.rubric is not None
    source = f"{stub.rstrip()}\n\n{BEGIN}\n{reference.strip()}\n{END}"
    metadata = {**_nbgrader(written_grade_cell(exercise), grade=True, solution=True, points=exercise.rubric.points), METADATA: {"file": exercise.rubric.file}}
    return v4.new_markdown_cell(source, id=Path(exercise.rubric.file).stem, metadata=metadata)


def _nbgrader(grade_id: str, *, grade: bool = False, solution: bool = False, locked: bool = False, points: float | None = None) -> dict[str, Any]:
    """nbgrader's schema-3 cell metadata."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


# -- solution cells ---------------------------------------------------------------------------------


def _module_cell(stub: str, reference: str, where: str) -> str:
    """The stub's text with the reference's code in solution regions: each stubbed body's, before its raise,
    and the reference's own helpers, imports and constants at the end of the module or class they belong to."""
    lines = stub.splitlines()
    regions = _regions(ast.parse(stub).body, ast.parse(reference).body, reference.splitlines(), len(lines), 0, where)
    # Last place first, and of two regions at one place the later first: a class's own ends before the module's.
    for at, indent, body in reversed(sorted(regions, key=lambda r: r[0])):
        lines[at:at] = [indent + BEGIN, *body, indent + END]
    source = "\n".join(lines) + "\n"
    student = "\n".join(_cleared(source)) + "\n"
    if ast.dump(ast.parse(student)) != ast.dump(ast.parse(stub)):  # what nbgrader leaves must be the stub itself
        raise CourseError(f"{where}: the solution regions would not leave the stub in the student notebook")
    compile(source, where, "exec", dont_inherit=True)
    return source.rstrip("\n")


def _regions(stub_body: list[ast.stmt], ref_body: list[ast.stmt], ref_lines: list[str], end: int, indent: int, where: str) -> list[tuple[int, str, list[str]]]:
    """(line index to insert before, indent, reference lines) for one module or class body of the stub."""
    defined = {n.name: n for n in ref_body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    regions = []
    for node in stub_body:
        ref = defined.get(getattr(node, "name", ""))
        if isinstance(node, ast.ClassDef) and isinstance(ref, ast.ClassDef):
            regions += _regions(node.body, ref.body, ref_lines, node.end_lineno or node.lineno, node.body[0].col_offset, where)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _stubbed(node):
            if not isinstance(ref, (ast.FunctionDef, ast.AsyncFunctionDef)):
                raise CourseError(f"{where}: the reference has no function {node.name}")
            given, body = _code(node.body)[:-1], _code(ref.body)
            if [ast.dump(s) for s in body[: len(given)]] != [ast.dump(s) for s in given]:
                raise CourseError(f"{where}: {node.name}'s reference does not begin with the stub's own statements")
            raised = node.body[-1]
            pad = " " * raised.col_offset
            code = _lines(ref_lines, body[len(given) :], raised.col_offset)
            if not body or not isinstance(body[-1], (ast.Return, ast.Raise)):  # it must not fall through to the raise
                code.append(pad + "return")
            regions.append((raised.lineno - 1, pad, code))
    ours = {ast.dump(n) for n in stub_body} | {n.name for n in stub_body if hasattr(n, "name")}
    extra = [n for n in _code(ref_body) if (n.name if hasattr(n, "name") else ast.dump(n)) not in ours]
    if extra:
        regions.append((end, " " * indent, _lines(ref_lines, extra, indent, separate=True)))
    return regions


def _stubbed(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a stub function ends in `raise NotImplementedError(...)`."""
    last = function.body[-1]
    raised = last.exc.func if isinstance(last, ast.Raise) and isinstance(last.exc, ast.Call) else getattr(last, "exc", None)
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def _code(body: list[ast.stmt]) -> list[ast.stmt]:
    """A body without its docstring."""
    docstring = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    return body[1:] if docstring else body


def _lines(source: list[str], nodes: list[ast.stmt], indent: int, *, separate: bool = False) -> list[str]:
    """The source lines of `nodes` (with decorators, and the comments between them unless `separate`), re-indented."""
    if not nodes:
        return []

    def start(n: ast.stmt) -> int:
        decorators: list[ast.expr] = getattr(n, "decorator_list", [])
        return min([n.lineno, *(d.lineno for d in decorators)])

    spans = [(start(n), n.end_lineno) for n in nodes] if separate else [(start(nodes[0]), nodes[-1].end_lineno)]
    old = nodes[0].col_offset
    out: list[str] = []
    for first, last in spans:
        if out:
            out.append("")
        for line in source[first - 1 : last]:
            text = line[old:] if line[:old].strip() == "" else line
            out.append(" " * indent + text if text.strip() else "")
    return out


def _cleared(source: str) -> Iterator[str]:
    """`source` as generate_assignment leaves it: each solution region replaced by the stub line."""
    inside = False
    for line in source.splitlines():
        if BEGIN in line:
            inside = True
            yield line[: len(line) - len(line.lstrip())] + STUB
        elif END in line:
            inside = False
        elif not inside:
            yield line


def _sheet_cell(stub: str, reference: str, where: str) -> str:
    """The stub sheet as Python `key = answer` lines, each followed by the reference answer in a solution region."""
    answers, expected = tomllib.loads(stub), tomllib.loads(reference)
    lines, seen = [], []
    for line in stub.splitlines():
        key = line.split("=", 1)[0].strip()
        if key in answers and "=" in line:
            if key not in expected:
                raise CourseError(f"{where}: the reference has no answer for {key}")
            lines += [f"{key} = {_python(answers[key], where)}", BEGIN, f"{key} = {_python(expected[key], where)}", END]
            seen.append(key)
        elif not line.strip() or line.lstrip().startswith("#"):
            lines.append(line)
        else:
            raise CourseError(f"{where}: line {line!r} is not a one-line `key = value` or a comment")
    if sorted(seen) != sorted(answers):
        raise CourseError(f"{where}: keys {', '.join(sorted(set(answers) - set(seen)))} are not one-line `key = value`")
    return "\n".join(lines).rstrip("\n")


def _python(value: object, where: str) -> str:
    """A Python literal with the TOML value's meaning (a JSON string is a Python string literal)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float, str)):
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    if isinstance(value, list):
        return "[" + ", ".join(_python(v, where) for v in value) + "]"
    raise CourseError(f"{where}: an answer of type {type(value).__name__} has no notebook form")
