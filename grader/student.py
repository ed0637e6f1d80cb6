"""The student side: a clean server process that forks one student process per check.

Started by `grader.sandbox` as `python -m grader.student FD`. It imports torch and this module
only – never course material – so a fork of it holds nothing a submission may not see. Each forked
child imports the submission's module from its workspace copy and answers `call` requests with
plain data (`grader.wire`). Nothing the child says is trusted: the grader checks every reply.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import signal
import socket
import sys
import traceback
from pathlib import Path

from grader import wire

# Bytes of an error message or traceback line kept from the submission.
_TEXT_LIMIT = 2000


def serve_forks(control: socket.socket) -> None:
    """Zygote loop: fork a student process per `fork` request, reap it on `reap`; exit when the grader goes."""
    import torch  # noqa: F401 - preloaded once so each fork starts in milliseconds
    import safetensors.torch  # noqa: F401

    control.send(json.dumps({"ready": True}).encode())
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "fork":
            pid = os.fork()
            if pid == 0:
                control.close()
                try:
                    _student_process(socket.socket(fileno=fds[0]), request)
                finally:
                    os._exit(0)
            os.close(fds[0])
            control.send(json.dumps({"pid": pid}).encode())
        elif request["op"] == "reap":
            _, status = os.waitpid(request["pid"], 0)
            control.send(json.dumps({"status": _describe_status(status)}).encode())


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return f"killed by signal {sig} ({signal.Signals(sig).name})"
    return f"exit code {os.WEXITSTATUS(status)}"


def _student_process(channel: socket.socket, request: dict) -> None:
    """Set up one student process (own session, limits, captured output) and serve calls."""
    os.setsid()
    _limit(request["limits"])
    scratch = Path(request["scratch"])
    out = os.open(scratch / "output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.chdir(scratch)
    workspace = request["workspace"]
    sys.path.insert(0, workspace)

    import torch

    torch.set_num_threads(1)
    device = torch.device(request["device"])
    modules: dict = {}
    while True:
        try:
            message = wire.recv(channel, timeout=None, limit=request["limits"]["message_bytes"])
        except (EOFError, OSError):
            return
        reply = _call(message, modules, Path(workspace), device)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        try:
            data = wire.pack(reply)
        except wire.WireError as e:
            data = wire.pack({"ok": False, "error": {"kind": "unsendable", "message": str(e)}})
        channel.sendall(data)


def _limit(limits: dict) -> None:
    """Resource limits of the student process (the sandbox issue tightens these further)."""
    mib = 1 << 20
    resource.setrlimit(resource.RLIMIT_DATA, (limits["memory_mib"] * mib,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_seconds"],) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _call(message: dict, modules: dict, workspace: Path, device) -> dict:
    """Run one requested function of the submission and return its result or what went wrong."""
    module_name, function = message["module"], message["function"]
    try:
        module = modules.get(module_name) or _import(module_name, workspace)
    except _SubmissionError as e:
        return {"ok": False, "error": e.info}
    modules[module_name] = module
    fn = getattr(module, function, None)
    if fn is None:
        return _error("missing", f"{module_name}.py has no function named '{function}'")
    if not callable(fn):
        return _error("missing", f"'{function}' in {module_name}.py is not a function")

    args = _to_device(message["args"], device)
    kwargs = _to_device(message["kwargs"], device)
    cotangent = message.get("cotangent")
    if cotangent is not None:
        args, kwargs = _require_grad(args), _require_grad(kwargs)
    try:
        value = fn(*args, **kwargs)
        grads = None if cotangent is None else _gradients(value, _to_device(cotangent, device), args, kwargs)
    except BaseException as e:  # the submission may raise anything, SystemExit included
        return {"ok": False, "error": _exception_info(e, workspace)}
    return {"ok": True, "value": value, "grads": grads}


class _SubmissionError(Exception):
    def __init__(self, info: dict):
        self.info = info


def _error(kind: str, message: str, where: str = "") -> dict:
    return {"ok": False, "error": {"kind": kind, "message": message[:_TEXT_LIMIT], "where": where}}


def _import(module_name: str, workspace: Path):
    path = workspace / f"{module_name}.py"
    if not path.is_file():
        raise _SubmissionError(_error("missing", f"{module_name}.py is missing")["error"])
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        where = f"{module_name}.py, line {e.lineno}"
        raise _SubmissionError(_error("import", f"SyntaxError: {e.msg}", where)["error"]) from None
    except BaseException as e:
        info = _exception_info(e, workspace)
        info["kind"] = "import"
        raise _SubmissionError(info) from None
    return module


def _exception_info(e: BaseException, workspace: Path) -> dict:
    """Type, message and the innermost line of the submission's own code where it was raised."""
    where = ""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if Path(frame.filename).parent == workspace:
            where = f"{Path(frame.filename).name}, line {frame.lineno}, in {frame.name}"
            break
    if isinstance(e, SystemExit):
        return {"kind": "exit", "message": f"called sys.exit({e.code!r})"[:_TEXT_LIMIT], "where": where}
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


def _to_device(obj, device):
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, list):
        return [_to_device(v, device) for v in obj]
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def _require_grad(obj):
    """Fresh leaf copies of every floating-point tensor, so gradients reach each input."""
    import torch

    if isinstance(obj, torch.Tensor) and obj.is_floating_point():
        return obj.detach().clone().requires_grad_(True)
    if isinstance(obj, list):
        return [_require_grad(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _require_grad(v) for k, v in obj.items()}
    return obj


def _gradients(value, cotangent, args, kwargs) -> dict:
    """Vector-Jacobian product: gradients of sum(value * cotangent) w.r.t. every tensor input.

    An input the output does not depend on (or reaches only through `.detach()`) gets None.
    """
    import torch

    leaves = []

    def pair(out, cot, where):
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
    grads = [None] * len(inputs)
    if leaves and inputs:
        grads = torch.autograd.grad(sum(leaves), inputs, allow_unused=True)
    found = dict(zip(map(id, inputs), grads))
    return {"args": _grads_like(args, found), "kwargs": _grads_like(kwargs, found)}


def _tensors(obj) -> list:
    import torch

    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, list):
        return [t for v in obj for t in _tensors(v)]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in _tensors(v)]
    return []


def _grads_like(obj, found: dict):
    import torch

    if isinstance(obj, torch.Tensor):
        return found.get(id(obj))
    if isinstance(obj, list):
        return [_grads_like(v, found) for v in obj]
    if isinstance(obj, dict):
        return {k: _grads_like(v, found) for k, v in obj.items()}
    return None


if __name__ == "__main__":
    serve_forks(socket.socket(fileno=int(sys.argv[1])))
