"""What hidden and public checks use: `check`, `Fail`, the student and reference seams, tensor asserts.

A check is an ordinary pytest test in the grading process:

    gated = student_module("gated")        # the submission's gated.py, in a student process
    reference = reference_module("gated")  # solutions/<folder>/gated.py, in this process

    @check(points=2)
    def test_lstm_values(gated, reference, device):
        '''lstm_step matches the reference in float64.'''
        ...

Its docstring's first line names it in the feedback; `Fail` (or a plain assertion message) says
what is wrong. torch is imported lazily so that quiz checks stay light.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from grader.wire import Inject, map_leaves


class Fail(Exception):
    """A check's verdict that the submission is wrong; `en`/`zh` is the feedback, `earned` partial points."""

    def __init__(self, en: str, zh: str | None = None, *, earned: float = 0.0):
        super().__init__(en)
        self.en = en
        self.zh = zh or en
        self.earned = earned

    def text(self, language: str) -> str:
        return self.zh if language == "zh" else self.en


class StudentError(Fail):
    """A failure inside the student process: it raised, hung, died, or sent back junk."""

    def __init__(self, en: str, zh: str | None = None, *, types: tuple[str, ...] = ()):
        super().__init__(en, zh)
        self.types = types

    @classmethod
    def from_report(cls, label: str, error: dict) -> StudentError:
        """Build the feedback from the student process's own (untrusted, truncated) error report."""
        kind = error.get("kind")
        message = _quoted(error.get("message"))
        where = _quoted(error.get("where"), limit=120, quote="")
        at = f" at {where}" if where else ""
        zh_at = f"（位置：{where}）" if where else ""
        if kind == "exception":
            name = _quoted(error.get("type"), limit=60, quote="")
            bases = error.get("bases")
            bases = bases[:32] if isinstance(bases, list) else [name]
            types = tuple(_quoted(b, limit=60, quote="") for b in bases if isinstance(b, str))
            return cls(
                f"{label} raised {name}{at}; the submission's message: {message}",
                f"{label} 抛出 {name}{zh_at}；提交代码给出的信息：{message}",
                types=types,
            )
        if kind == "import":
            return cls(
                f"{label}: the submission's file could not be imported{at}; its error: {message}",
                f"{label}：无法导入提交的文件{zh_at}；错误信息：{message}",
            )
        if kind == "exit":
            return cls(f"{label} tried to exit the process{at}: {message}", f"{label} 试图退出进程{zh_at}：{message}")
        if kind == "missing":
            return cls(f"{label}: {message}", f"{label}：{message}")
        if kind == "unsendable":
            return cls(f"{label} returned a value the grader cannot accept: {message}", f"{label} 的返回值无法被评分程序接收：{message}")
        return cls(f"{label} failed: {message}", f"{label} 失败：{message}")

    def raised(self, exception_name: str) -> bool:
        """Whether the submission raised `exception_name` (or a subclass of it)."""
        return exception_name in self.types


def _quoted(text: object, *, limit: int = 300, quote: str = '"') -> str:
    """Text the submission controls: one printable line, truncated, marked as its own by quotes."""
    if not isinstance(text, str):
        return "<none>" if quote else ""
    text = " ".join(printable(text).split())
    if len(text) > limit:
        text = text[:limit] + " [...]"
    return f"{quote}{text}{quote}"


