"""What the class did, end to end: a small class through `grade batch` gives the item analysis in summary.json and
summary.md, `grade stats` prints it, and report.html is a self-contained page that a real browser opens cleanly."""

import dataclasses
import html
import json
import re
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import browser
from conftest import ROOT
from grader import api
from grader.batch.output import read_class
from grader.cli import main
from grader.export import report

pytestmark = pytest.mark.slow  # chromium

SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()
# The statement's numbers (f = 0.75, c_prev = 1.6, g = -0.3): f*c_prev + (1-f)*g = 1.125, the coupled-gate mistake
COUPLED = re.sub(r"^c_t = .*$", "c_t = 1.125", SHEET, flags=re.MULTILINE)
HOSTILE = "<img src=x onerror=alert(1)>"  # a student id that is HTML (a zip of this name that cannot be read)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """ex01 (an answer sheet: no student process) for three students: right, one named mistake, an unreadable zip."""
    klass = tmp_path_factory.mktemp("class")
    for name, sheet in (("ada", SHEET), ("bob", COUPLED)):
        (klass / name / "ex01_cell_state").mkdir(parents=True)
        (klass / name / "ex01_cell_state" / "answers.toml").write_text(sheet)
    with zipfile.ZipFile(klass / f"{HOSTILE}.zip", "w") as zf:
        zf.writestr("../../escape.py", "x = 1")
    out = tmp_path_factory.mktemp("out")
    course = api.course(root=ROOT)
    api.batch(course=course, exercises=api.select(course, ["ex01"]), submissions=klass, out=out, workers=1)
    return out


def test_a_batch_writes_the_item_analysis(graded):
    """Does summary.json give ex01's checks with n, p and the mistakes of the class, the unreadable student left out?"""
    figures = json.loads((graded / "summary.json").read_text())
    checks = {c["check"]: c for c in figures["checks"]}
    assert checks["c_t: the new cell state"]["n"] == 2 and checks["c_t: the new cell state"]["p"] == 0.5
    assert checks["h_t: the new hidden state"]["p"] == 1.0
    assert figures["left_out_of_checks"] == 1
    unreadable, named = sorted(figures["mistakes"], key=lambda m: m["outcome"])  # a named mistake; the zip that could not be read
    assert named["exercise"] == "ex01" and "coupled gate" in named["diagnosis"] and (named["students"], named["outcome"]) == (1, "failed")
    assert (unreadable["diagnosis"], unreadable["students"], unreadable["outcome"]) == ("could not be read", 1, "could not be read")
    assert "## Checks: item analysis" in (graded / "summary.md").read_text()


def test_the_class_is_read_back_from_the_output(graded):
    """Does reading OUT give grades.csv's students with their whole results, and its exercises?"""
    rows, ids = read_class(graded)
    assert sorted(r.student for r in rows) == sorted(["ada", "bob", HOSTILE]) and ids == ["ex01"]


def test_columns_after_the_total_are_not_exercises(graded, tmp_path):
    """Does a grades.csv with columns after the total (a late policy's, say) still give the batch's exercises?"""
    import shutil

    copy = tmp_path / "out"
    shutil.copytree(graded, copy)
    lines = (copy / "grades.csv").read_text().splitlines()
    (copy / "grades.csv").write_text("\n".join([lines[0] + ",raw_total,late_days", *(f"{x},0,0" for x in lines[1:])]) + "\n")
    rows, ids = read_class(copy)
    assert ids == ["ex01"] and len(rows) == 3


def test_grade_stats_prints_the_figures_in_the_course_language(graded, monkeypatch):
    """Does `grade stats OUT` print the checks and mistakes, in Chinese for a zh course, and --json the summary's keys?"""
    monkeypatch.chdir(ROOT)
    shown = CliRunner().invoke(main, ["stats", str(graded)])
    assert shown.exit_code == 0, shown.output
    assert re.search(r"│ ex01\s*│ c_t: the new cell state\s*│\s*2 │\s*0\.50 │", shown.output) and "coupled gate" in shown.output, shown.output
    assert "could not be read" in shown.output and "|---|" not in shown.output  # rich's tables, not Markdown
    as_json = CliRunner().invoke(main, ["stats", str(graded), "--json", "--exercise", "ex01"])
    assert json.loads(as_json.output)["checks"] == json.loads((graded / "summary.json").read_text())["checks"]
    zh = dataclasses.replace(api.course(root=ROOT), language="zh")
    monkeypatch.setattr(api, "course", lambda **_: zh)
    chinese = CliRunner().invoke(main, ["stats", str(graded)])
    assert "题目分析" in chinese.output and "耦合门" in chinese.output and "Checks" not in chinese.output


