"""`grade rubric`: an exercise's rubric and who has what – the items, each with the students who have it, then each
student's written answer (to mark, marked, no answer) with their points as the rubric is now and as OUT last showed
them – as a table for the terminal or JSON; and one student's answer with their mark, to read before marking."""

from __future__ import annotations

import json

from grader.rubric import Rubric
from grader.term.marks import STATES, Standing
from grader.text import format_points, one_line, printable, signed


def to_table(rubric: Rubric, standings: list[Standing], language: str) -> str:
    """The rubric with its students, then one line per student; an edit not yet published is said on its line."""
    lines = [
        f"{rubric.exercise} – {rubric.title.render(language)}: {rubric.file}, {format_points(rubric.points)} points",
        "",
        f"  {'item':<18} {'points':>6}  students",
    ]
    for item in rubric.items:
        having = [s.student for s in standings if item.id in s.items]
        lines.append(f"  {item.id:<18} {signed(item.points):>6}  {len(having)}{': ' + ', '.join(one_line(s) for s in having) if having else ''}")
        lines.append(f"  {'':<18} {'':>6}  {one_line(item.description.render(language))}")
    if rubric.comments:
        lines += ["", "  comments (--comment ID): " + ", ".join(c.id for c in rubric.comments)]
    counts = {state: sum(s.state == state for s in standings) for state in STATES["en"]}
    words = STATES.get(language, STATES["en"])
    lines += ["", f"{len(standings)} students: " + ", ".join(f"{counts[k]} {words[k]}" for k in ("to mark", "marked", "no answer"))]
    width = max((len(one_line(s.student)) for s in standings), default=7)
    for s in standings:
        points = f"{format_points(s.points)}/{format_points(rubric.points)}" if s.state != "to mark" else "–"
        line = f"  {one_line(s.student):<{width}}  {words[s.state]:<9}  {points:>7}  {', '.join(s.items)}"
        if s.shown is not None and round(s.shown, 4) != round(s.points, 4):
            line += f"   (OUT shows {format_points(s.shown)}: the next grade batch publishes {format_points(s.points)})"
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def to_json(rubric: Rubric, standings: list[Standing]) -> str:
    doc = {
        "rubric": rubric.as_dict(),
        "students": [
            {
                "student": s.student,
                "state": s.state,
                "points": s.points,
                "published": s.shown,
                "items": list(s.items),
                "comments": [c.en for c in s.comments],
                "by": s.by,
                "answer": s.text,
                "refused": s.refused,
            }
            for s in standings
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)


def answer(rubric: Rubric, standing: Standing, language: str) -> str:
    """One student's written answer as handed in (made printable), then their mark."""
    words = STATES.get(language, STATES["en"])
    lines = [f"{standing.student} – {rubric.exercise} {rubric.file} ({words[standing.state]})", ""]
    absent = (
        f"(not taken: {standing.refused}; read it in the hand-in itself)" if standing.refused else "(no answer: the file is absent, empty or the stub's own)"
    )
    lines += [printable(standing.text).rstrip() or printable(absent), ""]
    if standing.state == "marked":
        lines.append(
            f"mark: {format_points(standing.points)}/{format_points(rubric.points)} – {', '.join(standing.items) or 'no item'} (by {one_line(standing.by)})"
        )
        lines += [f"  comment: {one_line(c.render(language))}" for c in standing.comments]
    else:
        lines.append(f"mark it: grade mark OUT {standing.student} {rubric.exercise} --item ID [--item ID] [--comment ID-or-words]")
    return "\n".join(lines) + "\n"
