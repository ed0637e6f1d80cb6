"""The habits of a kept codebase: ruff's lint finds nothing in grader/, tests/, bench/ or course/, ruff format would change
nothing there, and mypy (strict on all of grader/: the result model and its exporters, the check author's API, the
programmatic API, grading, batch, the sandbox and what runs inside it, the integrations) finds nothing in what
pyproject.toml names; all three are configured there."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_finds_nothing():
    """Does `ruff check` pass on the grader, the tests, the benches and the course tree?"""
    done = subprocess.run([RUFF, "check", "grader", "tests", "bench", "course"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_format_changes_nothing():
    """Are the grader, the tests, the benches and the course tree formatted as `ruff format` writes them (one style, no review of it)?"""
    done = subprocess.run([RUFF, "format", "--check", "grader", "tests", "bench", "course"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


MYPY = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")


@pytest.mark.slow  # about 10 s: the fast loop leaves it to the commit's own mypy run
@pytest.mark.skipif(MYPY is None, reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_finds_nothing():
    """Does mypy, as pyproject.toml configures it, pass?"""
    done = subprocess.run([MYPY], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
