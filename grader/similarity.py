"""`grade similarity`: which students' work is alike, for a TA to look at – never a verdict, never a grade.

Code: for each code file a student edits, two scores, each copydetect's winnowed fingerprints with the exercise's
stub, its given course code and its public checks removed as boilerplate (two students who wrote nothing match 0),
each the larger of the two shares of one's fingerprinted code that the other holds. The text score fingerprints the
tokens (names, strings and comments filtered out: renaming and re-commenting change nothing). The AST score
fingerprints the code's normal form (`normalised`), in which statements that do nothing, docstrings, reworded
messages and renamed names change nothing either. A pair ranks by the larger of the two. A file is fingerprinted up
to its first FINGERPRINTED bytes (a 1 MiB hand-in costs what a long solution does), and one that does not parse is
compared by its text alone: both said in `notes`. Answer sheets: pairs of students who gave
two or more identical wrong answers, each judged by the course's own answer-sheet judge, in the form the exercise's
public check declares, against that student's own answers (with variants on, those of their numbers, as the hidden
checks compute them: `grader.grading.numbers.reference_sheet`), so that two students right for their own numbers never
share a wrong answer. `--past` folders (earlier terms) are references: each of them is compared with this class,
never with one another; a past student is judged on the numbers of their own id under this course's [variants].

Entries are read as `grade batch` reads them (folders, zips, notebooks) into a workspace, as text: nothing of a
student's is imported or run. Outputs in DIR: similarity.csv, shared_answers.csv and similarity.html (all student
text escaped).
"""

from __future__ import annotations

import ast
import csv
import html
import io
import itertools
import os
import tokenize
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.course import Course, Exercise
from grader.errors import OutputError, need
from grader.grading.numbers import tolerances
from grader.text import Text, one_line, printable

if TYPE_CHECKING:
    from grader.grading.answers import AnswerSheet, Form

SHEET = "answers.toml"
MIN_SHARED_WRONG = 2  # identical wrong answers that make a pair worth a look
SHOWN_SIDE_BY_SIDE = 50  # pairs at or above the threshold shown in full in similarity.html (all are in the CSV)
PRINTED = 10
FINGERPRINTED = 16 << 10  # bytes of a file compared: three times the longest reference file (ex08's protocol.py)


@dataclass(frozen=True)
class Pair:
    """Two students' versions of one code file, and what they share (character slices into each text)."""

    exercise: str
    file: str
    student_a: str
    student_b: str
    similarity: float  # the larger of the two scores, by which pairs rank
    text: float
    ast: float | None  # None where one of the two files does not parse
    shared_lines: int
    text_a: str = field(repr=False)
    text_b: str = field(repr=False)
    slices_a: Any = field(repr=False)  # copydetect's 2×N array of slice starts and ends
    slices_b: Any = field(repr=False)


@dataclass(frozen=True)
class Note:
    """A file compared in part: cut to its first FINGERPRINTED bytes, or by its text alone (it does not parse)."""

    student: str
    exercise: str
    file: str
    why: Text


@dataclass(frozen=True)
class SharedAnswers:
    """Two students who gave the same wrong answers: (key, the answer as the first of them typed it) for each."""

    exercise: str
    student_a: str
    student_b: str
    answers: tuple[tuple[str, str], ...]


@dataclass
class Similarity:
    pairs: list[Pair]  # most similar first
    shared: list[SharedAnswers]  # most shared wrong answers first
    students: int
    unread: list[tuple[str, str]]  # (student, why) for entries, or files, that could not be read
    threshold: float
    notes: list[Note] = field(default_factory=list)  # the files compared in part


