"""report.html: the class at a glance, one self-contained page a TA opens from disk.

Inline CSS, plots drawn by matplotlib's SVG backend and inlined (no script, no font, no image file, nothing from the
network: a Content Security Policy in the page forbids it), each with a table or a caption as its text alternative,
every label in the course's language. The plots hold numbers and exercise ids only (their text left to the browser's
font), their axes named in the caption. They are drawn cheaply: no layout engine (each panel's box is fixed here),
vector output rather than a rasterized PNG, one figure a plot. Everything a student controls (ids, messages) is escaped
here, once (`_e`). Without matplotlib (a TA install without the `ta` extra) the page keeps its tables and says why the
plots are missing. Late and overridden scores (the course's late policy, a TA's override: grader.term) are read from
each exercise's `adjustment` into `Adjusted` rows; with none, their section is not there at all.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grader.export import items
from grader.results import Graded, Outcome, Status, StudentRow
from grader.term.finals import local_time
from grader.text import Text, format_points, printable

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
        "One table per exercise; the bar beside p is the pass rate from 0 to 1, red where the check is flagged.",
        "每个练习一张表；p 旁的条表示通过率（0 到 1），被标记的检查为红色。",
    ),
    "sort": Text("Sort:", "排序："),
    "course order": Text("course order", "课程顺序"),
    "by p": Text("p, lowest first", "p 从低到高"),
    "by D": Text("D, lowest first", "D 从低到高"),
    "class": Text("Students and totals", "学生与总分"),
    "class intro": Text(
        "Final points per exercise (after the term's rules) out of the points in the header.", "各练习的最终分数（已按学期规则调整），满分见表头。"
    ),
    "by student": Text("student", "学生"),
    "by total": Text("total, highest first", "总分从高到低"),
    "total": Text("total", "总分"),
    "handed in": Text("handed in", "提交时间"),
    "no time": Text("no time known: no late penalty", "没有提交时间：不扣迟交分"),
    "mistakes": Text("Most common mistakes", "最常见的错误"),
    "mistake": Text("mistake", "错误"),
    "no mistakes": Text("No named mistake was diagnosed.", "没有诊断出已知错误。"),
    "trouble": Text("Time limits, crashes, files that did not import and hand-ins that could not be read", "超时、崩溃、无法导入的文件与无法读取的提交"),
    "no trouble": Text(
        "No student hit a time limit, crashed, or handed in a file that did not import or could not be read.",
        "没有学生超时、崩溃，或提交了无法导入或无法读取的文件。",
    ),
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
    "written": Text("Written answers, marked by the course staff", "书面回答（由课程教师评分）"),
    "written intro": Text(
        "Answers still to mark count 0 in the totals until a TA marks them (grade rubric OUT EXERCISE, then grade mark) and the next grade batch "
        "publishes the marks; ✎ in the table above marks them.",
        "尚待评分的回答在助教评分（grade rubric OUT EXERCISE，然后 grade mark）并由下一次 grade batch 发布之前按 0 分计入总分；上表中用 ✎ 标出。",
    ),
    "to mark": Text("to mark", "待评分"),
    "marked": Text("marked", "已评分"),
    "no answer": Text("no answer", "未作答"),
    "mean marked": Text("mean of the marked", "已评分的平均分"),
    "no plots": Text(
        "The plots need matplotlib, which the TA's install brings: pip install 'gated-rnn-grader[ta]'. The tables below hold the same figures.",
        "图表需要 matplotlib（助教安装包含它）：pip install 'gated-rnn-grader[ta]'。下表给出同样的数字。",
    ),
    "plot of": Text("Plot: {what}. The table below gives the same figures.", "图：{what}。下表给出同样的数字。"),
}
OUTCOMES = {
    **{o: items.FAILURES[o] for o in (Outcome.TIMED_OUT, Outcome.CRASHED, Outcome.NOT_IMPORTED, Outcome.UNREADABLE)},
    Outcome.INTERNAL_ERROR: Text("grader failure (graded again next run)", "评分程序出错（下次运行时重新评分）"),
}
_FLAGGED, _PLAIN = "#c0392b", "#4a7ab0"
Say = Callable[[str], str]  # a fixed word of the page, in its language, escaped
Figures = type["Figure"] | None  # matplotlib's Figure, which draws the plots; None without matplotlib
# Sections fit a screen: long tables scroll in a box under a header that stays; a sortable table's rows are a flex
# column that CSS reorders by the checked radio button (`order` from each row's --o1/--o2: no script).
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;overflow-wrap:anywhere}
th{background:#f2f2f2;overflow-wrap:normal}td.n{text-align:right}figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
svg{max-width:100%;height:auto}.flag{color:#c0392b}.note{background:#fff5d6;padding:.5em}
.box{max-height:70vh;overflow:auto}.box.short{max-height:35vh}.box thead th{position:sticky;top:0}
.sortable{font-size:.9em}.sortable input:checked+label{font-weight:bold}
.sortable table{display:block;margin:0}.sortable thead,.sortable tbody{display:flex;flex-direction:column}
.sortable tr{display:grid;grid-template-columns:var(--cols)}
.by1:checked~.box tbody tr{order:var(--o1)}.by2:checked~.box tbody tr{order:var(--o2)}
td i{display:inline-block;height:.7em;margin-right:.3em;background:#4a7ab0}tr.flagged td i{background:#c0392b}
"""


