"""Public checks for ex01 (worth no points): the sheet keeps the stub's keys and answers them all. Run: grade run ex01"""

KEYS = ("c_t", "h_t", "c_t_formula", "h_t_formula")


def test_sheet_has_no_unknown_keys(answers):
    """answers.toml adds no keys of its own (a typo in a key name would leave the real key unanswered)"""
    unknown = answers.unknown_keys(KEYS)
    assert not unknown, f"answers.toml has unknown key(s) {', '.join(unknown)}; the keys are {', '.join(KEYS)}"


def test_every_key_is_answered(answers):
    """Every key of answers.toml has an answer"""
    missing = [k for k in KEYS if answers.raw(k) is None]
    assert not missing, f"still unanswered: {', '.join(missing)}"
