"""The course's one static policy for "compute the gates yourself" (ex05, ex06): what a submission may not reach.

Read from the source, never run. It flags what the statements forbid – nn.LSTMCell, nn.GRUCell,
nn.RNNCell, nn.LSTM/GRU/RNN, torch.lstm_cell/gru_cell, torch._VF, torch._C._VariableFunctions,
torch.ops.aten's recurrent ops – however reached: attribute chains, `from torch.nn import LSTMCell
as C`, `getattr` with a literal or a built name on a torch module, the names as strings – and every
indirect way of reaching loaded modules (`sys.modules`, `importlib`, `__import__`, `eval`, `exec`,
`globals()`, `vars()`, `__builtins__`, `gc`, frames), and the modules an imported module's attributes
lead to (`torch.os`, `torch.serialization.pickle`, `from torch import sys`) as if imported. A local variable
or helper named `gru` or `lstm` is not flagged. The student process enforces the same by behaviour: there
the cells raise.
"""

from __future__ import annotations

import ast
import sys
import types

# Classes and operators of library recurrent cells, and the namespaces that hold raw operators.
LIBRARY_NAMES = frozenset({
    "LSTMCell", "GRUCell", "RNNCell", "LSTM", "GRU", "RNN", "RNNBase", "RNNCellBase",
    "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell",
    "_VF", "_VariableFunctions", "_VariableFunctionsClass",
})
# Sequence operators: flagged as attributes of torch's operator namespaces only (`torch.lstm`, `aten.gru`).
SEQUENCE_OPS = frozenset({"lstm", "gru", "rnn_tanh", "rnn_relu"})
OPERATOR_NAMESPACES = frozenset({"torch", "_VF", "aten", "_C", "_VariableFunctions", "ops"})
# Ways of reaching modules and objects the source does not name (the grader's own runtime among them).
INDIRECT = frozenset({"__import__", "importlib", "sys", "__builtins__", "builtins", "globals", "vars", "locals",
                      "eval", "exec", "compile", "gc", "inspect", "_getframe", "__subclasses__", "__globals__",
                      "__dict__", "__defaults__", "__kwdefaults__", "__closure__", "grader", "__getattribute__",
                      "__getattr__", "__class__", "__mro__", "__bases__", "__base__", "attrgetter", "methodcaller",
                      "ctypes", "_ctypes"})
# The built-in functions that look an attribute up by a name given as a value.
_BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})