def to_html(rows: Sequence[StudentRow], exercises: Sequence[Graded], figures: dict[str, Any], *, language: str, title: str) -> str:
    """The page for the class `rows` graded on `exercises`, with `figures` as summary.summarize gave them."""
    say = _say(language)
    analysis = items.analyse(rows, [e.id for e in exercises])
    plots = _matplotlib()
    body = [f"<h1>{_e(title)}: {say('title')}</h1>", f"<p>{say('students').format(n=len(rows))}</p>"]
    if plots is None:
        body.append(f'<p class="note">{say("no plots")}</p>')
    sections = [
        _totals(rows, exercises, say, plots),
        _class(rows, exercises, say),
        _exercises(exercises, figures, say, plots),
        *_checks(analysis, exercises, say, language),
        _mistakes(analysis, say, language),
        _trouble(rows, say, language),
        _adjusted(adjusted(rows), say),
        _written(rows, analysis, say),
    ]
    body += ["<section>" + "\n".join(section) + "</section>" for section in sections if section]
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


def _table(header: list[str], lines: list[list[str]], numeric: frozenset[int] | set[int] = frozenset(), *, box: str = "box", rows: Sequence[str] = ()) -> str:
    """A table of cells already escaped, the columns in `numeric` right-aligned, in a box that scrolls past a screen
    ("box short": a third of one); `rows` are each row's attributes (a class, a sortable row's order)."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        f"<tr{attributes}>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(line)) + "</tr>"
        for line, attributes in zip(lines, [*rows, *[""] * (len(lines) - len(rows))])
    )
    return f'<div class="{box}"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _sortable(
    key: str,
    columns: str,
    header: list[str],
    lines: list[list[str]],
    numeric: set[int],
    orders: dict[str, list[int]],
    say: Say,
    *,
    given: str,
    flagged: Sequence[bool] = (),
) -> str:
    """A table in its given order (`given`, a fixed word for its button) or, by a radio button (CSS, no script), in
    each order of `orders` (a fixed word for its button: each row's rank); `columns` is the rows' CSS grid template,
    `flagged` rows are drawn red."""
    buttons = [f'<input type="radio" name="{key}" id="{key}-0" checked><label for="{key}-0">{say(given)}</label>']
    buttons += [f'<input type="radio" name="{key}" id="{key}-{n}" class="by{n}"><label for="{key}-{n}">{say(name)}</label>' for n, name in enumerate(orders, 1)]
    marked = [*flagged, *[False] * (len(lines) - len(flagged))]
    attributes = [
        (' class="flagged"' if marked[i] else "") + ' style="' + ";".join(f"--o{n}:{ranks[i]}" for n, ranks in enumerate(orders.values(), 1)) + '"'
        for i in range(len(lines))
    ]
    return f'<div class="sortable" style="--cols:{columns}">{say("sort")} ' + " ".join(buttons) + _table(header, lines, numeric, rows=attributes) + "</div>"


def _ranks(keys: Sequence[Any]) -> list[int]:
    """Each position's rank when sorted by its key (ties in the given order)."""
    ranks = [0] * len(keys)
    for rank, i in enumerate(sorted(range(len(keys)), key=lambda i: keys[i])):
        ranks[i] = rank
    return ranks


def _figure(plots: Figures, panels: Sequence[Panel], what: str, caption: str, *, name: str, width: int, height: int, columns: int = 1) -> list[str]:
    """Bar charts (`panels`, `columns` a row, each `height` pixels tall in a figure `width` wide) as one inline SVG,
    named by `what` for a screen reader, with its caption; nothing without matplotlib."""
    if plots is None:
        return []
    return [f"<figure>{_svg(plots, panels, what, name=name, width=width, height=height, columns=columns)}<figcaption>{caption}</figcaption></figure>"]


def _points(x: float) -> str:
    return format_points(round(x, 4))


def _totals(rows: Sequence[StudentRow], exercises: Sequence[Graded], say: Say, plots: Figures) -> list[str]:
    most = sum(e.points for e in exercises)
    # the plot's bars: one per whole point, a half up (round() takes a half to even: 1.5 and 2.5 both on 2, none on 3)
    binned = Counter(math.floor(round(r.result.score, 4) + 0.5) for r in rows)
    panel = Panel("", {float(k): v for k, v in binned.items()}, -0.5, math.ceil(most) + 0.5, 0.8)
    exact = Counter(round(r.result.score, 4) for r in rows)  # the table: every total as given
    lines = [[_points(k), str(v)] for k, v in sorted(exact.items())]
    return [
        f"<h2>{say('totals')}</h2>",
        *_figure(
            plots, [panel], say("plot of").format(what=say("totals")), say("totals caption").format(most=_points(most)), name="totals", width=768, height=288
        ),
        _table([say("points"), say("count")], lines, {0, 1}, box="box short"),
    ]


def _class(rows: Sequence[StudentRow], exercises: Sequence[Graded], say: Say) -> list[str]:
    """Every student: final points per exercise and the total, sortable by id or total; when a due date applies, when
    they handed in – or that no time is known, so no late penalty was applied."""
    if not rows:
        return []
    timed = any(e.adjustment is not None and e.adjustment.due for r in rows for e in r.result.exercises)
    header = [say("student"), *(f"{_e(e.id)} ({_points(e.points)})" for e in exercises), f"{say('total')} ({_points(sum(e.points for e in exercises))})"]
    lines = []
    for r in rows:
        line = [_e(r.student), *(_cell(r, e.id) for e in exercises), _points(r.result.score)]
        if timed:
            line.append(_handed_in(r, say))
        lines.append(line)
    numeric = set(range(1, len(exercises) + 2))
    columns = f"minmax(8em,1fr) repeat({len(exercises)},3.6em) 5em" + (" 14em" if timed else "")  # 2026-12-11 00:30+08:00 on one line
    orders = {"by total": _ranks([(-r.result.score, n) for n, r in enumerate(rows)])}
    table = _sortable("class", columns, header + ([say("handed in")] if timed else []), lines, numeric, orders, say, given="by student")
    return [f"<h2>{say('class')}</h2>", f"<p>{say('class intro')}</p>", table]


def _cell(row: StudentRow, exercise_id: str) -> str:
    """An exercise's final points in the class table, with ✎ where its written answer is still to mark."""
    e = next((e for e in row.result.exercises if e.id == exercise_id), None)
    waiting = e is not None and e.written is not None and e.written.counted and e.written.state == "to mark"
    return _points(row.score(exercise_id)) + (' <span class="flag">✎</span>' if waiting else "")


def _written(rows: Sequence[StudentRow], analysis: items.Analysis, say: Say) -> list[str]:
    """Each exercise with a written answer: how many are to mark (named), marked (their mean) and unanswered."""
    if not analysis.written:
        return []
    earned = {(r.student, e.id): e.written.earned for r in rows for e in r.result.exercises if e.written is not None}
    lines = []
    for exercise, states in analysis.written.items():
        marked = [earned[(s, exercise)] for s in states["marked"]]
        waiting = ", ".join(_e(s) for s in states["to mark"])
        mean = _points(sum(marked) / len(marked)) if marked else "–"
        lines.append(
            [
                _e(exercise),
                f'{len(states["to mark"])}{": " if waiting else ""}<span class="flag">{waiting}</span>',
                str(len(marked)),
                mean,
                str(len(states["no answer"])),
            ]
        )
    header = [say("exercise"), say("to mark"), say("marked"), say("mean marked"), say("no answer")]
    return [f"<h2>{say('written')}</h2>", f"<p>{say('written intro')}</p>", _table(header, lines, {2, 3, 4}, box="box short")]


def _handed_in(row: StudentRow, say: Say) -> str:
    """When the student handed in (the latest time of their exercises with a due date), in its due date's time zone as
    the student's feedback says it, or that no time is known."""
    dated = [a for e in row.result.exercises if (a := e.adjustment) is not None and a.due]
    if any(a.no_time for a in dated):
        return f'<span class="flag">{say("no time")}</span>'
    if not dated:
        return ""
    last = max(dated, key=lambda a: dt.datetime.fromisoformat(a.submitted_at))  # by the time, not its text: offsets differ
    return _e(local_time(last.submitted_at, last.due))


def _exercises(exercises: Sequence[Graded], figures: dict[str, Any], say: Say, plots: Figures) -> list[str]:
    shown = [e for e in exercises if e.id in figures.get("exercises", {})]
    panels = [  # each exact score: none is moved to a grid
        Panel(e.id, {float(k): v for k, v in figures["exercises"][e.id]["distribution"].items()}, -0.5, e.points + 0.5, 0.1) for e in shown
    ]
    what = say("plot of").format(what=say("exercises"))
    figure = _figure(plots, panels, what, say("exercises caption"), name="exercises", width=1056, height=182, columns=min(6, len(shown))) if shown else []
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
        *figure,
        _table([say("exercise"), say("mean"), say("median"), say("max"), say("of"), say("distribution")], lines, {1, 2, 3, 4}, box="box short"),
    ]


