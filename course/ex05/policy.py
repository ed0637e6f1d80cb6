"""The course's one static policy for "compute the gates yourself" (ex05, ex06): what a submission may not reach.

Read from the source, never run. The statements of ex05 and ex06 list exactly what it refuses:
- library recurrent cells and layers – nn.RNNCell/LSTMCell/GRUCell, nn.RNN/LSTM/GRU (and their bases),
  torch.lstm_cell/gru_cell/rnn_tanh_cell/rnn_relu_cell (and the fused ones), torch.lstm/gru/rnn_tanh/rnn_relu,
  torch._VF, torch._C._VariableFunctions, torch.ops.aten's recurrent ops – as attributes, imports
  (`from torch.nn import LSTMCell as C`, or a name `from torch.ao.nn.quantizable import *` binds) or names looked
  up with getattr/hasattr (literal or built);
- any private name of torch (`torch._decomp`, `torch._refs`, `torch._C`, ...): torch's own pure-Python
  RNN/GRU/LSTM live there;
- looking attributes up by a name only known when the code runs (`getattr(m, name)`), or getattr & co.
  passed around as values (`g = getattr`);
- reaching loaded modules or objects the source does not name: `__import__`, importlib, `sys.modules` and
  every use of `sys` but a few plain values (`sys.maxsize`, `sys.float_info`, `sys.stdout`, ...),
  builtins/`__builtins__`, `globals()`/`vars()`/`locals()`, eval/exec/compile, gc, inspect, ctypes, frames
  and tracebacks (`sys._getframe`, `tb_frame`, `f_globals`, ...), the dunder attributes that expose internals
  (`__dict__`, `__globals__`, `__subclasses__`, `__class__`, `__getattribute__`, ...), operator's
  attrgetter/methodcaller, the modules that load objects by name (pkgutil, pydoc, runpy, pickle, marshal,
  copyreg), and the grader's own modules;
- modules an imported module's attributes lead to (`torch.os`, `torch.serialization.pickle`,
  `from torch import sys`) count as imported (ex05 allows only torch, math and typing).
Nothing else is refused: a string that names a cell (an error message saying "GRU"), a local variable or
helper named `gru` or `lstm`, an annotation `cell: nn.LSTMCell`, `import sys` in ex06 for `sys.stderr`.
Every finder returns {what it found, as written: the first line it is on}, so feedback names both. The
student process enforces the same by behaviour: there the cells raise.
"""

from __future__ import annotations

import ast
import functools
import sys
import types

from grader.inside import recurrent_ops

# Classes and operators of library recurrent cells, and the namespaces that hold raw operators.
LIBRARY_NAMES = frozenset(
    {
        "LSTMCell",
        "GRUCell",
        "RNNCell",
        "LSTM",
        "GRU",
        "RNN",
        "RNNBase",
        "RNNCellBase",
        *recurrent_ops.CELL_OPS,
        "_VF",
        "_VariableFunctions",
        "_VariableFunctionsClass",
    }
)
# Sequence operators: flagged as attributes of torch's operator namespaces only (`torch.lstm`, `aten.gru`).
SEQUENCE_OPS = frozenset(recurrent_ops.SEQUENCE_OPS)
OPERATOR_NAMESPACES = frozenset({"torch", "_VF", "aten", "_C", "_VariableFunctions", "ops"})
# Ways of reaching modules and objects the source does not name (the grader's own runtime among them).
INDIRECT = frozenset(
    {
        "__import__",
        "importlib",
        "__builtins__",
        "builtins",
        "globals",
        "vars",
        "locals",
        "eval",
        "exec",
        "compile",
        "gc",
        "inspect",
        "_getframe",
        "__subclasses__",
        "__globals__",
        "__dict__",
        "__defaults__",
        "__kwdefaults__",
        "__closure__",
        "grader",
        "__getattribute__",
        "__getattr__",
        "__class__",
        "__mro__",
        "__bases__",
        "__base__",
        "attrgetter",
        "methodcaller",
        "ctypes",
        "_ctypes",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "tb_frame",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "__traceback__",
        "pkgutil",
        "pydoc",
        "runpy",
        "pickle",
        "_pickle",
        "marshal",
        "copyreg",
        "zipimport",
    }
)
# What of `sys` a submission may use: plain values and streams, nothing that reaches modules, frames or hooks.
SAFE_SYS = frozenset(
    {
        "maxsize",
        "float_info",
        "int_info",
        "float_repr_style",
        "byteorder",
        "version",
        "version_info",
        "hexversion",
        "platform",
        "stdout",
        "stderr",
        "getsizeof",
        "getrecursionlimit",
        "exit",
    }
)
# The built-in functions that look an attribute up by a name given as a value.
_BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})