def test_grade_stats_refuses_clearly(graded, tmp_path, monkeypatch):
    """Is a folder that no batch wrote, or an exercise it did not grade, a usage error saying so – no traceback?"""
    monkeypatch.chdir(ROOT)
    empty = CliRunner().invoke(main, ["stats", str(tmp_path)])
    assert empty.exit_code == 2 and "not the output of grade batch" in empty.output and "Traceback" not in empty.output
    assert not (tmp_path / "journal.sqlite").exists()
    assert f"--out {tmp_path} (a folder outside SUBMISSIONS)" in " ".join(empty.output.split())
    (tmp_path / "alice").mkdir()  # a folder of submissions given for an output: its grades go beside it, never into it
    submissions = CliRunner().invoke(main, ["stats", str(tmp_path)])
    said = " ".join(submissions.output.split())
    assert submissions.exit_code == 2 and f"grade batch {tmp_path} --out {tmp_path}-graded" in said and f"--out {tmp_path} " not in said
    other = CliRunner().invoke(main, ["stats", str(graded), "--exercise", "ex05"])
    assert other.exit_code == 2 and "graded ex01" in other.output


class _Page(HTMLParser):
    """What a page loads and links to, and its text."""

    def __init__(self):
        super().__init__()
        self.tags, self.sources, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.sources += [value or "" for name, value in attrs if name in ("src", "href", "srcset", "data", "action")]

    def handle_data(self, data):
        self.text.append(data)


