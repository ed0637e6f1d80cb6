"""`grade` from the outside: exit codes, JSON shape, and clear messages for broken submissions."""

import csv
import io
import json

import pytest
from click.testing import CliRunner

from conftest import ROOT, mutate
from grader.cli import main

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def submission(tmp_path, source):
    folder = tmp_path / "ex05_gated_steps"
    folder.mkdir()
    (folder / "gated.py").write_text(source)
    return str(tmp_path)


def test_list_shows_all_eleven_exercises():
    """Does `grade list` show every exercise id with its points?"""
    result = run("list")
    assert result.exit_code == 0
    for n in range(1, 12):
        assert f"ex{n:02d}" in result.output
    assert "Total: 104 points" in result.output


@pytest.mark.parametrize(
    "command",
    [
        ["run", "ex99"],
        ["show", "ex99"],
        ["batch", "{tmp}", "--out", "{tmp}/out", "--exercises", "ex01,ex99"],
        ["similarity", "{tmp}", "--out", "{tmp}/out", "--exercises", "ex99"],
    ],
)
def test_unknown_exercise_is_a_usage_error_listing_valid_ids(command, tmp_path, monkeypatch):
    """Is an unknown exercise id, in every command that takes ids, exit 2 with the valid ids listed?"""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, [part.format(tmp=tmp_path) for part in command])
    assert result.exit_code == 2
    assert "unknown exercise ex99" in result.output
    assert "ex01, ex02" in result.output and "ex11" in result.output


@pytest.mark.slow
def test_references_score_full_marks_as_json():
    """Does the reference score max_score > 0 in exactly one JSON object?"""
    result = run("run", "ex05", "--submission", str(ROOT / "solutions"), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["max_score"] == 14 and doc["score"] == doc["max_score"]
    assert [e["id"] for e in doc["extra_data"]["exercises"]] == ["ex05"]
    assert {t["visibility"] for t in doc["tests"]} == {"visible", "after_published"}
    assert set(doc["tests"][0]) == {"name", "score", "max_score", "status", "output", "visibility"}


def test_json_has_one_shape_for_one_exercise_or_many():
    """Is the JSON report Gradescope's shape (flat tests, top-level score) whether one exercise is graded or several?"""
    one = json.loads(run("run", "ex01", "-s", str(ROOT / "solutions"), "--json").output)
    two = json.loads(run("run", "ex01", "ex03", "-s", str(ROOT / "solutions"), "--json").output)
    for doc in (one, two):
        assert set(doc) == {"score", "max_score", "execution_time", "tests", "extra_data"}
        assert all(t["name"].startswith(("ex01: ", "ex03: ")) for t in doc["tests"])
    assert two["score"] == 12 and [e["score"] for e in two["extra_data"]["exercises"]] == [6, 6]


@pytest.mark.slow
def test_stubs_score_zero_and_say_not_implemented():
    """Does the stub score 0 with NotImplementedError in the feedback?"""
    result = run("run", "ex05", "-s", str(ROOT / "exercises"), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["score"] == 0
    assert all("NotImplementedError" in t["output"] for t in doc["tests"] if t["max_score"])


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (mutate(REFERENCE, "def lstm_step(", "def lstm_step(:"), "SyntaxError"),
        (mutate(REFERENCE, "def gru_step(", "def gru_stepp("), "has no function named 'gru_step'"),
        (mutate(REFERENCE, "    u = torch.cat", "    import os\n    os._exit(0)\n    u = torch.cat"), "process ended"),
        (mutate(REFERENCE, "    u = torch.cat", "    import sys\n    sys.exit(3)\n    u = torch.cat"), "sys.exit(3)"),
    ],
    ids=["syntax error", "no gru_step", "os._exit", "sys.exit"],
)
@pytest.mark.slow
def test_broken_submissions_lose_points_with_a_clear_message(tmp_path, broken, message):
    """Does a broken gated.py cost its checks their points with a message, while grade exits 0?"""
    result = run("run", "ex05", "-s", submission(tmp_path, broken), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["score"] < doc["max_score"]
    assert any(message in t["output"] for t in doc["tests"] if t["status"] == "failed")
    assert doc["extra_data"]["errors"] == []


@pytest.mark.slow
def test_human_output_has_a_table_and_a_total(tmp_path):
    """Does the default output show each check and a total line?"""
    result = run("run", "ex05", "-s", str(ROOT / "solutions"), "-v")
    assert result.exit_code == 0
    assert "lstm_step" in result.output and "Total: 14/14 points" in result.output


def test_cuda_request_without_cuda_is_a_clear_error():
    """Is --device cuda on a machine without CUDA an error that says so?"""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    result = CliRunner().invoke(main, ["run", "ex05", "-s", str(ROOT / "solutions"), "--device", "cuda"])
    assert result.exit_code == 1
    assert "CUDA is not available" in result.output


@pytest.mark.slow
def test_check_validates_references_and_stubs():
    """Does `grade check` pass on the shipped course?"""
    result = run("check")
    assert result.exit_code == 0, result.output
    assert "all references full marks, all stubs zero" in result.output


def test_release_prints_how_to_hand_the_bundle_to_students(tmp_path):
    """Does `grade release` end by saying how to hand the bundle out (a zip for the LMS, a repository) and what
    students run, as `grade nbgrader export` names its next step?"""
    shown = run("release", "--out", str(tmp_path / "bundle"))
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0 and (tmp_path / "bundle" / "README.md").is_file()
    assert f"cd {tmp_path / 'bundle'} && zip -r ../bundle.zip ." in said and "LMS" in said and "repository" in said and "grade pack" in said


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["pack", "--submission", str(ROOT / "solutions"), "--out", "{out}"], "is a directory"),
        (["gradescope", "export", "--out", "{out}"], "is a directory"),
        (["batch", "{tmp}", "--out", "{out}/grades.csv"], "is a file"),
    ],
)
def test_an_output_of_the_wrong_kind_is_a_usage_error_leaving_nothing(command, message, tmp_path, monkeypatch):
    """Is a zip's --out that is a folder, or a batch's --out that is a file, exit 2 naming it, no traceback and no
    half-written `.NAME.tmp` beside it (the autograder's holds the references and hidden checks)?"""
    monkeypatch.chdir(ROOT)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "grades.csv").write_text("")
    result = CliRunner().invoke(main, [part.format(tmp=tmp_path, out=tmp_path / "out") for part in command])
    assert result.exit_code == 2 and message in result.output, result.output  # an exception the CLI let through exits 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"] and [p.name for p in (tmp_path / "out").iterdir()] == ["grades.csv"]


