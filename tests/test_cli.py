"""`grade` from the outside: exit codes, JSON shape, and clear messages for broken submissions."""

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
    assert "Total: 100 points" in result.output


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
