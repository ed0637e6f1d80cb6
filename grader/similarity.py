"""`grade similarity`: which students' work is alike, for a TA to look at – never a verdict, never a grade.

Code: for each code file a student edits, copydetect's winnowed fingerprints of its tokens (names, strings and
comments filtered out, so renaming and re-commenting change nothing), the exercise's stub, its given course code and
its public checks removed as boilerplate: two students who wrote nothing match 0. A pair's similarity is the larger
of the two shares of each one's fingerprinted code that the other holds. Answer sheets: pairs of students who gave
two or more identical wrong answers, each judged by the course's own answer-sheet judge, in the form the exercise's
public check declares, against that student's own answers (with variants on, those of their numbers, as the hidden
checks compute them: `grader.variants.reference_sheet`), so that two students right for their own numbers never
share a wrong answer. `--past` folders (earlier terms) are references: each of them is compared with this class,
never with one another; a past student is judged on the numbers of their own id under this course's [variants].

Entries are read as `grade batch` reads them (folders, zips, notebooks) into a workspace, as text: nothing of a
student's is imported or run. Outputs in DIR: similarity.csv, shared_answers.csv and similarity.html (all student
text escaped).
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.course import Course, Exercise
from grader.errors import OutputError, need
from grader.text import Text, one_line, printable
from grader.variants import tolerances

if TYPE_CHECKING:
    from grader.grading.answers import AnswerSheet, Form

SHEET = "answers.toml"
MIN_SHARED_WRONG = 2  # identical wrong answers that make a pair worth a look
SHOWN_SIDE_BY_SIDE = 50  # pairs at or above the threshold shown in full in similarity.html (all are in the CSV)
PRINTED = 10


@dataclass(frozen=True)
class Pair:
    """Two students' versions of one code file, and what they share (character slices into each text)."""

    exercise: str
    file: str
    student_a: str
    student_b: str
    similarity: float
    shared_lines: int
    text_a: str = field(repr=False)
    text_b: str = field(repr=False)
    slices_a: Any = field(repr=False)  # copydetect's 2×N array of slice starts and ends
    slices_b: Any = field(repr=False)


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


def compare(*, course: Course, exercises: Sequence[Exercise], submissions: Path, past: Sequence[Path] = (), threshold: float = 0.5) -> Similarity:
    """Every pair of this class (and each student against each past one) on `exercises`; MissingExtra without copydetect."""
    need("copydetect", "grade similarity")
    unread: list[tuple[str, str]] = []
    current = read_texts(submissions, exercises, unread, label="")
    earlier: dict[str, dict[str, dict[str, str]]] = {}
    seen: Counter[str] = Counter()
    for folder in past:  # each past student as "<folder>/<id>"; a second folder of the same name as "<folder>#2/<id>"
        seen[folder.name] += 1
        label = folder.name if seen[folder.name] == 1 else f"{folder.name}#{seen[folder.name]}"
        earlier.update(read_texts(folder, exercises, unread, label=f"{label}/"))
    pairs: list[Pair] = []
    shared: list[SharedAnswers] = []
    for exercise in exercises:
        for name in exercise.student_files:
            if name.endswith(".py"):
                pairs += _code_pairs(exercise, name, current, earlier)
        if SHEET in exercise.student_files:
            shared += _answer_pairs(course, exercise, current, earlier, unread)
    order = {e.id: n for n, e in enumerate(exercises)}
    pairs.sort(key=lambda p: (-p.similarity, order[p.exercise], p.student_a, p.student_b))
    shared.sort(key=lambda s: (-len(s.answers), order[s.exercise], s.student_a, s.student_b))
    return Similarity(pairs, shared, len(current), unread, threshold)


def read_texts(folder: Path, exercises: Sequence[Exercise], unread: list[tuple[str, str]], *, label: str) -> dict[str, dict[str, dict[str, str]]]:
    """student → exercise id → file name → text, for every entry of `folder` as `grade batch` finds and reads it."""
    from grader.batch.run import discover
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
                workspace = load_submission(root, list(exercises))
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
                        texts.setdefault(who, {}).setdefault(exercise.id, {})[name] = _text(path.read_bytes())
        finally:
            workspace.remove()
        texts.setdefault(who, {})
    return texts


