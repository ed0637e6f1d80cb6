"""What `grade` prints for people: a table per exercise in the course's language, wrapped (never cut) to the terminal.

Lines break at spaces and between Chinese characters, never inside a file name, key or path unless it alone
is wider than the terminal; paths are shown relative to where the command runs.
"""

from __future__ import annotations

import unicodedata

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.table import Table
from rich.text import Text as RichText

from grader.course import Course
from grader.export import items
from grader.results import GradeResult, Written
from grader.text import Text, format_points, printable, shown_path

_OPENING = "（《「『【“‘"  # punctuation that stays with what follows it
_CLOSING = "，。：；、！？）》」』】”’"  # punctuation that stays with what precedes it
_BORDERS = 4 + 3 * 2  # a three-column table's vertical lines and cell padding


def print_grade(console: Console, result: GradeResult, *, verbose: bool) -> None:
    language = result.language

    def line(text: str, style: str = "") -> None:
        console.print(RichText(_wrap(printable(text), console.width), style=style), overflow="fold")

    submission = shown_path(result.submission)
    if verbose:
        line(Text(f"submission: {submission}   device: {result.device}", f"提交：{submission}   设备：{result.device}").render(language))
    passed_word, failed_word = Text("passed", "通过").render(language), Text("failed", "未通过").render(language)
    for exercise in result.exercises:
        heading = f"{exercise.id}  {exercise.heading.render(language)}"
        note = exercise.note.render(language)
        score = f" — {format_points(exercise.score)}/{format_points(exercise.max_score)}"
        if not exercise.checks:
            line(f"{heading}{score if exercise.max_score else ''}: {note}", "bold")
            continue
        points = [
            "–" if exercise.graded_at_hand_in or not v.points else f"{format_points(v.earned)}/{format_points(v.points)}" for v in exercise.checks
        ]  # a public check is worth nothing
        headers = tuple(t.render(language) for t in (Text("check and feedback", "检查与反馈"), Text("points", "得分"), Text("status", "结果")))
        points_width = max(cell_len(p) for p in [headers[1], *points])
        status_width = max(cell_len(w) for w in (headers[2], passed_word, failed_word))
        width = max(console.width - _BORDERS - points_width - status_width, 16)
        title = RichText(_wrap(printable(heading + ("" if exercise.graded_at_hand_in else score)), console.width))
        table = Table(title=title, title_justify="left")
        table.add_column(headers[0], width=width, overflow="fold")
        table.add_column(headers[1], width=points_width, justify="right", overflow="fold")
        table.add_column(headers[2], width=status_width, overflow="fold")
        for v, shown_points in zip(exercise.checks, points):
            name = v.title.render(language) + (Text(" (public)", "（公开）").render(language) if v.visible else "")
            # RichText keeps the submission's own words from being read as rich markup.
            cell = RichText(_wrap(printable(name), width))
            feedback = printable(v.feedback.render(language))
            if feedback:
                cell.append("\n" + _wrap(feedback, width - 2, indent="  "), style="dim" if v.passed else "")
            status = RichText(passed_word, style="green") if v.passed else RichText(failed_word, style="red")
            table.add_row(cell, shown_points, status)
        console.print(table)
        if exercise.written is not None and not exercise.written.counted:
            line(written_line(exercise.written).render(language), "dim")
        if note:
            line(note)
    for error in result.internal_errors:
        line(Text(f"internal error: {error}", f"内部错误：{error}").render(language), "bold red")
    if any(e.graded_at_hand_in for e in result.exercises):
        passed = sum(v.passed for e in result.exercises for v in e.checks)
        checks = sum(len(e.checks) for e in result.exercises)
        graded = format_points(sum(e.graded_points for e in result.exercises))
        total = Text(
            f"Public checks: {passed}/{checks} passed; {graded} points are graded at hand-in", f"公开检查：通过 {passed}/{checks} 项；{graded} 分在提交后评定"
        ).render(language)
    else:
        score, most = format_points(result.score), format_points(result.max_score)
        total = Text(f"Total: {score}/{most} points", f"总分：{score}/{most} 分").render(language)
    line(f"{total}  ({submission})", "bold")


def written_line(w: Written) -> Text:
    """A written answer in a student's own run: handed in or not, and that the course staff mark it (no check does)."""
    state = (
        Text("handed in", "已填写")
        if w.answered
        else Text(f"not taken: {w.refused}", f"未被接收：{w.refused}")
        if w.refused
        else Text("not answered yet (the stub's text)", "尚未作答（仍是模板内容）")
    )
    points = format_points(w.points)
    return (
        Text(f"{w.file}: ", f"{w.file}：")
        + state
        + Text(
            f"; {points} more point{'' if w.points == 1 else 's'}, marked by the course staff against the rubric in the statement",
            f"；另有 {points} 分，由课程教师按题面中的评分细则评分",
        )
    )


