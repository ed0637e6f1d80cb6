"""ex07 beyond its known mistakes and tables (course/ex07/mutants.py): a mistake named as itself alone."""

import pytest

from mutants import costs, mutate, named, reference, submission

pytestmark = pytest.mark.slow  # the exercise's bank graded

# At constant gates with retain 0.5 and d_h = 4, one step too few gives the Frobenius norm's value, and the Frobenius
# norm always gives that of the gradient of sum(s_T). name of a known mistake: (its name, a name it must not be given)
NAMED_ALONE = {
    "one step too few, LSTM and GRU": ("one step too few", "Frobenius"),
    "Frobenius norm": ("Frobenius norm", "off by one"),
    "gradient of the sum": ("gradient of sum(s_T)", "Frobenius"),
}


@pytest.mark.parametrize("name", NAMED_ALONE)
def test_a_norm_mistake_is_named_as_itself_alone(grade, name):
    """Is this mistake in state_jacobian_norm named in every check it fails, and never as a mistake that gives its
    value at one retention only (the known mistakes kept are those explaining every value it returns)?"""
    diagnosis, not_it = NAMED_ALONE[name]
    result = grade("ex07", submission(named("ex07", name)))
    failed = [v.feedback.en for v in result.checks if v.points and not v.passed]  # the public checks fail too
    assert failed and all(diagnosis in text and not_it not in text for text in failed), failed


def test_two_mistakes_at_once_are_named_as_no_one_of_them(grade):
    """Is a state_jacobian_norm with two mistakes (the Frobenius norm over one step too few), whose value at one
    retention happens to be a third mistake's (the nuclear norm), named as none – no name that explains one value
    only (review round 2's w_frob_offbyone)?"""
    files = submission(named("ex07", "Frobenius norm"))
    files = {k: v.replace("for _ in range(T):", "for _ in range(T - 1):") for k, v in files.items()}
    assert any("range(T - 1)" in v for v in files.values())
    result = grade("ex07", files)
    failed = [v.feedback.en for v in result.checks if v.points and not v.passed]
    assert failed and not any("Likely mistake" in text for text in failed), failed


def test_a_norm_that_raises_for_one_kind_keeps_the_other_kinds_share(grade):
    """Does a state_jacobian_norm right for the LSTM that raises for the GRU (not written yet) keep the LSTM cases'
    share of both norm checks – each case its own part, as when every case was called alone – rather than lose the
    whole check to the first call that raised?"""
    files = reference("ex07")
    files["decay.py"] = mutate(
        files["decay.py"], '    bias = params["b_f"]', '    if kind == "gru":\n        raise NotImplementedError("ex07: gru")\n    bias = params["b_f"]'
    )
    earned = costs(grade("ex07", files))
    norms = {name: points for name, points in earned.items() if "‖∂s_T/∂s_0‖ measured" in name or name.startswith("Random non-zero weights")}
    assert len(norms) == 2, earned
    assert norms == {name: pytest.approx(share) for name, share in zip(norms, (4 / 7, 1.0))}, norms  # LSTM: 4 of 7 cases, 1 of 2
