"""ex04 beyond its known mistakes and tables (course/ex04/mutants.py): a stacking mistake beside a layer mistake, the
reference against torch and its own sheet."""

import importlib.util

import pytest
from torch import nn

from conftest import ROOT, mutate
from grader.inside import layout
from mutants import named, submission

pytestmark = pytest.mark.slow  # the exercise's bank graded

FOLDER = ROOT / "solutions" / "ex04_param_counts"
CODE = (FOLDER / "params.py").read_text()
SHEET = (FOLDER / "answers.toml").read_text()


def test_stacking_mistake_with_a_layer_mistake_is_still_charged(grade):
    """Is a stacking mistake charged even when the count of one layer is also wrong?"""
    code = mutate(mutate(CODE, "(d_in + d_h + biases)", "(d_in + d_h)"), "d_in = d_x if layer == 0 else directions * d_h", "d_in = d_x")
    result = grade("ex04", {"params.py": code, "answers.toml": SHEET})
    lost = {v.name.split(":")[0]: v.feedback for v in result.checks if v.earned < v.points}
    assert any(name.startswith("Stacked layers") for name in lost), lost


def test_own_bias_convention_with_a_stacking_mistake_costs_each_check_once(grade):
    """Is a stacking mistake on top of a bias convention no named mistake is (one bias for the whole cell) charged by
    the stacked check, named there, while the bias costs the check of one layer alone – the framework and bidirectional
    checks not charged again?"""
    result = grade("ex04", submission(named("ex04", "one bias for the whole cell, d_x used for every layer")))
    lost = sorted(v.name for v in result.checks if v.earned < v.points)
    assert [name.split(":")[0].split(",")[0] for name in lost] == ["Stacked layers", "count_params for one layer"], lost
    stacked = next(v for v in result.checks if v.name.startswith("Stacked layers"))
    assert stacked.earned == 0 and "d_x used for every layer" in stacked.feedback


def test_a_bidirectional_mistake_no_known_one_explains_is_not_named(grade):
    """Is a bidirectional count that no known mistake explains (layer 1 read as 2·d_x) left unnamed – not called "two
    biases per block", which gives the same counts only where d_x equals num_layers (3 of its 54 wrong counts)?"""
    result = grade("ex04", submission(named("ex04", "layer 1 reads 2·d_x when bidirectional")))
    bidirectional = next(v for v in result.checks if v.name.startswith("Bidirectional"))
    assert bidirectional.earned == 0 and not bidirectional.diagnosis, bidirectional.feedback.en
    assert "Likely mistake" not in bidirectional.feedback.en, bidirectional.feedback.en


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference():
    return _load("ex04_reference_params", FOLDER / "params.py")


def test_reference_agrees_with_torch_and_the_seeds():
    """Do the reference's counts equal torch's and the seeds' numbers (spec ex04)?"""
    count = _reference().count_params
    assert [count(c, 5, 4) for c in ("rnn", "gru", "lstm")] == [40, 120, 160]
    assert [count(c, 32, 128) for c in ("rnn", "gru", "lstm")] == [20608, 61824, 82432]
    assert [count(c, 64, 256) for c in ("rnn", "gru", "lstm")] == [82176, 246528, 328704]
    assert [count(c, 32, 128, framework_biases=True) for c in ("rnn", "gru", "lstm")] == [20736, 62208, 82944]
    cases = [
        (nn.GRUCell(3, 5), ("gru", 3, 5, {})),
        (nn.LSTM(3, 5, num_layers=2, bidirectional=True), ("lstm", 3, 5, {"num_layers": 2, "bidirectional": True})),
        (nn.LSTM(10, 20, num_layers=2), ("lstm", 10, 20, {"num_layers": 2})),
        (nn.GRU(10, 20, 2, bidirectional=True), ("gru", 10, 20, {"num_layers": 2, "bidirectional": True})),
    ]
    for module, (cell, d_x, d_h, kw) in cases:
        assert count(cell, d_x, d_h, framework_biases=True, **kw) == sum(p.numel() for p in module.parameters())


def test_reference_sheet_agrees_with_the_reference_code():
    """Does every count of the reference sheet, and of 50 students' sizes, equal the reference count_params for its
    configuration, and PyTorch's own count where the key ends in _torch?"""
    import tomllib

    from grader.course import load_course
    from grader.variants import Settings, variant_of

    hidden = _load("ex04_hidden_checks", layout.checks(ROOT, "ex04"))
    declared = load_course(ROOT).exercise("ex04").variant
    sheet = tomllib.loads(SHEET)
    count = _reference().count_params
    students = [variant_of(Settings(True, "ex04"), declared, f"s{n}").params for n in range(50)]
    for params in [declared.default(), *students]:
        expected = hidden.expected(params)
        for key, config in hidden.items(params).items():
            options = {k: v for k, v in config.items() if k not in ("cell", "d_x", "d_h")}
            assert expected[key] == count(config["cell"], config["d_x"], config["d_h"], **options), key
            if key.endswith("_torch"):
                assert expected[key] == hidden.torch_count(config), key
    assert {key: sheet[key] for key in hidden.expected(declared.default())} == hidden.expected(declared.default())
