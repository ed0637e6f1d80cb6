"""The README's quick start is what CI runs."""

import re

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


def test_first_command_grades_the_bundled_example():
    """Does the first command grade a submission that ships with the repository?"""
    command = quick_start_commands()[0]
    folder = command.split("--submission ", 1)[1].split()[0]
    assert (ROOT / folder).is_dir()


def test_pipeline_table_names_every_module():
    """Does the README's table of grader/ name every module there is (and none that is gone)?"""
    text = (ROOT / "README.md").read_text()
    table = text.split("`grader/`'s layout is the pipeline", 1)[1].split("\n\n", 2)[1]
    named = set(re.findall(r"`([\w/]+\.py|[\w/]+/)`", table))
    modules = {str(p.relative_to(ROOT / "grader")) for p in (ROOT / "grader").rglob("*.py") if p.name != "__init__.py"}
    for module in modules:
        assert module in named or any(module.startswith(n) for n in named if n.endswith("/")), module
    for name in named:
        assert (ROOT / "grader" / name).exists(), name
