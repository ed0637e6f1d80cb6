"""ex10 beyond its known mistakes and tables (tests/mutants/ex10.py): the tuple-keyed selection, a mistake named only where
it alone explains the choice."""

from conftest import ROOT, mutate

SOLUTION = ROOT / "solutions" / "ex10_length_sweep"
REFERENCE = (SOLUTION / "sweep.py").read_text()
ANSWERS = (SOLUTION / "answers.toml").read_text()


def test_tuple_keyed_select_lr_earns_every_selection_point(grade):
    """Does select_lr written as the statement asks (a dict keyed by (model, length) tuples, no wrapper) earn full selection points?"""
    assert "def select_lr_table" not in REFERENCE and "return chosen\n" in REFERENCE
    result = grade("ex10", {"sweep.py": REFERENCE, "answers.toml": ANSWERS})
    selection = [v for v in result.checks if "select_lr" in v.name and v.points > 0]
    assert sum(v.points for v in selection) == 3, [v.name for v in result.checks]
    assert all(v.earned == v.points for v in selection), [v.feedback for v in selection]
    assert result.score == result.max_score


def test_a_mistake_is_named_only_where_it_alone_explains_the_choice(grade):
    """Is a select_lr that takes the best seed (which at ('lstm', 4) and ('gru', 16) picks what leaving the failed run
    out, or breaking ties upwards, would pick) named as the best seed and never as those?"""
    source = mutate(REFERENCE, "{lr: sum(v) / len(v) for lr, v in by_lr.items()}", "{lr: max(v) for lr, v in by_lr.items()}")
    result = grade("ex10", {"sweep.py": source, "answers.toml": ANSWERS})
    said = " ".join(v.feedback.en for v in result.checks if not v.passed)
    assert "the best seed instead of the mean" in said, said
    assert "left out of the mean" not in said and "tie went to the larger lr" not in said and "selected on test" not in said, said