_CONTROL = {c: "?" for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


def printable(text: str) -> str:
    """`text` with control characters (terminal escapes included) replaced by "?"; newlines and tabs kept."""
    return text.translate(_CONTROL)


def check(points: float) -> pytest.MarkDecorator:
    """Mark a test as a graded check worth `points`."""
    if points < 0:
        raise ValueError(f"check points must not be negative, got {points}")
    return pytest.mark.check(points=points)


def partial(points: float, parts) -> None:
    """Run every part (a call that raises Fail when wrong); fail with all their messages and a share of `points`."""
    failures = []
    for part in parts:
        try:
            part()
        except Fail as failure:
            failures.append(failure)
    if failures:
        earned = points * (len(parts) - len(failures)) / len(parts)
        raise Fail("\n".join(f.en for f in failures), "\n".join(f.zh for f in failures), earned=earned)


def inject(name: str, **args) -> Inject:
    """An argument the student process replaces with public course code (grader.injected), e.g. a torch cell."""
    return Inject(name, args)


def student_module(name: str):
    """A fixture named `name`: the submission's `name.py`, run in this check's student process."""

    @pytest.fixture(name=name)
    def fixture(student_process, device):
        return StudentModule(name, student_process, device)

    return fixture


def reference_module(name: str):
    """A fixture `reference`: the reference `name.py` from `solutions/`, imported in the grading process."""

    @pytest.fixture(name="reference")
    def fixture(exercise):
        return _import_reference(exercise.solution_dir / f"{name}.py")

    return fixture


def _import_reference(path: Path):
    key = f"_reference_{abs(hash(str(path)))}_{path.stem}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[key] = module
    return sys.modules[key]


class StudentModule:
    """Proxy for a submission's module: `proxy.fn(...)` runs `fn` in the student process."""

    def __init__(self, name: str, process, device):
        self._name = name
        self._process = process
        self._device = device

    def __getattr__(self, function: str) -> StudentFunction:
        if function.startswith("_"):
            raise AttributeError(function)
        return StudentFunction(self._name, function, self._process, self._device)


class StudentFunction:
    def __init__(self, module: str, function: str, process, device):
        self._module, self._function = module, function
        self._process, self._device = process, device

    def __call__(self, *args, **kwargs):
        return self._run(list(args), kwargs, None)["value"]

    def with_grad(self, cotangent, *args, **kwargs):
        """Call, then backpropagate `cotangent` (same structure as the result) in the student process.

        Returns (value, grads): grads maps each keyword argument (positional ones as "arg0", ...)
        to the gradient of sum(value * cotangent) with respect to it, or None when none reaches it.
        """
        reply = self._run(list(args), kwargs, cotangent)
        grads = reply.get("grads")
        if not isinstance(grads, dict) or not isinstance(grads.get("args"), list) or not isinstance(grads.get("kwargs"), dict):
            raise StudentError(f"{self._module}.{self._function}: malformed gradient reply", "梯度应答格式错误")
        named = {f"arg{i}": g for i, g in enumerate(grads["args"])} | grads["kwargs"]
        return reply["value"], named

    def _run(self, args: list, kwargs: dict, cotangent) -> dict:
        reply = self._process.get().call(self._module, self._function, args, kwargs, cotangent)
        return _to_device(reply, self._device)


def _to_device(obj, device):
    """Tensors of a reply moved to the checks' device (a reply holds tensors only if torch is loaded)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return obj
    return map_leaves(obj, lambda v: v.to(device) if isinstance(v, torch.Tensor) else v)


def expect_tensor(value: object, *, name: str, shape: tuple[int, ...], dtype):
    """`value` itself, after checking it is a tensor of exactly this shape and dtype (no broadcasting)."""
    import torch

    if not isinstance(value, torch.Tensor):
        raise Fail(f"{name}: expected a tensor, got {type(value).__name__}", f"{name}：应为张量，实际为 {type(value).__name__}")
    if tuple(value.shape) != tuple(shape):
        raise Fail(
            f"{name}: expected shape {tuple(shape)}, got {tuple(value.shape)}",
            f"{name}：形状应为 {tuple(shape)}，实际为 {tuple(value.shape)}",
        )
    if value.dtype != dtype:
        raise Fail(f"{name}: expected dtype {dtype}, got {value.dtype}", f"{name}：数据类型应为 {dtype}，实际为 {value.dtype}")
    return value


def assert_close(actual: object, expected, *, name: str, rtol: float, atol: float) -> None:
    """Fail unless `actual` has `expected`'s shape and dtype and |a - e| <= atol + rtol |e| everywhere."""
    import torch

    actual = expect_tensor(actual, name=name, shape=tuple(expected.shape), dtype=expected.dtype)
    actual = actual.to(expected.device)
    if not torch.isfinite(actual).all() and torch.isfinite(expected).all():
        raise Fail(f"{name}: contains NaN or infinity", f"{name}：含有 NaN 或无穷大")
    if not torch.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        err = (actual - expected).abs()
        worst = tuple(int(i) for i in torch.unravel_index(torch.nan_to_num(err, nan=float("inf")).argmax(), err.shape))
        raise Fail(
            f"{name}: wrong values (largest error {err.max().item():.3g} at index {worst}; rtol={rtol:g}, atol={atol:g})",
            f"{name}：数值错误（最大误差 {err.max().item():.3g}，位于索引 {worst}；rtol={rtol:g}，atol={atol:g}）",
        )


def expect_kind(value: object, *, name: str, kinds: tuple[type, ...] = (), among: tuple = (), none: bool = False):
    """`value` itself, after checking it is one of `among`, an instance of `kinds` or (when `none`) None.

    A bool counts as neither int nor float here. Checks run this on a student's value before hashing,
    sorting, indexing or comparing it, so that an odd value is the student's Fail, not a grader crash.
    """
    if value is None and none:
        return value
    if any(type(value) is type(a) and value == a for a in among):
        return value
    if isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool)):
        return value
    wanted = [repr(a) for a in among] + [k.__name__ for k in kinds] + (["None"] if none else [])
    got = type(value).__name__
    if isinstance(value, (str, int, float)):
        got += " " + _quoted(repr(value), limit=40, quote="")
    raise Fail(f"{name}: expected {' or '.join(wanted)}, got {got}", f"{name}：应为 {' 或 '.join(wanted)}，实际为 {got}")