def compare(*, course: Course, exercises: Sequence[Exercise], submissions: Path, past: Sequence[Path] = (), threshold: float = 0.5) -> Similarity:
    """Every pair of this class (and each student against each past one) on `exercises`; MissingExtra without copydetect."""
    need("copydetect", "grade similarity")
    unread: list[tuple[str, str]] = []
    notes: list[Note] = []
    current = read_texts(submissions, exercises, unread, notes, label="")
    earlier: dict[str, dict[str, dict[str, str]]] = {}
    seen: Counter[str] = Counter()
    for folder in past:  # each past student as "<folder>/<id>"; a second folder of the same name as "<folder>#2/<id>"
        seen[folder.name] += 1
        label = folder.name if seen[folder.name] == 1 else f"{folder.name}#{seen[folder.name]}"
        earlier.update(read_texts(folder, exercises, unread, notes, label=f"{label}/"))
    pairs: list[Pair] = []
    shared: list[SharedAnswers] = []
    for exercise in exercises:
        for name in exercise.student_files:
            if name.endswith(".py"):
                pairs += _code_pairs(exercise, name, current, earlier, notes)
        if SHEET in exercise.student_files:
            shared += _answer_pairs(course, exercise, current, earlier, unread)
    order = {e.id: n for n, e in enumerate(exercises)}
    pairs.sort(key=lambda p: (-p.similarity, order[p.exercise], p.student_a, p.student_b))
    shared.sort(key=lambda s: (-len(s.answers), order[s.exercise], s.student_a, s.student_b))
    return Similarity(pairs, shared, len(current), unread, threshold, notes)


def read_texts(
    folder: Path, exercises: Sequence[Exercise], unread: list[tuple[str, str]], notes: list[Note], *, label: str
) -> dict[str, dict[str, dict[str, str]]]:
    """student → exercise id → file name → text, for every entry of `folder` as `grade batch` finds and reads it; a
    code file longer than FINGERPRINTED bytes cut (`_cut`, said in `notes`)."""
    from grader.batch.roster import discover
    from grader.errors import SubmissionError
    from grader.submissions import opened
    from grader.submissions.workspace import load_submission

    texts: dict[str, dict[str, dict[str, str]]] = {}
    for student in discover(folder):
        who = label + student.id
        if student.refused:
            unread.append((who, student.refused))
            continue
        try:
            with opened(student.path) as root:
                workspace = load_submission(root, list(exercises), parsed=False)
        except SubmissionError as e:
            unread.append((who, str(e)))
            continue
        try:
            for exercise in exercises:
                for name in exercise.student_files:
                    path = workspace.folder(exercise) / name
                    problem = workspace.problem(exercise, name)
                    if problem:
                        unread.append((who, problem))
                    elif path.is_file():
                        data = path.read_bytes()
                        if name.endswith(".py") and len(data) > FINGERPRINTED:
                            kept = _cut(data)
                            notes.append(Note(who, exercise.id, name, _said("cut", kept=len(kept), size=len(data), line=kept.count(b"\n"))))
                            data = kept
                        texts.setdefault(who, {}).setdefault(exercise.id, {})[name] = _text(data)
        finally:
            workspace.remove()
        texts.setdefault(who, {})
    return texts


