"""ex04 beyond its known mistakes (tests/mutants/ex04.py): mistakes charged once, other correct forms, the reference
against torch, degenerate submissions."""

import importlib.util

import pytest
from torch import nn

from conftest import ROOT, earned, mutate
from mutants import named, submission

FOLDER = ROOT / "solutions" / "ex04_param_counts"
CODE = (FOLDER / "params.py").read_text()
SHEET = (FOLDER / "answers.toml").read_text()
STUB_SHEET = (ROOT / "exercises" / "ex04_param_counts" / "answers.toml").read_text()

def failed_feedback(result) -> list[str]:
    return [v.feedback for v in result.checks if not v.passed]


def test_reference_scores_full_marks(grade):
    """Does the reference itself, graded as a submission, earn every point?"""
    result = grade("ex04", {"params.py": CODE, "answers.toml": SHEET})
    assert result.max_score == 10
    assert result.score == result.max_score, failed_feedback(result)


def test_equivalent_forms_earn_full_marks(grade):
    """Are other correct forms (expanded, implicit products, arithmetic for counts) accepted?"""
    sheet = (
        'N_rnn = "d_h^2 + d_h d_x + d_h"\n'
        'N_gru = "3 d_h (d_h + d_x + 1)"\n'
        'N_lstm = "(d_x + d_h + 1)·4d_h"\n'
        'gru_count = "3*3*(6+3+1)"\n'
        "lstm_count = 46464\n"
        'lstm_count_torch = "4*96*(24+96+2)"\n'
        "grucell_count_torch = 273\n"
        "lstm_stack_count_torch = 2624.0\n"
    )
    result = grade("ex04", {"params.py": CODE, "answers.toml": sheet})
    assert result.score == result.max_score, failed_feedback(result)


# name of a known mistake in params.py (tests/mutants/ex04.py): the one check that must charge it
CHARGED_ONCE = {
    "no bias": "count_params for one layer, one bias per block",
    "LSTM counted as 3 blocks": "count_params for one layer, one bias per block",
    "framework double bias forgotten": "count_params(..., framework_biases=True)",
    "always two biases": "count_params for one layer, one bias per block",
    "float result": "count_params for one layer, one bias per block",
}


@pytest.mark.parametrize("name", CHARGED_ONCE)
def test_mistake_is_charged_once(grade, name):
    """Does a mistake in the count of one layer cost points in one check only, not again in the stacking checks?"""
    result = grade("ex04", submission(named("ex04", name)))
    lost = [v.name for v in result.checks if v.earned < v.points]
    assert len(lost) == 1 and lost[0].startswith(CHARGED_ONCE[name]), lost


@pytest.mark.parametrize("name", ["d_x used for every layer", "num_layers ignored"])
def test_stacking_mistake_is_charged_by_the_stacked_check_alone(grade, name):
    """Does a mistake in stacking layers cost the stacked check alone, the bidirectional stacks (the same mistake in
    each direction) not charged again?"""
    result = grade("ex04", submission(named("ex04", name)))
    lost = [v.name for v in result.checks if v.earned < v.points]
    assert len(lost) == 1 and lost[0].startswith("Stacked layers"), lost
    assert result.score == result.max_score - 1


def test_stacking_mistake_with_a_layer_mistake_is_still_charged(grade):
    """Is a stacking mistake charged even when the count of one layer is also wrong?"""
    code = mutate(mutate(CODE, "(d_in + d_h + biases)", "(d_in + d_h)"), "d_in = d_x if layer == 0 else directions * d_h", "d_in = d_x")
    result = grade("ex04", {"params.py": code, "answers.toml": SHEET})
    lost = {v.name.split(":")[0]: v.feedback for v in result.checks if v.earned < v.points}
    assert any(name.startswith("Stacked layers") for name in lost), lost


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
    cases = [(nn.GRUCell(3, 5), ("gru", 3, 5, {})),
             (nn.LSTM(3, 5, num_layers=2, bidirectional=True), ("lstm", 3, 5, {"num_layers": 2, "bidirectional": True})),
             (nn.LSTM(10, 20, num_layers=2), ("lstm", 10, 20, {"num_layers": 2})),
             (nn.GRU(10, 20, 2, bidirectional=True), ("gru", 10, 20, {"num_layers": 2, "bidirectional": True}))]
    for module, (cell, d_x, d_h, kw) in cases:
        assert count(cell, d_x, d_h, framework_biases=True, **kw) == sum(p.numel() for p in module.parameters())


def test_reference_sheet_agrees_with_the_reference_code():
    """Does every count of the reference sheet, and of 50 students' sizes, equal the reference count_params for its
    configuration, and PyTorch's own count where the key ends in _torch?"""
    import tomllib

    from grader.course import load_course
    from grader.variants import Settings, variant_of

    hidden = _load("ex04_hidden_checks", ROOT / "tests" / "hidden" / "ex04.py")
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


COUNT_PARAMS = "def count_params(cell, d_x, d_h, *, num_layers=1, bidirectional=False, framework_biases=False):\n"
VALIDATION = ("    if cell not in ('rnn', 'gru', 'lstm') or min(d_x, d_h, num_layers) <= 0:\n"
              "        raise ValueError('no such layer')\n")
# Submissions that compute nothing: each earns nothing (the sheet is the unanswered stub's). A constant
# of 100 would be right by chance for nn.RNN(3, 5, num_layers=2) and keep 1 of that check's 36 counts.
DEGENERATE = {
    "zero": COUNT_PARAMS + "    return 0\n",
    "constant": COUNT_PARAMS + "    return 1\n",
    "returns its input": COUNT_PARAMS + "    return d_h\n",
    "validates, then returns zero": COUNT_PARAMS + VALIDATION + "    return 0\n",
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_submission_earns_nothing(grade, name):
    """Does a count_params that computes nothing earn nothing, its ValueError cases included?"""
    result = grade("ex04", {"params.py": DEGENERATE[name], "answers.toml": STUB_SHEET})
    assert earned(result) == {}