def library_cells(tree: ast.AST) -> set[str]:
    """What in `tree` reaches a library recurrent cell, as it is written there (type annotations aside).

    torch's private modules (`torch._decomp`, `torch._refs`, `torch._C`, ...) hold its own pure-Python
    RNN/GRU/LSTM implementations, below any dispatcher block: every private name of torch counts.
    """
    torch_names = _torch_aliases(tree)
    annotations = _annotation_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in annotations:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found |= {m for m in modules if m.split(".")[0] == "torch" and _private(m.split(".")[1:])}
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_") and not node.attr.startswith("__") and _root(node) in torch_names:
                found.add(_dotted(node))
            elif node.attr in LIBRARY_NAMES:
                found.add(_dotted(node))
            elif node.attr in SEQUENCE_OPS and _last(node.value) in OPERATOR_NAMESPACES | torch_names:
                found.add(_dotted(node))
        elif isinstance(node, ast.alias) and (node.name.split(".")[-1] in LIBRARY_NAMES
                                              or any(p in LIBRARY_NAMES for p in node.name.split("."))):
            found.add(node.name)
        elif _text(node) in LIBRARY_NAMES and not isinstance(node, ast.Name):  # "GRUCell", "GRU" + "Cell", f"..."
            found.add(repr(_text(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BY_NAME:
            name = node.args[1] if len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args) else None
            if name is None or _text(name) is None:  # a name only known when it runs: what it reaches is hidden
                found.add(f"{node.func.id}(..., <computed name>)")
            elif _text(name) in LIBRARY_NAMES or _text(name) in SEQUENCE_OPS:
                found.add(f"{node.func.id}(..., {_text(name)!r})")
    return found


def _text(node: ast.AST) -> str | None:
    """The string an expression of string constants always has ("GRU" + "Cell", f"GRU{'Cell'}"), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v.value) if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None
                 else _text(v) for v in node.values]
        return None if any(p is None for p in parts) else "".join(parts)
    return None


def indirect_access(tree: ast.AST) -> set[str]:
    """Names in `tree` that reach modules or objects indirectly (sys.modules, importlib, eval, frames, ...)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in INDIRECT:
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in INDIRECT:
            found.add(node.attr)
        elif not isinstance(node, ast.Name) and _text(node) in INDIRECT:  # getattr(x, "sys"), "__getattri" + "bute__"
            found.add(_text(node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found |= {m for m in modules if m.split(".")[0] in INDIRECT}
    return found | (reached_modules(tree) & INDIRECT)


def imported_modules(tree: ast.AST) -> set[str]:
    """The top-level modules `tree` imports (relative imports as "."), and those it reaches through their attributes."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." if node.level else (node.module or ".").split(".")[0])
    return found | reached_modules(tree)


def reached_modules(tree: ast.AST) -> set[str]:
    """Top-level modules other than its own that an imported module's attributes lead to (`torch.os` is os).

    `torch.serialization.pickle`, `from torch import os as o`, `getattr(torch, "sys")`: each name is looked up,
    never run, in the modules the grading process has loaded (the student's torch is the same); past a name
    not found there, any name of a standard-library module counts.
    """
    bound = _module_bindings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            chains = [[*node.module.split("."), a.name] for a in node.names]
        else:
            chains = [_chain(node, bound)] if isinstance(node, (ast.Attribute, ast.Call)) else []
        for chain in chains:
            if chain and len(chain) > 1:
                found |= _modules_along(chain)
    return found


def _module_bindings(tree: ast.AST) -> dict[str, list[str]]:
    """Local names bound by `import` to a module, as the dotted path they stand for (`import torch.nn as N`: torch.nn)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound[a.asname or a.name.split(".")[0]] = a.name.split(".") if a.asname else [a.name.split(".")[0]]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                bound[a.asname or a.name] = [*node.module.split("."), a.name]
    return bound


def _chain(node: ast.AST, bound: dict[str, list[str]]) -> list[str] | None:
    """The dotted path an attribute chain or a `getattr(..., "literal")` on a bound name stands for, else None."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _chain(node.value, bound)
        return base and [*base, node.attr]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        base = _chain(node.args[0], bound)
        return base and [*base, node.args[1].value]
    return None


def _modules_along(chain: list[str]) -> set[str]:
    """The top-level modules, other than chain[0], that the names of `chain` lead to, attribute after attribute:
    a module, or a class or function defined in one (`torch.multiprocessing.Process` is multiprocessing's)."""
    import torch  # noqa: F401  (every student process has it loaded: its attributes are what a submission reaches)

    found, value = set(), sys.modules.get(chain[0])
    for name in chain[1:]:
        if isinstance(value, types.ModuleType):
            value = vars(value).get(name, sys.modules.get(f"{value.__name__}.{name}"))
            home = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
            if isinstance(home, str):
                found.add(home.split(".")[0])
                continue
        elif value is not None:  # inside a class, function or value: what its attributes reach is INDIRECT's business
            break
        if value is None and name in sys.stdlib_module_names:  # not found here: by its name
            found.add(name)
    return found - {chain[0]}


def _private(parts: list[str]) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in parts)


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """Every node inside a type annotation (`cell: nn.LSTMCell` names the class without using it)."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(n) for root in roots for n in ast.walk(root)}


def _torch_aliases(tree: ast.AST) -> set[str]:
    """Local names bound to torch or one of its modules (`import torch as T`, `from torch import nn as N`)."""
    names = {"torch"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name.split(".")[0]) for a in node.names if a.name.split(".")[0] == "torch"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            names |= {a.asname or a.name for a in node.names}
    return names


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return "(...)"


def _last(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _root(node: ast.AST) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
