"""The one static "compute the gates yourself" policy of ex05 and ex06: what it flags and what it leaves alone."""

import ast

import pytest

from conftest import ROOT, mutate
from grader.checks import course_code
from grader.inside import layout

policy = course_code(layout.part(ROOT, "ex05", "policy.py"))

REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()

FLAGGED = {
    "attribute chain": "import torch\ny = torch.nn.LSTMCell(3, 4)",
    "module alias": "import torch.nn as N\ncell = N.GRUCell",
    "from-import alias": "from torch.nn import LSTMCell as C",
    "functional op": "import torch\nh = torch.gru_cell",
    "_VF": "import torch\nf = torch._VF",
    "_VariableFunctions": "import torch\nf = torch._C._VariableFunctions",
    "aten sequence op": "import torch\nf = torch.ops.aten.lstm",
    "getattr with a literal": "import torch\nf = getattr(torch.nn, 'GRUCell')",
    "getattr with a built name": "import torch\nf = getattr(torch.nn, 'GRU' + 'Cell')",
    "getattr on a torch alias": "from torch import nn as q\nf = getattr(q, ''.join(['L', 'STMCell']))",
    "getattr aliased": "import torch\ng = getattr\nf = g(torch.nn, 'GRUCell')",
    "a private name of torch looked up by getattr": "import torch\nd = getattr(torch, '_decomp')",
    "getattr with a built name on any alias": "import torch\nt = torch\nf = getattr(t, 'GR' + 'UCell')",
    "getattr with its arguments unpacked": "import torch\nf = getattr(*(torch.nn, 'GRUCell'))",
    "__getattribute__ with a built name": "import torch\nC = torch.nn.__getattribute__('GR' + 'UCell')",
    "an f-string name": "import torch\nf = getattr(torch.nn, f'GRU{\"Cell\"}')",
    "a name a star import binds": "from torch.ao.nn.quantizable import *\ncell = LSTMCell(3, 4)",
    "an op a star import of torch binds": "from torch import *\nh = gru_cell",
}
HARMLESS = {
    "a local named gru": "gru = {'z': 1}\nlstm = [gru]",
    "a helper named gru": "def gru(x):\n    return x\ny = gru(1)",
    "an annotation": "from torch import nn\ndef f(cell: nn.LSTMCell) -> nn.GRUCell:\n    return cell",
    "getattr on the student's own object": "class P:\n    w = 1\nv = getattr(P, 'w' + '')",
    "a docstring that names the cell": '"""Reproduces nn.LSTMCell exactly."""',
    "an error message that names the cell": "def f(kind):\n    if kind != 'GRU':\n        raise ValueError('GRU')",
    "a cell's name as a string": "name = 'lstm_cell'",
    "sys for its plain values and streams": "import sys\nprint(sys.maxsize, sys.float_info.epsilon, file=sys.stderr)",
    "a star import of torch for its functions": "from torch import *\ny = sigmoid(tanh(zeros(3)))",
    "a helper named gru beside a star import": "from torch import *\ndef gru(x):\n    return x\ny = gru(1)",
}
INDIRECT = {
    "sys.modules": "import sys\nm = sys.modules",
    "__import__": "m = __import__('grader')",
    "importlib": "import importlib",
    "gc": "import gc\nobjs = gc.get_objects()",
    "frames": "import sys\nf = sys._getframe()",
    "subclasses": "s = object.__subclasses__()",
    "globals": "g = globals()",
    "function globals": "def f():\n    pass\ng = f.__globals__",
    "__getattribute__": "import torch\ns = torch.__getattribute__('sy' + 's')",
    "a type's __getattribute__": "import torch\ns = type(torch).__getattribute__(torch, 'os')",
    "getattr on a walrus alias": "import torch\ns = getattr(t := torch, 'sys')",
    "a dunder name built at run time": "import torch\ns = getattr(torch, '__getattri' + 'bute__')",
    "ctypes": "import ctypes\nctypes.pythonapi",
    "a function's defaults": "import torch\npickle = torch.save.__defaults__[0]",
    "a module's namespace": "import torch\nm = torch.serialization.__dict__['o' + 's']",
    "sys through torch": "import torch as T\nm = getattr(T, 'sys')",
    "sys.modules through torch": "import torch\nm = torch.sys.modules",
    "sys passed as a value": "import sys\ndef f(m):\n    return m.modules\ng = f(sys)",
    "from sys import modules": "from sys import modules as m",
    "getattr passed to reduce": "import functools, torch\nc = functools.reduce(getattr, ['nn', 'GRUCell'], torch)",
    "a traceback's frames": "try:\n    1 / 0\nexcept Exception as e:\n    g = e.__traceback__.tb_frame.f_back.f_globals",
    "a name resolved by pkgutil": "import pkgutil\nf = pkgutil.resolve_name('torch._decomp.decompositions:gru_impl')",
}
# Modules reached through an imported module's attributes, not by an import of their own: each counts as imported.
REACHED = {
    "torch.os": ("import torch\ntorch.os.system('true')", "os"),
    "pickle inside torch": ("import torch\nloads = torch.serialization.pickle.loads", "pickle"),
    "marshal inside torch": ("import torch\ndumps = torch.serialization.marshal.dumps", "marshal"),
    "os through a torch module's alias": ("import torch.serialization as S\npath = S.os.path", "os"),
    "from-import of a module torch imported": ("from torch import os as o", "os"),
    "from-import from inside torch": ("from torch.serialization import pickle", "pickle"),
    "getattr with a literal": ("import torch\nm = getattr(torch.serialization, 'pickle')", "pickle"),
    "a class another module defines": ("import torch\nP = torch.multiprocessing.Process", "multiprocessing"),
    "a name torch does not hold": ("import torch\nm = torch.nn.marshal", "marshal"),
}
# torch's own modules named like standard-library ones, and torch's own names: none counts as another module.
TORCHS_OWN = {
    "torch.random": "import torch\ntorch.random.manual_seed(0)",
    "torch.functional and torch.types": "import torch\nf = torch.functional.split\nt = torch.types",
    "from-imports of torch's names": "from torch import Tensor, nn\ny = Tensor.add\nz = nn.functional.sigmoid",
}


