"""ex05 beyond its known mistakes and tables (course/ex05/mutants.py): what a mistake in one step costs the other, what
a named mistake of the values costs the checks that depend on them."""

import re

import pytest

from conftest import ROOT, mutate
from mutants import ex05, named, submission

pytestmark = pytest.mark.slow  # the exercise's bank graded

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()


def test_one_wrong_line_in_gru_step_costs_gru_step_only(grade):
    """Does a gru_step that raises (a wrong line) cost gru_step's checks only, lstm_step keeping every point of its own?"""
    result = grade("ex05", {"gated.py": mutate(REFERENCE, "(r * h) @ U_h.T", "(r * h) @ W_h.T")})
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert lost and all(name.startswith("gru_step") for name in lost), lost
    assert sum(v.earned for v in result.checks if v.name.startswith("lstm_step")) == 7, lost


def test_a_hanging_lstm_step_costs_lstm_step_only(grade):
    """Does an lstm_step that hangs on float32 inputs (its float64 values right) cost lstm_step's later checks only,
    gru_step keeping every share?"""
    source = mutate(
        REFERENCE, "    _check_states(x, h)\n    if c.shape", "    while x.dtype == torch.float32:\n        pass\n    _check_states(x, h)\n    if c.shape"
    )
    result = grade("ex05", {"gated.py": source})
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert all(name.startswith("lstm_step") for name in lost), lost
    assert result.score == result.max_score - 3, lost  # float32, gradients, extremes, ValueErrors, standing alone


NAMED_VALUE_MISTAKES = [
    "batch reduction",
    "swapped GRU convention",
    "square U_h untransposed",
    "reset gate after the matmul",
    "missing tanh on c in h",
    "lstm sigmoid on the candidate",
    "gru sigmoid on the candidate",
    "[h, x] order",
    "coupled gates",
]


@pytest.mark.parametrize("name", NAMED_VALUE_MISTAKES)
def test_a_named_mistake_costs_its_values_check_only(grade, name):
    """Does a named mistake of the values (batch mixing, a swapped convention, U untransposed, the reset gate after the
    matmul, a missing tanh, sigmoid on the candidate, [h, x] order, coupled gates) cost the values check's points alone,
    charged once – the given-gates check (which sees the same mistake with ex01's or ex03's numbers), dtype, gradients,
    extremes, ValueErrors and standing alone keeping every point?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert len(lost) == 1 and " match the reference " in next(iter(lost)), lost
    assert result.score == pytest.approx(result.max_score - sum(lost.values()))


@pytest.mark.parametrize("name", ["swapped GRU convention", "missing tanh on c in h"])
def test_the_given_gates_check_says_it_charges_nothing_again(grade, name):
    """Does the given-gates check, which sees the values check's mistake again with ex01's or ex03's numbers, say so
    and keep its point, in both languages?"""
    result = grade("ex05", submission(named("ex05", name)))
    given = next(v for v in result.checks if "gates fixed by their biases" in v.name and v.feedback.en)
    assert given.passed and given.earned == given.points  # a pass with a note, never a red "failed" at full points
    assert "no points are lost here" in given.feedback.en and "此处不扣分" in given.feedback.zh, given.feedback


@pytest.mark.parametrize("name", ["gru output squeezed", "a batch of one handled apart"])
def test_a_step_that_breaks_at_one_by_one_costs_the_given_gates_check_only(grade, name):
    """Does a gru_step right at batch 3 and d_h = 4 but wrong with the gates given (a batch of one, d_x = d_h = 1, where
    a stray .squeeze() drops an axis, or a single sample takes another path) cost the given-gates check's point alone?"""
    result = grade("ex05", submission(named("ex05", name)))
    lost = {v.name: v.points - v.earned for v in result.checks if v.earned < v.points}
    assert list(lost) == [next(v.name for v in result.checks if v.name.startswith("gru_step with gates fixed"))], lost
    assert result.score == result.max_score - 1


STATEMENT = (ROOT / "exercises" / "ex05_gated_steps" / "README.md").read_text()
# The right-hand sides of the statement's equations (`h = o ⊙ tanh(c)`, `h_new = z ⊙ h + (1 − z) ⊙ candidate`, ...),
# without spaces: what a student writes in gated.py.
EQUATIONS = {"".join(span.split(" = ", 1)[1].split()) for span in re.findall(r"`([^`\n]+ = [^`\n]+)`", STATEMENT)}


def test_feedback_never_prints_the_statements_equations(grade):
    """Does no failed check of any known mistake, in either language, print the right-hand side of one of the
    statement's equations – the feedback names the mistake, never the formula to write?"""
    assert {"o⊙tanh(c)", "z⊙h+(1−z)⊙candidate", "f⊙c_prev+i⊙candidate"} <= EQUATIONS, EQUATIONS
    printed = []
    for mutant in ex05.MUTANTS:
        result = grade("ex05", submission(mutant))
        for v in result.checks:
            if not v.passed:
                for language in ("en", "zh"):
                    text = "".join((v.title.render(language) + v.feedback.render(language)).split())
                    printed += [(mutant.name, v.name, rhs) for rhs in EQUATIONS if rhs in text]
    assert not printed, printed


# torch.ao.nn.quantizable's LSTMCell is written in Python over nn.Linear: no dispatcher block stops it in the student
# process, so the static policy is what refuses it, however its name is bound.
QUANTIZABLE_CELL = """
    cell = LSTMCell(x.shape[1], h.shape[1], dtype=x.dtype)
    W = torch.cat([W_i, W_f, W_c, W_o])
    del cell.igates.weight, cell.hgates.weight, cell.igates.bias, cell.hgates.bias
    cell.igates.weight, cell.hgates.weight = W[:, : x.shape[1]], W[:, x.shape[1] :]
    cell.igates.bias, cell.hgates.bias = torch.cat([b_i, b_f, b_c, b_o]), torch.zeros(4 * h.shape[1], dtype=x.dtype)
    h_new, c_new = cell(x, (h, c))
"""


def test_a_library_cell_a_star_import_binds_loses_the_library_cells_point(grade):
    """Does an lstm_step whose c and h come from torch.ao.nn.quantizable's LSTMCell, bound by a star import, lose the
    library-cells point, its feedback naming the cell (it earned 14 of 14)?"""
    source = mutate(REFERENCE, "from torch import Tensor\n", "from torch import Tensor\nfrom torch.ao.nn.quantizable import *\n")
    source = mutate(source, "    c_new = f * c + i * candidate\n    h_new = o * torch.tanh(c_new)\n", QUANTIZABLE_CELL)
    result = grade("ex05", {"gated.py": source})
    refused = {v.name: v for v in result.checks if "no library cells" in v.name}
    assert refused and all(v.earned == 0 for v in refused.values()), [(v.name, v.earned) for v in refused.values()]
    # lstm_step's own check fails earlier, at the call, since its process blocks that cell too; gru_step's names it
    assert any("LSTMCell (from torch.ao.nn.quantizable import *)" in v.feedback.en for v in refused.values())