def test_a_zip_that_cannot_take_its_place_leaves_no_temporary_file(tmp_path):
    """Does `pack`, called as the API calls it, remove its temporary zip when the zip cannot be put at `out`?"""
    from grader.course import load_course
    from grader.handout.pack import pack

    (tmp_path / "out").mkdir()
    with pytest.raises(OSError):
        pack(course=load_course(ROOT), submission=ROOT / "solutions", out=tmp_path / "out")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


AUDITED = [
    ("2026-12-04T13:17:35.907827+00:00", "ta-li", "override", "bob", "ex01", 4.8, 5.5, "c_t was right", "c" * 64, "s" * 64),
    ("2026-12-04T14:00:00.000001+00:00", "root", "override cleared", "-alexandra", "ex10", 5.5, None, "=1+1 regraded", "", ""),
]


@pytest.fixture
def audited(monkeypatch):
    """`grade audit` over two audit rows, api.audit mocked (what it reads of the journal is tests/test_term.py's)."""
    from grader import api
    from grader.store.audit import Entry

    entries = [Entry(n, *row) for n, row in enumerate(AUDITED, 1)]
    monkeypatch.setattr(api, "audit", lambda *, out, student=None: entries)
    return entries


def test_audit_prints_an_aligned_table_under_a_header(audited, tmp_path):
    """Does `grade audit` print a header and each row with its columns starting where the header's do, the reason last?"""
    lines = run("audit", str(tmp_path)).output.splitlines()
    assert lines[0].split("  ")[0] == "at (UTC)" and lines[0].endswith("reason") and len(lines) == 3
    for column in ("actor", "cause", "student", "exercise", "old -> new", "course", "submission", "reason"):
        start = lines[0].index(column)
        assert all(line[start - 2 : start] == "  " and line[start] != " " for line in lines[1:]), (column, lines)
    assert lines[1].startswith("2026-12-04 13:17:35  ta-li") and "4.8 -> 5.5" in lines[1] and lines[1].endswith("c_t was right")
    assert "5.5 -> –" in lines[2] and "?" in lines[2].split()  # no hash recorded


def test_audit_json_and_csv_hold_every_field(audited, tmp_path):
    """Do --json and --csv hold every field as kept (old/new null or empty where none), the CSV's cells never formulas?"""
    rows = json.loads(run("audit", str(tmp_path), "--json").output)
    assert rows[1] == {
        "n": 2,
        "at": AUDITED[1][0],
        "actor": "root",
        "cause": "override cleared",
        "student": "-alexandra",
        "exercise": "ex10",
        "old": 5.5,
        "new": None,
        "reason": "=1+1 regraded",
        "course_hash": "",
        "submission_hash": "",
    }
    table = list(csv.DictReader(io.StringIO(run("audit", str(tmp_path), "--csv").output)))
    assert table[0]["course_hash"] == "c" * 64 and table[0]["old"] == "4.8" and table[1]["new"] == ""
    assert (table[1]["student"], table[1]["reason"]) == ("'-alexandra", "'=1+1 regraded")
    both = CliRunner().invoke(main, ["audit", str(tmp_path), "--json", "--csv"])
    assert both.exit_code == 2 and "give --json or --csv, not both" in both.output


def test_a_batch_on_a_terminal_shows_an_id_as_it_is_named():
    """On a terminal, does grade batch's progress bar show a student id as its characters – never as rich markup: no
    blinking "ada" for `[blink]ada`, no terminal hyperlink for `[link=…]`, no emoji for `:smile:`?"""
    from rich.console import Console

    from grader.cli import _progress
    from grader.results import GradeResult, Status, StudentRow

    student = "[link=mailto:x@evil.example][blink]ada :smile:"
    console = Console(file=io.StringIO(), force_terminal=True, width=200)
    with _progress(console) as report:
        report(StudentRow(student, Status.GRADED, GradeResult(student, "cpu", "en", [])), 1, 1)
    shown = console.file.getvalue()
    assert student in shown and "\x1b]8;" not in shown and "\x1b[5m" not in shown, repr(shown)
