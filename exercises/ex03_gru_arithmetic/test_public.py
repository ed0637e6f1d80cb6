"""Public checks for ex03 (worth no points): the sheet is readable and keeps the stub's keys. Run: grade run ex03

They check the form of the sheet only; whether an answer is right is decided by the hidden checks.
"""

def test_sheet_keeps_the_stub_keys(answers, stub_keys):
    """answers.toml is valid TOML with exactly the stub's keys (a mistyped key would leave the real one unanswered)"""
    answers.expect_keys(stub_keys)
