"""Loading the course code an exercise's student process receives: `course/<id>/given.py`, and `course/<id>/given_hidden.py`
for hidden checks (grader.inside.layout).

Where one exercise builds on another (ex07 runs a step function, ex06 maps a torch cell, ex08 and
ex10 drive a trainer), the grader injects this code rather than the student's own earlier work, so
one mistake is not charged twice. Each module is compiled once by the grading process (`compiled`) and sent to
the student process of its exercise alone, which runs it after the fork and before isolation (`load`) – never the
zygote, which does not even learn its name – so no other exercise's process holds it. A module registers builders
with `@builder` (an `Inject` names one) and may define `prepare()`, run before the submission is imported (ex05 and
ex06 make the library recurrent cells unavailable there). What runs in the student process is not trusted: checks
verify every reply.
"""

from __future__ import annotations

import ast
import base64
import marshal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn, TypeVar

from grader.inside.recurrent_ops import CELL_OPS, SEQUENCE_OPS

if TYPE_CHECKING:
    import torch

    from grader.inside.wire import Inject

BUILDERS: dict[str, Callable[..., object]] = {}
Builder = TypeVar("Builder", bound=Callable[..., object])


def builder(fn: Builder) -> Builder:
    BUILDERS[fn.__name__] = fn
    return fn


def builder_names(paths: list[Path]) -> set[str]:
    """The builders these modules define, read from their source (the grading process never runs them for this)."""
    return {name for path in paths for name in _read(path.resolve()).builders}


def compiled(paths: Sequence[Path]) -> list[list[str]]:
    """These modules as `load` takes them in a student process: each one's path and its code, compiled here (the
    grading process never runs it) and marshalled, in base64 – the same interpreter runs both sides."""
    return [[str(path), _read(path).code] for path in map(Path.resolve, paths)]


@dataclass(frozen=True)
class _Source:
    builders: frozenset[str]
    code: str


def _read(path: Path) -> _Source:
    """A given file parsed and compiled once while it stays as it is (a student process is made per exercise and
    submission, and each would otherwise compile it again)."""
    found = path.stat()
    key = (path, found.st_mtime_ns, found.st_size)
    if key not in _READ:
        tree = ast.parse(path.read_bytes(), filename=str(path))
        builders = frozenset(
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "builder" for d in node.decorator_list)
        )
        code = compile(tree, str(path), "exec", dont_inherit=True)  # as an import compiles it: not this file's __future__
        _READ[key] = _Source(builders, base64.b64encode(marshal.dumps(code)).decode("ascii"))
    return _READ[key]


_READ: dict[tuple[Path, int, int], _Source] = {}  # (given file, its mtime and size) -> its builders and code


def load(modules: list[list[str]]) -> None:
    """Run the modules `compiled` made (in a student process), registering their builders and running their `prepare()`."""
    for path, code in modules:
        name = f"given_{Path(path).stem}_{Path(path).parent.name}"  # given_given_hidden_ex07: the part, then the exercise id
        module = ModuleType(name)
        module.__file__ = path
        sys.modules[name] = module
        exec(marshal.loads(base64.b64decode(code)), module.__dict__)
        if hasattr(module, "prepare"):
            module.prepare()


def build(inject: Inject, device: torch.device) -> object:
    """The object an `Inject` stands for; ValueError for a name this exercise's given code does not define."""
    if inject.name not in BUILDERS:
        raise ValueError(f"unknown injected helper {inject.name!r}")
    return BUILDERS[inject.name](device=device, **inject.args)


def block_library_cells(exercise_id: str) -> None:
    """Make every library recurrent cell raise in this process: overridden at the dispatcher, below every Python name
    (torch.ao.nn.quantizable's and torch._decomp's, which are Python over other operators, at their steps).

    The registrations belong to a dispatcher handle that no Python object refers to: its one reference is
    leaked on purpose, and such handles are not tracked by gc, so student code cannot find it and reset it
    (which would lift the block, as `torch.library.Library._destroy` does). The keys are also marked taken,
    so that `torch.library` refuses to register another kernel over them.
    """
    import ctypes

    import torch
    import torch.library

    def blocked(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"{exercise_id}: library recurrent cells are unavailable in this exercise; compute the gates yourself")

    handle = torch._C._dispatch_library("IMPL", "aten", "", __file__, 0)
    for op in (*CELL_OPS, *(f"{op}.{overload}" for op in SEQUENCE_OPS for overload in ("input", "data"))):
        for key in ("CompositeImplicitAutograd", "CPU", "CUDA", "Autograd"):
            try:
                handle.impl(op, key, blocked, False)
            except RuntimeError:
                pass  # this op has no kernel for that key
            torch.library._impls.add(f"aten/{op}/{key}")
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(handle))
    # torch.ao.nn.quantizable's LSTM cell is Python over nn.Linear, no operator of its own, and a submission reaches it
    # without naming it (the classes of torch.ao.quantization.get_default_custom_config_dict()): its step raises too.
    from torch.ao.nn.quantizable.modules import rnn as quantizable

    quantizable.LSTMCell.forward = blocked
    # So are torch._decomp's RNN/GRU/LSTM, Python over F.linear that torch.export.default_decompositions() hands out
    # unnamed (its values for aten.lstm.input, aten.gru.input, ...): the steps they look up by name when called raise.
    from torch._decomp import decompositions

    for step in ("rnn_cell", "rnn_cell_data", "lstm_cell", "gru_cell", "gru_cell_data"):
        setattr(decompositions, step, blocked)