def _text(data: bytes) -> str:
    """A student file as text that every output can show: UTF-8 (bad bytes replaced), one kind of line end, no
    control, bidi or other unsafe character (each replaced by one character, so positions stay)."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return printable(text)


def _cut(data: bytes) -> bytes:
    """At most FINGERPRINTED bytes of a code file: up to its last top-level statement that starts within them (found by
    Python's tokenizer, so that what is kept still parses) where that keeps half of them or more, else up to a line's
    end, else the bytes as they come (a character cut in two is replaced when read)."""
    head = data[:FINGERPRINTED]
    line = head.rfind(b"\n") + 1 or FINGERPRINTED
    starts = [0, *itertools.accumulate(len(text) + 1 for text in head[:line].split(b"\n"))]  # each line's, as readline splits
    statement, after = 0, True  # the last top-level statement's first line; whether a logical line just ended
    try:
        for t in tokenize.tokenize(io.BytesIO(head[:line]).readline):
            if after and t.start[1] == 0 and t.type not in _BETWEEN:
                statement = starts[t.start[0] - 1]
            after = t.type in (tokenize.NEWLINE, *_BETWEEN) and (after or t.type == tokenize.NEWLINE)
    except (tokenize.TokenError, SyntaxError):  # the kept text ends inside a bracket or a string, or is no Python
        pass
    return data[: statement if statement >= FINGERPRINTED // 2 else line]


_BETWEEN = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)  # tokens between statements


NOTES = {
    "cut": Text(
        "fingerprinted its first {kept:,} of {size:,} bytes (lines 1–{line}); the rest is not compared",
        "只比较了前 {kept:,} 字节（共 {size:,} 字节，第 1–{line} 行），其余部分未比较",
    ),
    "text only": Text(
        "compared by its text alone: what was fingerprinted does not parse as Python ({why})",
        "只按文本比较：所比较的部分无法解析为 Python（{why}）",
    ),
}


def _said(key: str, **values: object) -> Text:
    return Text(NOTES[key].en.format(**values), NOTES[key].zh.format(**values))


def _code_pairs(
    exercise: Exercise, name: str, current: dict[str, dict[str, dict[str, str]]], earlier: dict[str, dict[str, dict[str, str]]], notes: list[Note]
) -> list[Pair]:
    """Every pair's text and AST scores on the file `name` of `exercise` (those sharing nothing left out); a file that
    does not parse said in `notes`, and scored by its text alone."""
    from copydetect import CodeFingerprint, compare_files, defaults

    from grader.submissions.bounded import TooCostly, run

    k = defaults.NOISE_THRESHOLD
    window = defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1
    stub = exercise.stub_dir / name
    contract = sorted(_bound(ast.parse(stub.read_text(encoding="utf-8")))) if stub.is_file() else []
    boilerplate = [_text(path.read_bytes()) for path in [stub, *exercise.given_code(hidden=False), *exercise.public_checks] if path.is_file()]
    forms = [normal for text in boilerplate if (normal := normalised(text, contract)[0])]
    import numpy as np

    def common(texts: list[str], *, tokens: bool) -> Any:
        return np.array(sorted({h for text in texts for h in CodeFingerprint(name, k, 1, filter=tokens, fp=io.StringIO(text)).hashes}))

    common_text, common_ast = common(boilerplate, tokens=True), common(forms, tokens=False)

    def fingerprints(students: dict[str, dict[str, dict[str, str]]]) -> dict[str, tuple[Any, Any]]:
        out = {}
        for s, files in students.items():
            if name not in files.get(exercise.id, {}):
                continue
            text = files[exercise.id][name]
            try:
                normal, why = run(normalised, text, contract, size=len(text.encode("utf-8", "surrogatepass")))
            except TooCostly as e:
                normal, why = "", str(e)
            if why:
                notes.append(Note(s, exercise.id, name, _said("text only", why=why)))
            by_text = CodeFingerprint(name, k, window, common_text, fp=io.StringIO(text))
            out[s] = (by_text, None if why else CodeFingerprint(name, k, window, common_ast, filter=False, fp=io.StringIO(normal)))
        return out

    ours, theirs = fingerprints(current), fingerprints(earlier)
    pairs = []
    for (a, (ta, na)), (b, (tb, nb)) in [*itertools.combinations(ours.items(), 2), *itertools.product(ours.items(), theirs.items())]:
        _, shares, (slices_a, slices_b) = compare_files(ta, tb)
        by_text = round(float(max(shares)), 4)
        by_ast = None if na is None or nb is None else round(float(max(compare_files(na, nb)[1])), 4)
        similarity = max(by_text, by_ast or 0.0)
        if similarity > 0:
            pairs.append(
                Pair(exercise.id, name, a, b, similarity, by_text, by_ast, _lines(ta.raw_code, slices_a), ta.raw_code, tb.raw_code, slices_a, slices_b)
            )
    return pairs


def _lines(text: str, slices: Any) -> int:
    """How many lines of `text` the shared slices touch."""
    touched: set[int] = set()
    for start, end in zip(*slices) if len(slices) == 2 else ():
        first = text.count("\n", 0, int(start))
        touched.update(range(first, first + text.count("\n", int(start), max(int(start), int(end) - 1)) + 1))
    return len(touched)


# --- the normal form of code -----------------------------------------------------------------------------------------

_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)  # what makes an expression statement do something
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def normalised(text: str, contract: list[str]) -> tuple[str, str]:
    """(the normal form of the code `text`, "") or ("", why it has none); plain data, for `bounded.run`.

    The normal form is `ast.unparse` of the tree with what changes nothing removed (`_Idle`) and every name the file
    binds numbered (`_Canonical`) except `contract`, the names the stub binds at its top level (lstm_step), which every
    student shares."""
    try:
        tree = _Idle().visit(ast.parse(text))
        _Canonical(tree, set(contract)).scope(tree, ())
        return ast.unparse(tree), ""
    except SyntaxError as e:
        return "", f"line {e.lineno}: {e.msg}"
    except (RecursionError, ValueError) as e:  # nested deeper than Python's stack, or a null byte
        return "", f"{type(e).__name__}: {e}"


class _Idle(ast.NodeTransformer):
    """Drop what changes nothing a program does: `pass`, docstrings and every other expression statement with no call
    (or await, yield, :=) in it (`...`, constants, a bare name), annotations; every string, f-strings too, one "S"."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                setattr(node, name, [s for s in block if not _idle(s)])
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Constant("S")

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant("S") if isinstance(node.value, str | bytes) else node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        """`x: T = v` as `x = v`; a bare `x: T` becomes `pass`, which its block then drops."""
        self.generic_visit(node)
        return ast.Pass() if node.value is None else ast.Assign([node.target], node.value, lineno=node.lineno)


def _idle(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    return isinstance(statement, ast.Expr) and not any(isinstance(n, _EFFECTS) for n in ast.walk(statement))


def _bound(scope: ast.AST) -> set[str]:
    """The names a function, lambda or module binds itself: its parameters, the targets it assigns (for, with, except,
    import as, :=), the functions and classes it defines – not those of the scopes inside it, nor its `global`s."""
    names = {a.arg for a in _parameters(scope.args)} if isinstance(scope, _FUNCTIONS) else set()
    declared: set[str] = set()
    todo = [n for n in ast.iter_child_nodes(scope) if not isinstance(n, ast.arguments)]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        if not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return names - declared


def _parameters(args: ast.arguments) -> list[ast.arg]:
    return [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else []), *args.kwonlyargs, *([args.kwarg] if args.kwarg else [])]


_Chain = tuple[tuple[set[str], dict[str, str]], ...]  # the names each enclosing scope binds, and their new names


class _Canonical:
    """Each name a function binds numbered in the order it first appears there (`n2_0`, `n2_1`, …: the scope's depth,
    then the number), the module's own likewise (`n1_…`); an attribute the file assigns (`self.w = …`) numbered
    (`a0`, …) file-wide. Kept: names it does not bind (builtins, `import torch`), the contract's, the names a class body
    binds (its methods and attributes: an API others call, such as `forward`) and every attribute it only reads –
    torch's `tanh`, a tensor's `shape`: a program cannot rename those without changing what it does, and they tell
    independent solutions apart (one calls einsum, another matmul)."""

    def __init__(self, tree: ast.Module, contract: set[str]) -> None:
        self.contract = contract
        self.assigned = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)}
        self.attributes: dict[str, str] = {}

    def scope(self, node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, chain: _Chain) -> None:
        """Rename inside the function, lambda or module `node`, whose enclosing scopes' names are `chain`."""
        bound = _bound(node) - (self.contract if not chain else set())
        chain = (*chain, (bound, {}))
        if isinstance(node, _FUNCTIONS):
            for a in _parameters(node.args):
                a.arg = self.name(a.arg, chain)
        body = node.body if isinstance(node.body, list) else [node.body]
        for statement in body:
            self.visit(statement, chain)

    def name(self, name: str, chain: _Chain) -> str:
        for depth in range(len(chain), 0, -1):
            bound, table = chain[depth - 1]
            if name in bound:
                return table.setdefault(name, f"n{depth}_{len(table)}")
        return name

    def visit(self, node: ast.AST, chain: _Chain) -> None:
        if isinstance(node, _FUNCTIONS):
            if not isinstance(node, ast.Lambda):
                node.name = self.name(node.name, chain)
                for decorator in node.decorator_list:
                    self.visit(decorator, chain)
            for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                self.visit(default, chain)  # evaluated where the function is defined
            self.scope(node, chain)
            return
        if isinstance(node, ast.ClassDef):
            node.name = self.name(node.name, chain)
        elif isinstance(node, ast.Name):
            node.id = self.name(node.id, chain)
        elif isinstance(node, ast.alias) and node.asname:
            node.asname = self.name(node.asname, chain)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            node.name = self.name(node.name, chain)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            node.names = [self.name(n, chain) for n in node.names]
        elif isinstance(node, ast.Attribute) and node.attr in self.assigned:
            node.attr = self.attributes.setdefault(node.attr, f"a{len(self.attributes)}")
        for child in ast.iter_child_nodes(node):
            self.visit(child, chain)


