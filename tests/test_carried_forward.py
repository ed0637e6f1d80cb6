"""One mistake is charged once on the answer sheets (issue 20 §3): a number that follows from the student's own wrong
answer, where that answer is a known mistake – h_t from their c_t, a value from their formula, a count from their N_*
formula, a derivative in the convention their (a) used – keeps its points and says so; a wrong number that follows
from nothing of theirs, or from a made-up answer, is still charged."""

from conftest import ROOT, with_answers


def reference(folder: str, name: str = "answers.toml") -> str:
    return (ROOT / "solutions" / folder / name).read_text(encoding="utf-8")


PARAMS = reference("ex04_param_counts", "params.py")


def lost(result) -> dict[str, float]:
    """{check name: points lost} for every check that lost points."""
    return {v.name: round(v.points - v.earned, 6) for v in result.checks if v.earned < v.points}


def carried(result) -> list[str]:
    """The names of the checks that kept their points because the answer follows from another one: passed, with a
    note (never a "failed" at full points, which Gradescope shows red and item analysis counts as a miss)."""
    noted = [v for v in result.checks if "follows from your" in v.feedback]
    assert all(v.passed and v.earned == v.points for v in noted), [(v.name, v.outcome) for v in noted]
    return [v.name for v in noted]


def test_h_t_from_a_wrong_c_t_is_not_charged_again(grade):
    """Does an h_t right for the student's own (coupled-gate) c_t keep its 2 points while c_t loses its 1?"""
    sheet = with_answers(reference("ex01_cell_state"), c_t="1.125", h_t='"0.6*tanh(1.125)"')
    result = grade("ex01", {"answers.toml": sheet})
    assert lost(result) == {"c_t: the new cell state": 1}
    assert carried(result) == ["h_t: the new hidden state"]
    assert any("coupled gate" in d for v in result.checks for d in v.diagnosis)


def test_a_value_of_a_wrong_formula_is_charged_once(grade):
    """Is the coupled gate in c_t_formula, c_t and h_t charged once, at the formula (the review's w_cformula_coupled)?"""
    sheet = with_answers(reference("ex01_cell_state"), c_t="1.125", h_t='"0.6*tanh(1.125)"', c_t_formula='"f*c_prev + (1-f)*g"')
    result = grade("ex01", {"answers.toml": sheet})
    assert lost(result) == {"c_t as a formula in f, c_prev, i, g": 1.5}
    assert sorted(carried(result)) == ["c_t: the new cell state", "h_t: the new hidden state"]


def test_a_new_mistake_after_a_wrong_c_t_is_charged_and_named(grade):
    """Is an h_t that is wrong even for the student's own c_t (no tanh) still charged, and named?"""
    sheet = with_answers(reference("ex01_cell_state"), c_t="1.125", h_t="0.675")
    result = grade("ex01", {"answers.toml": sheet})
    assert lost(result) == {"c_t: the new cell state": 1, "h_t: the new hidden state": 2}
    assert any("forgot the tanh" in v.feedback for v in result.checks)


def test_preact_value_of_the_exact_solution_formula_is_charged_once(grade):
    """Is the exact solution ln(k/ε − 1), as formula and as its value, named at the formula and charged there only,
    while the same value under the right formula is charged and named?"""
    both = with_answers(reference("ex02_gradient_path"), preact_formula='"ln(k/epsilon - 1)"', preact_value='"ln(8/0.25 - 1)"')
    result = grade("ex02", {"answers.toml": both})
    assert lost(result) == {"(d) the pre-activation needed to keep 1 − ε over k steps, as a formula in k, epsilon": 1}
    assert carried(result) == ["(d) that pre-activation for the given k and ε"]
    assert any("exact solution" in v.feedback for v in result.checks)
    alone = with_answers(reference("ex02_gradient_path"), preact_value='"ln(8/0.25 - 1)"')
    result = grade("ex02", {"answers.toml": alone})
    assert lost(result) == {"(d) that pre-activation for the given k and ε": 1}
    assert any("exact solution" in v.feedback for v in result.checks)


def test_a_convention_misread_in_a_and_b_is_charged_once(grade):
    """Does answering (a) and (b) in the textbook's convention cost (a)'s 2 points only – as the two values swapped
    between (a) and (c) cost 2 in all – and is (b) = 1 − z with a right (a) still charged?"""
    textbook = with_answers(reference("ex03_gru_arithmetic"), h_t="0.75", direct_factor="0.3")
    result = grade("ex03", {"answers.toml": textbook})
    assert lost(result) == {"(a) h_t in the answer key's (PyTorch's) convention": 2}
    assert carried(result) == ["(b) the direct-path derivative ∂h_t/∂h_prev in the answer key's convention"]
    alone = with_answers(reference("ex03_gru_arithmetic"), direct_factor="0.3")
    result = grade("ex03", {"answers.toml": alone})
    assert lost(result) == {"(b) the direct-path derivative ∂h_t/∂h_prev in the answer key's convention": 2}


