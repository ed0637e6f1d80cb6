"""An LMS's import file is a module of grader/export and one line of export.LMS_FILES: does `grade export` offer each
registered LMS as the module declares it?"""

import inspect

import pytest
from click.testing import CliRunner

from conftest import ROOT
from grader.cli import main
from grader.export import LMS_FILES


@pytest.mark.parametrize("name", sorted(LMS_FILES))
def test_an_lms_renders_with_exactly_the_options_it_declares(name):
    """Are the keywords of each LMS's `render` the names of its declared options, no more and no fewer (the CLI
    passes one keyword per option, and mypy cannot see them)?"""
    lms = LMS_FILES[name]()
    keywords = [p.name for p in inspect.signature(lms.render).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert sorted(keywords) == sorted(o.name for o in lms.OPTIONS)


@pytest.mark.parametrize("name", sorted(LMS_FILES))
def test_grade_export_offers_each_registered_lms_with_its_options(name, monkeypatch):
    """Is there a `grade export NAME` for each LMS of the registry, with its help and every option it declares?"""
    monkeypatch.chdir(ROOT)
    lms = LMS_FILES[name]()
    listed = CliRunner().invoke(main, ["export", "--help"])
    assert listed.exit_code == 0 and f"  {name} " in listed.output, listed.output
    helped = CliRunner().invoke(main, ["export", name, "--help"])
    assert helped.exit_code == 0, helped.output
    assert all(o.flag in helped.output for o in lms.OPTIONS) and "--out FILE" in helped.output, helped.output


def test_canvas_refuses_one_assignment_id_for_many_columns(tmp_path):
    """Is --assignment-id with --per-exercise refused as a usage error (exit code 2), before the roster is read?"""
    from grader.course import load_course
    from grader.errors import USAGE
    from grader.export import canvas
    from grader.export.lms import Finals, MisusedOptions

    finals = Finals(load_course(ROOT), {"ada": {"ex01": 3.0}}, ["ex01"])
    with pytest.raises(MisusedOptions, match="--assignment-id names one assignment") as refused:
        canvas.render(finals, roster=tmp_path / "absent.csv", assignment=None, assignment_id="4242", per_exercise=True, match=None, missing="empty")
    assert refused.value.exit_code == USAGE