def _checks(analysis: items.Analysis, exercises: Sequence[Graded], say: Say, language: str) -> list[list[str]]:
    """A section per exercise: its checks by name, each pass rate p drawn as a bar beside it (HTML, no image: the names
    need no font in an image), sortable by p or D."""
    header = [html.escape(h.strip()) for h in items.WORDS["header"].render(language).strip("|").split("|")][1:]  # the exercise is the section's
    columns = "2.5em minmax(14em,1fr) 3.5em 9em 4.5em 4.5em 5em 6em 12em"
    out = [[f"<h2>{say('checks')}</h2>", f"<p>{say('checks caption')} {_e(items.WORDS['explained'].render(language))}</p>"]]
    if analysis.left_out:
        out[0].append(f"<p>{_e(items.WORDS['left out'].render(language).format(n=len(analysis.left_out)))}</p>")
    for e in exercises:
        checks = [c for c in analysis.checks if c.exercise == e.id]
        if not checks:
            continue
        lines = [
            [
                str(n),
                _e(c.check),
                str(c.n),
                f'<i style="width:{5 * (c.p or 0):.2f}em"></i>{_shown(c.p)}',
                *(_shown(x) for x in (c.mean_share, c.discrimination, c.top27_p, c.bottom27_p)),
                '<span class="flag">' + "; ".join(_e(items.FLAGS[f].render(language)) for f in c.flags) + "</span>",
            ]
            for n, c in enumerate(checks, 1)
        ]
        orders = {
            key: _ranks([(x is None, x or 0, n) for n, x in enumerate(values)])
            for key, values in (("by p", [c.p for c in checks]), ("by D", [c.discrimination for c in checks]))
        }
        table = _sortable(
            f"checks-{_e(e.id)}", columns, ["#", *header], lines, {0, 2, 4, 5, 6, 7}, orders, say, given="course order", flagged=[bool(c.flags) for c in checks]
        )
        out.append([f"<h3>{_e(e.id)} {_e(e.title)}</h3>", table])
    return out