def _answer_pairs(
    course: Course,
    exercise: Exercise,
    current: dict[str, dict[str, dict[str, str]]],
    earlier: dict[str, dict[str, dict[str, str]]],
    unread: list[tuple[str, str]],
) -> list[SharedAnswers]:
    """Pairs who share at least MIN_SHARED_WRONG identical answers that the course's judge finds wrong, each student
    judged against their own answers (`_expected`); numbers are identical by value (`_valued`), the rest as typed."""
    forms, rtol = _forms(exercise), tolerances(exercise)
    if not forms:
        return []
    wrong: dict[tuple[str, str], str] = {}  # (key, answer as compared) → how it was typed, for the wrong ones
    judged: dict[tuple[str, str, str], bool] = {}  # (key, answer as compared, the right answer) → the judge's verdict
    given: dict[str, dict[str, str]] = {}  # student → key → answer as compared, wrong answers only
    references: dict[str, dict[str, Any]] = {}  # a reference sheet's text → its answers
    for student, files in [*current.items(), *earlier.items()]:
        if SHEET not in files.get(exercise.id, {}):
            continue
        sheet = _sheet(course, files[exercise.id][SHEET], student, unread)
        if sheet is None:
            continue
        expected = _expected(course, exercise, student.rsplit("/", 1)[-1], references)  # a past one's own id
        for key, form in forms.items():
            value = sheet.raw(key)
            if value is None or key not in expected:
                continue
            typed = _compared(value)
            if (key, typed, repr(expected[key])) not in judged:
                judged[key, typed, repr(expected[key])] = _right(sheet, key, form, expected[key], rtol.get(key))
            if not judged[key, typed, repr(expected[key])]:
                same = _valued(sheet, key, form) or typed
                wrong.setdefault((key, same), one_line(str(value), limit=80))
                given.setdefault(student, {})[key] = same
    pairs = []
    students = [s for s in given if s in current]
    for a, b in [*itertools.combinations(students, 2), *((s, t) for s in students for t in given if t in earlier)]:
        keys = [k for k, v in given[a].items() if given[b].get(k) == v]
        if len(keys) >= MIN_SHARED_WRONG:
            pairs.append(SharedAnswers(exercise.id, a, b, tuple((k, wrong[k, given[a][k]]) for k in keys)))
    return pairs


