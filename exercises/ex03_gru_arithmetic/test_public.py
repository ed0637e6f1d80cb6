"""Public checks for ex03 (worth no points): the sheet is readable and keeps the stub's keys. Run: grade run ex03

They check the form of the sheet only; whether an answer is right is decided by the hidden checks.
"""

from grader.checks import Fail

KEYS = ("h_t", "direct_factor", "h_t_other_convention")


def test_sheet_keeps_every_key(answers):
    """answers.toml is valid TOML and still has every key of the stub"""
    present = set(answers.keys())
    missing = [k for k in KEYS if k not in present]
    if missing:
        raise Fail(f"answers.toml lacks the key(s) {', '.join(missing)}; copy them back from the stub",
                   f"answers.toml 缺少键 {', '.join(missing)}；请从原始答题卡中复制回来")


def test_sheet_has_no_unknown_keys(answers):
    """answers.toml adds no keys of its own (a typo in a key name would leave the real key unanswered)"""
    unknown = answers.unknown_keys(KEYS)
    if unknown:
        raise Fail(f"answers.toml has unknown key(s) {', '.join(unknown)}; the keys are {', '.join(KEYS)}",
                   f"answers.toml 有未知的键 {', '.join(unknown)}；应有的键为 {', '.join(KEYS)}")