@pytest.mark.parametrize("case", FLAGGED)
def test_forbidden_cells_are_flagged_however_reached(case):
    """Is a library recurrent cell reached this way refused (as a cell, or as a lookup whose name is hidden)?"""
    tree = ast.parse(FLAGGED[case])
    assert policy.library_cells(tree) | policy.indirect_access(tree)


@pytest.mark.parametrize("case", HARMLESS)
def test_harmless_names_are_not_flagged(case):
    """Is this harmless use of a cell's name left alone (issue: a local `gru = {...}` lost the point)?"""
    tree = ast.parse(HARMLESS[case])
    assert not policy.library_cells(tree) and not policy.indirect_access(tree)


@pytest.mark.parametrize("case", INDIRECT)
def test_indirect_access_is_flagged(case):
    """Is reaching loaded code this way flagged as indirect?"""
    assert policy.indirect_access(ast.parse(INDIRECT[case]))


@pytest.mark.parametrize("case", REACHED)
def test_modules_reached_through_attributes_count_as_imported(case):
    """Does a module reached through torch's attributes (torch.os, pickle inside torch, ...) count as imported?"""
    source, module = REACHED[case]
    assert module in policy.imported_modules(ast.parse(source))


@pytest.mark.parametrize("case", TORCHS_OWN)
def test_torchs_own_modules_are_not_another_module(case):
    """Is torch's own torch.random (named like the standard library's) and what torch defines left as torch?"""
    assert set(policy.imported_modules(ast.parse(TORCHS_OWN[case]))) == {"torch"}


def test_gated_py_reaching_pickle_through_torch_loses_the_point(grade):
    """Does a correct gated.py that reaches pickle and os through torch (issue 18) lose the point for standing alone?"""
    source = REFERENCE + "\n\n_loads, _os = torch.serialization.pickle.loads, torch.os\n"
    result = grade("ex05", {"gated.py": source})
    alone = [v for v in result.checks if "computes the gates itself" in v.name]
    assert result.score == result.max_score - 1, [(v.name, v.earned) for v in result.checks]
    line = source.count("\n")  # the added line, where both are reached
    assert alone and alone[0].earned == 0, alone
    assert all(f"line {line}: {name}" in alone[0].feedback.en for name in ("os", "pickle")), alone[0].feedback.en


def test_a_local_named_gru_keeps_every_point(grade):
    """Does a correct gated.py with a local `gru = {...}` and a helper `def lstm(...)` keep all 14 points?"""
    source = mutate(REFERENCE, "import torch\n", "import torch\n\ngru = {'note': 'a harmless name'}\n\n\ndef lstm(x):\n    return x\n")
    result = grade("ex05", {"gated.py": source})
    assert result.score == result.max_score == 14, [v.feedback.en for v in result.checks if not v.passed]


def test_a_gru_helper_in_ex06_keeps_the_written_out_point(grade):
    """Does a torch_gru_step that calls a helper named gru keep the written-out point in ex06?"""
    reference = (ROOT / "solutions" / "ex06_framework_parity" / "parity.py").read_text()
    source = reference + "\n\ndef gru(value):\n    return value\n"
    result = grade("ex06", {"parity.py": source})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


PRIVATE = {
    "torch._decomp": "from torch._decomp.decompositions import gru_impl",
    "torch._refs": "import torch._refs as refs",
    "a private attribute": "import torch\nf = torch._C._nn",
    "the grader's runtime": "from grader.inside import given\ngiven._BLOCKS.clear()",
}