def test_counts_of_wrong_formulas_are_charged_once(grade):
    """Does a count that follows from the student's own N_* formula (no bias; an LSTM of 3 blocks, also in PyTorch's
    count) keep its points, while each formula is charged (each cell's formula is its own question)?"""
    nobias = with_answers(
        reference("ex04_param_counts"), N_rnn='"d_h*(d_x + d_h)"', N_gru='"3*d_h*(d_x + d_h)"', N_lstm='"4*d_h*(d_x + d_h)"', gru_count="81", lstm_count="46080"
    )
    result = grade("ex04", {"answers.toml": nobias, "params.py": PARAMS})
    assert sorted(lost(result).values()) == [1, 1, 1]
    assert len(carried(result)) == 2
    three = with_answers(reference("ex04_param_counts"), N_lstm='"3*d_h*(d_x + d_h + 1)"', lstm_count="34848", lstm_count_torch="35136")
    result = grade("ex04", {"answers.toml": three, "params.py": PARAMS})
    assert list(lost(result).values()) == [1]
    assert len(carried(result)) == 2
    alone = with_answers(reference("ex04_param_counts"), lstm_count="34848")
    result = grade("ex04", {"answers.toml": alone, "params.py": PARAMS})
    assert list(lost(result).values()) == [0.4]


def test_only_a_named_formula_mistake_carries_forward(grade):
    """Does a made-up formula, with the number it gives, lose both (knowing nothing earns nothing) – and h_t computed
    from the c_t a made-up formula gives too, a c_t no known mistake explains?"""
    sheet = with_answers(reference("ex02_gradient_path"), preact_formula='"k"', preact_value="8")
    result = grade("ex02", {"answers.toml": sheet})
    assert lost(result) == {
        "(d) the pre-activation needed to keep 1 − ε over k steps, as a formula in k, epsilon": 1,
        "(d) that pre-activation for the given k and ε": 1,
    }
    sheet = with_answers(reference("ex01_cell_state"), c_t_formula='"c_prev*g"', c_t="-0.48", h_t='"0.6*tanh(-0.48)"')
    result = grade("ex01", {"answers.toml": sheet})
    assert lost(result) == {"c_t: the new cell state": 1, "c_t as a formula in f, c_prev, i, g": 1.5, "h_t: the new hidden state": 2}
    assert carried(result) == []


def test_an_h_t_that_follows_from_a_made_up_c_t_is_charged(grade):
    """Is an h_t that follows from a c_t no known mistake gives (c_t = 0 and h_t = 0; c_t = 50 and h_t = o, as if
    h = o) charged like any wrong h_t – the review's w_zero_formulas and w_huge_ct_h_eq_o, which earned 2/6?"""
    for c_t, h_t in (("0", "0"), ("50", '"0.6*tanh(50)"')):
        sheet = with_answers(reference("ex01_cell_state"), c_t=c_t, h_t=h_t)
        result = grade("ex01", {"answers.toml": sheet})
        assert lost(result) == {"c_t: the new cell state": 1, "h_t: the new hidden state": 2}, (c_t, lost(result))
        assert carried(result) == []


def test_the_right_answer_with_too_few_digits_is_no_mistake_and_carries_nothing(grade):
    """Is c_t = 1.1 (the right 1.065 to two digits, which the coupled gate's 1.125 also rounds to) told to give more
    digits, not named the coupled gate – so that an h_t computed from it carries nothing (review's ex01_round)?"""
    sheet = with_answers(reference("ex01_cell_state"), c_t="1.1", h_t="0.4806")
    result = grade("ex01", {"answers.toml": sheet})
    said = " ".join(v.feedback.en for v in result.checks if not v.passed)
    assert "significant digits" in said and "coupled gate" not in said, said
    assert lost(result) == {"c_t: the new cell state": 1, "h_t: the new hidden state": 2}
    assert carried(result) == []


def test_an_exact_expression_near_the_answer_is_wrong_not_short_of_digits(grade):
    """Is h_t with tanh applied to g a second time – an exact expression within 1 % of the right 0.6·tanh(1.065) – told
    it is not correct, never to give at least 4 significant digits (issue 28 §3)?"""
    sheet = with_answers(reference("ex01_cell_state"), h_t='"0.6*tanh(0.75*1.6 + 0.45*tanh(-0.3))"')
    result = grade("ex01", {"answers.toml": sheet})
    said = " ".join(v.feedback.en for v in result.checks if not v.passed)
    assert "is not correct" in said and "significant digits" not in said, said
    assert lost(result) == {"h_t: the new hidden state": 2}
