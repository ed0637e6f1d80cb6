"""Given course code: torch cells rebuilt from the grader's weights, the answer key's step functions, library cells blocked."""

# As in grader.inside.given: the spy on its compile() below calls compile() from code under this import, as it does.
from __future__ import annotations

import importlib.util

import pytest
import torch

from conftest import ROOT
from grader.checks import inject
from grader.errors import CheckBug
from grader.inside import layout

PROBE = """
def cell_params(cell):
    return {"w": cell.weight_ih * 1.0, "b": cell.bias_ih + cell.bias_hh}

def detached_params(cell):
    return {"w": cell.weight_ih.detach() * 1.0, "b": cell.bias_ih + cell.bias_hh}

def run_step(step, params, x, h, c):
    return step(x, h, c, **params)["h"]
"""


@pytest.fixture
def process(sandbox, tmp_path):
    """A student process given what ex06's and ex07's graded processes are given."""
    (tmp_path / "probe.py").write_text(PROBE)
    process = sandbox.open(tmp_path, given=layout.given(ROOT, "ex06", hidden=True) + layout.given(ROOT, "ex07", hidden=True))
    process.begin_check()
    yield process
    process.close()


def lstm_state(d_x=3, d_h=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = {"weight_ih": (4 * d_h, d_x), "weight_hh": (4 * d_h, d_h), "bias_ih": (4 * d_h,), "bias_hh": (4 * d_h,)}
    return {k: torch.randn(*s, generator=g, dtype=torch.float64) for k, s in shapes.items()}


def test_cell_arrives_with_the_grader_weights_and_gradients_reach_them(process):
    """Does an injected nn.LSTMCell hold exactly the sent weights, with gradients w.r.t. its parameters?"""
    state = lstm_state()
    cot = {"w": torch.randn(8, 3, dtype=torch.float64), "b": torch.randn(8, dtype=torch.float64)}
    reply = process.call("probe", "cell_params", [], {"cell": inject("lstm_cell", **state)}, cot)
    assert torch.equal(reply["value"]["w"], state["weight_ih"])
    assert torch.equal(reply["value"]["b"], state["bias_ih"] + state["bias_hh"])
    grads = reply["grads"]["kwargs"]["cell"]
    assert torch.equal(grads["weight_ih"], cot["w"]) and torch.equal(grads["bias_hh"], cot["b"])
    assert grads["weight_hh"] is None


def test_detach_inside_the_mapping_shows_as_a_missing_gradient(process):
    """Does a .detach() in student code leave that parameter without a gradient?"""
    cot = {"w": torch.ones(8, 3, dtype=torch.float64), "b": torch.ones(8, dtype=torch.float64)}
    reply = process.call("probe", "detached_params", [], {"cell": inject("lstm_cell", **lstm_state())}, cot)
    assert reply["grads"]["kwargs"]["cell"]["weight_ih"] is None


def test_injected_step_is_the_reference_lstm_step(sandbox, tmp_path):
    """Does the lstm_step ex07's graded process is given (torch's library cell, in ex05's parameters) compute what
    ex05's reference computes?"""
    spec = importlib.util.spec_from_file_location("ref_gated", ROOT / "solutions/ex05_gated_steps/gated.py")
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    g = torch.Generator().manual_seed(1)
    r = lambda *s: torch.randn(*s, generator=g, dtype=torch.float64)  # noqa: E731
    params = {f"W_{k}": r(2, 5) for k in "ifoc"} | {f"b_{k}": r(2) for k in "ifoc"}
    x, h, c = r(3, 3), r(3, 2), r(3, 2)
    (tmp_path / "probe.py").write_text(PROBE)
    process = sandbox.open(tmp_path, given=layout.given(ROOT, "ex07", hidden=True))
    try:
        process.begin_check()
        reply = process.call("probe", "run_step", [inject("lstm_step"), params, x, h, c], {})
    finally:
        process.close()
    torch.testing.assert_close(reply["value"], reference.lstm_step(x, h, c, **params)["h"], rtol=1e-12, atol=1e-12)


def test_unknown_helper_is_the_graders_error(sandbox, tmp_path, process):
    """Is an Inject the exercise is not given the check's bug (an internal error), found by the grader before the call,
    while the student process's own report of such an error is the student's result, never the grader's?"""
    from grader.failures import StudentError
    from grader.sandbox.proxy import ExerciseProcess

    exercise = ExerciseProcess(sandbox, tmp_path, given=layout.given(ROOT, "ex06", hidden=True), missing=[])
    with pytest.raises(CheckBug, match="does not define"):
        exercise.check_injects([inject("no_such_helper")])
    with pytest.raises(StudentError, match="could not be built"):
        process.call("probe", "cell_params", [], {"cell": inject("no_such_helper")}, None)


LIFTER = """
import gc, sys, torch

def lifted(x, h, w_ih, w_hh):
    for lib in list(getattr(sys.modules["grader.inside.given"], "_BLOCKS", [])):
        lib._destroy()
    gc.unfreeze()  # the objects the process was forked with too
    for o in gc.get_objects():
        if type(o).__name__ in ("_DispatchModule", "Library"):
            getattr(o, "reset", getattr(o, "_destroy", lambda: None))()
    try:
        own = torch.library.Library("aten", "IMPL")
        own.impl("gru_cell", lambda *a, **k: h, "CompositeImplicitAutograd")
        sys.modules["__main__"].kept = own
    except RuntimeError:
        pass
    return torch.gru_cell(x, h, w_ih, w_hh)
"""


def test_the_block_of_library_cells_cannot_be_lifted(sandbox, tmp_path):
    """In ex06's process, does torch.gru_cell still raise after student code destroys every dispatcher library
    it can find and tries to register a kernel of its own over the block?"""
    from grader.failures import StudentError

    (tmp_path / "probe.py").write_text(LIFTER)
    process = sandbox.open(tmp_path, given=layout.given(ROOT, "ex06", hidden=True))
    try:
        process.begin_check()
        x, h = torch.zeros(1, 3, dtype=torch.float64), torch.zeros(1, 2, dtype=torch.float64)
        with pytest.raises(StudentError, match="library recurrent cells are unavailable"):
            process.call("probe", "lifted", [x, h, torch.zeros(6, 3, dtype=torch.float64), torch.zeros(6, 2, dtype=torch.float64)], {})
    finally:
        process.close()


def test_given_code_is_compiled_once_by_the_grader_as_its_own_module(sandbox, tmp_path, monkeypatch):
    """Is a given file compiled once in the grading process, however many student processes run it, and compiled as an
    import would compile it (its own __future__ imports, not the grader's)?"""
    from grader.inside import given

    source = tmp_path / "course" / "ex99" / "given.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "from grader.inside.given import builder\n\n"
        "def annotated(x: int) -> None: ...\n\n"
        "@builder\ndef eager_annotations(device):\n    return annotated.__annotations__['x'] is int\n"
    )
    (tmp_path / "probe.py").write_text("def echo(v):\n    return v\n")
    compiles = []
    monkeypatch.setattr(given, "compile", lambda *a, **k: compiles.append(a[1]) or compile(*a, **k), raising=False)
    for _ in range(2):
        process = sandbox.open(tmp_path, given=[source])
        try:
            process.begin_check()
            assert process.call("probe", "echo", [inject("eager_annotations")], {})["value"] is True
        finally:
            process.close()
    assert compiles == [str(source.resolve())]