@pytest.mark.parametrize("case", PRIVATE)
def test_torch_internals_and_the_grader_are_flagged(case):
    """Are torch's private modules (its own pure-Python GRU in torch._decomp) and the grader's runtime flagged?"""
    tree = ast.parse(PRIVATE[case])
    assert policy.library_cells(tree) | policy.indirect_access(tree)


def test_ex06_with_torchs_decomposed_gru_earns_no_gru_point(grade):
    """Does a torch_gru_step built on torch._decomp's gru_impl (the reviewer's 10/10) lose the written-out point, naming
    torch._decomp, and its values too – the step raises in ex06's process, as every library cell does?"""
    reference = (ROOT / "solutions" / "ex06_framework_parity" / "parity.py").read_text()
    source = (
        reference
        + """

from torch._decomp.decompositions import gru_impl


def torch_gru_step(x, h, params):
    p = params
    w_ih, w_hh = torch.cat([p["W_r"], p["W_z"], p["W_n"]]), torch.cat([p["U_r"], p["U_z"], p["U_n"]])
    zero = torch.zeros_like(p["b_r"])
    b_ih, b_hh = torch.cat([p["b_r"], p["b_z"], p["b_in"]]), torch.cat([zero, zero, p["b_hn"]])
    out, _ = gru_impl(x[None], h[None], [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, False)
    return out[0]
"""
    )
    result = grade("ex06", {"parity.py": source})
    written = [v for v in result.checks if "writes the GRU equations out" in v.name]
    assert written and written[0].earned == 0 and "torch._decomp" in written[0].feedback.en
    values = [v for v in result.checks if v.name.startswith("torch_gru_step(x, h, gru_params_from_torch(cell))")]
    assert values and values[0].earned == 0 and "library recurrent cells are unavailable" in values[0].feedback.en, values[0].feedback.en


def test_what_the_statements_allow_keeps_every_point(grade):
    """Does a correct gated.py and parity.py whose error messages name the cells ("GRU"), and a parity.py that imports sys
    for sys.stderr, keep every point (the statements refuse neither)?"""
    gated = mutate(
        REFERENCE,
        "def _check_weight(",
        "def _name(kind):\n    if kind not in ('LSTM', 'GRU'):\n        raise ValueError('GRU')\n    return kind\n\n\ndef _check_weight(",
    )
    result = grade("ex05", {"gated.py": gated})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]
    parity = (ROOT / "solutions" / "ex06_framework_parity" / "parity.py").read_text()
    parity = mutate(parity, "import torch\n", "import sys\n\nimport torch\n") + (
        "\n\ndef _warn(cell):\n    if type(cell).__name__ != 'GRUCell':\n        print('expected a GRU', type(cell).__name__, file=sys.stderr)\n"
    )
    result = grade("ex06", {"parity.py": parity})
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


def test_refusals_name_the_line_and_the_name(grade):
    """Does the feedback of a refused gated.py name each line and the name refused there?"""
    source = REFERENCE + "\n\n_cell = torch.nn.GRUCell\n_modules = __import__('sys').modules\n"
    result = grade("ex05", {"gated.py": source})
    refused = [v for v in result.checks if "computes the gates itself" in v.name and not v.passed]
    line = source.count("\n") - 1  # the cell's line, the one before the last
    assert refused and all(f"line {line}: torch.nn.GRUCell" in v.feedback.en for v in refused), refused
    assert all(f"第 {line} 行：torch.nn.GRUCell" in v.feedback.zh for v in refused)


STATEMENTS = {id_: (ROOT / "exercises" / folder / "README.md").read_text() for id_, folder in (("ex05", "ex05_gated_steps"), ("ex06", "ex06_framework_parity"))}
# Spellings the statements list once, under the name a reader knows (builtins, ctypes, pickle, sys._getframe, grader).
SPELLED_ONCE = {"__builtins__", "_ctypes", "_pickle", "_getframe", "grader"}


@pytest.mark.parametrize("exercise", STATEMENTS)
def test_the_statement_lists_what_the_policy_refuses(exercise):
    """Does the statement name, in both languages, every library cell, every way of reaching code and the plain values of
    sys that the policy knows, and say that a string naming a cell is fine?"""
    readme = STATEMENTS[exercise]
    english, chinese = readme.split("## 中文")
    internal = {"RNNBase", "RNNCellBase", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell"}  # "their bases", private names
    public = {n for n in policy.LIBRARY_NAMES - internal if not n.startswith("_VariableFunctions")}
    listed = (public | policy.INDIRECT | {"sys.modules", "sys.maxsize", "sys.float_info", "sys.stderr"}) - SPELLED_ONCE
    for text in (english, chinese):
        missing = sorted(
            n
            for n in listed
            if f"`{n}`" not in text
            and f".{n}`" not in text
            and f"/{n}`" not in text
            and f"`{n}(" not in text
            and f"`nn.{n}`" not in text
            and f"`torch.{n}`" not in text
        )
        assert not missing, missing
        assert '"GRU"' in text and "`sys._getframe`" in text
