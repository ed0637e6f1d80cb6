"""The check author's API: `check`, `Fail`, the student and reference seams, tensor asserts.

A check is an ordinary pytest test in the grading process:

    gated = student_module("gated")        # the submission's gated.py, in a student process
    reference = reference_module("gated")  # solutions/<folder>/gated.py, in this process

    @check(points=2)
    def test_lstm_values(gated, reference, device):
        '''lstm_step matches the reference in float64
        lstm_step 在 float64 下与参考实现一致'''
        ...

Its docstring's first line names it in the feedback in English, its second line in Chinese
(`title`); `Fail` (or a plain assertion message) says what is wrong, and `Fail(..., share=0.5)` keeps half the check's points: points are declared once,
on the decorator. torch is imported lazily so that quiz checks stay light.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict, TypeVar

import pytest

from grader import course_modules
from grader.failures import Fail, StudentError
from grader.grading.answers import AnswerSheet, Boolean, Choice, Diagnosis, Form, Formula, Integer, Number, Shape
from grader.grading.expr import Domain, UndefinedError, evaluate, parse
from grader.grading.numbers import Answers
from grader.inside import layout
from grader.inside.wire import Inject
from grader.results import Outcome
from grader.sandbox.proxy import ExerciseProcess, StudentModule, call, memo
from grader.sandbox.services import Refusal, Service
from grader.text import Text, quoted, title

if TYPE_CHECKING:
    import ast

    import torch
    from _pytest.fixtures import FixtureFunctionDefinition

    from grader.course import Exercise

__all__ = [
    "Answers",
    "Boolean",
    "Choice",
    "Fail",
    "Formula",
    "Integer",
    "Number",
    "Outcome",
    "Refusal",
    "Service",
    "Shape",
    "StudentError",
    "Text",
    "assert_close",
    "agrees_with_finite_differences",
    "call",
    "carried_forward",
    "check",
    "check_sheet_form",
    "choices",
    "course_code",
    "course_part",
    "expect_kind",
    "expect_row",
    "expect_tensor",
    "expect_value_errors",
    "inject",
    "once",
    "own_formula",
    "own_number",
    "parse_source",
    "partial",
    "quoted",
    "reference_module",
    "remembered",
    "require",
    "student_module",
    "title",
]


def check(points: float) -> pytest.MarkDecorator:
    """Mark a test as a graded check worth `points`."""
    if points < 0:
        raise ValueError(f"check points must not be negative, got {points}")
    return pytest.mark.check(points=points)


def require(ok: object, en: str, zh: str) -> None:
    """A public check's assertion with its message in both languages: Fail(en, zh) unless `ok`."""
    if not ok:
        raise Fail(en, zh)


def partial(parts: Sequence[Callable[[], object]]) -> None:
    """Run every part (a call that raises Fail when wrong); fail with all their messages, keeping the share of parts right."""
    failures: list[Fail] = []
    for part in parts:
        try:
            part()
        except Fail as failure:
            failures.append(failure)
    if failures:
        kept = sum(f.share for f in failures)
        raise Fail(
            Text.join("\n", [f.message for f in failures]),
            share=(len(parts) - len(failures) + kept) / len(parts),
            diagnosis=[d for f in failures for d in f.diagnosis],
        )


def inject(name: str, **args: object) -> Inject:
    """An argument the student process replaces with the exercise's given course code (grader.inside.given), e.g. a torch cell."""
    return Inject(name, args)


T = TypeVar("T")


def once(module: StudentModule, key: str, compute: Callable[[], T]) -> T:
    """`compute()` the first time a check of this submission's exercise asks for `key`; later checks get a copy
    of the same value (or the same failure) without running the submission again.

    For checks that judge different things in one result of the same call: the submission is run
    once, as it would be by a student who calls it once, and every such check judges that run.
    """
    import copy

    shared = memo(module)
    if key not in shared:
        try:
            shared[key] = (True, compute())
        except (Fail, StudentError) as e:
            shared[key] = (False, e)
    ok, value = shared[key]
    if not ok:
        raise value
    result: T = copy.deepcopy(value)
    return result


R = TypeVar("R")
REMEMBERED = 64  # results one `remembered` function keeps (the least recently used go first)


def remembered(function: Callable[..., R]) -> Callable[..., R]:
    """`function` (deterministic: the same arguments give the same result) with its results kept across the submissions
    a grading process grades, each under a digest of its arguments' content – tensors by dtype, shape and bytes – and
    handed out as a copy. For the course's own computations on what a student process sent (a real tiny training run
    on the weights it sent, a trained model's logits): a submission that sends what an earlier one sent costs no
    second run, and one that sends anything else gets a run of its own."""
    import collections
    import copy

    kept: collections.OrderedDict[bytes, R] = collections.OrderedDict()

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> R:
        key = _digest((args, sorted(kwargs.items())))
        if key in kept:
            kept.move_to_end(key)
        else:
            kept[key] = function(*args, **kwargs)
            if len(kept) > REMEMBERED:
                kept.popitem(last=False)
        return copy.deepcopy(kept[key])

    return wrapper