def print_course(console: Console, course: Course) -> None:
    language = course.language
    table = Table(title=RichText(course.heading.render(language)), title_justify="left")
    table.add_column(Text("id", "编号").render(language))
    table.add_column(Text("title", "标题").render(language), overflow="fold")
    table.add_column(Text("points", "分值").render(language), justify="right")
    table.add_column(Text("folder", "文件夹").render(language), overflow="fold")
    for e in course.exercises:
        title = e.heading.render(language) + ("" if e.available else Text(" (not yet available)", "（尚未开放）").render(language))
        table.add_row(e.id, title, format_points(e.points), f"exercises/{e.folder}/")
    console.print(table)
    total = format_points(sum(e.points for e in course.exercises))
    console.print(Text(f"Total: {total} points", f"总分：{total} 分").render(language))


def _wrap(text: str, width: int, *, indent: str = "") -> str:
    """`text` in lines of at most `width` cells (after `indent`), broken at spaces and between Chinese characters.

    A name, key or path is never split unless it alone is wider than `width`; then it is folded, never cut.
    """
    width = max(width, 1)
    lines: list[str] = []
    for paragraph in text.expandtabs(4).split("\n"):
        line = ""
        for piece in _pieces(paragraph):
            if piece.isspace() or cell_len(line + piece) <= width:
                line += piece  # spaces that overflow end the line and are dropped with it
                continue
            if line.strip():
                lines.append(line.rstrip())
            line = piece
            while cell_len(line) > width:
                head, *rest = chop_cells(line, width)
                lines.append(head)
                line = "".join(rest)
        lines.append(line.rstrip())
    return "\n".join(indent + line for line in lines)


def _pieces(line: str) -> list[str]:
    """The unbreakable pieces of a line: runs of spaces, runs of other characters, and each Chinese character
    (with the punctuation that belongs to it)."""
    pieces: list[str] = []
    glued = False  # whether the next character joins the last piece
    for c in line:
        if c.isspace():
            pieces.append(c)
            glued = False
        elif c in _CLOSING and pieces and not pieces[-1].isspace():
            pieces[-1] += c
            glued = False
        elif unicodedata.east_asian_width(c) in "WF":
            if glued and pieces[-1][-1] in _OPENING:
                pieces[-1] += c
            else:
                pieces.append(c)
            glued = c in _OPENING
        else:
            if glued:
                pieces[-1] += c
            else:
                pieces.append(c)
            glued = True
    return pieces


def print_analysis(console: Console, analysis: items.Analysis, language: str) -> None:
    """`grade stats`: the checks to look at, then a table of each check's figures and one of the mistakes, in
    `language`; the words of checks and diagnoses shown as text (rich markup in them is not read)."""
    say = items.WORDS

    def table(title: str, header: str) -> Table:
        made = Table(title=RichText(title), title_justify="left")
        for n, name in enumerate(h.strip() for h in say[header].render(language).strip("|").split("|")):
            made.add_column(
                name, overflow="fold", min_width=24 if n == 1 else None, justify="left" if n in (0, 1) or name.startswith(("flag", "标记")) else "right"
            )
        return made

    console.print(RichText(say["checks"].render(language), style="bold"))
    console.print(RichText(say["explained"].render(language)), style="dim")
    flagged = [c for c in analysis.checks if c.flags]
    if flagged:
        console.print(RichText(say["look at"].render(language) + ":", style="bold red"))
        for c in flagged:
            flags = "; ".join(items.FLAGS[f].render(language) for f in c.flags)
            console.print(RichText(f"  {c.exercise} {printable(c.check)}: {flags} (p {_shown(c.p)}, D {_shown(c.discrimination)})"))
    if analysis.checks:
        checks = table("", "header")
        for c in analysis.checks:
            figures = (_shown(x) for x in (c.p, c.mean_share, c.discrimination, c.top27_p, c.bottom27_p))
            flags = "; ".join(items.FLAGS[f].render(language) for f in c.flags)
            checks.add_row(c.exercise, RichText(printable(c.check)), str(c.n), *figures, RichText(flags, style="red"))
        console.print(checks)
    else:
        console.print(RichText(say["none"].render(language)))
    if analysis.left_out:
        console.print(RichText(say["left out"].render(language).format(n=len(analysis.left_out))))
    mistakes = table(say["mistakes"].render(language), "mistakes header")
    for m in analysis.mistakes:
        mistakes.add_row(m.exercise, RichText(printable(m.diagnosis.render(language))), str(m.students))
    console.print(mistakes if analysis.mistakes else RichText(say["mistakes"].render(language) + ": " + say["no mistakes"].render(language).lstrip("- ")))
    if analysis.written:
        written = table(say["written"].render(language), "written header")
        for exercise, states in analysis.written.items():
            written.add_row(exercise, *(str(len(states[s])) for s in items.WRITTEN_STATES))
        console.print(written)
        for exercise, states in analysis.written.items():
            if states["to mark"]:
                console.print(RichText(f"{say['to mark'].render(language)}: {exercise}: {', '.join(printable(s) for s in states['to mark'])}", style="yellow"))


def _shown(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"
