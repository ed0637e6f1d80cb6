"""feedback/<student>.md: what the student may see – each check's name, points and feedback, nothing else.

Hidden checks appear once grades are published (their visibility); the feedback never holds test
code, reference values or another student's data (checks never put those in it).
"""

from __future__ import annotations

from grader.text import format_points


# The file's fixed words, in the report's feedback language.
WORDS = {
    "en": {"title": "Feedback for", "total": "Total", "points": "points", "passed": "passed", "failed": "failed"},
    "zh": {"title": "评分反馈：", "total": "总分", "points": "分", "passed": "通过", "failed": "未通过"},
}


def to_markdown(report: dict) -> str:
    extra = report["extra_data"]
    words = WORDS.get(extra.get("language"), WORDS["en"])
    lines = [f"# {words['title']} {_plain(extra['submission'])}", "",
             f"**{words['total']}: {format_points(report['score'])}/{format_points(report['max_score'])} {words['points']}**", ""]
    by_exercise: dict[str, list[dict]] = {}
    for test in report["tests"]:
        by_exercise.setdefault(test["name"].split(":", 1)[0], []).append(test)
    for exercise in extra["exercises"]:
        lines += [f"## {exercise['id']} {exercise['title']} — {format_points(exercise['score'])}/{format_points(exercise['max_score'])}", ""]
        if exercise["note"]:
            lines += [_plain(exercise["note"]), ""]
        for test in by_exercise.get(exercise["id"], []):
            mark = words["passed"] if test["status"] == "passed" else words["failed"]
            name = test["name"].split(": ", 1)[1]
            lines.append(f"- **{_plain(name)}** — {format_points(test['score'])}/{format_points(test['max_score'])}, {mark}")
            if test["output"]:
                lines += ["", "  ```text", *[f"  {line}" for line in test["output"].replace("```", "'''").splitlines()],
                          "  ```"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _plain(text: str) -> str:
    """Text shown outside a code block, with Markdown's active characters escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)
