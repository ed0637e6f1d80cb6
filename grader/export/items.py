"""Item analysis: how each check of a class did – pass rate, discrimination, the top and bottom 27 % – and the named
mistakes the class made.

Read from the result model's fields only (a verdict's outcome, points, earned and diagnosis), never from feedback
text. D is the point-biserial correlation of a check's share of its points with the rest of the student's total
(Pearson's r, which for a pass/fail check is the point-biserial; for partial points, the same r on the share).
A check is an item when it is worth points (the public form checks, worth none, are not). Totals are raw points
(`raw_points`: what grading gave, before the term's late penalty or an override), so that an item is measured against
what the checks measured, and a batch's summary and `grade stats` (final rows, journal rows) agree. A student who hit
a time limit, crashed, could not be read or met a failure of the grader is left out of every check's figures and
counted apart: their total says nothing about what they know. Each figure is in `summary.json` ("checks",
"mistakes", "left_out_of_checks") and rendered by `to_markdown` in either language (summary.md, `grade stats`).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from grader.export.feedback import plain
from grader.results import ExerciseResult, Outcome, Status, StudentRow, Verdict
from grader.text import Text, one_line

MIN_FLAGGED = 20  # students graded on a check before it is flagged: fewer say little
TOO_EASY, TOO_HARD, LOW_D = 0.95, 0.10, 0.10
EXTREME = 0.27  # the share of the class, by total, in each of the top and bottom groups (Kelley's 27 %)
_APART = (Outcome.TIMED_OUT, Outcome.CRASHED, Outcome.UNREADABLE, Outcome.INTERNAL_ERROR)
_FULL = 1e-9  # a share this close to 1 is full points (sums of floats)
# Totals and the rest of a total are compared as points are shown (to 4 decimals): the last bits of a float sum are
# no spread, and a correlation drawn from them (D of ±1 from 1e-16) would flag a check for nothing.
_DIGITS = 4

# Each flag, as summary.json names it (English) and as a person reads it.
FLAGS = {
    "strong students fail it: check the check": Text("strong students fail it: check the check", "强的学生反而不通过：请检查这项检查本身"),
    "too easy or not testing": Text("too easy or not testing", "太容易，或并没有真正在检查"),
    "too hard or broken": Text("too hard or broken", "太难，或检查本身有错"),
    "does not tell strong from weak students": Text("does not tell strong from weak students", "区分不出强弱学生"),
}


@dataclass(frozen=True)
class Item:
    """One check's figures; None where no student (or no spread) gives the figure."""

    exercise: str
    check: str
    n: int
    p: float | None
    mean_share: float | None
    discrimination: float | None
    top27_p: float | None
    bottom27_p: float | None
    flags: tuple[str, ...] = ()  # keys of FLAGS, the most serious first

    def to_dict(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "check": self.check,
            "n": self.n,
            "p": self.p,
            "mean_share": self.mean_share,
            "discrimination": self.discrimination,
            "top27_p": self.top27_p,
            "bottom27_p": self.bottom27_p,
            "flags": list(self.flags),
        }


# Each way work fails apart from a wrong answer, as the mistakes' table names it: counted once per student and exercise,
# however many checks it failed (a file that does not parse fails every check of its exercise).
FAILURES = {
    Outcome.NOT_IMPORTED: Text(
        "the file did not import (a SyntaxError, an error at its top level, a missing file)", "文件无法导入（语法错误、顶层代码出错或缺少文件）"
    ),
    Outcome.TIMED_OUT: Text("hit a time limit", "超时"),
    Outcome.CRASHED: Text("crashed", "崩溃"),
    Outcome.REFUSED: Text("refused: does what the exercise forbids", "被拒绝：做了练习禁止的事"),
    Outcome.UNREADABLE: Text("could not be read", "无法读取"),
}


@dataclass(frozen=True)
class Mistake:
    """A named mistake (`outcome` FAILED: the check's or the judge's diagnosis) or a way of failing (FAILURES), with
    how many students' work on the exercise showed it."""

    exercise: str
    diagnosis: Text
    students: int
    outcome: Outcome = Outcome.FAILED


