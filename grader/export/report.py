"""report.html: the class at a glance, one self-contained page a TA opens from disk.

Inline CSS, plots drawn by matplotlib as base64 PNG (no script, no font, nothing from the network: a Content
Security Policy in the page forbids it), each with a table or a caption as its text alternative, every label in the
course's language. The plots hold numbers and exercise ids only (no words: the machine may lack a font for the
course's language), their axes named in the caption. Everything a student controls (ids, messages) is escaped here,
once (`_e`). Without matplotlib (a TA install without the `ta` extra) the page keeps its tables and says why the
plots are missing. Late and overridden scores (the course's late policy, a TA's override: grader.term) are read from
each exercise's `adjustment` into `Adjusted` rows; with none, their section is not there at all.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.export import items
from grader.results import Graded, Outcome, Status, StudentRow
from grader.text import Text, format_points, printable


@dataclass(frozen=True)
class Adjusted:
    """A score the term's rules changed after grading – late work under the course's policy, or a TA's override – as
    the late/override section shows it."""

    student: str
    exercise: str
    raw: float  # the points grading gave
    final: float
    days_late: int
    penalty: float  # points the late policy took (none under an override)
    override: float | None  # the course staff's points
    reason: str  # the override's ("" without one)


def adjusted(rows: Sequence[StudentRow]) -> list[Adjusted]:
    """Every exercise handed in late or overridden, in the rows' order (grader.term.finals sets `adjustment`)."""
    return [
        Adjusted(r.student, e.id, a.raw, e.score, a.days_late, a.penalty, a.override, a.reason)
        for r in rows
        for e in r.result.exercises
        if (a := e.adjustment) is not None and (a.days_late > 0 or a.override is not None)
    ]


