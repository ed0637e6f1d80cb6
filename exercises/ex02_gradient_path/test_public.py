"""Public checks for ex02 (worth no points): the sheet is readable and keeps the stub's keys. Run: grade run ex02

They check the form of the sheet only; whether an answer is right is decided by the hidden checks.
"""

from grader.checks import Fail

STATEMENTS = ("only_decays", "guarantees_no_vanishing")


def test_sheet_keeps_the_stub_keys(answers, stub_keys):
    """answers.toml is valid TOML with exactly the stub's keys (a mistyped key would leave the real one unanswered)"""
    answers.expect_keys(stub_keys)


def test_statements_are_true_or_false(answers):
    """The true/false keys hold true or false (or are still unanswered)"""
    bad = [k for k in STATEMENTS
           if answers.raw(k) is not None and str(answers.raw(k)).strip().lower() not in ("true", "false")]
    if bad:
        raise Fail(f"write {' and '.join(bad)} as true or false (no quotes needed)",
                   f"请把 {'、'.join(bad)} 写成 true 或 false（不需要引号）")
