"""Public checks for ex01 (worth no points): the sheet keeps the stub's keys and answers them all. Run: grade run ex01"""


def test_sheet_keeps_the_stub_keys(answers, stub_keys):
    """answers.toml is valid TOML with exactly the stub's keys (a mistyped key would leave the real one unanswered)"""
    answers.expect_keys(stub_keys)


def test_every_key_is_answered(answers, stub_keys):
    """Every key of answers.toml has an answer"""
    missing = [k for k in stub_keys if answers.raw(k) is None]
    assert not missing, f"still unanswered: {', '.join(missing)}"