W = {
    "title": Text("Class report", "班级报告"),
    "students": Text("Students: {n}", "学生人数：{n}"),
    "totals": Text("Distribution of totals", "总分分布"),
    "totals caption": Text(
        "Students (vertical) by total points out of {most} (horizontal), rounded to the point in the plot; the table gives every total exactly.",
        "横轴为总分（满分 {most}，图中四舍五入到整数分，表中为精确总分），纵轴为学生人数。",
    ),
    "points": Text("points", "分数"),
    "count": Text("students", "学生数"),
    "exercises": Text("Each exercise's scores", "各练习得分分布"),
    "exercises caption": Text(
        "One plot per exercise (its id above it): students (vertical) by points (horizontal), a bar at each score given.",
        "每个练习一幅图（图上方为练习编号）：横轴为得分（每个出现过的得分一根柱），纵轴为学生人数。",
    ),
    "exercise": Text("exercise", "练习"),
    "mean": Text("mean", "平均"),
    "median": Text("median", "中位数"),
    "max": Text("max", "最高"),
    "of": Text("out of", "满分"),
    "distribution": Text("distribution (points: students)", "分布（分数：人数）"),
    "checks": Text("Each check's pass rate", "各项检查通过率"),
    "checks caption": Text(
        "Check number (vertical, as in the table) by pass rate p from 0 to 1 (horizontal); red bars are flagged checks.",
        "纵轴为检查编号（与下表相同），横轴为通过率 p（0 到 1）；红色为被标记的检查。",
    ),
    "check": Text("check", "检查"),
    "flags": Text("flags", "标记"),
    "mistakes": Text("Most common mistakes", "最常见的错误"),
    "mistake": Text("mistake", "错误"),
    "no mistakes": Text("No named mistake was diagnosed.", "没有诊断出已知错误。"),
    "trouble": Text("Time limits, crashes and hand-ins that could not be read", "超时、崩溃与无法读取的提交"),
    "no trouble": Text("No student hit a time limit, crashed or handed in what could not be read.", "没有学生超时、崩溃或提交了无法读取的文件。"),
    "student": Text("student", "学生"),
    "what": Text("what happened", "情况"),
    "why": Text("checks, or why", "涉及的检查或原因"),
    "adjusted": Text("Late and overridden scores", "迟交与人工改动的分数"),
    "adjusted intro": Text(
        "Final points are the graded points minus the late penalty, or the course staff's points (no late penalty on top of them).",
        "最终分数为评分结果减去迟交扣分，或课程教师给定的分数（不再扣迟交分）。",
    ),
    "graded": Text("graded", "评分结果"),
    "days late": Text("days late", "迟交天数"),
    "penalty": Text("late penalty", "迟交扣分"),
    "override": Text("course staff's points: why", "课程教师给定的分数：原因"),
    "final": Text("final", "最终分数"),
    "no plots": Text(
        "The plots need matplotlib, which the TA's install brings: pip install 'gated-rnn-grader[ta]'. The tables below hold the same figures.",
        "图表需要 matplotlib（助教安装包含它）：pip install 'gated-rnn-grader[ta]'。下表给出同样的数字。",
    ),
    "plot of": Text("Plot: {what}. The table below gives the same figures.", "图：{what}。下表给出同样的数字。"),
}
OUTCOMES = {
    Outcome.TIMED_OUT: Text("hit a time limit", "超时"),
    Outcome.CRASHED: Text("crashed", "崩溃"),
    Outcome.UNREADABLE: Text("could not be read", "无法读取"),
    Outcome.INTERNAL_ERROR: Text("grader failure (graded again next run)", "评分程序出错（下次运行时重新评分）"),
}
_FLAGGED, _PLAIN = "#c0392b", "#4a7ab0"
Say = Callable[[str], str]  # a fixed word of the page, in its language, escaped
Plot = Callable[..., str]  # draws a figure (a function of a matplotlib Figure) and gives it as base64 PNG
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}
th{background:#f2f2f2}td.n{text-align:right}figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
img{max-width:100%;height:auto}.flag{color:#c0392b}.note{background:#fff5d6;padding:.5em}
"""


def to_html(rows: Sequence[StudentRow], exercises: Sequence[Graded], figures: dict[str, Any], *, language: str, title: str) -> str:
    """The page for the class `rows` graded on `exercises`, with `figures` as summary.summarize gave them."""
    say = _say(language)
    analysis = items.analyse(rows, [e.id for e in exercises])
    plot = _plotter()
    body = [f"<h1>{_e(title)}: {say('title')}</h1>", f"<p>{say('students').format(n=len(rows))}</p>"]
    if plot is None:
        body.append(f'<p class="note">{say("no plots")}</p>')
    body += _totals(rows, exercises, say, plot)
    body += _exercises(exercises, figures, say, plot)
    body += _checks(analysis, say, plot, language)
    body += _mistakes(analysis, say, language)
    body += _trouble(rows, say, language)
    body += _adjusted(adjusted(rows), say)
    lang = "zh-Hans" if language == "zh" else "en"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}: {say('title')}</title><style>{_STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _say(language: str) -> Say:
    return lambda key: html.escape(W[key].render(language))


def _e(text: object) -> str:
    """Anything shown on the page: printable (no bidi overrides or controls), then HTML-escaped."""
    return html.escape(printable(str(text)))


def _table(header: list[str], lines: list[list[str]], numeric: frozenset[int] | set[int] = frozenset()) -> str:
    """A table of cells already escaped; the columns in `numeric` right-aligned."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(line)) + "</tr>" for line in lines)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure(png: str | None, what: str, caption: str) -> list[str]:
    """A plot (base64 PNG) with its alt text and caption; nothing without matplotlib."""
    if png is None:
        return []
    return [f'<figure><img src="data:image/png;base64,{png}" alt="{what}"><figcaption>{caption}</figcaption></figure>']


def _points(x: float) -> str:
    return format_points(round(x, 4))


def _totals(rows: Sequence[StudentRow], exercises: Sequence[Graded], say: Say, plot: Plot | None) -> list[str]:
    most = sum(e.points for e in exercises)
    binned = Counter(round(r.result.score) for r in rows)  # the plot's bars: one per whole point
    png = plot(lambda fig: _bars(fig.subplots(), range(math.ceil(most) + 1), binned)) if plot else None
    exact = Counter(round(r.result.score, 4) for r in rows)  # the table: every total as given
    lines = [[_points(k), str(v)] for k, v in sorted(exact.items())]
    return [
        f"<h2>{say('totals')}</h2>",
        *_figure(png, say("plot of").format(what=say("totals")), say("totals caption").format(most=_points(most))),
        _table([say("points"), say("count")], lines, {0, 1}),
    ]


def _exercises(exercises: Sequence[Graded], figures: dict[str, Any], say: Say, plot: Plot | None) -> list[str]:
    shown = [e for e in exercises if e.id in figures.get("exercises", {})]

    def draw(fig: Any) -> None:
        columns = min(4, len(shown))
        axes = list(fig.subplots(math.ceil(len(shown) / columns), columns, squeeze=False).flat)
        for ax, e in zip(axes, shown):
            dist = {float(k): v for k, v in figures["exercises"][e.id]["distribution"].items()}
            _bars(ax, sorted(dist), dist, width=0.1)  # each exact score: none is moved to a grid
            ax.set_xlim(-0.5, e.points + 0.5)
            ax.set_title(e.id)
        for ax in axes[len(shown) :]:
            ax.set_visible(False)

    png = plot(draw, size=(10, 2.3 * math.ceil(len(shown) / 4))) if plot and shown else None
    lines = []
    for e in shown:
        s = figures["exercises"][e.id]
        lines.append(
            [
                f"{_e(e.id)} {_e(e.title)}",
                _points(s["mean"]),
                _points(s["median"]),
                _points(s["max"]),
                _points(e.points),
                ", ".join(f"{_e(k)}: {v}" for k, v in s["distribution"].items()),
            ]
        )
    return [
        f"<h2>{say('exercises')}</h2>",
        *_figure(png, say("plot of").format(what=say("exercises")), say("exercises caption")),
        _table([say("exercise"), say("mean"), say("median"), say("max"), say("of"), say("distribution")], lines, {1, 2, 3, 4}),
    ]


def _checks(analysis: items.Analysis, say: Say, plot: Plot | None, language: str) -> list[str]:
    checks = analysis.checks

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        numbers = range(1, len(checks) + 1)
        ax.barh(numbers, [c.p or 0 for c in checks], color=[_FLAGGED if c.flags else _PLAIN for c in checks])
        ax.set_xlim(0, 1)
        ax.set_ylim(len(checks) + 0.5, 0.5)
        ax.set_yticks(numbers)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="x", alpha=0.3)

    png = plot(draw, size=(8, 0.9 + 0.22 * len(checks))) if plot and checks else None
    lines = [
        [
            str(n),
            _e(c.exercise),
            _e(c.check),
            str(c.n),
            *(_shown(x) for x in (c.p, c.mean_share, c.discrimination, c.top27_p, c.bottom27_p)),
            '<span class="flag">' + "; ".join(_e(items.FLAGS[f].render(language)) for f in c.flags) + "</span>",
        ]
        for n, c in enumerate(checks, 1)
    ]
    header = [html.escape(h.strip()) for h in items.WORDS["header"].render(language).strip("|").split("|")]
    out = [
        f"<h2>{say('checks')}</h2>",
        *_figure(png, say("plot of").format(what=say("checks")), say("checks caption")),
        f"<p>{_e(items.WORDS['explained'].render(language))}</p>",
        _table(["#", *header], lines, {0, 3, 4, 5, 6, 7, 8}),
    ]
    if analysis.left_out:
        out.append(f"<p>{_e(items.WORDS['left out'].render(language).format(n=len(analysis.left_out)))}</p>")
    return out


def _mistakes(analysis: items.Analysis, say: Say, language: str) -> list[str]:
    if not analysis.mistakes:
        return [f"<h2>{say('mistakes')}</h2>", f"<p>{say('no mistakes')}</p>"]
    lines = [[_e(m.exercise), _e(m.diagnosis.render(language)), str(m.students)] for m in analysis.mistakes]
    return [f"<h2>{say('mistakes')}</h2>", _table([say("exercise"), say("mistake"), say("count")], lines, {2})]


def _trouble(rows: Sequence[StudentRow], say: Say, language: str) -> list[str]:
    """Every student whose work hit a time limit, crashed or could not be read, and every grader failure."""
    lines = []
    for row in rows:
        if row.status is Status.INTERNAL_ERROR:
            why = "; ".join(row.result.internal_errors) or row.result.failure
            lines.append([_e(row.student), "", OUTCOMES[Outcome.INTERNAL_ERROR].render(language), _e(why)])
            continue
        for e in row.result.exercises:
            if e.outcome is Outcome.UNREADABLE:
                lines.append([_e(row.student), _e(e.id), _e(OUTCOMES[e.outcome].render(language)), _e(e.note.render(language))])
            for outcome in (Outcome.TIMED_OUT, Outcome.CRASHED):
                names = [v.name for v in e.checks if v.outcome is outcome]
                if names:
                    lines.append([_e(row.student), _e(e.id), _e(OUTCOMES[outcome].render(language)), "; ".join(map(_e, names))])
    if not lines:
        return [f"<h2>{say('trouble')}</h2>", f"<p>{say('no trouble')}</p>"]
    return [f"<h2>{say('trouble')}</h2>", _table([say("student"), say("exercise"), say("what"), say("why")], lines)]


def _adjusted(scores: Sequence[Adjusted], say: Say) -> list[str]:
    """Late and overridden scores: nothing at all when there are none."""
    if not scores:
        return []
    lines = [
        [
            _e(a.student),
            _e(a.exercise),
            _points(a.raw),
            str(a.days_late),
            _points(a.penalty),
            "" if a.override is None else f"{_points(a.override)}: {_e(a.reason)}",
            _points(a.final),
        ]
        for a in scores
    ]
    header = [say(k) for k in ("student", "exercise", "graded", "days late", "penalty", "override", "final")]
    return [f"<h2>{say('adjusted')}</h2>", f"<p>{say('adjusted intro')}</p>", _table(header, lines, {2, 3, 4, 6})]


def _shown(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _bars(ax: Any, positions: Sequence[float], counts: dict[Any, int], *, width: float = 0.8) -> None:
    """A bar per position, as tall as its count; integer ticks on the counts."""
    from matplotlib.ticker import MaxNLocator

    ax.bar(list(positions), [counts.get(p, 0) for p in positions], width=width, color=_PLAIN)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", alpha=0.3)


def _plotter() -> Plot | None:
    """A function that draws a figure and returns it as base64 PNG; None without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None

    def plot(draw: Callable[[Any], None], size: tuple[float, float] = (8, 3)) -> str:
        fig = Figure(figsize=size, dpi=96, layout="constrained")
        draw(fig)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    return plot