def _digest(value: object) -> bytes:
    """A digest of `value`'s content: plain values by type and repr, tensors by dtype, shape and bytes, containers by
    their items in order."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)

    def feed(v: object) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous()
            h.update(f"tensor {t.dtype} {tuple(t.shape)}|".encode())
            h.update(t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        elif isinstance(v, (list, tuple)):
            h.update(f"{type(v).__name__} {len(v)}[".encode())
            for item in v:
                feed(item)
            h.update(b"]")
        elif isinstance(v, dict):
            h.update(f"dict {len(v)}{{".encode())
            for k, item in v.items():
                feed(k)
                feed(item)
            h.update(b"}")
        elif v is None or isinstance(v, (bool, int, float, str, bytes)):
            h.update(f"{type(v).__name__} {v!r}|".encode())
        else:
            raise TypeError(f"remembered: cannot key an argument of type {type(v).__name__}")

    feed(value)
    return h.digest()


def parse_source(student_source: Callable[[str], str], name: str) -> ast.Module:
    """The syntax tree of a submitted file (read, never run); a syntax error is the student's Fail, naming the line."""
    import ast

    try:
        return ast.parse(student_source(name))
    except SyntaxError as e:
        raise Fail(f"{name}, line {e.lineno}: SyntaxError: {e.msg}", f"{name} 第 {e.lineno} 行：语法错误：{e.msg}", outcome=Outcome.NOT_IMPORTED) from None
    except ValueError as e:  # null bytes
        raise Fail(f"{name}: not valid Python source: {e}", f"{name}：不是有效的 Python 源代码：{e}", outcome=Outcome.NOT_IMPORTED) from None


def course_code(path: Path) -> ModuleType:
    """A course module (given code, never a submission) imported into the grading process, e.g. to compute expected values."""
    return course_modules.load(path)


def course_part(exercise_id: str, name: str, *, near: str) -> ModuleType:
    """The module `name` of an exercise's folder in the course tree (`course/<id>/<name>`: its given code, a policy or
    a trainer its checks share), imported into the grading process, e.g. to run a trainer for expected values. `near`
    is the calling checks' own `__file__`: the course tree is the one holding them."""
    return course_modules.load(layout.part(layout.root_of(Path(near)), exercise_id, name))


def student_module(name: str) -> FixtureFunctionDefinition:
    """A fixture named `name`: the submission's `name.py`, run in this check's student process."""

    @pytest.fixture(name=name)
    def fixture(exercise_process: ExerciseProcess, device: torch.device) -> StudentModule:
        return StudentModule(name, exercise_process, device)

    return fixture


def reference_module(name: str) -> FixtureFunctionDefinition:
    """A fixture `reference`: the reference `name.py` from `solutions/`, imported in the grading process."""

    @pytest.fixture(name="reference")
    def fixture(exercise: Exercise) -> ModuleType:
        return course_modules.load(exercise.solution_dir / f"{name}.py")

    return fixture


def _named(name: str | Text) -> tuple[str, str]:
    """A value's name in messages, in English and Chinese: code (`lstm_step()['h']`) is the same in both."""
    return (name.en, name.zh) if isinstance(name, Text) else (name, name)


