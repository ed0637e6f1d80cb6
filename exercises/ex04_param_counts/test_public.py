"""Public checks for ex04 (worth no points; the graded checks are hidden). Run: grade run ex04

They check that answers.toml holds the course's keys, each answered in the form its question asks (never
whether it is right), that count_params returns an int for every cell, and one worked
example: with framework_biases=True a one-layer RNN must match PyTorch's own count.
"""

from grader.checks import Formula, Integer, check_sheet_form, require, student_module

params = student_module("params")

SIZES = {"d_x": "positive_integer", "d_h": "positive_integer"}
FORMS = {
    **dict.fromkeys(("N_rnn", "N_gru", "N_lstm"), Formula(SIZES)),
    **dict.fromkeys(("gru_count", "lstm_count", "lstm_count_torch", "grucell_count_torch",
                     "lstm_stack_count_torch"), Integer()),
}


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)


def test_count_params_returns_int(params):
    """count_params returns a positive int for "rnn", "gru" and "lstm\"
    count_params 对 "rnn"、"gru" 与 "lstm" 返回正的 int"""
    for cell in ("rnn", "gru", "lstm"):
        got = params.count_params(cell, 3, 4)
        require(isinstance(got, int) and not isinstance(got, bool) and got > 0,
                f"count_params({cell!r}, 3, 4) returned {got!r}; expected a positive int",
                f"count_params({cell!r}, 3, 4) 返回了 {got!r}；应为正的 int")


def test_rnn_framework_count_matches_torch(params):
    """count_params("rnn", 4, 3, framework_biases=True) equals sum(p.numel()) of nn.RNN(4, 3)
    count_params("rnn", 4, 3, framework_biases=True) 等于 nn.RNN(4, 3) 的 sum(p.numel())"""
    from torch import nn

    expected = sum(p.numel() for p in nn.RNN(4, 3).parameters())
    got = params.count_params("rnn", 4, 3, framework_biases=True)
    require(type(got) is int and got == expected,
            f"count_params('rnn', 4, 3, framework_biases=True) returned {got!r}, PyTorch counts {expected}",
            f"count_params('rnn', 4, 3, framework_biases=True) 返回了 {got!r}，PyTorch 统计为 {expected}")
