"""ex09 beyond its known mistakes and tables (course/ex09/mutants.py): a wrong total charged once, the tie rule beside a
miscounted total, the reference against torch, a tensor total."""

import importlib.util

import pytest
from torch import nn

from conftest import ROOT, mutate
from grader.inside import layout
from mutants.ex09 import MATCHING

pytestmark = pytest.mark.slow  # the exercise's bank graded

REFERENCE = (ROOT / "solutions" / "ex09_param_matching" / "matching.py").read_text()


def test_wrong_total_is_charged_once(grade):
    """Does a total_params without the embedding cost only the total_params check, when match_widths uses it?"""
    result = grade("ex09", {"matching.py": mutate(REFERENCE, "embedding = vocab * d_e", "embedding = 0")})
    lost = {v.name: v.feedback for v in result.checks if v.earned < v.points}
    assert list(lost) == ["total_params equals sum(p.numel()) of Embedding → nn.RNN/GRU/LSTM → Linear (exact)"], lost
    assert any("no points are lost here" in v.feedback for v in result.checks)


def test_tie_rule_is_tested_with_a_miscounted_total(grade):
    """Is ties-to-the-larger caught (and named) even when total_params also forgets the embedding?"""
    code = mutate(mutate(REFERENCE, "embedding = vocab * d_e", "embedding = 0"), "gap < best[0]", "gap <= best[0]")
    result = grade("ex09", {"matching.py": code})
    tie = next(v for v in result.checks if v.name.startswith("Ties go to the smaller width"))
    assert tie.earned < tie.points and "ties to the larger width" in tie.feedback, tie.feedback


def _reference():
    spec = importlib.util.spec_from_file_location("ex09_reference_matching", ROOT / "solutions" / "ex09_param_matching" / "matching.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_total_equals_torch():
    """Does the reference total_params equal sum(p.numel()) of the torch model (spec ex09)?"""
    ref = _reference()
    for cell, recurrent in (("rnn", nn.RNN), ("gru", nn.GRU), ("lstm", nn.LSTM)):
        for vocab, d_e, d_h in ((12, 5, 40), (50, 16, 1), (7, 3, 9)):
            model = nn.ModuleList([nn.Embedding(vocab, d_e), recurrent(d_e, d_h), nn.Linear(d_h, vocab)])
            assert ref.total_params(cell, vocab, d_e, d_h) == sum(p.numel() for p in model.parameters())


def test_tie_cases_are_real_ties():
    """Are the hidden tie targets exactly halfway, so that both neighbouring widths are equally close?"""
    spec = importlib.util.spec_from_file_location("ex09_hidden_checks", layout.checks(ROOT, "ex09"))
    hidden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hidden)
    ref = _reference()
    for cell, near in hidden.TIE_WIDTHS.items():
        target, vocab, d_e = hidden.tie_target(ref.total_params, cell, near)
        width = ref.match_widths(target, vocab, d_e, cells=(cell,))[cell]
        gaps = [abs(ref.total_params(cell, vocab, d_e, h) - target) for h in (width, width + 1)]
        assert gaps[0] == gaps[1] > 0


def test_a_tensor_total_with_a_wrong_block_count_is_the_students_failure(grade):
    """Does a total_params that returns a tensor, beside a macs_per_step with the wrong k, fail as the student's
    (no internal error: the excuse for a charged k judges ints only)?"""
    source = MATCHING.format(
        total="torch.zeros(2)", widths="{cell: 1 for cell in cells}", macs='{"rnn": 1, "gru": 4, "lstm": 3}[cell] * d_h * (d_e + d_h) + d_h * vocab'
    )
    result = grade("ex09", {"matching.py": "import torch\n" + source})  # the fixture asserts no internal error
    [macs] = [v for v in result.checks if "multiply-accumulates" in v.name]
    assert not macs.passed and any("wrong k" in d for d in macs.diagnosis)  # charged here: total_params never was
    assert not any(v.earned for v in result.checks if v.name.startswith("total_params"))
