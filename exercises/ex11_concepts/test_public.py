"""Public checks for ex11 (worth no points): the sheet is readable, keeps the stub's keys, and each answer has
the right form (true/false, a shape, an option A–D). Run: grade run ex11

Whether an answer is right is decided by the hidden checks.
"""

import re

from grader.checks import Fail

STATEMENTS = ("tf_gating_cures_vanishing", "tf_parallel_over_time", "tf_h_only_state",
              "tf_bidirectional_generation", "tf_carry_state_without_detach")
SHAPES = ("output_shape", "h_n_shape", "c_n_shape")
NUMBERS = ("fwd_last_layer_index", "bwd_final_time_index", "q2_gru", "q2_lstm", "gru_lstm_ratio", "sigma_1")
CHOICES = ("choice_coupled_gates", "choice_peephole_vs_coupling", "choice_greff_2015", "choice_jozefowicz_2015")
SHAPE_TEXT = re.compile(r"\s*[\[(]?\s*[0-9]+(\s*,\s*[0-9]+)*\s*,?\s*[\])]?\s*")  # "(4, 2, 5)" is accepted too


def fail_unless_empty(bad: list[str], en: str, zh: str) -> None:
    if bad:
        raise Fail(f"{', '.join(bad)}: {en}", f"{'、'.join(bad)}：{zh}")


def test_sheet_keeps_the_stub_keys(answers, stub_keys):
    """answers.toml is valid TOML with exactly the stub's keys (a mistyped key would leave the real one unanswered)"""
    answers.expect_keys(stub_keys)





def test_answers_have_the_right_form(answers):
    """Answered keys have the right form: true/false, an array of integers, or one of A–D"""
    def answered(keys):
        return [(k, answers.raw(k)) for k in keys if answers.raw(k) is not None]

    fail_unless_empty([k for k, v in answered(STATEMENTS) if str(v).strip().lower() not in ("true", "false")],
                      "write true or false", "请写 true 或 false")
    fail_unless_empty([k for k, v in answered(SHAPES)
                       if not (isinstance(v, list) and all(type(d) is int and d >= 0 for d in v)
                               or isinstance(v, str) and SHAPE_TEXT.fullmatch(v))],
                      "write a shape as an array of integers, e.g. [7, 1, 3]", "请把形状写成整数数组，例如 [7, 1, 3]")
    fail_unless_empty([k for k, v in answered(CHOICES) if str(v).strip().upper() not in ("A", "B", "C", "D")],
                      'write one of "A", "B", "C", "D"', '请写 "A"、"B"、"C"、"D" 之一')
