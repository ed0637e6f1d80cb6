"""feedback/<student>.md: what the student may see – each check's name, points and feedback, nothing else.

Hidden checks appear once grades are published (their visibility); the feedback never holds test
code, reference values or another student's data (checks never put those in it). Words a submission
controls (its id, its messages) are escaped here: one line outside code blocks, Markdown inert.
"""

from __future__ import annotations

from grader.results import GradeResult, Written
from grader.text import Text, format_points, printable

# The file's fixed words, in the report's feedback language.
WORDS = {
    "en": {"title": "Feedback for ", "total": "Total: ", "points": " points", "passed": "passed", "failed": "failed", "comma": ", "},
    "zh": {"title": "评分反馈：", "total": "总分：", "points": " 分", "passed": "通过", "failed": "未通过", "comma": "，"},
}


def to_markdown(result: GradeResult) -> str:
    language = result.language
    words = WORDS.get(language, WORDS["en"])
    lines = [
        f"# {words['title']}{plain(result.submission)}",
        "",
        f"**{words['total']}{_points(result.score)}/{_points(result.max_score)}{words['points']}**",
        "",
    ]
    for exercise in result.exercises:
        lines += [f"## {exercise.id} {exercise.heading.render(language)} — {_points(exercise.score)}/{_points(exercise.max_score)}", ""]
        note = exercise.note.render(language)
        if note:
            lines += [plain(note), ""]
        for v in exercise.checks:
            mark = words["passed"] if v.passed else words["failed"]
            lines.append(f"- **{plain(v.title.render(language))}** — {_points(v.earned)}/{_points(v.points)}{words['comma']}{mark}")
            output = printable(v.feedback.render(language))
            if output:
                lines += ["", "  ```text", *[f"  {line}" for line in output.replace("```", "'''").splitlines()], "  ```"]
        if exercise.written is not None and exercise.written.counted:
            lines += _written(exercise.written, words, language)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _written(w: Written, words: dict[str, str], language: str) -> list[str]:
    """The written answer's line: its points and the course staff's items and comments, or that it is still to mark."""
    title = Text(f"Written answer ({w.file}), marked by the course staff", f"书面回答（{w.file}），由课程教师评分").render(language)
    if not w.marked:
        state = Text("to be marked", "待评分") if w.answered else Text("no answer", "未作答")
        return [f"- **{plain(title)}** — {_points(w.earned)}/{_points(w.points)}{words['comma']}{state.render(language)}"]
    return [f"- **{plain(title)}** — {_points(w.earned)}/{_points(w.points)}", *(f"  - {plain(c.render(language))}" for c in w.comments)]


def plain(text: str) -> str:
    """Text shown outside a code block: one printable line, with Markdown's active characters escaped."""
    return " ".join(printable(text).split()).translate(_ESCAPED)


_ESCAPED = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|"})


def _points(x: float) -> str:
    return format_points(round(x, 4))
