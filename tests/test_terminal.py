"""What `grade` prints: every fixed word in the course's language, names never cut at 80 columns, paths relative."""

import dataclasses

import pytest
from rich.console import Console

from conftest import ROOT, graded
from grader.export.terminal import _wrap, print_course, print_grade
from grader.results import ExerciseResult, GradeResult, Outcome, Verdict, Written
from grader.text import Text

KEY = "lstm_dx3_dh5_2layers_bidir_torch"  # a long key of the kind a sheet may hold
SHEET = "ex04_param_counts/answers.toml"
FILE = "mywork/ex05_gated_steps/gated.py"
NAMES = (KEY, SHEET, FILE)


def shown(result: GradeResult, *, width: int = 80, verbose: bool = False) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    print_grade(console, result, verbose=verbose)
    return console.export_text()


def sample(language: str, *, public: bool) -> GradeResult:
    """A result whose feedback holds a long key, a sheet and a file path, in both languages."""
    sheet = Verdict(
        "ex04",
        "answers.toml has exactly the course's keys, each answered in the form its question asks",
        0,
        0,
        Text(f"{SHEET}, {KEY}: could not read your answer: unknown symbol 'x' at column 3", f"{SHEET}，{KEY}：无法读取你的答案：未知的符号 'x'（第 3 列）"),
        True,
        Outcome.FAILED,
    )
    code = Verdict(
        "ex05",
        "lstm_step matches the reference in float64 on random inputs of several shapes",
        2,
        0,
        Text(f"{FILE} is missing from the submission", f"提交中缺少{FILE}"),
        not public,
        Outcome.UNREADABLE,
    )
    broken = Verdict("ex05", "gru_step matches the reference", 2, 2, Text(""), not public)
    exercises = [
        ExerciseResult("ex04", "Parameter counts", 0, 0 if public else 10, [sheet], graded_points=10 if public else 0),
        ExerciseResult("ex05", "Gated steps", 2, 0 if public else 4, [code, broken], graded_points=14 if public else 0),
    ]
    return GradeResult("/somewhere/else/mywork", "cpu", language, exercises, ["ex05: KeyError: 'W_i'"])


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("public", [True, False], ids=["public run", "graded run"])
def test_names_are_never_cut_at_80_columns(language, public):
    """At 80 columns, is every long file and key name printed whole on one line, nothing cut with "…"?"""
    text = shown(sample(language, public=public), verbose=True)
    assert "…" not in text
    for name in NAMES:
        assert any(name in line for line in text.splitlines()), (name, text)
    assert all(len(line) <= 80 for line in text.splitlines())


def test_chinese_course_prints_every_fixed_word_in_chinese():
    """With language = "zh", are the headers, statuses, "(public)", totals and errors Chinese, with no English left?"""
    public, graded = shown(sample("zh", public=True), verbose=True), shown(sample("zh", public=False))
    for word in ("检查与反馈", "得分", "结果", "未通过", "通过", "（公开）", "内部错误：", "提交：", "设备：", "公开检查：通过 1/3 项；24 分在提交后评定"):
        assert word in public, word
    assert "总分：2/14 分" in graded
    for english in ("check", "points", "status", "feedback", "passed", "failed", "(public)", "Total", "Public", "internal error", "submission:", "device:"):
        assert english not in public.replace("answers.toml has exactly the course's keys", "") and english not in graded.replace(
            "answers.toml has exactly the course's keys", ""
        ), english


def test_english_course_prints_english_words():
    """With language = "en", are the fixed words English?"""
    text = shown(sample("en", public=True))
    for word in (
        "check and feedback",
        "points",
        "status",
        "failed",
        "passed",
        "(public)",
        "internal error:",
        "Public checks: 1/3 passed; 24 points are graded at hand-in",
    ):
        assert word in text, word
    assert "Total: 2/14 points" in shown(sample("en", public=False))


def test_paths_are_relative_to_where_the_command_runs(course, sandbox, tmp_path, monkeypatch):
    """Are the total line's submission and a not-submitted note's path relative to the current directory?"""
    submission = tmp_path / "mywork"
    (submission / "ex01_cell_state").mkdir(parents=True)
    (submission / "ex01_cell_state" / "answers.toml").write_text((ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text())
    monkeypatch.chdir(tmp_path)
    result = graded(sandbox, course, [course.exercise("ex01"), course.exercise("ex05")], submission, label=str(submission))
    text = " ".join(shown(result).split())  # the note may wrap
    assert "not submitted: mywork has no folder ex05_gated_steps/" in text
    assert "Total: 6/20 points (mywork)" in text and str(tmp_path) not in text
    zh = " ".join(shown(dataclasses.replace(result, language="zh")).split())
    assert "未提交：mywork 中没有文件夹 ex05_gated_steps/" in zh and "总分：6/20 分 (mywork)" in zh


def test_course_list_in_chinese(course):
    """Does `grade list` print its headers and total in the course's language?"""
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    print_course(console, dataclasses.replace(course, language="zh"))
    text = console.export_text()
    assert "编号" in text and "文件夹" in text and "总分：104 分" in text and "Total" not in text


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("alpha beta gamma", 10, ["alpha beta", "gamma"]),
        (f"{SHEET}，{KEY}：无法读取", 40, [f"{SHEET}，", f"{KEY}：无法读", "取"]),
        ("（第 3 列）；本题", 6, ["（第 3", "列）；", "本题"]),
        ("x" * 25, 10, ["x" * 10, "x" * 10, "x" * 5]),
        ("  indented\n\nkept", 20, ["  indented", "", "kept"]),
    ],
)
def test_wrap_breaks_at_spaces_and_between_chinese_characters(text, width, lines):
    """Does _wrap break at spaces and between Chinese characters (punctuation kept with its character), folding only
    what alone is wider than a line?"""
    assert _wrap(text, width).split("\n") == lines


@pytest.mark.parametrize(("text", "said"), [("My reading of the tables.", "handed in"), ("", "not answered yet")])
def test_a_written_answer_is_named_in_a_students_run(text, said):
    """Does `grade run` say under ex08's table whether its written answer is filled in, and that its 2 points are the
    course staff's to mark (not counted in the checks' total)?"""
    check = Verdict("ex08", "make_delayed_copy", 1, 1, Text(""), False)
    exercise = ExerciseResult("ex08", "Delayed copy", 1, 1, [check], written=Written("interpretation.md", text, points=2))
    printed = shown(GradeResult("mine", "cpu", "en", [exercise]), width=200)
    assert f"interpretation.md: {said}" in printed and "2 more points, marked by the course staff against the rubric" in printed
    assert "Total: 1/1 points" in printed
