"""The trust boundary: what can reach a student process, proven by imports and by submissions that go looking."""

import ast
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from grader.inside import layout

INSIDE = ROOT / "grader" / "inside"
# What code under grader/inside may import: the standard library, torch, safetensors, pyseccomp and itself.
ALLOWED_TOP = {"torch", "safetensors", "pyseccomp", "grader"}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names if node.module == "grader.inside"}
    return found


@pytest.mark.parametrize("path", sorted(INSIDE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_inside_imports_only_inside(path):
    """Does this module of grader/inside import nothing but the standard library, torch, safetensors, pyseccomp and grader.inside?"""
    for name in imports_of(path):
        top = name.split(".")[0]
        if top == "grader":
            assert name == "grader" or name.startswith("grader.inside"), f"{path.name} imports {name}"
        else:
            assert top in ALLOWED_TOP or top in sys.stdlib_module_names, f"{path.name} imports {name}"


# Every exercise's given code in the course tree: public (course/<id>/given.py) and the hidden checks' own (given_hidden.py).
GIVEN_CODE = [p for folder in sorted((ROOT / layout.TREE).iterdir()) for p in layout.given(ROOT, folder.name, hidden=True)]


@pytest.mark.parametrize("path", GIVEN_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_given_code_imports_only_inside(path):
    """Does this given code, which a student process loads, import only what a student process may hold (the standard
    library, torch, safetensors, pyseccomp and grader.inside), as grader/inside's own modules do?"""
    for name in imports_of(path):
        top = name.split(".")[0]
        assert name.startswith("grader.inside") or top in ALLOWED_TOP - {"grader"} or top in sys.stdlib_module_names, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", layout.all_checks(ROOT), ids=lambda p: p.parent.name)
def test_hidden_checks_import_only_the_check_authors_api(path):
    """Does this exercise's hidden check import nothing of the grader but grader.checks, the check author's one module?"""
    grader = {name for name in imports_of(path) if name.split(".")[0] == "grader"}
    assert grader <= {"grader.checks"}, f"{path.name} imports {sorted(grader - {'grader.checks'})}"


LISTING = """
import sys

def {fn}(*args, **kwargs):
    shown = sorted(m for m in sys.modules if m.split(".")[0] in ("grader", "pytest", "_pytest", "tests", "solutions")
                   or m.startswith(("given_", "_reference", "ref_")))
    raise RuntimeError("modules: " + " ".join(shown))
"""


def first_functions() -> dict[str, tuple[str, str]]:
    """For each exercise that runs code: its first Python file and the first public function of its stub, which a
    check calls (derived from the course, so that a new code exercise is covered without a list to keep)."""
    from grader.course import load_course

    course = load_course(ROOT)
    found = {}
    for e in course.exercises:
        if e.runs_code:
            name = next(f for f in e.code_files if f.endswith(".py"))
            stub = ast.parse((ROOT / "exercises" / e.folder / name).read_text())
            found[e.id] = (name, next(n.name for n in stub.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")))
    return found


FIRST_FUNCTION = first_functions()


def modules_seen(grade, exercise_id: str) -> list[str]:
    name, fn = FIRST_FUNCTION[exercise_id]
    result = grade(exercise_id, {name: LISTING.format(fn=fn)})
    texts = [v.feedback.en for v in result.checks if "modules:" in v.feedback.en]
    assert texts, [v.feedback.en for v in result.checks]
    return texts[0].split("modules:")[1].split('"')[0].split()


@pytest.mark.parametrize("exercise_id", sorted(FIRST_FUNCTION))
@pytest.mark.slow
def test_student_process_holds_only_inside_and_its_own_given_code(grade, exercise_id):
    """Does each exercise's student process hold grader.inside and that exercise's given code only – no pytest, check or reference?"""
    modules = modules_seen(grade, exercise_id)
    for m in modules:
        if m.startswith("given_"):
            assert m.endswith(f"_{exercise_id}"), f"{exercise_id}'s process holds another exercise's given code: {m}"
        else:
            assert m == "grader" or m.startswith("grader.inside"), f"{exercise_id}'s process holds {m}"


# Submissions that borrow whatever the runtime has loaded instead of computing a gate. Each defines
# lstm_step and gru_step as "find a step function someone else wrote and call it".
BORROW = {
    "import": "from course.ex07 import given as _g\nfrom course.ex07 import given_hidden as _h\n",
    "sys.modules": (
        "import sys\n_found = [getattr(m, n) for m in list(sys.modules.values()) for n in dir(m)\n"
        "          if n.endswith(('lstm_step', 'gru_step')) and getattr(m, '__name__', '') != __name__]\n"
    ),
    "gc.get_objects": (
        "import gc\ngc.unfreeze()  # the zygote's objects too\n"
        "_found = [o for o in gc.get_objects() if callable(o) and getattr(o, '__name__', '').endswith(('lstm_step', 'gru_step'))\n"
        "          and getattr(o, '__module__', '') != __name__]\n"
    ),
    "frames": (
        "import sys\n_f, _found = sys._getframe(), []\nwhile _f is not None:\n"
        "    _found += [v for k, v in _f.f_globals.items() if k.endswith(('lstm_step', 'gru_step')) and callable(v)]\n"
        "    _f = _f.f_back\n"
    ),
    "__subclasses__": ("_found = [c for c in object.__subclasses__() if 'Step' in c.__name__ or 'Reference' in c.__name__]\n"),
    "builders registry": (
        "import sys\n_reg = getattr(sys.modules.get('grader.inside.given'), 'BUILDERS', {})\n"
        "_found = [_reg[n](device='cpu') for n in ('lstm_step', 'gru_step') if n in _reg]\n"
    ),
}
CALL_BORROWED = """

def _borrowed(kind):
    for f in _found:
        if kind in getattr(f, "__name__", ""):
            return f
    raise LookupError("nothing to borrow")


def lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    return _borrowed("lstm")(x=x, h=h, c=c, W_i=W_i, W_f=W_f, W_o=W_o, W_c=W_c, b_i=b_i, b_f=b_f, b_o=b_o, b_c=b_c)


def gru_step(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h):
    return _borrowed("gru")(x=x, h=h, W_z=W_z, U_z=U_z, W_r=W_r, U_r=U_r, W_h=W_h, U_h=U_h, b_z=b_z, b_r=b_r, b_h=b_h)
"""


@pytest.mark.parametrize("way", BORROW)
def test_borrowing_loaded_code_scores_nothing_on_ex05(grade, way):
    """Does a gated.py that only borrows step functions the runtime has loaded (this way) score 0 of 14?"""
    source = BORROW[way] if way != "import" else "try:\n" + "".join(f"    {line}\n" for line in BORROW[way].splitlines()) + "except ImportError:\n    pass\n"
    result = grade("ex05", {"gated.py": "import torch\n" + source + "_found = globals().get('_found', [])" + CALL_BORROWED})
    assert result.score == 0, [(v.name, v.earned, v.feedback.en) for v in result.checks if v.earned]


LIBRARY_CELLS = {
    "nn.LSTMCell": "torch.nn.LSTMCell(x.shape[1], h.shape[1], dtype=x.dtype)(x, (h, c))",
    "torch.lstm_cell": "torch.lstm_cell(x, (h, c), W, U)",
    "torch._VF": "torch._VF.lstm_cell(x, (h, c), W, U)",
    "_VariableFunctions": "torch._C._VariableFunctions.lstm_cell(x, (h, c), W, U)",
    "torch.ops.aten": "torch.ops.aten.lstm_cell(x, [h, c], W, U)",
    "nn.LSTM": "torch.nn.LSTM(x.shape[1], h.shape[1], dtype=x.dtype)(x[None])",
    "quantizable LSTM, named nowhere": (
        "[*torch.ao.quantization.get_default_custom_config_dict()['float_to_observed_custom_module_class'].values()][0]"
        "(x.shape[1], h.shape[1], dtype=x.dtype)(x[None])"
    ),
    "torch._decomp's LSTM, named nowhere": (
        "next(f for k, f in torch.export.default_decompositions().items() if str(k) == 'aten.lstm.input')"
        "(x[None], [h[None], c[None]], [W, U], False, 1, 0.0, False, False, False)[1][0]"
    ),
    "torch._decomp's GRU, named nowhere": (
        "next(f for k, f in torch.export.default_decompositions().items() if str(k) == 'aten.gru.input')"
        "(x[None], h[None], [W[: 3 * h.shape[1]], U[: 3 * h.shape[1]]], False, 1, 0.0, False, False, False)[1][0]"
    ),
}


@pytest.mark.parametrize("way", LIBRARY_CELLS)
def test_library_cells_do_not_run_in_ex05s_process(grade, way):
    """Does a library recurrent cell (reached this way) raise inside ex05's student process, naming why?"""
    source = f"""import torch

def lstm_step(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c):
    W = torch.cat([W_i, W_f, W_c, W_o])[:, : x.shape[1]].contiguous()
    U = torch.cat([W_i, W_f, W_c, W_o])[:, x.shape[1]:].contiguous()
    return {{"h": {LIBRARY_CELLS[way]}}}
"""
    result = grade("ex05", {"gated.py": source})
    lstm = [v for v in result.checks if v.name.startswith("lstm_step:")][0]
    assert lstm.earned == 0 and "library recurrent cells are unavailable" in lstm.feedback.en, lstm.feedback.en


# ex07's process is given ex05's reference step; its graded functions are decay.py's. A decay.py that
# looks for someone else's constant_gate_params / state_jacobian_norm – in the injected step's
# globals, in gc, in sys.modules – finds none.
BORROWING_DECAY = """import gc
import sys


def _borrowed(name, step=None):
    places = [getattr(step, "__globals__", {})] + [vars(m) for m in list(sys.modules.values()) if m is not None]
    gc.unfreeze()  # the objects the process was forked with too
    places += [getattr(o, "__globals__", {}) for o in gc.get_objects() if callable(o)]
    for place in (p for p in places if type(p) is dict):  # mocks answer any attribute
        found = place.get(name)
        if callable(found) and getattr(found, "__module__", "") != __name__:
            return found
    raise LookupError(f"nothing to borrow for {name}")


def constant_gate_params(kind, retain, d_x, d_h):
    return _borrowed("constant_gate_params")(kind=kind, retain=retain, d_x=d_x, d_h=d_h)


def state_jacobian_norm(kind, step, params, T, d_x):
    return _borrowed("state_jacobian_norm", step)(kind=kind, step=step, params=params, T=T, d_x=d_x)
"""


@pytest.mark.slow
def test_borrowing_through_injected_code_scores_nothing_on_ex07(grade):
    """Does a decay.py that borrows through the injected step's globals, gc or sys.modules earn none of ex07's code points?"""
    sheet = (ROOT / "exercises" / "ex07_gate_bias_decay" / "answers.toml").read_text()
    result = grade("ex07", {"decay.py": BORROWING_DECAY, "answers.toml": sheet})
    assert result.score == 0, [(v.name, v.earned) for v in result.checks if v.earned]
    assert any("nothing to borrow" in v.feedback.en for v in result.checks)


def test_the_secrets_hold_every_secret_part_of_the_course(course):
    """Do the grading side's secrets (Course.secrets: what the Gradescope runner locks and a batch refuses to expose),
    the zygote's (what no view may show, grader.inside.layout.secrets) hold the references, every hidden check, the
    hidden checks' given code and every mutant bank?"""
    assert course.secrets == layout.secrets(course.root)
    assert len(layout.all_checks(course.root)) == len(course.exercises)
    hidden = [*(course.root / layout.SOLUTIONS).rglob("*"), *layout.all_checks(course.root), *(course.root / layout.TREE).glob(f"*/{layout.GIVEN_HIDDEN}")]
    hidden += (course.root / layout.TREE).glob(f"*/{layout.MUTANTS}")
    assert all(any(p.is_relative_to(s) for s in course.secrets) for p in hidden)


def module_graph() -> dict[str, set[str]]:
    """Each module of grader/ and the grader modules it imports, anywhere in it (deferred imports too) – but for the
    names imported under `if TYPE_CHECKING:` alone, which mypy reads and Python never runs."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in (ROOT / "grader").rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        tree = ast.parse(path.read_bytes())
        typing_only = {
            id(n)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
            for statement in block.body
            for n in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        graph[name] = {m for m in found if m in modules and m != name and not name.startswith(m + ".")}
    return graph


def test_grader_modules_import_without_a_cycle():
    """Do grader's modules import one another downhill only: no module reaches itself through its imports?"""
    graph = module_graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            assert state.get(other) != 1, " -> ".join([*path, module, other])
            if other not in state:
                visit(other, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
