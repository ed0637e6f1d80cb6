"""ex01 beyond its known mistakes and tables (course/ex01/mutants.py): quiz grading without torch, a mistyped key."""

import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # the exercise's bank graded

REFERENCE = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()


def test_quiz_grading_does_not_import_torch():
    """Does grading ex01 from the command line leave torch unimported (quiz grading stays light)?"""
    code = (
        "import sys; from click.testing import CliRunner; from grader.cli import main; "
        f"r = CliRunner().invoke(main, ['run', 'ex01', '-s', {str(ROOT / 'solutions')!r}, '--json']); "
        "assert r.exit_code == 0, r.output; assert '\"score\": 6.0' in r.output, r.output; "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_mistyped_key_is_named_by_the_public_check(grade):
    """Does a mistyped key fail the public key check, naming both the lost and the unknown key?"""
    result = grade("ex01", {"answers.toml": REFERENCE.replace("c_t = 1.065", "c_tt = 1.065")})
    public = [v for v in result.checks if v.visible and not v.passed]
    assert any("missing key(s) c_t," in v.feedback and "unknown key(s) c_tt" in v.feedback for v in public), public
    assert result.score == result.max_score - 1  # only c_t itself is lost
