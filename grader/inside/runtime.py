"""The student process's runtime: import the submission, run the functions the grader asks for, reply with plain data.

Runs only in a student process, after isolation. Arguments may hold `Inject` records, which become
the exercise's given course code (`grader.inside.given`), and `Remote` records, which become handles on
course objects that stay in the grader (ex08's bench, ex10's trainer); gradients are vector-Jacobian
products taken here. Nothing this module reports is trusted: the grader checks every reply.
"""

from __future__ import annotations

import importlib.util
import linecache
import os
import sys
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from grader.inside import given, wire

if TYPE_CHECKING:
    import torch

# Bytes of an error message or traceback line kept from the submission.
_TEXT_LIMIT = 2000


class RemoteHandle:
    """A course object that stays in the grader: `call(method, **kwargs)` sends the call over the channel and waits
    for its answer. The grader answers only the methods the object declares, and believes nothing it is sent."""

    def __init__(self, channel: wire.Channel, index: int):
        self._channel, self._index = channel, index

    def call(self, method: str, **kwargs: object) -> Any:
        # the replies of a batch's earlier calls go first: the grader reads every message in order
        self._channel.send(wire.pack({wire.CALLBACK: self._index, "method": method, "kwargs": kwargs}))
        answer = cast("dict[str, Any]", self._channel.recv(deadline=None))  # the grader's: believed here
        if not answer["ok"]:
            raise RuntimeError(answer["message"])
        return answer["value"]


def forget_sources(paths: Iterable[str]) -> None:
    """Tell linecache that these source files, which this process cannot read, have no lines – as a module loader's
    source is kept, with no time to check it against – so that formatting a stack never looks for them on disk again.
    It had looked for each, frame after frame, in every stack formatted here: torch.manual_seed formats three (for the
    CUDA, XPU and MTIA seeds it queues), each about 25 failed lookups of the engine's own files below the call."""
    for path in paths:
        linecache.cache[path] = (0, None, [], path)


def serve(channel: wire.Channel, workspace: Path, request: dict[str, Any]) -> None:
    """Answer requests until the grader closes the channel.

    A request names a module, a function of it (None: import the module only) and its calls, each a pair of positional
    and keyword arguments, run one after another until one fails; each call run has a reply of its own, carrying the
    request's id plus its place in the batch, and the replies of one request are sent together.
    """
    sys.path.insert(0, str(workspace))
    import torch

    torch.set_num_threads(1)
    device = torch.device(request["device"])
    modules: dict[str, ModuleType] = {}
    me = os.getpid()
    while True:
        try:
            message = cast("dict[str, Any]", channel.recv(deadline=None))  # the grader's: believed here
        except (EOFError, OSError):
            return
        # on the CPU, arguments without course code or course objects in them are used as they came
        build = channel.records or device.type != "cpu"
        for place, (args, kwargs) in enumerate(message["calls"] if message["function"] is not None else [([], {})]):
            reply = _call(message, args, kwargs, modules, workspace, device, channel, build=build)
            if os.getpid() != me:  # a process the submission forked, come back here: only the runtime's own replies
                os._exit(0)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            reply["id"] = message["id"] + place
            try:
                data = wire.pack(reply)
            except Exception as e:  # WireError, or whatever the result's own methods raise (RecursionError, ...)
                reply = {"id": reply["id"], "ok": False, "error": {"kind": "unsendable", "message": f"{type(e).__name__}: {_text(e)}"}}
                data = wire.pack(reply)
            channel.write(data)  # packed now, so that what a later call changes in this result is not sent
            if not reply["ok"]:
                break
        channel.flush()


def _call(
    message: dict[str, Any],
    args: list[object],
    kwargs: dict[str, object],
    modules: dict[str, ModuleType],
    workspace: Path,
    device: torch.device,
    channel: wire.Channel,
    *,
    build: bool,
) -> dict[str, object]:
    """Run one requested call of the submission and return its result or what went wrong; with `build`, its arguments
    are moved to `device` and their Inject and Remote records built first."""
    module_name, function = message["module"], message["function"]
    try:
        module = modules.get(module_name) or _import(module_name, workspace)
    except _SubmissionError as e:
        return {"ok": False, "error": e.info}
    modules[module_name] = module
    if function is None:  # an import on its own
        return {"ok": True, "value": None, "grads": None}
    fn = getattr(module, function, None)
    if fn is None:
        return _error("missing", f"{module_name}.py has no function named '{function}'")
    if not callable(fn):
        return _error("missing", f"'{function}' in {module_name}.py is not a function")

    try:
        if build:
            args = [_to_device(v, device, channel) for v in args]
            kwargs = {k: _to_device(v, device, channel) for k, v in kwargs.items()}
    except ValueError as e:  # the grader checked its injects before sending: whatever this says is the submission's
        return _error("arguments", f"the grader sent arguments that could not be built: {e}")
    cotangent = message.get("cotangent")
    if cotangent is not None:
        args = [_require_grad(v) for v in args]
        kwargs = {k: _require_grad(v) for k, v in kwargs.items()}
    try:
        value = fn(*args, **kwargs)
        grads = None if cotangent is None else _gradients(value, _to_device(cotangent, device), args, kwargs)
    except BaseException as e:  # the submission may raise anything, SystemExit included
        return {"ok": False, "error": _exception_info(e, workspace)}
    return {"ok": True, "value": value, "grads": grads}