def _forms(exercise: Exercise) -> dict[str, Form]:
    """The forms of the sheet's keys, as the exercise's public check declares them (its FORMS); {} if it declares none."""
    import importlib.util

    for path in exercise.public_checks:
        spec = importlib.util.spec_from_file_location(f"similarity_forms_{exercise.id}_{path.stem}", path)
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # course code, which the grading process runs anyway
        forms = getattr(module, "FORMS", None)
        if isinstance(forms, dict):
            return forms
    return {}


def _expected(course: Course, exercise: Exercise, student: str, references: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The right answers for `student`: the reference sheet, its numbers those of the student's variant (the hidden
    checks' `expected`) where the exercise declares one; {} without a reference sheet."""
    import tomllib

    from grader.grading.numbers import reference_sheet
    from grader.variants import variant_of

    path = exercise.solution_dir / SHEET
    if not path.is_file():
        return {}
    if exercise.variant is None:
        text = path.read_text(encoding="utf-8")
    else:
        text = reference_sheet(exercise, variant_of(course.variants, exercise.variant, student).params)
    if text not in references:
        references[text] = tomllib.loads(text)
    return references[text]


def _sheet(course: Course, text: str, student: str, unread: list[tuple[str, str]]) -> AnswerSheet | None:
    """The student's sheet read by the course's reader (from a scratch file), or None (said in `unread`) if it cannot be."""
    import tempfile

    from grader.grading.answers import SheetError, load_sheet

    with tempfile.TemporaryDirectory(prefix="similarity-") as scratch:
        path = Path(scratch) / SHEET
        path.write_text(text, encoding="utf-8")
        try:
            return load_sheet(path, root=Path(scratch), rtol=course.rtol, fallback_seconds=course.symbolic_limit)
        except SheetError as e:
            unread.append((student, e.en))
            return None


def _compared(value: object) -> str:
    """An answer as two answers are compared: a string without its spaces, anything else as TOML gave it."""
    return "".join(value.split()) if isinstance(value, str) else repr(value)


def _valued(sheet: AnswerSheet, key: str, form: Form) -> str | None:
    """A number's answer as its value (12 significant digits), however it was typed: `0.52`, `"0.520"`, `5.2e-1` and
    `"52/100"` are one wrong answer, not four; None for other forms, or where it reads as no number."""
    from grader.failures import Fail
    from grader.grading.answers import Integer, Number

    if not isinstance(form, Number | Integer):
        return None
    try:
        return f"{sheet.number_of(key):.12g}"
    except Fail:
        return None


def _right(sheet: AnswerSheet, key: str, form: Form, expected: Any, rtol: float | None = None) -> bool:
    """Whether the course's judge accepts the sheet's answer to `key` in `form` (the graded check's reading), a number
    within `rtol` (None: the course's)."""
    from grader.failures import Fail
    from grader.grading.answers import Boolean, Choice, Formula, Integer, Number, Shape
    from grader.grading.expr import evaluate, parse

    def number(x: object) -> float:
        return float(x) if isinstance(x, int | float) else evaluate(parse(str(x), {}), {})

    try:
        if isinstance(form, Formula):
            sheet.formula(key, str(expected), form.symbols)
        elif isinstance(form, Integer):
            sheet.integer(key, int(number(expected)))
        elif isinstance(form, Number):
            sheet.number(key, number(expected), rtol=rtol)
        elif isinstance(form, Choice):
            sheet.choice(key, str(expected), form.options)
        elif isinstance(form, Boolean):
            sheet.boolean(key, bool(expected))
        elif isinstance(form, Shape):
            sheet.shape(key, list(expected))
    except Fail:
        return False
    return True


# --- outputs ---------------------------------------------------------------------------------------------------------


def write(result: Similarity, out: Path, *, language: str) -> list[Path]:
    """similarity.csv, shared_answers.csv and similarity.html in `out` (created readable by its owner alone)."""
    from grader.export.files import write_atomic
    from grader.text import safe_cell

    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["exercise", "file", "student_a", "student_b", "similarity", "text", "ast", "shared_lines"])
    for p in result.pairs:
        scores = (f"{p.similarity:.4f}", f"{p.text:.4f}", "" if p.ast is None else f"{p.ast:.4f}")
        writer.writerow([safe_cell(c) for c in (p.exercise, p.file, p.student_a, p.student_b, *scores, str(p.shared_lines))])
    answers = io.StringIO()
    writer = csv.writer(answers, lineterminator="\n")
    writer.writerow(["exercise", "student_a", "student_b", "shared_wrong_answers", "answers"])
    for s in result.shared:
        writer.writerow([safe_cell(c) for c in (s.exercise, s.student_a, s.student_b, str(len(s.answers)), "; ".join(f"{k} = {v}" for k, v in s.answers))])
    files = [out / "similarity.csv", out / "shared_answers.csv", out / "similarity.html"]
    try:
        out.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(out, 0o700)  # it holds students' code
        for path, text in zip(files, (table.getvalue(), answers.getvalue(), to_html(result, language=language))):
            write_atomic(path, text)
    except OSError as e:
        raise OutputError(f"--out {out}: cannot write there ({e.strerror or e}); name a folder you may write") from None
    return files