def expect_row(row: object, kinds: dict[str, dict], *, name: str) -> dict:
    """`row` itself, after checking it is a dict with every key of `kinds`, each value as `expect_kind(**kinds[key])` wants."""
    if not isinstance(row, dict):
        raise Fail(f"{name}: expected a dict, got {type(row).__name__}", f"{name}：应为 dict，实际为 {type(row).__name__}")
    missing = [k for k in kinds if k not in row]
    if missing:
        raise Fail(f"{name} lacks key(s) {', '.join(missing)}", f"{name} 缺少键 {', '.join(missing)}")
    for key, kind in kinds.items():
        expect_kind(row[key], name=f"{name}[{key!r}]", **kind)
    return row


def choices(answers, reference_answers: dict, points: float, mistakes: dict[str, dict], *,
            options: tuple[str, ...] = ("A", "B", "C", "D")) -> None:
    """Grade each multiple-choice key of `mistakes` (wrong option → (en, zh) diagnosis), `points` shared per key."""
    partial(points, [lambda key=key, wrong=wrong: answers.choice(key, reference_answers[key], options, mistakes=wrong)
                     for key, wrong in mistakes.items()])


def expect_value_errors(points: float, cases: dict, *, fn: str = "") -> None:
    """Each case (label → a call into the submission) must raise ValueError; `points` shared per case, misses listed.

    A stub's NotImplementedError is passed on, so that an unstarted exercise says so.
    """
    missed = []
    for label, call in cases.items():
        try:
            got = call()
            outcome = _quoted(f"returned {got!r}", limit=40, quote="")
        except StudentError as e:
            if e.raised("ValueError"):
                continue
            if e.raised("NotImplementedError"):
                raise
            outcome = e.types[0] if e.types else "the process failed"
        missed.append(f"{label} ({outcome})")
    if missed:
        raise Fail(f"{fn + ' raised ' if fn else ''}no ValueError for: {'; '.join(missed)}",
                   f"{fn + ' 在' if fn else ''}以下情况没有抛出 ValueError：{'; '.join(missed)}",
                   earned=round(points * (len(cases) - len(missed)) / len(cases), 2))
