"""The checks' handle on a submission's module: `gated.lstm_step(...)` runs in the exercise's student process.

A function that timed out once in a submission is not called again in that submission; a module
whose import timed out, or two of whose functions did, is not called at all: later checks fail at
once, so a submission that hangs costs about one time limit per exercise (two if every function loops).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import CheckBug, SandboxError
from grader.failures import StudentError
from grader.inside.wire import Inject, map_leaves
from grader.results import Outcome
from grader.sandbox.host import Arguments, Sandbox, StudentProcess, StudentTimeout
from grader.sandbox.services import Service, remotes
from grader.text import Text

if TYPE_CHECKING:
    import torch


class StudentModule:
    """Proxy for a submission's module: `proxy.fn(...)` runs `fn` in the student process."""

    def __init__(self, name: str, process: ExerciseProcess, device: torch.device):
        self._name = name
        self._process = process
        self._device = device

    def __getattr__(self, function: str) -> StudentFunction:
        if function.startswith("_"):
            raise AttributeError(function)
        return StudentFunction(self._name, function, self._process, self._device)


def memo(module: StudentModule) -> dict[str, tuple[bool, Any]]:
    """Results the checks of this submission's exercise share (`grader.checks.once`): a function here, not an
    attribute of the proxy, so that no name of the student's module is shadowed."""
    return module._process.memo


@dataclass(frozen=True)
class Call:
    """The arguments of one call of a student function, for `StudentFunction.many`: made by `call(...)`."""

    args: tuple[object, ...]
    kwargs: dict[str, object]


def call(*args: object, **kwargs: object) -> Call:
    """One call's arguments, as the function is called: `params.count_params.many([call("gru", 3, 5, num_layers=2)])`."""
    return Call(args, kwargs)


class StudentFunction:
    def __init__(self, module: str, function: str, process: ExerciseProcess, device: torch.device):
        self._module, self._function = module, function
        self._process, self._device = process, device

    def __call__(self, *args: object, **kwargs: object) -> Any:
        return self._run([Call(args, kwargs)], None)[0]["value"]

    def many(self, calls: Iterable[Call]) -> list[Any]:
        """`[fn(*c.args, **c.kwargs) for c in calls]`, the calls sent to the student process in one message.

        The same in every way but cost: they run one after another, the first that raises is the StudentError raised
        here (those after it are not run), they share the check's time limit, and a function that timed out is not
        called again. For the independent calls of a check that loops over configurations.
        """
        calls = list(calls)
        return [reply["value"] for reply in self._run(calls, None)] if calls else []

    def with_grad(self, cotangent: object, *args: object, **kwargs: object) -> tuple[Any, dict[str, Any]]:
        """Call, then backpropagate `cotangent` (same structure as the result) in the student process.

        Returns (value, grads): grads maps each keyword argument (positional ones as "arg0", ...)
        to the gradient of sum(value * cotangent) with respect to it, or None when none reaches it.
        """
        reply = self._run([Call(args, kwargs)], cotangent)[0]
        grads = reply.get("grads")
        if not (
            isinstance(grads, dict)
            and isinstance(grads.get("args"), list)
            and isinstance(grads.get("kwargs"), dict)
            and len(grads["args"]) == len(args)
            and set(grads["kwargs"]) <= set(kwargs)
            and all(_gradient_like(g) for g in [*grads["args"], *grads["kwargs"].values()])
        ):
            raise StudentError(f"{self._module}.{self._function}: malformed gradient reply", "梯度应答格式错误", outcome=Outcome.CRASHED)
        named = {f"arg{i}": g for i, g in enumerate(grads["args"])} | grads["kwargs"]
        return reply["value"], named

    def _run(self, calls: list[Call], cotangent: object) -> list[dict[str, Any]]:
        injects: list[Inject] = []
        sent = []
        for c in calls:
            services: list[Service] = []
            args = [remotes(v, services, injects) for v in c.args]
            kwargs = {k: remotes(v, services, injects) for k, v in c.kwargs.items()}
            sent.append(Arguments(args, kwargs, services))
        self._process.check_injects(injects)
        self._process.check_compiles(self._module)
        replies = self._process.call(self._module, self._function, sent, cotangent)
        if self._device.type == "cpu":  # where a reply's tensors already are
            return replies
        return [{k: _to_device(v, self._device) for k, v in reply.items()} for reply in replies]


def syntax_error(path: Path) -> dict[str, str] | None:
    """The student process's own import report for a file whose source is not valid Python, else None.

    Compiled, never run, in the grader; anything but a SyntaxError (a file that is missing, null bytes, a
    parser that gives up) is left to the import in the student process, which reports it as it does.
    """
    import warnings

    try:
        source = path.read_bytes()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a SyntaxWarning is the submission's business, never the grader's stderr
            compile(source, path.name, "exec", dont_inherit=True)
    except SyntaxError as e:
        return {"kind": "import", "message": f"SyntaxError: {e.msg}", "where": f"{path.name}, line {e.lineno}"}
    except Exception:  # noqa: BLE001 – ValueError, RecursionError, MemoryError: the import reports them
        return None
    return None