def _text(data: bytes) -> str:
    """A student file as text that every output can show: UTF-8 (bad bytes replaced), one kind of line end, no
    control, bidi or other unsafe character (each replaced by one character, so positions stay)."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return printable(text)


def _code_pairs(exercise: Exercise, name: str, current: dict[str, dict[str, dict[str, str]]], earlier: dict[str, dict[str, dict[str, str]]]) -> list[Pair]:
    from copydetect import CodeFingerprint, compare_files, defaults

    k = defaults.NOISE_THRESHOLD
    window = defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1
    boilerplate = [exercise.stub_dir / name, *exercise.given_code(hidden=False), *exercise.public_checks]
    hashes = sorted({h for path in boilerplate if path.is_file() for h in CodeFingerprint(name, k, 1, fp=io.StringIO(_text(path.read_bytes()))).hashes})
    import numpy as np

    common = np.array(hashes)

    def fingerprints(students: dict[str, dict[str, dict[str, str]]]) -> dict[str, Any]:
        return {
            s: CodeFingerprint(name, k, window, common, fp=io.StringIO(files[exercise.id][name]))
            for s, files in students.items()
            if name in files.get(exercise.id, {})
        }

    ours, theirs = fingerprints(current), fingerprints(earlier)
    pairs = []
    for (a, fa), (b, fb) in [*itertools.combinations(ours.items(), 2), *itertools.product(ours.items(), theirs.items())]:
        _, (share_a, share_b), (slices_a, slices_b) = compare_files(fa, fb)
        similarity = float(max(share_a, share_b))
        if similarity > 0:
            pairs.append(Pair(exercise.id, name, a, b, round(similarity, 4), _lines(fa.raw_code, slices_a), fa.raw_code, fb.raw_code, slices_a, slices_b))
    return pairs


def _lines(text: str, slices: Any) -> int:
    """How many lines of `text` the shared slices touch."""
    touched: set[int] = set()
    for start, end in zip(*slices) if len(slices) == 2 else ():
        first = text.count("\n", 0, int(start))
        touched.update(range(first, first + text.count("\n", int(start), max(int(start), int(end) - 1)) + 1))
    return len(touched)


def _answer_pairs(
    course: Course,
    exercise: Exercise,
    current: dict[str, dict[str, dict[str, str]]],
    earlier: dict[str, dict[str, dict[str, str]]],
    unread: list[tuple[str, str]],
) -> list[SharedAnswers]:
    """Pairs who share at least MIN_SHARED_WRONG identical answers that the course's judge finds wrong, each student
    judged against their own answers (`_expected`)."""
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
            same = _compared(value)
            if (key, same, repr(expected[key])) not in judged:
                judged[key, same, repr(expected[key])] = _right(sheet, key, form, expected[key], rtol.get(key))
            if not judged[key, same, repr(expected[key])]:
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

    from grader.variants import reference_sheet, variant_of

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
    from grader.export.grades import safe_cell

    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["exercise", "student_a", "student_b", "similarity", "shared_lines"])
    for p in result.pairs:
        writer.writerow([safe_cell(c) for c in (p.exercise, p.student_a, p.student_b, f"{p.similarity:.4f}", str(p.shared_lines))])
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
        "a short exercise can be alike. The stub and the course's given code are left out.",
        "共比较 {n} 名学生。相似只是值得查看的理由，绝非结论：短小练习的独立解答也可能相似。原始代码与课程提供的代码已排除。",
    ),
    "above": Text("Pairs at or above the threshold {t:g}, side by side (shared regions marked)", "相似度不低于阈值 {t:g} 的配对，并排显示（标出相同部分）"),
    "none above": Text("No pair reaches the threshold {t:g}.", "没有配对达到阈值 {t:g}。"),
    "ranked": Text("The most similar pairs (all of them are in similarity.csv)", "最相似的配对（全部见 similarity.csv）"),
    "answers": Text("Students who share {n} or more identical wrong answers", "有 {n} 个或更多相同错误答案的学生"),
    "no answers": Text("No two students share {n} identical wrong answers.", "没有两名学生有 {n} 个相同的错误答案。"),
    "unread": Text("Could not be read", "无法读取"),
    "exercise": Text("exercise", "练习"),
    "file": Text("file", "文件"),
    "student a": Text("student A", "学生 A"),
    "student b": Text("student B", "学生 B"),
    "similarity": Text("similarity", "相似度"),
    "lines": Text("shared lines", "相同行数"),
    "shared": Text("identical wrong answers", "相同的错误答案"),
    "student": Text("student", "学生"),
    "why": Text("why", "原因"),
    "printed pair": Text("{s:.2f}  {exercise}  {a}  ~  {b}  ({lines} shared lines)", "{s:.2f}  {exercise}  {a}  ~  {b}  （相同 {lines} 行）"),
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

    body = [f"<h1>{say('title')}</h1>", f"<p>{say('intro', n=result.students)}</p>"]
    above = [p for p in result.pairs if p.similarity >= result.threshold]
    body.append(f"<h2>{say('above', t=result.threshold)}</h2>")
    if not above:
        body.append(f"<p>{say('none above', t=result.threshold)}</p>")
    for p in above[:SHOWN_SIDE_BY_SIDE]:
        body += [
            f"<h3>{e(p.exercise)} {e(p.file)}: {e(p.student_a)} ~ {e(p.student_b)} — {p.similarity:.2f}</h3>",
            '<div class="side">',
            f"<div><b>{e(p.student_a)}</b><pre>{_marked(p.text_a, p.slices_a)}</pre></div>",
            f"<div><b>{e(p.student_b)}</b><pre>{_marked(p.text_b, p.slices_b)}</pre></div>",
            "</div>",
        ]
    body.append(f"<h2>{say('ranked')}</h2>")
    body.append(
        _table(
            [say("exercise"), say("file"), say("student a"), say("student b"), say("similarity"), say("lines")],
            [[e(p.exercise), e(p.file), e(p.student_a), e(p.student_b), f"{p.similarity:.2f}", str(p.shared_lines)] for p in result.pairs[:200]],
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
    """The ten most similar pairs and the ten pairs sharing most wrong answers, as lines for the terminal."""
    pairs = [
        W["printed pair"].render(language).format(s=p.similarity, exercise=p.exercise, a=one_line(p.student_a), b=one_line(p.student_b), lines=p.shared_lines)
        for p in result.pairs[:PRINTED]
    ]
    answers = [
        W["printed answers"]
        .render(language)
        .format(exercise=s.exercise, a=one_line(s.student_a), b=one_line(s.student_b), n=len(s.answers), answers="; ".join(f"{k} = {v}" for k, v in s.answers))
        for s in result.shared[:PRINTED]
    ]
    return [*pairs, *answers] or [W["printed none"].render(language)]