def expect_tensor(value: object, *, name: str | Text, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """`value` itself, after checking it is a tensor of exactly this shape and dtype (no broadcasting)."""
    import torch

    en, zh = _named(name)
    if not isinstance(value, torch.Tensor):
        raise Fail(f"{en}: expected a tensor, got {type(value).__name__}", f"{zh}：应为张量，实际为 {type(value).__name__}")
    if tuple(value.shape) != tuple(shape):
        raise Fail(
            f"{en}: expected shape {tuple(shape)}, got {tuple(value.shape)}",
            f"{zh}：形状应为 {tuple(shape)}，实际为 {tuple(value.shape)}",
        )
    if value.dtype != dtype:
        raise Fail(f"{en}: expected dtype {dtype}, got {value.dtype}", f"{zh}：数据类型应为 {dtype}，实际为 {value.dtype}")
    return value


def assert_close(actual: object, expected: torch.Tensor, *, name: str | Text, rtol: float, atol: float) -> None:
    """Fail unless `actual` has `expected`'s shape and dtype and |a - e| <= atol + rtol |e| everywhere."""
    import torch

    actual = expect_tensor(actual, name=name, shape=tuple(expected.shape), dtype=expected.dtype).to(expected.device)
    en, zh = _named(name)
    if not torch.isfinite(actual).all() and torch.isfinite(expected).all():
        raise Fail(f"{en}: contains NaN or infinity", f"{zh}：含有 NaN 或无穷大")
    if not torch.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        err = (actual - expected).abs()
        worst = tuple(int(i) for i in torch.unravel_index(torch.nan_to_num(err, nan=float("inf")).argmax(), err.shape))
        raise Fail(
            f"{en}: wrong values (largest error {err.max().item():.3g} at index {worst}; rtol={rtol:g}, atol={atol:g})",
            f"{zh}：数值错误（最大误差 {err.max().item():.3g}，位于索引 {worst}；rtol={rtol:g}，atol={atol:g}）",
        )


def agrees_with_finite_differences(
    project: Callable[[Mapping[str, torch.Tensor]], float],
    theta: Mapping[str, torch.Tensor],
    grads: Mapping[str, object],
    *,
    seed: int,
    directions: int = 3,
    eps: float = 1e-6,
) -> bool:
    """Whether the gradients a student's function returned (`grads`, by input name; None where none reached) agree with
    its own outputs: for a few random float64 directions v, (project(θ + εv) − project(θ − εv)) / 2ε against Σ grad · v,
    `project` being the scalar whose gradients these are. A .detach() on part of the graph shows, whatever the values."""
    import torch

    directions_drawn = torch.Generator().manual_seed(seed)
    for _ in range(directions):
        v = {k: torch.randn(t.shape, generator=directions_drawn, dtype=torch.float64).to(t.device) for k, t in theta.items()}
        step = {k: (eps * d).to(theta[k].dtype) for k, d in v.items()}
        numeric = (project({k: t + step[k] for k, t in theta.items()}) - project({k: t - step[k] for k, t in theta.items()})) / (2 * eps)
        claimed = sum(
            float((grad.to(torch.float64) * v[k]).sum()) for k in theta if isinstance(grad := grads.get(k), torch.Tensor) and grad.shape == v[k].shape
        )
        if not abs(numeric - claimed) <= 1e-5 * max(abs(numeric), abs(claimed)) + 1e-7:
            return False
    return True


class Kind(TypedDict, total=False):
    """What `expect_kind` accepts of one value, as `expect_row` is told it per key."""

    kinds: tuple[type, ...]
    among: tuple[object, ...]
    none: bool


def expect_kind(value: object, *, name: str | Text, kinds: tuple[type, ...] = (), among: tuple[object, ...] = (), none: bool = False) -> object:
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
        got += " " + quoted(repr(value), limit=40)
    en, zh = _named(name)
    raise Fail(f"{en}: expected {' or '.join(wanted)}, got {got}", f"{zh}：应为 {' 或 '.join(wanted)}，实际为 {got}")


def expect_row(row: object, kinds: Mapping[str, Kind], *, name: str | Text) -> dict[object, object]:
    """`row` itself, after checking it is a dict with every key of `kinds`, each value as `expect_kind(**kinds[key])` wants."""
    en, zh = _named(name)
    if not isinstance(row, dict):
        raise Fail(f"{en}: expected a dict, got {type(row).__name__}", f"{zh}：应为 dict，实际为 {type(row).__name__}")
    missing = [k for k in kinds if k not in row]
    if missing:
        raise Fail(f"{en} lacks key(s) {', '.join(missing)}", f"{zh} 缺少键 {', '.join(missing)}")
    for key, kind in kinds.items():
        expect_kind(row[key], name=Text(f"{en}[{key!r}]", f"{zh}[{key!r}]"), **kind)
    return row


def check_sheet_form(answers: AnswerSheet, forms: Mapping[str, Form]) -> None:
    """The public check of an answer sheet: exactly the keys of `forms`, each answered in its form; every problem at once.

    `forms` is the course's own list of keys (never the sheet being edited), and each answer is read with the
    graded check's parser and messages (`AnswerSheet.form`); whether an answer is right is not judged.
    """
    missing = answers.missing_keys(forms)
    unanswered = answers.unanswered(forms)
    problems: list[Text] = []
    try:
        answers.expect_keys(list(forms))
    except Fail as failure:
        problems.append(failure.message)
    for key, form in forms.items():
        if key not in missing and key not in unanswered:
            try:
                answers.form(key, form)
            except Fail as failure:
                problems.append(failure.message)
    if unanswered:
        problems.append(Text(f"{answers.label}: still unanswered: {', '.join(unanswered)}", f"{answers.label}：尚未作答：{'、'.join(unanswered)}"))
    if problems:
        raise Fail(Text.join("\n", problems))


def choices(
    answers: AnswerSheet,
    reference_answers: Mapping[str, str],
    mistakes: Mapping[str, Mapping[str, Diagnosis]],
    *,
    options: tuple[str, ...] = ("A", "B", "C", "D"),
) -> None:
    """Grade each multiple-choice key of `mistakes` (wrong option → (en, zh) diagnosis), the points shared per key."""
    partial([functools.partial(answers.choice, key, reference_answers[key], options, mistakes=wrong) for key, wrong in mistakes.items()])


Judged = tuple[float, Mapping[float, Diagnosis]]  # an expected answer and {a known mistake's value: its diagnosis}


def carried_forward(answers: AnswerSheet, key: str, judge: Callable[..., None], right: Judged, own: list[tuple[str | tuple[str, str], Judged]]) -> None:
    """Judge `key` by `judge(key, expected, mistakes=...)` (answers.number, answers.integer) against `right`; where that fails, against each (source, (expected,
    mistakes)) of `own`: what follows from the student's own wrong answer to `source` (own_number, own_formula).

    One mistake is charged once, where it is made: an answer right for the student's own `source` keeps its points,
    with a note saying so; otherwise the first failure that names a known mistake (or the first) is raised.
    """
    try:
        judge(key, right[0], mistakes=right[1])
        return
    except Fail as failure:
        failures = [failure]
    for source, (expected, mistakes) in own:
        try:
            judge(key, expected, mistakes=mistakes)
        except Fail as failure:
            failures.append(failure)
            continue
        en, zh = (source, source) if isinstance(source, str) else source
        gap = "" if zh[-1] > "\u2e7f" else " "  # no space between two Chinese characters
        raise Fail(
            f"{answers.label}, {key}: follows from your {en}; its mistake is charged once, where it is made: no points are lost here",
            f"{answers.label}，{key}：由你的 {zh}{gap}推出；其中的错误只在出错处扣一次分：此处不扣分",
            share=1.0,
        )
    raise next((f for f in failures if f.diagnosis), failures[0])


def own_number(answers: AnswerSheet, key: str, right: float, mistakes: Mapping[float, Diagnosis], *, rtol: float | None = None) -> float | None:
    """The student's answer to `key` when its check names it as one of its known `mistakes` (what a later answer may
    follow from); else None. Only a named mistake carries forward, as in `own_formula`: a later answer that follows
    from any number at all (c_t = 0, so h_t = 0) would earn points that knowing nothing earns. `rtol`: how its own
    check judges it."""
    try:
        answers.number(key, right, rtol=rtol, mistakes=mistakes)
        return None
    except Fail as failure:
        if not failure.diagnosis:
            return None
    return answers.number_of(key)


def own_formula(
    answers: AnswerSheet, key: str, reference: str, symbols: Mapping[str, Domain], mistakes: Mapping[str, Diagnosis]
) -> Callable[[Mapping[str, float]], float | None] | None:
    """The student's formula for `key` as a function of a point ({symbol: value} -> float or None) when its check names
    it as one of its known `mistakes`; else None. Only a named mistake carries forward: a value that follows from a
    formula made up at random would otherwise earn points that knowing nothing earns."""
    try:
        answers.formula(key, reference, symbols, mistakes=mistakes)
        return None
    except Fail as failure:
        if not failure.diagnosis:
            return None
    formula = parse(str(answers.raw(key)), symbols)  # a string, which parsed in answers.formula

    def at(point: Mapping[str, float]) -> float | None:
        try:
            return evaluate(formula, point)
        except UndefinedError:
            return None

    return at


def expect_value_errors(cases: Mapping[str | Text, Callable[[], object]], *, fn: str = "") -> None:
    """Each case (label → a call into the submission) must raise ValueError; the points shared per case, misses listed.

    A label is code (`"d_x = 0"`, the same in both languages) or a Text. A stub's NotImplementedError is passed on,
    so that an unstarted exercise says so.
    """
    missed: list[Text] = []
    for label, run in cases.items():
        try:
            got = run()
            outcome = Text("returned " + quoted(repr(got), limit=40), "返回了 " + quoted(repr(got), limit=40))
        except StudentError as e:
            if e.raised("ValueError"):
                continue
            if e.raised("NotImplementedError"):
                raise
            outcome = Text(e.types[0]) if e.types else Text("the process failed", "进程失败")
        en, zh = _named(label)
        missed.append(Text(f"{en} ({outcome.en})", f"{zh}（{outcome.zh}）"))
    if missed:
        raise Fail(
            f"{fn + ' raised ' if fn else ''}no ValueError for: {'; '.join(m.en for m in missed)}",
            f"{fn + ' 在' if fn else ''}以下情况没有抛出 ValueError：{'；'.join(m.zh for m in missed)}",
            share=(len(cases) - len(missed)) / len(cases),
        )
