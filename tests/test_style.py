"""The habits of a kept codebase: ruff's lint (configured in pyproject.toml) finds nothing in grader/, tests/ or bench/."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_finds_nothing():
    """Does `ruff check` pass on the grader, the tests and the benches?"""
    done = subprocess.run([RUFF, "check", "grader", "tests", "bench"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
