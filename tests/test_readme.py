"""The README's quick start is what CI runs."""

import re

import pytest

from conftest import ROOT


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)


def test_quick_start_has_exactly_two_commands():
    """Does the quick start consist of exactly two one-line commands?"""
    commands = quick_start_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands), commands


def test_ci_runs_the_readme_test_command():
    """Is the README's second command (install + tests) exactly what .ci/run executes?"""
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == quick_start_commands()[1]


@pytest.mark.slow
def test_first_command_grades_the_bundled_example(monkeypatch):
    """Does the first command's `grade run` grade a submission that ships with the repository, with no grader error, to
    the score the quick start states?"""
    import json

    from click.testing import CliRunner

    from grader.cli import main

    command = quick_start_commands()[0]
    args = command.split(".venv/bin/grade ", 1)[1].split()
    assert args[:2] == ["run", "--submission"] and (ROOT / args[2]).is_dir()
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, [*args, "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["extra_data"]["errors"] == [] and report["max_score"] == 100
    stated = re.search(r"it scores ([\d.]+)/100", (ROOT / "README.md").read_text().split("## Quick start", 1)[1])
    assert stated is not None and f"{report['score']:.2f}" == stated[1], report["score"]


def test_pipeline_table_names_every_module():
    """Does docs/architecture.md's table of grader/ name every module there is (and none that is gone)?"""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("`grader/`'s layout is the pipeline", 1)[1].split("\n\n", 2)[1]
    named = set(re.findall(r"`([\w/]+\.py|[\w/]+/)`", table))
    modules = {str(p.relative_to(ROOT / "grader")) for p in (ROOT / "grader").rglob("*.py") if p.name != "__init__.py"}
    for module in modules:
        assert module in named or any(module.startswith(n) for n in named if n.endswith("/")), module
    for name in named:
        assert (ROOT / "grader" / name).exists(), name


def test_security_table_names_what_grade_doctor_reports():
    """Does docs/security.md's table of protections have one row for each protection `grade doctor` reports, and no other?"""
    from grader.sandbox.doctor import protections

    text = (ROOT / "docs" / "security.md").read_text()
    table = text.split("| Protection (as `grade doctor` names it) | How |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ", 1)[0].removeprefix("| ") for line in table.splitlines()]
    assert rows == [p.name for p in protections(ROOT)]