class _SubmissionError(Exception):
    def __init__(self, info: dict[str, object]):
        self.info = info


def _error(kind: str, message: str, where: str = "") -> dict[str, object]:
    return {"ok": False, "error": _report(kind, message, where)}


def _report(kind: str, message: str, where: str = "") -> dict[str, object]:
    return {"kind": kind, "message": message[:_TEXT_LIMIT], "where": where}


def _import(module_name: str, workspace: Path) -> ModuleType:
    path = workspace / f"{module_name}.py"
    if not path.is_file():
        raise _SubmissionError(_report("missing", f"{module_name}.py is missing"))
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        where = f"{module_name}.py, line {e.lineno}"
        raise _SubmissionError(_report("import", f"SyntaxError: {e.msg}", where)) from None
    except BaseException as e:
        info = _exception_info(e, workspace)
        info["kind"] = "import"
        raise _SubmissionError(info) from None
    return module


def _exception_info(e: BaseException, workspace: Path) -> dict[str, object]:
    """Type, message and the innermost line of the submission's own code where it was raised."""
    where = ""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if Path(frame.filename).parent == workspace:
            where = f"{Path(frame.filename).name}, line {frame.lineno}, in {frame.name}"
            break
    if isinstance(e, SystemExit):
        try:
            code = repr(e.code)[:_TEXT_LIMIT]
        except BaseException:  # a hostile __repr__
            code = "..."
        return {"kind": "exit", "message": f"called sys.exit({code})", "where": where}
    return {
        "kind": "exception",
        "type": type(e).__name__,
        "bases": [c.__name__ for c in type(e).__mro__],
        "message": _text(e),
        "where": where,
    }


def _text(e: BaseException) -> str:
    try:
        return str(e)[:_TEXT_LIMIT]
    except BaseException:  # a hostile __str__
        return "<message could not be read>"


def _to_device(obj: object, device: torch.device, channel: wire.Channel | None = None) -> object:
    """Tensors moved to `device`, each `Inject` replaced by the public course code it stands for, and each `Remote`
    by a handle that calls the grader over `channel`."""
    import torch

    def leaf(v: object) -> object:
        if isinstance(v, torch.Tensor):
            return v.to(device)
        if isinstance(v, wire.Inject):
            return given.build(wire.Inject(v.name, {k: _to_device(a, device, channel) for k, a in v.args.items()}), device)
        if isinstance(v, wire.Remote) and channel is not None:
            return RemoteHandle(channel, v.index)
        return v

    return wire.map_leaves(obj, leaf)


def _require_grad(obj: object) -> object:
    """Fresh leaf copies of every floating-point tensor, so gradients reach each input."""
    import torch

    def leaf(v: object) -> object:
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            return v.detach().clone().requires_grad_(True)
        return v

    return wire.map_leaves(obj, leaf)


def _gradients(value: object, cotangent: object, args: list[object], kwargs: dict[str, object]) -> dict[str, object]:
    """Vector-Jacobian product: gradients of sum(value * cotangent) w.r.t. every tensor input.

    An input the output does not depend on (or reaches only through `.detach()`) gets None.
    """
    import torch

    leaves: list[torch.Tensor] = []

    def pair(out: object, cot: object, where: str) -> None:
        if isinstance(cot, torch.Tensor):
            if not isinstance(out, torch.Tensor) or out.shape != cot.shape:
                raise ValueError(f"cannot take gradients: {where} is not a tensor of shape {tuple(cot.shape)}")
            if out.requires_grad:
                leaves.append((out * cot).sum())
        elif isinstance(cot, dict):
            if not isinstance(out, dict):
                raise ValueError(f"cannot take gradients: {where} is not a dict")
            for k, v in cot.items():
                if k not in out:
                    raise ValueError(f"cannot take gradients: {where} has no key {k!r}")
                pair(out[k], v, f"{where}[{k!r}]")

    pair(value, cotangent, "the result")
    inputs = [t for t in _tensors(args) + _tensors(kwargs) if t.requires_grad]
    grads: Sequence[torch.Tensor | None] = [None] * len(inputs)
    if leaves and inputs:
        grads = torch.autograd.grad(sum(leaves), inputs, allow_unused=True)
    found = dict(zip(map(id, inputs), grads))
    return {"args": _grads_like(args, found), "kwargs": _grads_like(kwargs, found)}


def _tensors(obj: object) -> list[torch.Tensor]:
    """Every tensor input, an injected cell's parameters included."""
    import torch

    found: list[torch.Tensor] = []
    for v in wire.leaves(obj):
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, torch.nn.Module):
            found += v.parameters()
    return found


def _grads_like(obj: object, found: dict[int, torch.Tensor | None]) -> object:
    """The gradients in the shape of the inputs: None where no gradient (or no tensor) is."""
    import torch

    def leaf(v: object) -> object:
        if isinstance(v, torch.Tensor):
            return found.get(id(v))
        if isinstance(v, torch.nn.Module):
            return {name: found.get(id(p)) for name, p in v.named_parameters()}
        return None

    return wire.map_leaves(obj, leaf)