def _gradient_like(value: object, depth: int = 0) -> bool:
    """What the gradient of one argument can be, in the argument's own shape: None (none reaches it), a tensor,
    or a list or str-keyed dict of those (an injected module's is a dict of its parameters' gradients) – never
    anything a check would then have to guess about."""
    torch = sys.modules.get("torch")
    if value is None or (torch is not None and isinstance(value, torch.Tensor)):
        return True
    if depth >= 4:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) for k in value) and all(_gradient_like(v, depth + 1) for v in value.values())
    return isinstance(value, (list, tuple)) and all(_gradient_like(v, depth + 1) for v in value)


def _to_device(obj: object, device: torch.device) -> object:
    """Tensors of a reply moved to the checks' device (a reply holds tensors only if torch is loaded)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return obj
    return map_leaves(obj, lambda v: v.to(device) if isinstance(v, torch.Tensor) else v)


class ExerciseProcess:
    """One exercise's student process across that exercise's checks of one submission.

    Forked when a check first calls the submission, reused by later checks, and replaced by a fresh
    one after any failure; it receives the exercise's given course code only.
    """

    def __init__(self, sandbox: Sandbox | None, folder: Path, *, given: list[Path], missing: list[str]):
        from grader.inside.given import builder_names

        self._sandbox, self._folder, self._given = sandbox, folder, given
        self._builders = builder_names(given)
        self._missing = missing  # why a student file the process needs is absent: every call fails with it
        self._process: StudentProcess | None = None
        self._used = False
        self._syntax: dict[str, dict[str, str] | None] = {}  # module -> the import error its source gives, None if it compiles
        self.timed_out: set[str] = set()
        # Results checks share (grader.checks.once), for this submission's exercise: key -> (computed, value or failure).
        self.memo: dict[str, tuple[bool, Any]] = {}

    def prefetch(self, modules: list[str]) -> None:
        """Fork the process now and send it the imports of `modules` (those that compile), before any check asks."""
        modules = [m for m in modules if self._syntax_error(m) is None]
        if self._missing or not modules or self._process is not None:
            return
        try:
            self._process = self._open()
        except SandboxError:
            return  # the first check forks its process again, and reports what goes wrong then
        for module in modules:
            self._process.start_import(module)

    def check_compiles(self, module: str) -> None:
        """A file that does not compile fails as its import would, without a process: its SyntaxError and line."""
        error = self._syntax_error(module)
        if error is not None:
            raise StudentError.from_report(f"importing {module}.py", error)

    def _syntax_error(self, module: str) -> dict[str, str] | None:
        if module not in self._syntax:
            self._syntax[module] = syntax_error(self._folder / f"{module}.py")
        return self._syntax[module]

    def call(self, module: str, function: str, calls: list[Arguments], cotangent: object) -> list[dict[str, Any]]:
        """`module.function(...)` for each of `calls` in this exercise's student process, under the one timeout policy:
        a function that timed out is not called again, nor any function of a module whose import timed out or two of
        whose functions did (NOT_RUN, at once); a call that times out is recorded as such."""
        label = f"{module}.{function}"
        if label in self.timed_out:
            raise StudentError(
                Text(f"{label} was not run: it did not finish within the time limit in an earlier check", f"{label} 未运行：它在之前的检查中已超时"),
                outcome=Outcome.NOT_RUN,
            )
        if f"{module}.py" in self.timed_out:
            raise StudentError(
                Text(
                    f"{label} was not run: importing {module}.py did not finish within the time limit in an "
                    "earlier check (code at the top level of the file that never ends?)",
                    f"{label} 未运行：导入 {module}.py 在之前的检查中已超时（文件顶层有不会结束的代码？）",
                ),
                outcome=Outcome.NOT_RUN,
            )
        if sum(t.startswith(f"{module}.") for t in self.timed_out) >= 2:
            raise StudentError(
                Text(
                    f"{label} was not run: two functions of {module}.py did not finish within the time limit in earlier checks",
                    f"{label} 未运行：{module}.py 中已有两个函数在之前的检查中超时",
                ),
                outcome=Outcome.NOT_RUN,
            )
        try:
            return self.get().many(module, function, calls, cotangent)
        except StudentTimeout as e:
            self.timed_out.add(f"{e.importing}.py" if e.importing else label)
            raise

    def check_injects(self, injects: list[Inject]) -> None:
        """A check that injects code its exercise is not given is the check's bug, found before anything runs."""
        unknown = sorted({i.name for i in injects} - self._builders)
        if unknown:
            raise CheckBug(f"the check injects {', '.join(unknown)}, which this exercise's given code does not define")

    def begin_check(self) -> None:
        self._used = False

    def get(self) -> StudentProcess:
        """The live student process, forked (or reused) on a check's first call."""
        if self._missing:
            raise StudentError("; ".join(self._missing), outcome=Outcome.UNREADABLE)
        if not self._used:
            if self._process is None or not self._process.usable:
                if self._process is not None:
                    self._process.close()
                self._process = self._open()
            self._process.begin_check()
            self._used = True
        assert self._process is not None  # a check that used it holds it until end_check
        return self._process

    def _open(self) -> StudentProcess:
        """A fresh student process of this exercise (the sandbox is None where the run starts none: sheet-only checks)."""
        if self._sandbox is None:
            raise CheckBug("the check calls the submission's code, but this run starts no student process")
        return self._sandbox.open(self._folder, given=self._given)

    def end_check(self) -> str:
        """The check's share of the submission's output; a process that failed is not reused."""
        if not self._used or self._process is None:
            return ""
        output = self._process.output()
        if not self._process.usable:
            self._process.close()
            self._process = None
        return output

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None
