"""A notebook hand-in (`exNN.ipynb`) read as the exercise's files: code cells become its module, answer cells its answers.toml.

Nothing in a notebook runs here: cells are parsed and compiled, never executed. Which cell is
which: a cell's `grader.file` metadata (what `grade nbgrader export` writes) names its file;
otherwise a code cell that assigns an answer-sheet key at top level is an answer cell, and every
other code cell belongs to the exercise's module. nbgrader's autograder-test cells are skipped. A markdown
cell whose `grader.file` names the exercise's written answer (`interpretation.md`) is that answer's text;
every other markdown cell is left out.
An answer cell holds `key = value` lines: a number, string, True/False or list is that answer;
any other expression is kept as its text, i.e. judged as a formula (`c_t = 0.8*2 - 0.1`).
"""

from __future__ import annotations

import ast
import json
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

from grader.course import Exercise
from grader.submissions import bounded

NOTEBOOK_BYTES = 16 << 20  # largest notebook read (outputs count; only the cells' sources are kept)
SHEET = "answers.toml"
Cell = dict[str, Any]  # a notebook cell as JSON, in the shape nbformat's validator has checked
# The largest integer written as a TOML literal: str() refuses more than sys.int_info.default_max_str_digits digits.
_MAX_INT_BITS = int((sys.int_info.default_max_str_digits - 1) * math.log2(10))
METADATA = "grader"  # cell metadata: {"file": "gated.py"} on hand-in cells, {"role": "autograde"} on the grade cell


def places(submission: Path, exercise: Exercise) -> list[Path]:
    """Where a notebook for `exercise` may be handed in: `<folder>/<id>.ipynb`, nbgrader's `<id>/<id>.ipynb`, `<id>.ipynb`."""
    name = f"{exercise.id}.ipynb"
    return [submission / exercise.folder / name, submission / exercise.id / name, submission / name]


def find(submission: Path, exercise: Exercise) -> list[Path]:
    """The notebooks handed in for `exercise` (at its `places`)."""
    return [p for p in places(submission, exercise) if p.exists() or p.is_symlink()]


def student_files(data: bytes, exercise: Exercise, shown: str, *, limit: int) -> tuple[dict[str, bytes], dict[str, str]]:
    """The exercise's student files built from notebook bytes (`shown` names the notebook), and why any could not be.

    Returns (files, problems): every student file of the exercise is in exactly one of the two. No cell
    and no file built may exceed `limit` bytes, nor all code cells together one `limit` per student file;
    the notebook is read at a bounded cost (`bounded`), so one it would take too long to read costs its files.
    """
    try:
        texts, problems = bounded.run(_built, data, exercise, shown, limit, size=len(data))
    except bounded.TooCostly as e:
        return {}, {name: f"{shown} is too costly to read: {e}; hand in a smaller notebook" for name in exercise.student_files}
    return {name: text.encode("utf-8", errors="replace") for name, text in texts.items()}, problems


def _built(data: bytes, exercise: Exercise, shown: str, limit: int) -> tuple[dict[str, str], dict[str, str]]:
    """The files' texts and the problems of `student_files` (plain data, so that a limited child can return them)."""
    try:
        cells = _cells(data, shown)
    except NotebookError as e:
        return {}, {name: str(e) for name in exercise.student_files}
    total = sum(len(cell["source"].encode("utf-8", errors="replace")) for _, cell in cells)
    if total > limit * len(exercise.student_files):
        return {}, {
            name: f"the code cells of {shown} come to {total} bytes; the limit is {limit} a file, {limit * len(exercise.student_files)} in all"
            for name in exercise.student_files
        }
    modules = [n for n in exercise.student_files if n.endswith(".py")]
    keys = _sheet_keys(exercise)
    sources: dict[str, list[str]] = {name: [] for name in exercise.code_files if name != SHEET}
    written: dict[str, list[str]] = {name: [] for name in exercise.student_files if name not in exercise.code_files}
    answers: dict[str, str] = {}  # key -> its TOML value, from every answer cell in order (the last one wins)
    problems: dict[str, str] = {}
    for number, cell in cells:
        where = f"{shown}, cell {number}"
        name = _marked_file(cell, exercise)
        if cell["cell_type"] == "markdown":  # only a written answer's cells are kept (`_cells`)
            if name in written:
                written[name].append(cell["source"])
            continue
        try:
            tree = _parse(cell["source"], where, limit)
        except NotebookError as e:  # unreadable, so unsorted: it costs the file it would most likely belong to
            for owner in [name] if name else modules or [SHEET]:
                problems.setdefault(owner, str(e))
            continue
        if name is None:
            name = SHEET if keys and _assigns(tree, keys) else modules[0] if len(modules) == 1 else None
        if name is None:  # a quiz's scratch cell, or a cell of an exercise with several modules
            for owner in modules:
                problems.setdefault(
                    owner,
                    f"{where}: this exercise has several modules ({', '.join(modules)}); give each code cell the metadata {METADATA}.file naming its file",
                )
            continue
        if name == SHEET:
            _read_answers(tree, cell["source"], where, answers, problems)
        else:
            sources[name].append(cell["source"])
    files = {}
    if SHEET in exercise.student_files and SHEET not in problems:
        files[SHEET] = "".join(f"{_toml_string(k)} = {v}\n" for k, v in answers.items())
    for name, parts in sources.items():
        if name in problems:
            continue
        if parts:
            files[name] = "\n\n".join(p.rstrip("\n") for p in parts) + "\n"
        else:
            problems[name] = f"{shown} has no code cell for {name}"
    files |= {name: "\n\n".join(p.rstrip("\n") for p in parts) + "\n" for name, parts in written.items() if parts}  # none: unanswered
    for name in [n for n, text in files.items() if len(text.encode("utf-8", errors="replace")) > limit]:
        size = len(files.pop(name).encode("utf-8", errors="replace"))
        problems[name] = f"the cells of {shown} for {name} come to {size} bytes; the limit is {limit}"
    return files, problems