def _mistakes(analysis: items.Analysis, say: Say, language: str) -> list[str]:
    if not analysis.mistakes:
        return [f"<h2>{say('mistakes')}</h2>", f"<p>{say('no mistakes')}</p>"]
    lines = [[_e(m.exercise), _e(m.diagnosis.render(language)), str(m.students)] for m in analysis.mistakes]
    return [f"<h2>{say('mistakes')}</h2>", _table([say("exercise"), say("mistake"), say("count")], lines, {2})]


def _trouble(rows: Sequence[StudentRow], say: Say, language: str) -> list[str]:
    """Every student whose work hit a time limit, crashed, did not import or could not be read – a file that did not
    import once, with its message, however many checks it failed – and every grader failure."""
    lines = []
    for row in rows:
        if row.status is Status.INTERNAL_ERROR:
            why = "; ".join(row.result.internal_errors) or row.result.failure
            lines.append([_e(row.student), "", OUTCOMES[Outcome.INTERNAL_ERROR].render(language), _e(why)])
            continue
        for e in row.result.exercises:
            if e.outcome is Outcome.UNREADABLE:
                lines.append([_e(row.student), _e(e.id), _e(OUTCOMES[e.outcome].render(language)), _e(e.note.render(language))])
            first = next((v for v in e.checks if v.outcome is Outcome.NOT_IMPORTED), None)
            if first is not None:
                lines.append([_e(row.student), _e(e.id), _e(OUTCOMES[Outcome.NOT_IMPORTED].render(language)), _e(first.feedback.render(language))])
            for outcome in (Outcome.TIMED_OUT, Outcome.CRASHED):
                names = [v.name for v in e.checks if v.outcome is outcome]
                if names:
                    lines.append([_e(row.student), _e(e.id), _e(OUTCOMES[outcome].render(language)), "; ".join(map(_e, names))])
    if not lines:
        return [f"<h2>{say('trouble')}</h2>", f"<p>{say('no trouble')}</p>"]
    return [f"<h2>{say('trouble')}</h2>", _table([say("student"), say("exercise"), say("what"), say("why")], lines)]


