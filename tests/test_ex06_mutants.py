"""ex06 beyond its known mistakes and tables (course/ex06/mutants.py): library cells, a mistake charged once, forged
gradient replies."""

import pytest

from conftest import ROOT, mutate
from mutants import named, submission

pytestmark = pytest.mark.slow  # the exercise's bank graded

REFERENCE = (ROOT / "solutions" / "ex06_framework_parity" / "parity.py").read_text()

WRITTEN_WITH_LIBRARY = """
import torch


def lstm_params_from_torch(cell):
    weight = torch.cat([cell.weight_ih, cell.weight_hh], dim=1)
    bias = cell.bias_ih + cell.bias_hh
    gates = ("i", "f", "c", "o")
    return ({f"W_{g}": w for g, w in zip(gates, weight.chunk(4))}
            | {f"b_{g}": b for g, b in zip(gates, bias.chunk(4))})


def gru_params_from_torch(cell):
    return {"w_ih": cell.weight_ih * 1, "w_hh": cell.weight_hh * 1, "b_ih": cell.bias_ih * 1, "b_hh": cell.bias_hh * 1}


def torch_gru_step(x, h, params):
    return torch.gru_cell(x, h, params["w_ih"], params["w_hh"], params["b_ih"], params["b_hh"])
"""


def test_library_cell_does_not_run_in_the_graded_process(grade):
    """Does a torch_gru_step that calls torch.gru_cell fail (the cell is unavailable there) and lose the written-out point?"""
    result = grade("ex06", {"parity.py": WRITTEN_WITH_LIBRARY})
    failed = [v.feedback for v in result.checks if not v.passed]
    assert result.score <= result.max_score - 4, failed
    assert any("library recurrent cells are unavailable" in feedback for feedback in failed), failed


def test_value_mistake_is_not_charged_twice(grade):
    """Does a gate-order mistake cost the LSTM value points but keep the gradient points (gradients still flow)?"""
    result = grade("ex06", {"parity.py": mutate(REFERENCE, 'gates = ("i", "f", "c", "o")', 'gates = ("i", "f", "o", "c")')})
    by_name = {v.name: v for v in result.checks}
    assert next(v for n, v in by_name.items() if n.startswith("Gradients w.r.t. x, h0, c0")).passed
    assert result.score == result.max_score - 1  # W_i, W_f, b_i, b_f of the 8 entries stay right: 1 of 2 points


@pytest.mark.parametrize("name", ["lstm blocks interleaved by a view", "gru blocks interleaved by a view"])
def test_interleaved_view_is_charged_by_the_value_check_alone(grade, name):
    """Does a view that interleaves the gate blocks (the cell's own entries in other places) cost its value check
    alone, the gradient check judging the mapping on its own terms and saying so in a note?"""
    result = grade("ex06", submission(named("ex06", name)))
    gradients = next(v for v in result.checks if v.name.startswith("Gradients") and name.split()[0].upper() + "Cell" in v.name)
    assert gradients.earned == gradients.points and "judged against your own functions" in gradients.feedback, gradients.feedback
    assert "此处不扣分" in gradients.feedback.zh


FORGED_GRADIENTS = """
import sys as _sys
_runtime = _sys.modules["grader.inside.runtime"]
_gradients = _runtime._gradients

def _forged(value, cotangent, args, kwargs):
    grads = _gradients(value, cotangent, args, kwargs)
    if "cell" in grads["kwargs"]:
        grads["kwargs"]["cell"] = [1, 2]
    return grads

_runtime._gradients = _forged
"""


def test_forged_gradient_replies_are_the_students_failure(grade):
    """Does a parity.py that rewrites its side of the wire to send gradients of the wrong shape lose the gradient
    checks as its own failure, never as the grader's internal error?"""
    result = grade("ex06", {"parity.py": REFERENCE + FORGED_GRADIENTS})  # the fixture asserts no internal error
    gradients = [v for v in result.checks if "Gradients" in v.name or "gradient" in v.name.lower()]
    assert gradients and all(v.earned == 0 and "malformed gradient reply" in v.feedback for v in gradients)