def parsed(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def test_the_report_is_self_contained_and_escapes_student_text(graded):
    """Does report.html hold no script and load nothing (its plots inline SVG), under a policy that forbids it, with a
    student id made of HTML shown as text?"""
    text = (graded / "report.html").read_text()
    page = parsed(text)
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags and "img" not in page.tags
    assert page.sources == [] and page.tags.count("svg") == 2 and "image" not in page.tags and "foreignobject" not in page.tags
    assert "default-src 'none'" in text
    assert HOSTILE not in text and HOSTILE in "".join(page.text)


def test_the_report_speaks_the_course_language(graded):
    """Rendered for a zh course, are the page's fixed words Chinese (lang zh), with no English section title?"""
    rows, _ = read_class(graded)
    course = api.course(root=ROOT)
    figures = json.loads((graded / "summary.json").read_text())
    zh = report.to_html(rows, api.select(course, ["ex01"]), figures, language="zh", title=course.title)
    assert '<html lang="zh-Hans">' in zh and "总分分布" in zh and "最常见的错误" in zh and "耦合门" in zh
    assert not any(w in zh for w in ("Distribution of totals", "Most common mistakes", "pass rate", "students"))


def test_the_plots_are_inline_svg_named_for_a_screen_reader(graded):
    """Are both plots matplotlib's SVG inlined in the page, each named for a screen reader, their ids the page's own?"""
    text = (graded / "report.html").read_text()
    assert text.count('<svg role="img" aria-label="Plot: ') == 2 and "<?xml" not in text and "<!DOCTYPE svg" not in text
    ids = re.findall(r' id="([^"]*)"', text)  # the page's own (the sort buttons) and the plots', each once
    plots = dict(zip(("totals", "exercises"), re.findall(r"<svg .*?</svg>", text, flags=re.DOTALL)))
    assert len(ids) == len(set(ids)) and all(re.findall(r' id="([^"]*)"', svg) for svg in plots.values())
    assert all(i.startswith(f"{name}-") for name, svg in plots.items() for i in re.findall(r' id="([^"]*)"', svg))


def test_without_matplotlib_the_report_keeps_its_tables(graded, monkeypatch):
    """Without matplotlib, does the page say which extra brings the plots and still give every table?"""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    rows, _ = read_class(graded)
    course = api.course(root=ROOT)
    figures = json.loads((graded / "summary.json").read_text())
    text = report.to_html(rows, api.select(course, ["ex01"]), figures, language="en", title=course.title)
    assert "<svg" not in text and "pip install 'gated-rnn-grader[ta]'" in html.unescape(text)
    assert text.count("<table>") == 6  # totals, students, exercises, ex01's checks, mistakes, trouble


def test_late_and_overridden_scores_show_only_when_there_are_some(graded):
    """Is the late/override section absent from a batch's report.html when no score was late or overridden?"""
    assert "Late and overridden" not in (graded / "report.html").read_text()


def test_a_batch_report_lists_late_work_with_its_penalty(late_class):
    """Does a batch's report.html list each late exercise – raw points, days late, penalty, final points – and
    nobody handed in on time?"""
    text = (late_class / "report.html").read_text()
    section = text[text.index("<h2>Late and overridden scores</h2>") :]
    rows = re.findall(
        r"<tr><td>(\w+)</td><td>ex01</td><td class=\"n\">([\d.]+)</td><td class=\"n\">(\d+)</td>"
        r"<td class=\"n\">([\d.]+)</td><td></td><td class=\"n\">([\d.]+)</td></tr>",
        section,
    )
    ex01 = api.course(root=ROOT).exercise("ex01").points
    dan = rows[1]
    assert rows[0] == ("cyd", f"{ex01:g}", "5", f"{ex01:g}", "0")  # past max_days: all of it
    assert dan[0] == "dan" and dan[2] == "2" and float(dan[3]) == round(0.2 * ex01, 4)
    assert float(dan[4]) == round(float(dan[1]) - float(dan[3]), 4) and len(rows) == 2


def test_the_hand_in_time_is_the_latest_shown_in_the_due_dates_zone():
    """With a due date at 23:59+08:00 and hand-ins at 16:30 UTC (00:30 there, the next day: a day late) and 20:00+05:00
    (15:00 UTC), does the class table say 2026-12-11 00:30+08:00, as the student's feedback does – not the later-looking
    text 2026-12-10 20:00 with no zone, which reads as on time?"""
    from grader.export import summary
    from grader.results import Adjustment, ExerciseResult, GradeResult, Status, StudentRow

    due = "2026-12-10T23:59:00+08:00"
    exercises = [
        ExerciseResult(e, "t", 1.0, 6.0, [], adjustment=Adjustment(raw=1.0, days_late=days, due=due, submitted_at=at))
        for e, days, at in (("ex01", 1, "2026-12-10T16:30:00+00:00"), ("ex02", 0, "2026-12-10T20:00:00+05:00"))
    ]
    rows = [StudentRow("ann", Status.GRADED, GradeResult("ann", "cpu", "en", exercises))]
    text = report.to_html(rows, api.select(api.course(root=ROOT), ["ex01", "ex02"]), summary.summarize(rows, ["ex01", "ex02"]), language="en", title="t")
    assert "<td>2026-12-11 00:30+08:00</td>" in text and "2026-12-10 20:00" not in text


def test_an_override_shows_its_points_and_reason_escaped_in_the_course_language(late_class):
    """Does an override appear with the staff's points and reason, the reason escaped, every fixed word in Chinese for
    a zh course?"""
    from grader.results import Adjustment

    rows, _ = read_class(late_class)
    bob = next(r for r in rows if r.student == "bob")
    e = bob.result.exercises[0]
    e.adjustment, e.score = Adjustment(raw=e.score, override=5.5, reason="<script>alert(1)</script> c_t typo", by="ta"), 5.5
    course = api.course(root=ROOT)
    figures = json.loads((late_class / "summary.json").read_text())
    zh = report.to_html(rows, api.select(course, ["ex01"]), figures, language="zh", title=course.title)
    section = zh[zh.index("<h2>迟交与人工改动的分数</h2>") :]
    assert "<script>" not in zh and "5.5: &lt;script&gt;alert(1)&lt;/script&gt; c_t typo" in section
    assert all(w in section for w in ("迟交天数", "迟交扣分", "课程教师给定的分数", "最终分数"))
    assert not any(w in section for w in ("days late", "late penalty", "final", "graded"))


@browser.needed
def test_a_browser_opens_the_report_cleanly(graded):
    """In headless chromium: no console message, no network request, the plots drawn (the bars' colour is on the
    screenshot), and the id made of HTML is text in the DOM, not an element?"""
    seen = browser.visit(graded / "report.html")
    assert seen.console == [] and seen.requests == [], (seen.console, seen.requests)
    assert browser.pixels_of(seen.screenshot, (0x4A, 0x7A, 0xB0)) > 2000
    dom = parsed(seen.dom)
    assert HOSTILE in "".join(dom.text) and not re.search(r"<img[^>]*src=\"?x", seen.dom)


@browser.needed
def test_the_browser_check_would_see_a_bad_page(tmp_path):
    """Does the same visit catch what a bad page does: a console error, a request to the network, a blank screen?"""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><body><img src="http://example.invalid/x.png"><script>console.error("boom")</script>')
    seen = browser.visit(bad)
    assert any("boom" in line for line in seen.console) and set(seen.requests) == {"http://example.invalid/x.png"}
    assert browser.pixels_of(seen.screenshot, (0x4A, 0x7A, 0xB0)) == 0


def test_a_class_of_nobody_still_gets_a_page():
    """Does an empty class (every entry gone) give a page with its sections and no plot that fails?"""
    from grader.export import summary

    course = api.course(root=ROOT)
    exercises = api.select(course, ["ex01", "ex05"])
    text = report.to_html([], exercises, summary.summarize([], ["ex01", "ex05"]), language="en", title=course.title)
    assert "Students: 0" in text and "No named mistake was diagnosed." in text and "No student hit a time limit" in text


def test_time_limits_and_crashes_are_listed_per_student_and_exercise():
    """Are a student's timed-out checks of one exercise one line naming them, and a crash another, the id escaped?"""
    from grader.export import summary
    from grader.results import ExerciseResult, GradeResult, Outcome, Status, StudentRow, Verdict
    from grader.text import Text

    def v(name, outcome):
        return Verdict("ex05", name, 2.0, 0.0, Text(""), False, outcome)

    checks = [v("lstm gates", Outcome.TIMED_OUT), v("gru gates", Outcome.TIMED_OUT), v("shapes", Outcome.CRASHED)]
    rows = [StudentRow("<u>kim</u>", Status.GRADED, GradeResult("kim", "cpu", "en", [ExerciseResult("ex05", "t", 0, 6, checks)]))]
    course = api.course(root=ROOT)
    text = report.to_html(rows, api.select(course, ["ex05"]), summary.summarize(rows, ["ex05"]), language="en", title="t")
    assert "<td>&lt;u&gt;kim&lt;/u&gt;</td><td>ex05</td><td>hit a time limit</td><td>lstm gates; gru gates</td>" in text
    assert "<td>crashed</td><td>shapes</td>" in text


@pytest.fixture(scope="module")
def late_class(tmp_path_factory) -> Path:
    """ex01 due 2026-12-10 23:59 UTC, 10 % a day, nothing past 3 days: ada and cyd right (cyd five days late: 0 points),
    bob and dan the coupled gate (dan two days late)."""
    import datetime as dt

    from grader.deadlines import Policy

    klass = tmp_path_factory.mktemp("late-class")
    for name, sheet, when in (
        ("ada", SHEET, "2026-12-10 20:00:00.000000 UTC"),
        ("bob", COUPLED, "2026-12-10 21:00:00.000000 UTC"),
        ("cyd", SHEET, "2026-12-15 10:00:00.000000 UTC"),
        ("dan", COUPLED, "2026-12-12 10:00:00.000000 UTC"),
    ):
        (klass / name / "ex01_cell_state").mkdir(parents=True)
        (klass / name / "ex01_cell_state" / "answers.toml").write_text(sheet)
        (klass / name / "timestamp.txt").write_text(when)
    policy = Policy(due=dt.datetime(2026, 12, 10, 23, 59, tzinfo=dt.UTC), per_day=0.1, max_days=3)
    course = dataclasses.replace(api.course(root=ROOT), policy=policy)
    out = tmp_path_factory.mktemp("late-out")
    api.batch(course=course, exercises=api.select(course, ["ex01"]), submissions=klass, out=out, workers=1)
    return out


def test_grade_stats_and_the_summary_agree_on_a_class_with_late_work(late_class, monkeypatch):
    """On a class with late work, do `grade stats --json` (the journal's raw rows) and summary.json (the published
    final rows) give the same figures for every check, measured on the points the checks gave?"""
    figures = json.loads((late_class / "summary.json").read_text())
    assert figures["late"] == ["cyd", "dan"]
    monkeypatch.chdir(ROOT)
    shown = CliRunner().invoke(main, ["stats", str(late_class), "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["checks"] == figures["checks"]
    c_t = next(c for c in figures["checks"] if c["check"].startswith("c_t:"))
    assert (c_t["top27_p"], c_t["bottom27_p"]) == (1.0, 0.0)  # by raw totals cyd is among the best, not the worst


def test_each_exercises_plot_draws_every_score_given():
    """Does an exercise's plot draw a bar for a score of 5.4 (one student), not a half-point grid that has no 5.4, and
    the totals' plot a bar at each whole point, each bar with its position and count as its tooltip?"""
    pytest.importorskip("matplotlib")
    from grader.export import summary
    from grader.results import ExerciseResult, GradeResult, Status, StudentRow

    rows = [
        StudentRow(s, Status.GRADED, GradeResult(s, "cpu", "en", [ExerciseResult("ex01", "t", points, 6.0, [])])) for s, points in (("ann", 5.4), ("bob", 6.0))
    ]
    text = report.to_html(rows, api.select(api.course(root=ROOT), ["ex01"]), summary.summarize(rows, ["ex01"]), language="en", title="t")
    bar = r'<g id="[^"]*"><title>([^<]*)</title>\s*<path d="[^"]*"[^>]*style="fill: #4a7ab0"'  # the tooltip, then the bar
    totals, exercises = (re.findall(bar, svg) for svg in re.findall(r"<svg .*?</svg>", text, flags=re.DOTALL))
    assert totals == ["5: 1", "6: 1"] and exercises == ["5.4: 1", "6: 1"], (totals, exercises)


def test_half_point_totals_are_binned_up_each_to_its_own_bar():
    """Do totals of 0.5, 1.5, 2.5, 3.5 and 4.5 (one student each) plot one student at each of 1 to 5 points – not two
    at 2 and 4 and none at 1 and 3, as Python's round(), half to even, bins them?"""
    pytest.importorskip("matplotlib")
    from grader.export import summary
    from grader.results import ExerciseResult, GradeResult, Status, StudentRow

    rows = [StudentRow(f"s{n}", Status.GRADED, GradeResult(f"s{n}", "cpu", "en", [ExerciseResult("ex01", "t", n + 0.5, 6.0, [])])) for n in range(5)]
    text = report.to_html(rows, api.select(api.course(root=ROOT), ["ex01"]), summary.summarize(rows, ["ex01"]), language="en", title="t")
    totals = re.findall(r"<svg .*?</svg>", text, flags=re.DOTALL)[0]
    assert re.findall(r'<g id="[^"]*"><title>([^<]*)</title>', totals) == ["1: 1", "2: 1", "3: 1", "4: 1", "5: 1"]


def test_the_totals_table_gives_every_total_exactly():
    """Do totals of 5.4 and 5.5 stay two rows of the totals table, though the plot bins both to the point?"""
    from grader.export import summary
    from grader.results import ExerciseResult, GradeResult, Status, StudentRow

    rows = [
        StudentRow(s, Status.GRADED, GradeResult(s, "cpu", "en", [ExerciseResult("ex01", "t", points, 6.0, [])]))
        for s, points in (("ann", 5.4), ("bob", 5.5), ("cyd", 5.5))
    ]
    text = report.to_html(rows, api.select(api.course(root=ROOT), ["ex01"]), summary.summarize(rows, ["ex01"]), language="en", title="t")
    totals = text[text.index("<h2>Distribution of totals</h2>") : text.index("</table>")]
    cells = re.findall(r'<td class="n">([^<]*)</td><td class="n">(\d+)</td>', totals)
    assert cells == [("5.4", "1"), ("5.5", "2")], cells


def synthetic_class(students: int = 40) -> list:
    """A class spanning every exercise of the course, each with 16 checks of the longest names the course has (the
    most that one exercise holds), a due date, a late student, one without a submission time, a hostile id, and written
    answers to ex08 and ex10 (some to mark)."""
    from grader.results import Adjustment, ExerciseResult, GradeResult, Outcome, Status, StudentRow, Verdict, Written
    from grader.text import Text

    course = api.course(root=ROOT)
    rows = []
    for s in range(students):
        name = HOSTILE if s == 0 else f"student{s:03}"
        exercises = []
        for k, e in enumerate(course.exercises):
            checks = [
                Verdict(
                    e.id,
                    f"check {c}: {'the longest title a check of this course has, as long as it gets ' * 2}"[:147],
                    1.0,
                    float((s + c + k) % 3 != 0),
                    Text(""),
                    False,
                )
                for c in range(16)
            ]
            for v in checks:
                v.outcome = Outcome.PASSED if v.earned else Outcome.FAILED
            at = "" if s == 1 else ("2026-12-12T10:00:00+00:00" if s == 2 else "2026-12-10T20:00:00+00:00")
            score = sum(v.earned for v in checks) * e.points / 16
            late = 0.2 * score if s == 2 else 0.0
            adjustment = Adjustment(raw=score, days_late=2 * (s == 2), penalty=late, due="2026-12-10T23:59:00+00:00", submitted_at=at)
            written = None
            if e.rubric is not None:  # answered but for every fourth student; a third of the answers marked, the rest to mark
                answered, marked = s % 4 != 0, s % 3 == 0
                written = Written(e.rubric.file, "an answer" * answered, 2.0, 1.5 * (answered and marked), answered and marked, counted=True)
            exercises.append(ExerciseResult(e.id, e.title, score - late, float(e.points), checks, adjustment=adjustment, written=written))
        rows.append(StudentRow(name, Status.GRADED, GradeResult(name, "cpu", "en", exercises)))
    return rows


@browser.needed
def test_each_section_of_a_full_class_fits_one_screen(tmp_path):
    """At 1366 × 900, is every section of report.html – each exercise's checks apart – at most one screen tall, for a
    class of 40 students on all 11 exercises (16 long-named checks each) and their written answers, the hostile id text,
    not markup?"""
    from grader.export import summary

    course = api.course(root=ROOT)
    rows = synthetic_class()
    ids = [e.id for e in course.exercises]
    text = report.to_html(rows, list(course.exercises), summary.summarize(rows, ids), language="en", title=course.title)
    assert text.count("<section>") == 8 + len(ids) and "no time known: no late penalty" in text
    assert "Written answers, marked by the course staff" in text and text.count("✎</span>") == 2 * 20  # 30 answered, 10 marked
    assert HOSTILE not in text and html.escape(HOSTILE) in text
    page = tmp_path / "report.html"
    page.write_text(text)
    measured = tmp_path / "measured.html"  # the same page, its policy lifted for one script that writes what it measures
    script = (
        "<script>document.body.dataset.heights = JSON.stringify([...document.querySelectorAll('section')]"
        ".map(s => [s.querySelector('h2,h3').textContent, Math.ceil(s.getBoundingClientRect().height)]));"
        "document.body.dataset.shown = JSON.stringify([...document.querySelectorAll('#checks-ex01-2 ~ .box tbody tr')]"
        ".sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map(r => r.cells[5].textContent))</script>"
    )
    lifted = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text).replace("</body>", script + "</body>")
    measured.write_text(lifted.replace('id="checks-ex01-2" class="by2">', 'id="checks-ex01-2" class="by2" checked>'))  # ex01 sorted by D
    seen = browser.visit(measured, width=1366, height=900)
    heights = json.loads(html.unescape(re.search(r'data-heights="([^"]*)"', seen.dom).group(1)))
    assert len(heights) == 8 + len(ids) and all(0 < h <= 900 for _, h in heights), heights
    by_d = [float(d) for d in json.loads(html.unescape(re.search(r'data-shown="([^"]*)"', seen.dom).group(1)))]
    assert len(by_d) == 16 and by_d == sorted(by_d) and by_d[0] < by_d[-1], by_d  # the CSS order, as drawn
    shown = browser.visit(page, width=1366, height=900)
    assert shown.console == [] and shown.requests == []
    (tmp_path / "screenshot.png").write_bytes(shown.screenshot)  # the first screen, kept with pytest's temporary files for a look