@functools.lru_cache(maxsize=16)
def _nodes(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of `tree`, in ast.walk's order: walked once for all the finders that read one source's tree."""
    return tuple(ast.walk(tree))


def library_cells(tree: ast.AST) -> dict[str, int]:
    """What in `tree` reaches a library recurrent cell or a private name of torch, as written there, and its line
    (type annotations aside).

    torch's private modules (`torch._decomp`, `torch._refs`, `torch._C`, ...) hold its own pure-Python
    RNN/GRU/LSTM implementations, below any dispatcher block: every private name of torch counts.
    """
    torch_names = _torch_aliases(tree)
    annotations = _annotation_nodes(tree)
    starred = _star_imported(tree)
    found: dict[str, int] = {}
    for node in _nodes(tree):
        if id(node) in annotations:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in starred:
            _add(found, node, f"{node.id} (from {starred[node.id]} import *)")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            _add(found, node, *(m for m in modules if m.split(".")[0] == "torch" and _private(m.split(".")[1:])))
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_") and not node.attr.startswith("__") and _root(node) in torch_names:
                _add(found, node, _dotted(node))
            elif node.attr in LIBRARY_NAMES:
                _add(found, node, _dotted(node))
            elif node.attr in SEQUENCE_OPS and _last(node.value) in OPERATOR_NAMESPACES | torch_names:
                _add(found, node, _dotted(node))
        elif isinstance(node, ast.alias) and (node.name.split(".")[-1] in LIBRARY_NAMES or any(p in LIBRARY_NAMES for p in node.name.split("."))):
            _add(found, node, node.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BY_NAME:
            name = node.args[1] if len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args) else None
            text = None if name is None else _text(name)
            if text is None:  # a name only known when it runs: what it reaches is hidden
                _add(found, node, f"{node.func.id}(..., <computed name>)")
            elif text in LIBRARY_NAMES or text in SEQUENCE_OPS or (text.startswith("_") and not text.startswith("__") and _root(node.args[0]) in torch_names):
                _add(found, node, f"{node.func.id}(..., {text!r})")
    return found


def _star_imported(tree: ast.AST) -> dict[str, str]:
    """{name: module} for the library cells' names that `from <a torch module> import *` binds and the source binds no
    other way (`from torch.ao.nn.quantizable import *` makes `LSTMCell` a torch cell that no attribute names)."""
    modules = [
        n.module
        for n in _nodes(tree)
        if isinstance(n, ast.ImportFrom) and not n.level and n.module and n.module.split(".")[0] == "torch" and any(a.name == "*" for a in n.names)
    ]
    if not modules:
        return {}
    own: set[str] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            own.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
        elif isinstance(node, ast.alias) and node.name != "*":
            own.add(node.asname or node.name.split(".")[0])
    return {name: module for module in modules for name in sorted(LIBRARY_NAMES | SEQUENCE_OPS) if name not in own}


def _add(found: dict[str, int], node: ast.AST, *names: str) -> None:
    """Record `names` as found on `node`'s line (the first line each is found on is kept)."""
    for name in names:
        found.setdefault(name, getattr(node, "lineno", 0))


def where(found: dict[str, int]) -> tuple[str, str]:
    """What a finder found, line by line, in English and Chinese: "line 3: torch.nn.LSTMCell; line 7: sys.modules"."""
    ordered = sorted(found.items(), key=lambda item: (item[1], item[0]))
    return ("; ".join(f"line {line}: {name}" for name, line in ordered), "；".join(f"第 {line} 行：{name}" for name, line in ordered))


def _text(node: ast.AST) -> str | None:
    """The string an expression of string constants always has ("GRU" + "Cell", f"GRU{'Cell'}"), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v.value) if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None else _text(v) for v in node.values]
        known = [p for p in parts if p is not None]
        return "".join(known) if len(known) == len(parts) else None
    return None


def indirect_access(tree: ast.AST) -> dict[str, int]:
    """Names in `tree` that reach modules or objects indirectly (sys.modules, importlib, eval, frames, ...), and their line."""
    found: dict[str, int] = {}
    parents = {id(child): parent for parent in _nodes(tree) for child in ast.iter_child_nodes(parent)}
    bound = _module_bindings(tree)
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and node.id in INDIRECT:
            _add(found, node, node.id)
        elif isinstance(node, ast.Attribute) and node.attr in INDIRECT:
            _add(found, node, node.attr)
        elif isinstance(node, ast.Name) and node.id in _BY_NAME and not _called(node, parents):
            _add(found, node, f"{node.id} used as a value")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BY_NAME:
            text = _text(node.args[1]) if len(node.args) >= 2 else None
            if text in INDIRECT or text == "sys":  # getattr(x, "__dict__"), getattr(t := torch, "sy" + "s")
                _add(found, node, text)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            _add(found, node, *(m for m in modules if m.split(".")[0] in INDIRECT))
            if isinstance(node, ast.ImportFrom) and node.module == "sys" and not node.level:
                _add(found, node, *(f"sys.{a.name}" for a in node.names if a.name not in SAFE_SYS))
        if _is_sys(node, bound):
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node:
                if parent.attr not in SAFE_SYS:
                    _add(found, parent, f"sys.{parent.attr}")
            elif not isinstance(parent, (ast.Import, ast.ImportFrom, ast.alias)):
                _add(found, node, "sys used as a value")
    reached = reached_modules(tree)
    _add_from(found, reached, INDIRECT)
    return found


def _add_from(found: dict[str, int], other: dict[str, int], names: frozenset[str]) -> None:
    for name, line in other.items():
        if name in names:
            found.setdefault(name, line)


def _called(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    return isinstance(parent, ast.Call) and parent.func is node


def _is_sys(node: ast.AST, bound: dict[str, list[str]]) -> bool:
    """Whether `node` stands for the sys module: a name bound to it by an import, or an attribute chain to it (torch.sys)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        chain = bound.get(node.id)
    elif isinstance(node, (ast.Attribute, ast.Call)):
        chain = _chain(node, bound)
    else:
        return False
    if not chain:
        return False
    return _value_of(chain) is sys


def _value_of(chain: list[str]) -> object:
    """The object a dotted path of loaded modules leads to (looked up, never run), or None."""
    import torch  # noqa: F401  (every student process has it loaded: its attributes are what a submission reaches)

    value = sys.modules.get(chain[0])
    for name in chain[1:]:
        if not isinstance(value, types.ModuleType):
            return None
        value = vars(value).get(name, sys.modules.get(f"{value.__name__}.{name}"))
    return value


def imported_modules(tree: ast.AST) -> dict[str, int]:
    """The top-level modules `tree` imports (relative imports as "."), and those it reaches through their attributes,
    with the line of each."""
    found: dict[str, int] = {}
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            _add(found, node, *(a.name.split(".")[0] for a in node.names))
        elif isinstance(node, ast.ImportFrom):
            _add(found, node, "." if node.level else (node.module or ".").split(".")[0])
    for name, line in reached_modules(tree).items():
        found.setdefault(name, line)
    return found


def reached_modules(tree: ast.AST) -> dict[str, int]:
    """Top-level modules other than its own that an imported module's attributes lead to (`torch.os` is os), and a line.

    `torch.serialization.pickle`, `from torch import os as o`, `getattr(torch, "sys")`: each name is looked up,
    never run, in the modules the grading process has loaded (the student's torch is the same); past a name
    not found there, any name of a standard-library module counts.
    """
    bound = _module_bindings(tree)
    found: dict[str, int] = {}
    for node in _nodes(tree):
        chains: list[list[str] | None]
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            chains = [[*node.module.split("."), a.name] for a in node.names]
        else:
            chains = [_chain(node, bound)] if isinstance(node, (ast.Attribute, ast.Call)) else []
        for chain in chains:
            if chain and len(chain) > 1:
                _add(found, node, *sorted(_modules_along(chain)))
    return found


def _module_bindings(tree: ast.AST) -> dict[str, list[str]]:
    """Local names bound by `import` to a module, as the dotted path they stand for (`import torch.nn as N`: torch.nn)."""
    bound = {}
    for node in _nodes(tree):
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
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
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
    for node in _nodes(tree):
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
    for node in _nodes(tree):
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
