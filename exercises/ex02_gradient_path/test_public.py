"""Public checks for ex02 (worth no points): the sheet is readable and keeps the stub's keys. Run: grade run ex02

They check the form of the sheet only; whether an answer is right is decided by the hidden checks.
"""

from grader.checks import Fail

KEYS = ("three_step_factor", "const_gate_factor", "w105_k30", "w095_k100", "sigma1_k30", "f099_k100",
        "ratio_bias1_bias0_k30", "preact_formula", "preact_k100_eps01", "bias2_k10", "only_decays",
        "guarantees_no_vanishing")
STATEMENTS = ("only_decays", "guarantees_no_vanishing")


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


def test_statements_are_true_or_false(answers):
    """The true/false keys hold true or false (or are still unanswered)"""
    bad = [k for k in STATEMENTS
           if answers.raw(k) is not None and str(answers.raw(k)).strip().lower() not in ("true", "false")]
    if bad:
        raise Fail(f"write {' and '.join(bad)} as true or false (no quotes needed)",
                   f"请把 {'、'.join(bad)} 写成 true 或 false（不需要引号）")