WRITTEN_STATES = ("to mark", "marked", "no answer")  # a written answer's states (grader.results.Written.state)


@dataclass(frozen=True)
class Analysis:
    checks: list[Item]
    mistakes: list[Mistake]
    left_out: list[str] = field(default_factory=list)  # the students left out of the checks' figures
    written: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # exercise -> WRITTEN_STATES -> students

    def to_dict(self) -> dict[str, Any]:
        """The keys summary.json gets."""
        return {
            "checks": [c.to_dict() for c in self.checks],
            "mistakes": [{"exercise": m.exercise, "diagnosis": m.diagnosis.en, "students": m.students, "outcome": m.outcome} for m in self.mistakes],
            "left_out_of_checks": len(self.left_out),
            "written_answers": self.written,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Analysis:
        """The analysis `to_dict` wrote (English only: the JSON keeps one language); the left-out students by count."""
        return cls(
            [Item(**{**c, "flags": tuple(c["flags"])}) for c in doc.get("checks", [])],
            [Mistake(m["exercise"], Text(m["diagnosis"]), m["students"], Outcome(m.get("outcome", Outcome.FAILED))) for m in doc.get("mistakes", [])],
            [""] * doc.get("left_out_of_checks", 0),
            doc.get("written_answers", {}),
        )

    def only(self, exercise_id: str) -> Analysis:
        """The figures of one exercise."""
        return Analysis(
            [c for c in self.checks if c.exercise == exercise_id],
            [m for m in self.mistakes if m.exercise == exercise_id],
            self.left_out,
            {e: w for e, w in self.written.items() if e == exercise_id},
        )


def left_out(row: StudentRow) -> bool:
    """Whether a student's figures say nothing of what they know: not graded, unreadable, a time limit, a crash, a
    failure of the grader anywhere in their work."""
    return row.status is not Status.GRADED or any(e.outcome in _APART or any(v.outcome in _APART for v in e.checks) for e in row.result.exercises)


def share(v: Verdict) -> float:
    """The share of a check's points a student earned, in [0, 1]."""
    return min(1.0, max(0.0, v.earned / v.points)) if v.points > 0 else float(v.passed)


def raw_points(e: ExerciseResult) -> float:
    """An exercise's points as grading gave them: before the term's late penalty or override (grader.term)."""
    return e.adjustment.raw if e.adjustment is not None else e.score


def analyse(rows: Sequence[StudentRow], exercise_ids: Sequence[str]) -> Analysis:
    """Every check worth points, in the course's order, and every named mistake, most common first; each student's
    total in raw points, the checks' own."""
    kept = [r for r in rows if not left_out(r)]
    totals = {r.student: round(sum(raw_points(e) for e in r.result.exercises), _DIGITS) for r in kept}
    graded: dict[tuple[str, str], list[tuple[str, Verdict]]] = {}
    for exercise_id in exercise_ids:
        for row in kept:
            for e in row.result.exercises:
                if e.id == exercise_id:
                    for v in e.checks:
                        if v.points > 0:
                            graded.setdefault((exercise_id, v.name), []).append((row.student, v))
    checks = [_item(exercise, check, taken, totals) for (exercise, check), taken in graded.items()]
    made: Counter[tuple[str, Outcome, Text]] = Counter()
    for row in rows:
        made.update({(e.id, *shown) for e in row.result.exercises if e.id in exercise_ids for shown in _failures(e)})
    order = {exercise_id: n for n, exercise_id in enumerate(exercise_ids)}
    ranked = sorted(made.items(), key=lambda x: (-x[1], order[x[0][0]], x[0][2].en))
    mistakes = [Mistake(exercise, diagnosis, n, outcome) for (exercise, outcome, diagnosis), n in ranked]
    return Analysis(checks, mistakes, [r.student for r in rows if left_out(r)], written_states(rows, exercise_ids))


def written_states(rows: Sequence[StudentRow], exercise_ids: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """Exercise -> "to mark" / "marked" / "no answer" -> its students, for the written answers the rows count (the
    rubric applied: a batch's final rows, or `grade stats`'s with the journal's marks)."""
    found: dict[str, dict[str, list[str]]] = {}
    for exercise_id in exercise_ids:
        for row in rows:
            for e in row.result.exercises:
                if e.id == exercise_id and e.written is not None and e.written.counted:
                    found.setdefault(e.id, {state: [] for state in WRITTEN_STATES})[e.written.state].append(row.student)
    return found


def _failures(e: ExerciseResult) -> set[tuple[Outcome, Text]]:
    """What one student's work on an exercise showed, each once: every named mistake of a check it lost points on,
    and every way its checks (or the exercise itself) failed apart from a wrong answer."""
    named = {(Outcome.FAILED, d) for v in e.checks if not v.passed for d in v.diagnosis}
    outcomes = {v.outcome for v in e.checks} | ({e.outcome} if e.outcome else set())
    return named | {(o, FAILURES[o]) for o in outcomes if o in FAILURES}


def _item(exercise: str, check: str, taken: list[tuple[str, Verdict]], totals: dict[str, float]) -> Item:
    """One check's figures from the students graded on it (their id and verdict) and every kept student's total."""
    n = len(taken)
    shares = [share(v) for _, v in taken]
    full = [s >= 1 - _FULL for s in shares]
    p, mean_share = _rate(full), _round(statistics.fmean(shares))
    rest = [round(totals[student] - v.earned, _DIGITS) for student, v in taken]  # the rest of the total: the check does not judge itself
    try:
        discrimination: float | None = _round(statistics.correlation(shares, rest))
    except statistics.StatisticsError:  # fewer than two students, or no spread in the check or in the rest
        discrimination = None
    ranked = sorted(range(n), key=lambda i: (totals[taken[i][0]], taken[i][0]))
    k = max(1, round(EXTREME * n))
    bottom, top = ranked[:k], ranked[-k:]
    flags = _flags(n, p, discrimination)
    return Item(exercise, check, n, p, mean_share, discrimination, _rate([full[i] for i in top]), _rate([full[i] for i in bottom]), flags)


def _flags(n: int, p: float | None, d: float | None) -> tuple[str, ...]:
    if n < MIN_FLAGGED or p is None:
        return ()
    flags = []
    if d is not None and d < 0:
        flags.append("strong students fail it: check the check")
    if p > TOO_EASY:
        flags.append("too easy or not testing")
    if p < TOO_HARD:
        flags.append("too hard or broken")
    if d is not None and 0 <= d < LOW_D:
        flags.append("does not tell strong from weak students")
    return tuple(flags)


def _rate(passed: list[bool]) -> float | None:
    return _round(sum(passed) / len(passed)) if passed else None


def _round(x: float) -> float | None:
    return round(x, 4) if math.isfinite(x) else None


WORDS = {
    "checks": Text("Checks: item analysis", "各项检查：题目分析"),
    "explained": Text(
        "n: students graded on the check; p: share with full points; share: mean share of its points; D: point-biserial "
        "discrimination (the check against the rest of the total); top/bottom 27 %: p in the best and worst 27 % by "
        f"total. Flags from {MIN_FLAGGED} students on.",
        "n：参与该项检查的学生数；p：得满分的比例；得分率：平均得到该项分数的比例；D：点二列区分度（该项与其余总分的相关）；"
        f"前/后 27 %：按总分排在前、后 27 % 的学生的 p。至少 {MIN_FLAGGED} 名学生时才标记。",
    ),
    "look at": Text("Checks to look at", "需要查看的检查"),
    "header": Text(
        "| exercise | check | n | p | share | D | top 27 % | bottom 27 % | flags |", "| 练习 | 检查 | n | p | 得分率 | D | 前 27 % | 后 27 % | 标记 |"
    ),
    "none": Text("- no check worth points was graded", "- 没有评过有分值的检查"),
    "left out": Text(
        "Students left out of these figures, counted apart (a time limit, a crash, a hand-in that could not be read or a grader failure): {n}.",
        "未计入以上数字、另行统计的学生（超时、崩溃、提交无法读取或评分程序出错）：{n} 名。",
    ),
    "mistakes": Text("Known mistakes and failures: students who made each", "已知错误与失败：犯每种错误的学生数"),
    "written": Text("Written answers, marked by the course staff (grade rubric OUT EXERCISE)", "书面回答，由课程教师评分（grade rubric OUT EXERCISE）"),
    "written header": Text("| exercise | to mark | marked | no answer |", "| 练习 | 待评分 | 已评分 | 未作答 |"),
    "to mark": Text("Still to mark (their points are not in the totals yet)", "尚待评分（其分数尚未计入总分）"),
    "mistakes header": Text("| exercise | mistake | students |", "| 练习 | 错误 | 学生数 |"),
    "no mistakes": Text("- none diagnosed", "- 没有诊断出已知错误"),
}


def to_markdown(analysis: Analysis, language: str, *, escaped: bool = True) -> list[str]:
    """The checks' table and the mistakes' table, in `language`, as Markdown lines; `escaped=False` for a terminal,
    which shows text as it is (only made printable), not Markdown's escapes."""
    written = written_markdown(analysis, language, escaped=escaped)
    lines = [*checks_markdown(analysis, language, escaped=escaped), "", *mistakes_markdown(analysis, language, escaped=escaped)]
    return [*lines, "", *written] if written else lines


def checks_markdown(analysis: Analysis, language: str, *, escaped: bool = True) -> list[str]:
    say, cell = _say(language), plain if escaped else one_line
    lines = [f"## {say('checks')}", "", say("explained"), ""]
    flagged = [c for c in analysis.checks if c.flags]
    if flagged:
        lines += [f"{say('look at')}:", ""]
        lines += [
            f"- {c.exercise} {cell(c.check)}: {'; '.join(FLAGS[f].render(language) for f in c.flags)} (p {_shown(c.p)}, D {_shown(c.discrimination)})"
            for c in flagged
        ]
        lines.append("")
    if analysis.checks:
        lines += [say("header"), "|---|---|---|---|---|---|---|---|---|"]
        for c in analysis.checks:
            flags = "; ".join(FLAGS[f].render(language) for f in c.flags)
            lines.append(
                f"| {c.exercise} | {cell(c.check)} | {c.n} | {_shown(c.p)} | {_shown(c.mean_share)} | "
                f"{_shown(c.discrimination)} | {_shown(c.top27_p)} | {_shown(c.bottom27_p)} | {flags} |"
            )
    else:
        lines.append(say("none"))
    if analysis.left_out:
        lines += ["", say("left out").format(n=len(analysis.left_out))]
    return lines


def mistakes_markdown(analysis: Analysis, language: str, *, escaped: bool = True) -> list[str]:
    say, cell = _say(language), plain if escaped else one_line
    lines = [f"## {say('mistakes')}", ""]
    if not analysis.mistakes:
        return [*lines, say("no mistakes")]
    return [
        *lines,
        say("mistakes header"),
        "|---|---|---|",
        *(f"| {m.exercise} | {cell(m.diagnosis.render(language))} | {m.students} |" for m in analysis.mistakes),
    ]


def written_markdown(analysis: Analysis, language: str, *, escaped: bool = True) -> list[str]:
    """How many written answers are to mark, marked and unanswered, and who is still to mark; [] where none is counted."""
    if not analysis.written:
        return []
    say, cell = _say(language), plain if escaped else one_line
    lines = [f"## {say('written')}", "", say("written header"), "|---|---|---|---|"]
    lines += [f"| {e} | {len(w['to mark'])} | {len(w['marked'])} | {len(w['no answer'])} |" for e, w in analysis.written.items()]
    waiting = [f"- {e}: {', '.join(cell(s) for s in w['to mark'])}" for e, w in analysis.written.items() if w["to mark"]]
    return [*lines, "", f"{say('to mark')}:", "", *waiting] if waiting else lines


def _say(language: str) -> Callable[[str], str]:
    return lambda key: WORDS[key].render(language)


def _shown(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"
