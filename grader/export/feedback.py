"""feedback/<student>.md: what the student may see – each check's name, points and feedback, nothing else.

Hidden checks appear once grades are published (their visibility); the feedback never holds test
code, reference values or another student's data (checks never put those in it).
"""

from __future__ import annotations


def to_markdown(report: dict) -> str:
    extra = report["extra_data"]
    lines = [f"# Feedback for {_plain(extra['submission'])}", "",
             f"**Total: {_number(report['score'])}/{_number(report['max_score'])} points**", ""]
    by_exercise: dict[str, list[dict]] = {}
    for test in report["tests"]:
        by_exercise.setdefault(test["name"].split(":", 1)[0], []).append(test)
    for exercise in extra["exercises"]:
        lines += [f"## {exercise['id']} {exercise['title']} — {_number(exercise['score'])}/{_number(exercise['max_score'])}", ""]
        if exercise["note"]:
            lines += [_plain(exercise["note"]), ""]
        for test in by_exercise.get(exercise["id"], []):
            mark = "passed" if test["status"] == "passed" else "failed"
            name = test["name"].split(": ", 1)[1]
            lines.append(f"- **{_plain(name)}** — {_number(test['score'])}/{_number(test['max_score'])}, {mark}")
            if test["output"]:
                lines += ["", "  ```text", *[f"  {line}" for line in test["output"].replace("```", "'''").splitlines()],
                          "  ```"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _plain(text: str) -> str:
    """Text shown outside a code block, with Markdown's active characters escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def _number(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")