def _adjusted(scores: Sequence[Adjusted], say: Say) -> list[str]:
    """Late and overridden scores that changed something: nothing at all when there are none."""
    scores = [a for a in scores if a.override is not None or a.penalty > 0]  # late work that had no points to lose is no row
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


@dataclass(frozen=True)
class Panel:
    """One bar chart: a bar at each position of `counts` as tall as its count, `width` wide (in the positions' unit),
    on a horizontal axis from `low` to `high`, under `title` (an exercise id, or none)."""

    title: str
    counts: dict[float, int]
    low: float
    high: float
    width: float


_warming: list[threading.Thread] = []  # `prepare`'s thread, which `_matplotlib` waits for


def prepare() -> None:
    """Import matplotlib and draw a throwaway plot in a thread of its own: `grade batch` asks as it starts grading, so
    that the ~0.5 s this takes passes while this process waits for its warm graders, not after its last student."""
    if _warming:  # one is under way, not yet waited for
        return
    thread = threading.Thread(target=_warm_up, name="report plots", daemon=True)
    _warming.append(thread)
    thread.start()


def _warm_up() -> None:
    plots = _matplotlib(wait=False)
    if plots is not None:
        _svg(plots, [Panel("", {0.0: 1}, -0.5, 1.5, 0.8)], "", name="warm", width=96, height=96, columns=1)


def _matplotlib(*, wait: bool = True) -> Figures:
    """matplotlib's Figure, imported here (not as the module loads: a student's install has no matplotlib, and other
    commands need none); None without it."""
    while wait and _warming:
        _warming.pop().join()
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure


def _svg(plots: type[Figure], panels: Sequence[Panel], what: str, *, name: str, width: int, height: int, columns: int) -> str:
    """`panels` drawn on one matplotlib figure and saved as SVG text to inline: the panel at (row, column) in the box
    of `width` / `columns` × `height` pixels there, its axes at fixed margins (no layout engine to measure the text), a
    grid line at each whole number of students, each bar with its position and count as its tooltip (a `<title>` in
    the bar's group, which matplotlib names by its gid). Every id of the SVG starts with `name`: the page holds two."""
    from matplotlib import rc_context
    from matplotlib.ticker import MaxNLocator

    rows, across = math.ceil(len(panels) / columns), width / columns
    tooltips: list[str] = []
    # text as <text> in the browser's font (no glyph outlines), the same ids on every run, no layout engine whatever a
    # matplotlibrc says
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": name, "font.size": 8, "figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig = plots(figsize=(width / 96, rows * height / 96), dpi=96)
        for i, p in enumerate(panels):
            x, y = (i % columns) * across, (i // columns) * height
            left, right, top, bottom = x + 34, x + across - 10, y + (20 if p.title else 8), y + height - 22
            ax = fig.add_axes((left / width, 1 - bottom / (rows * height), (right - left) / width, (bottom - top) / (rows * height)))
            shown = sorted((position, count) for position, count in p.counts.items() if count)
            bar = max(p.width, 1.5 * (p.high - p.low) / (right - left))  # a bar narrower than 1.5 pixels would not show
            for n, rect in enumerate(ax.bar([q for q, _ in shown], [c for _, c in shown], width=bar, color=_PLAIN), start=len(tooltips)):
                rect.set_gid(f"bar{n}")
            tooltips += [f"{_points(position)}: {count}" for position, count in shown]
            ax.set_xlim(p.low, p.high)
            ax.set_ylim(0, (max(p.counts.values(), default=0) or 1) * 1.05)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))  # few ticks: each is a handful of artists to make and draw
            ax.yaxis.set_major_locator(MaxNLocator(nbins=3, integer=True))
            ax.grid(axis="y", color="#ddd")
            ax.set_axisbelow(True)
            if p.title:
                ax.set_title(p.title, y=1, pad=3)  # a fixed place: matplotlib moves a title of no `y` clear of the ticks, measuring them
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    svg = out.getvalue()
    svg = re.sub(r'<g id="bar(\d+)">', lambda m: f"{m[0]}<title>{html.escape(tooltips[int(m[1])])}</title>", svg[svg.index("<svg") :])
    svg = re.sub(r'(?<= id=")|(?<=xlink:href="#)|(?<=url\(#)', f"{name}-", svg)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{what}" ', 1)
