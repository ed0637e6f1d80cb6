"""Public checks for ex04 (worth no points; the graded checks are hidden). Run: grade run ex04

They check the answer sheet's keys, that count_params returns an int for every cell, and one worked
example: with framework_biases=True a one-layer RNN must match PyTorch's own count.
"""

from grader.checks import student_module

params = student_module("params")


def test_sheet_keeps_the_stub_keys(answers, stub_keys):
    """answers.toml is valid TOML with exactly the stub's keys (a mistyped key would leave the real one unanswered)"""
    answers.expect_keys(stub_keys)


def test_every_key_is_answered(answers, stub_keys):
    """Every key of answers.toml has an answer"""
    missing = [k for k in stub_keys if answers.raw(k) is None]
    assert not missing, f"still unanswered: {', '.join(missing)}"


def test_count_params_returns_int(params):
    """count_params returns a positive int for "rnn", "gru" and "lstm\""""
    for cell in ("rnn", "gru", "lstm"):
        got = params.count_params(cell, 3, 4)
        assert isinstance(got, int) and not isinstance(got, bool) and got > 0, (
            f"count_params({cell!r}, 3, 4) returned {got!r}; expected a positive int")


def test_rnn_framework_count_matches_torch(params):
    """count_params("rnn", 4, 3, framework_biases=True) equals sum(p.numel()) of nn.RNN(4, 3)"""
    from torch import nn

    expected = sum(p.numel() for p in nn.RNN(4, 3).parameters())
    got = params.count_params("rnn", 4, 3, framework_biases=True)
    assert got == expected, f"count_params('rnn', 4, 3, framework_biases=True) returned {got!r}, PyTorch counts {expected}"