class NotebookError(ValueError):
    """A notebook, or one of its cells, that cannot be read; the message names it."""


def _cells(data: bytes, shown: str) -> list[tuple[int, Cell]]:
    """The code cells of a valid nbformat-4 notebook, and the markdown cells that name a written answer in their
    `grader.file` metadata, numbered from 1 as Jupyter shows them, with string sources."""
    import nbformat

    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise NotebookError(f"{shown} is not UTF-8 text (byte {e.start}); save it again from Jupyter") from None
    except json.JSONDecodeError as e:
        raise NotebookError(
            f"{shown} is not a notebook: its JSON does not parse (line {e.lineno}, column {e.colno}: {e.msg}); save it again from Jupyter"
        ) from None
    except RecursionError:
        raise NotebookError(f"{shown} is not a notebook: its JSON is nested too deeply") from None
    if not isinstance(doc, dict):
        raise NotebookError(f"{shown} is not a notebook: its JSON is not an object; save it again from Jupyter")
    if doc.get("nbformat") != 4:
        version = f"nbformat {doc['nbformat']!r}" if "nbformat" in doc else "no nbformat version"
        raise NotebookError(f"{shown} has {version}; the grader reads nbformat 4 notebooks (save it again from Jupyter)")
    try:
        nbformat.validate(nbformat.from_dict(doc), version=4)
    except nbformat.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path) if getattr(e, "absolute_path", None) else "top level"
        raise NotebookError(f"{shown} is not a valid nbformat 4 notebook ({where}: {str(e.message)[:200]!r}); save it again from Jupyter") from None
    except RecursionError:  # JSON that json.loads still reads, nested too deeply for nbformat's validator
        raise NotebookError(f"{shown} is not a notebook: its JSON is nested too deeply") from None
    cells = []
    for number, cell in enumerate(doc["cells"], 1):
        written = cell["cell_type"] == "markdown" and str(_file_of(cell)).endswith(".md")
        if not written and (cell["cell_type"] != "code" or _is_test(cell)):
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        cells.append((number, {**cell, "source": source}))
    return cells


def _is_test(cell: Cell) -> bool:
    """An autograder cell: ours, or any nbgrader grade cell that is not a solution cell."""
    ours = cell["metadata"].get(METADATA)
    nbgrader = cell["metadata"].get("nbgrader")
    return (isinstance(ours, dict) and ours.get("role") == "autograde") or (
        isinstance(nbgrader, dict) and bool(nbgrader.get("grade")) and not nbgrader.get("solution")
    )


def _marked_file(cell: Cell, exercise: Exercise) -> str | None:
    name = _file_of(cell)
    return name if name in exercise.student_files else None


def _file_of(cell: Cell) -> object:
    """What the cell's `grader.file` metadata says (None where it has none)."""
    ours = cell["metadata"].get(METADATA)
    return ours.get("file") if isinstance(ours, dict) else None


def _sheet_keys(exercise: Exercise) -> set[str]:
    if SHEET not in exercise.student_files:
        return set()
    return set(tomllib.loads((exercise.stub_dir / SHEET).read_text(encoding="utf-8")))


def _parse(source: str, where: str, limit: int) -> ast.Module:
    """The cell's syntax tree; compiled too (never run), so that `return` outside a function is caught here.

    A cell over `limit` bytes is refused unparsed."""
    size = len(source.encode("utf-8", errors="replace"))
    if size > limit:
        raise NotebookError(f"{where} is {size} bytes; the limit is {limit}")
    try:
        compile(source, where, "exec", dont_inherit=True)
        return ast.parse(source)
    except SyntaxError as e:
        line = f"line {e.lineno}: " if e.lineno else ""
        raise NotebookError(f"{where} is not valid Python ({line}{e.msg}); IPython magics and ! commands cannot be handed in") from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise NotebookError(f"{where} cannot be read as Python ({type(e).__name__})") from None


def _assigns(tree: ast.Module, keys: set[str]) -> bool:
    return any(name in keys for statement in tree.body for name in _targets(statement) or ())


def _targets(statement: ast.stmt) -> list[str] | None:
    """The names a `key = value` statement assigns, or None for any other statement."""
    if isinstance(statement, ast.Assign):
        names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        return names if len(names) == len(statement.targets) else None
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
        return [statement.target.id]
    return None


def _read_answers(tree: ast.Module, source: str, where: str, answers: dict[str, str], problems: dict[str, str]) -> None:
    """Add an answer cell's `key = value` statements to `answers` as TOML values; any other statement is a problem."""
    for statement in tree.body:
        names = _targets(statement)
        if names is None:
            problems.setdefault(
                SHEET, f"{where}, line {statement.lineno}: an answer cell holds only `key = answer` lines; move other code to a cell of its own"
            )
            return
        assert isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None  # as _targets read it
        value = _toml_value(statement.value, source)
        answers.update(dict.fromkeys(names, value))


def _toml_value(node: ast.expr, source: str) -> str:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        value = None
    text = _toml_literal(value)
    if text is None:  # an expression, or a literal TOML cannot hold: judged as the formula it spells
        text = _toml_string(ast.get_source_segment(source, node) or "")
    return text


def _toml_literal(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):  # one Python cannot print in decimal (0x and 4000 digits) is judged as the text typed
        return str(value) if value.bit_length() <= _MAX_INT_BITS else None
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        items = [_toml_literal(v) for v in value]
        known = [i for i in items if i is not None]
        return "[" + ", ".join(known) + "]" if len(known) == len(items) else None
    return None


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, bar DEL, which TOML wants escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")