W = {
    "title": Text("Similarity report", "相似度报告"),
    "intro": Text(
        "{n} students compared. Similar work is a reason to look, never a verdict: independent solutions of "
        "a short exercise can be alike. The stub and the course's given code are left out. Each pair has two scores: "
        "by the text (names, strings and comments left out) and by the syntax tree (also statements that do nothing, "
        "docstrings and messages left out); pairs rank by the larger.",
        "共比较 {n} 名学生。相似只是值得查看的理由，绝非结论：短小练习的独立解答也可能相似。原始代码与课程提供的代码已排除。"
        "每对有两个分数：按文本（忽略名称、字符串和注释）与按语法树（另忽略不起作用的语句、文档字符串和消息）；按较大者排序。",
    ),
    "above": Text("Pairs at or above the threshold {t:g}, side by side (shared regions marked)", "相似度不低于阈值 {t:g} 的配对，并排显示（标出相同部分）"),
    "none above": Text("No pair reaches the threshold {t:g}.", "没有配对达到阈值 {t:g}。"),
    "ranked": Text("The most similar pairs (all of them are in similarity.csv)", "最相似的配对（全部见 similarity.csv）"),
    "answers": Text("Students who share {n} or more identical wrong answers", "有 {n} 个或更多相同错误答案的学生"),
    "no answers": Text("No two students share {n} identical wrong answers.", "没有两名学生有 {n} 个相同的错误答案。"),
    "unread": Text("Could not be read", "无法读取"),
    "notes": Text("Compared in part", "只比较了一部分"),
    "exercise": Text("exercise", "练习"),
    "file": Text("file", "文件"),
    "student a": Text("student A", "学生 A"),
    "student b": Text("student B", "学生 B"),
    "similarity": Text("similarity", "相似度"),
    "text": Text("text", "文本"),
    "ast": Text("syntax tree", "语法树"),
    "no ast": Text("(does not parse)", "（无法解析）"),
    "lines": Text("shared lines", "相同行数"),
    "shared": Text("identical wrong answers", "相同的错误答案"),
    "student": Text("student", "学生"),
    "why": Text("why", "原因"),
    "printed pair": Text(
        "{s:.2f}  {exercise}  {a}  ~  {b}  (text {text:.2f}, syntax tree {ast}; {lines} shared lines)",
        "{s:.2f}  {exercise}  {a}  ~  {b}  （文本 {text:.2f}，语法树 {ast}；相同 {lines} 行）",
    ),
    "printed unread": Text("not read: {who}: {why}", "未读取：{who}：{why}"),
    "printed note": Text("compared in part: {who} {exercise} {file}: {why}", "只比较了一部分：{who} {exercise} {file}：{why}"),
    "printed answers": Text("{exercise}  {a}  ~  {b}: {n} identical wrong answers: {answers}", "{exercise}  {a}  ~  {b}：{n} 个相同的错误答案：{answers}"),
    "printed none": Text("no similar pair", "没有相似的配对"),
}
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:90em;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}
th{background:#f2f2f2}.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}
pre{background:#fafafa;border:1px solid #ddd;padding:.5em;overflow:auto;font-size:.8em;max-height:40em}
mark{background:#ffd54f}
"""


def to_html(result: Similarity, *, language: str) -> str:
    """similarity.html: the ranked pairs, those at or above the threshold side by side, the shared wrong answers."""

    def say(key: str, **kw: object) -> str:
        return html.escape(W[key].render(language).format(**kw))

    def e(text: object) -> str:
        return html.escape(printable(str(text)))

    def tree(p: Pair) -> str:
        return say("no ast") if p.ast is None else f"{p.ast:.2f}"

    body = [f"<h1>{say('title')}</h1>", f"<p>{say('intro', n=result.students)}</p>"]
    above = [p for p in result.pairs if p.similarity >= result.threshold]
    body.append(f"<h2>{say('above', t=result.threshold)}</h2>")
    if not above:
        body.append(f"<p>{say('none above', t=result.threshold)}</p>")
    for p in above[:SHOWN_SIDE_BY_SIDE]:
        body += [
            f"<h3>{e(p.exercise)} {e(p.file)}: {e(p.student_a)} ~ {e(p.student_b)} — {p.similarity:.2f} "
            f"({say('text')} {p.text:.2f}, {say('ast')} {tree(p)})</h3>",
            '<div class="side">',
            f"<div><b>{e(p.student_a)}</b><pre>{_marked(p.text_a, p.slices_a)}</pre></div>",
            f"<div><b>{e(p.student_b)}</b><pre>{_marked(p.text_b, p.slices_b)}</pre></div>",
            "</div>",
        ]
    body.append(f"<h2>{say('ranked')}</h2>")
    body.append(
        _table(
            [say("exercise"), say("file"), say("student a"), say("student b"), say("similarity"), say("text"), say("ast"), say("lines")],
            [
                [e(p.exercise), e(p.file), e(p.student_a), e(p.student_b), f"{p.similarity:.2f}", f"{p.text:.2f}", tree(p), str(p.shared_lines)]
                for p in result.pairs[:200]
            ],
        )
    )
    body.append(f"<h2>{say('answers', n=MIN_SHARED_WRONG)}</h2>")
    if result.shared:
        body.append(
            _table(
                [say("exercise"), say("student a"), say("student b"), say("shared")],
                [[e(s.exercise), e(s.student_a), e(s.student_b), "<br>".join(f"<code>{e(k)} = {e(v)}</code>" for k, v in s.answers)] for s in result.shared],
            )
        )
    else:
        body.append(f"<p>{say('no answers', n=MIN_SHARED_WRONG)}</p>")
    if result.unread:
        body += [f"<h2>{say('unread')}</h2>", _table([say("student"), say("why")], [[e(s), e(w)] for s, w in result.unread])]
    if result.notes:
        rows = [[e(n.student), e(n.exercise), e(n.file), e(n.why.render(language))] for n in result.notes]
        body += [f"<h2>{say('notes')}</h2>", _table([say("student"), say("exercise"), say("file"), say("why")], rows)]
    lang = "zh-Hans" if language == "zh" else "en"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{say('title')}</title><style>{_STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _marked(text: str, slices: Any) -> str:
    """The text escaped, its shared slices in <mark> (copydetect's highlighter, which escapes each piece it shows)."""
    from copydetect import utils

    if len(slices) != 2 or slices.shape[1] == 0:
        return html.escape(text)
    marked, _ = utils.highlight_overlap(text, slices, "<mark>", "</mark>", escape_html=True)
    return str(marked)


def _table(header: list[str], lines: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in line) + "</tr>" for line in lines)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def printed(result: Similarity, *, language: str) -> list[str]:
    """The ten most similar pairs, the ten pairs sharing most wrong answers, then every entry or file not read and every
    file compared in part, with why, as lines for the terminal."""
    pairs = [
        W["printed pair"]
        .render(language)
        .format(
            s=p.similarity,
            exercise=p.exercise,
            a=one_line(p.student_a),
            b=one_line(p.student_b),
            text=p.text,
            ast="-" if p.ast is None else f"{p.ast:.2f}",
            lines=p.shared_lines,
        )
        for p in result.pairs[:PRINTED]
    ]
    answers = [
        W["printed answers"]
        .render(language)
        .format(exercise=s.exercise, a=one_line(s.student_a), b=one_line(s.student_b), n=len(s.answers), answers="; ".join(f"{k} = {v}" for k, v in s.answers))
        for s in result.shared[:PRINTED]
    ]
    skipped = [W["printed unread"].render(language).format(who=one_line(s), why=one_line(w)) for s, w in result.unread]
    skipped += [
        W["printed note"].render(language).format(who=one_line(n.student), exercise=n.exercise, file=n.file, why=n.why.render(language)) for n in result.notes
    ]
    return [*([*pairs, *answers] or [W["printed none"].render(language)]), *skipped]
