"""Reading a submission's answers.toml safely and checking its answers as a careful TA would.

Each check method returns None when the answer is right and raises `checks.Fail` (English and
Chinese feedback) when it is wrong, unanswered or unreadable. Feedback names the file and key,
says what was expected and what to do, and never reveals the reference answer.
"""

from __future__ import annotations

import math
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from grader.failures import Fail
from grader.grading.expr import (Domain, ExpressionError, UndefinedError, UnknownSymbolError, equivalent, evaluate,
                         free_symbols, parse, quote)

MAX_SHEET_BYTES = 64 * 1024
COARSE_FACTOR = 10  # an answer within this many tolerances is "close, give more digits"

Diagnosis = str | tuple[str, str]  # a named mistake: English, or (English, Chinese)

_DECIMAL = re.compile(r"[+-]?([0-9]*)(\.?)([0-9]*)(?:[eE][+-]?[0-9]+)?")
_SHAPE = re.compile(r"\s*[\[(]?\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*,?\s*[\])]?\s*")


class SheetError(ValueError):
    """An answer sheet that cannot be read at all; the message names the file."""

    def __init__(self, en: str, zh: str | None = None):
        super().__init__(en)
        self.en = en
        self.zh = zh or en


def load_sheet(path: Path, *, root: Path, rtol: float = 1e-3, fallback_seconds: float = 2.0) -> AnswerSheet:
    """Read the answer sheet `path` (relative to `root`, or absolute inside it) as TOML.

    Refuses symlinks, paths that resolve outside `root`, non-regular files, files over 64 KiB
    and non-UTF-8 text. `rtol` is the default tolerance for numbers; `fallback_seconds` bounds
    the symbolic check of one formula.
    """
    path, root = Path(path), Path(root)
    label, data = _read_inside(path if path.is_absolute() else root / path, root)
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise SheetError(f"{label} is not UTF-8 text (byte {e.start}); save it as UTF-8",
                         f"{label} 不是 UTF-8 文本（第 {e.start} 字节）；请以 UTF-8 保存") from None
    try:
        answers = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SheetError(f"{label} is not valid TOML: {e}", f"{label} 不是合法的 TOML：{e}") from None
    return AnswerSheet(path, answers, rtol=rtol, label=label, fallback_seconds=fallback_seconds)


def _read_inside(candidate: Path, root: Path) -> tuple[str, bytes]:
    """The display label and bytes of `candidate`, which must be a small regular file inside `root`."""
    real_root = root.resolve()
    try:
        label = candidate.relative_to(root).as_posix()
    except ValueError:
        label = candidate.name
    if candidate.is_symlink():
        raise SheetError(f"{label} is a symbolic link; submit it as a regular file",
                         f"{label} 是符号链接；请提交普通文件")
    if not candidate.resolve().is_relative_to(real_root):
        raise SheetError(f"{label} lies outside the submission", f"{label} 不在提交目录内")
    try:
        fd = os.open(candidate, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise SheetError(f"{label} was not found in the submission", f"提交中没有找到 {label}") from None
    except OSError as e:
        raise SheetError(f"{label} cannot be opened: {e.strerror}", f"无法打开 {label}：{e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SheetError(f"{label} is not a regular file", f"{label} 不是普通文件")
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_SHEET_BYTES + 1)
    if len(data) > MAX_SHEET_BYTES:
        raise SheetError(f"{label} is larger than {MAX_SHEET_BYTES // 1024} KiB",
                         f"{label} 超过 {MAX_SHEET_BYTES // 1024} KiB")
    return label, data


class AnswerSheet:
    """The answers of one sheet and the checks that judge them."""

    def __init__(self, path: Path, answers: Mapping[str, object], *, rtol: float = 1e-3,
                 label: str | None = None, fallback_seconds: float = 2.0):
        self.path = path
        self.rtol = rtol
        self.label = label or path.name
        self.fallback_seconds = fallback_seconds
        self._answers = dict(answers)

    def raw(self, key: str) -> object:
        """The answer as read from TOML, or None if the key is missing or blank."""
        value = self._answers.get(key)
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def expect_keys(self, expected: Sequence[str]) -> None:
        """Fail unless the sheet holds exactly these keys: none lost, none added (a mistyped key leaves the real one unanswered)."""
        missing = [k for k in expected if k not in self._answers]
        unknown = self.unknown_keys(expected)
        if missing or unknown:
            raise Fail(
                f"{self.label}: missing key(s) {', '.join(missing) or 'none'}, unknown key(s) "
                f"{', '.join(unknown) or 'none'}; the keys are those of the stub: {', '.join(expected)}",
                f"{self.label}：缺少的键 {', '.join(missing) or '无'}，未知的键 {', '.join(unknown) or '无'}；"
                f"应有的键与原始答题卡相同：{', '.join(expected)}",
            )

    def unknown_keys(self, expected: Iterable[str]) -> list[str]:
        """Keys in the sheet that no question asks for (typos, renamed keys), sorted."""
        return sorted(set(self._answers) - set(expected))

    # --- checks ----------------------------------------------------------------------------------

    def number(self, key: str, expected: float, *, rtol: float | None = None,
               mistakes: Mapping[float, Diagnosis] = {}) -> None:
        """A number (TOML number or a constant expression such as "0.5*tanh(3/2)") within `rtol`."""
        tolerance = self.rtol if rtol is None else rtol
        value = self._answer(key)
        got, digits = self._number_value(key, value)
        if _close(got, expected, tolerance):
            return
        for wrong, diagnosis in mistakes.items():
            if _close(got, wrong, tolerance) or _rounds_to(got, wrong, digits):
                raise self._diagnosis(key, diagnosis)
        if _close(got, expected, COARSE_FACTOR * tolerance) or _rounds_to(got, expected, digits):
            needed = max(2, math.ceil(-math.log10(tolerance)) + 1)
            raise self._fail(
                key, f"{_show(value)} is close but not within the relative tolerance {tolerance:g}; "
                     f"give at least {needed} significant digits",
                f"{_show(value)} 接近但不在相对误差 {tolerance:g} 之内；请至少给出 {needed} 位有效数字")
        raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def integer(self, key: str, expected: int, *, mistakes: Mapping[int, Diagnosis] = {}) -> None:
        """A whole number, exactly (TOML integer, or an expression such as "4*128*(32+128+1)")."""
        value = self._answer(key)
        got, _ = self._number_value(key, value)
        if not math.isfinite(got) or abs(got - round(got)) > 1e-9 * max(1.0, abs(got)):
            raise self._fail(key, f"{_show(value)} is not a whole number; this question asks for an integer",
                             f"{_show(value)} 不是整数；本题要求整数")
        got = round(got)
        if got == expected:
            return
        if got in mistakes:
            raise self._diagnosis(key, mistakes[got])
        raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def formula(self, key: str, expected: str, symbols: Mapping[str, Domain], *,
                mistakes: Mapping[str, Diagnosis] = {}) -> None:
        """A formula in `symbols` equivalent to `expected` on the symbols' domains."""
        reference = parse(expected, symbols)
        value = self._answer(key)
        names = ", ".join(symbols)
        as_number = (f"this question asks for a formula in {names}, but your answer is a number; "
                     "write it in terms of the symbols",
                     f"本题要求用 {names} 表示的公式，但你的答案是一个数；请用这些符号写出公式")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise self._fail(key, *as_number)
        if not isinstance(value, str):
            raise self._fail(key, f"expects a formula written as a string, e.g. {key} = \"...\"; got {_kind(value)}",
                             f"需要写成字符串的公式，例如 {key} = \"...\"；你给的是{_kind(value, 'zh')}")
        try:
            answer = parse(value, symbols)
        except ExpressionError as e:
            raise self._fail(key, f"could not read your formula: {e.en}", f"无法读取你的公式：{e.zh}") from None
        if free_symbols(reference) and not free_symbols(answer):
            raise self._fail(key, *as_number)
        verdict = equivalent(answer, reference, symbols, fallback_seconds=self.fallback_seconds)
        if verdict:
            return
        if verdict is None:
            raise self._fail(key, "your formula could not be verified automatically in the time allowed; "
                                  "simplify it, or ask a TA to review it",
                             "在限定时间内无法自动验证你的公式；请化简，或请助教人工检查")
        for wrong, diagnosis in mistakes.items():
            if equivalent(answer, parse(wrong, symbols), symbols, fallback_seconds=0):
                raise self._diagnosis(key, diagnosis)
        raise self._fail(key, "your formula is not equivalent to the correct one",
                         "你的公式与正确公式不等价")

    def choice(self, key: str, expected: str, options: Sequence[str], *,
               mistakes: Mapping[str, Diagnosis] = {}) -> None:
        """One of `options`, ignoring case and surrounding spaces ("0.90" also picks "0.9")."""
        if _pick(expected, options) is None:
            raise ValueError(f"expected answer {expected!r} is not among the options {list(options)}")
        value = self._answer(key)
        listed = ", ".join(options)
        picked = _pick(value, options)
        if picked is None:
            raise self._fail(key, f"{_show(value)} is not one of the options: {listed}",
                             f"{_show(value)} 不是选项之一：{listed}")
        if picked == _pick(expected, options):
            return
        for wrong, diagnosis in mistakes.items():
            if picked == _pick(wrong, options):
                raise self._diagnosis(key, diagnosis)
        raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def boolean(self, key: str, expected: bool, *, mistake: Diagnosis | None = None) -> None:
        """true or false (TOML boolean, or the string "true"/"false" in any case); `mistake` names the opposite."""
        value = self._answer(key)
        got = {"true": True, "false": False}.get(value.strip().lower()) if isinstance(value, str) else value
        if not isinstance(got, bool):
            raise self._fail(key, f"{_show(value)} is not true or false; write {key} = true or {key} = false",
                             f"{_show(value)} 不是 true 或 false；请写 {key} = true 或 {key} = false")
        if got != expected:
            if mistake is not None:
                raise self._diagnosis(key, mistake)
            raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def shape(self, key: str, expected: Sequence[int], *,
              mistakes: Mapping[tuple[int, ...], Diagnosis] = {}) -> None:
        """A tensor shape as a TOML array of integers, e.g. [2, 4, 10] ("(2, 4, 10)" also accepted)."""
        value = self._answer(key)
        dims = _shape_of(value)
        if dims is None:
            raise self._fail(key, f"{_show(value)} is not a shape; write an array of integers such as {key} = [2, 3]",
                             f"{_show(value)} 不是形状；请写整数数组，例如 {key} = [2, 3]")
        if dims != list(expected):
            if tuple(dims) in mistakes:
                raise self._diagnosis(key, mistakes[tuple(dims)])
            raise self._fail(key, f"shape {dims} is not correct", f"形状 {dims} 不正确")

    # --- helpers ---------------------------------------------------------------------------------

    def _fail(self, key: str, en: str, zh: str) -> Fail:
        return Fail(f"{self.label}, {key}: {en}", f"{self.label}，{key}：{zh}")

    def _diagnosis(self, key: str, diagnosis: Diagnosis) -> Fail:
        en, zh = (diagnosis, diagnosis) if isinstance(diagnosis, str) else diagnosis
        return self._fail(key, f"not correct: {en}", f"不正确：{zh}")

    def _answer(self, key: str) -> object:
        """The answer to `key`; a missing or blank one fails as unanswered (0 points, not an error)."""
        value = self.raw(key)
        if value is None:
            raise self._fail(key, "unanswered", "未作答")
        return value

    def _number_value(self, key: str, value: object) -> tuple[float, int | None]:
        """The answer as a float, and its significant digits when it was typed as a plain decimal."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self._fail(key, f"expects a number; got {_kind(value)}", f"需要一个数；你给的是{_kind(value, 'zh')}")
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                raise self._fail(key, f"{value} is not a finite number", f"{value} 不是有限数")
            return float(value), _significant_digits(repr(value))
        try:
            got = evaluate(parse(value, {}), {})
        except UnknownSymbolError as e:
            raise self._fail(key, f"this question asks for a number, but your answer uses the name "
                                  f"{_show(e.name)} (column {e.column}), which is no function or constant; "
                                  "substitute the given values",
                             f"本题要求一个数，但你的答案用了名称 {_show(e.name)}（第 {e.column} 列），"
                             "它不是函数或常数；请代入已知数值") from None
        except ExpressionError as e:
            raise self._fail(key, f"could not read your answer: {e.en}", f"无法读取你的答案：{e.zh}") from None
        except UndefinedError:
            raise self._fail(key, f"{_show(value)} has no finite value (division by zero, log of a "
                                  "non-positive number, or overflow)",
                             f"{_show(value)} 没有有限值（除以零、对非正数取对数或溢出）") from None
        return got, _significant_digits(value.strip())


def _close(got: float, target: float, rtol: float) -> bool:
    return abs(got - target) <= rtol * abs(target) + 1e-12


def _rounds_to(got: float, target: float, digits: int | None) -> bool:
    """Whether `got`, typed with `digits` (≥ 2) significant digits, is `target` rounded to that many."""
    if digits is None or digits < 2 or target == 0:
        return False
    return math.isclose(got, float(f"{target:.{digits - 1}e}"), rel_tol=1e-9)


def _significant_digits(text: str) -> int | None:
    """Significant digits of a plain decimal literal ("0.45" → 2, "1.50" → 3, "1200" → 2), else None."""
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match.group(1) or match.group(3)):
        return None
    whole, point, frac = match.groups()
    digits = (whole + frac).lstrip("0")
    if not point:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def _pick(value: object, options: Sequence[str]) -> str | None:
    """The option `value` names: same text ignoring case and spaces, or the same decimal number."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = value.strip().casefold() if isinstance(value, str) else repr(value)
    for option in options:
        if option.strip().casefold() == text:
            return option
    if _DECIMAL.fullmatch(text) and any(c.isdigit() for c in text):
        for option in options:
            if _DECIMAL.fullmatch(option.strip()) and float(option) == float(text):
                return option
    return None


def _shape_of(value: object) -> list[int] | None:
    """A shape from a TOML array of non-negative integers or a string like "(2, 4, 10)"; else None."""
    if isinstance(value, str):
        match = _SHAPE.fullmatch(value)
        return [int(d) for d in match.group(1).split(",")] if match else None
    if isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value):
        return list(value)
    return None


def _kind(value: object, language: str = "en") -> str:
    """The TOML kind of `value`, for messages."""
    kinds = {bool: ("a boolean", "布尔值"), list: ("an array", "数组"), dict: ("a table", "表")}
    en, zh = kinds.get(type(value), ("a date or time", "日期或时间"))
    return zh if language == "zh" else en


def _show(value: object, limit: int = 40) -> str:
    """The student's answer quoted for feedback, shortened."""
    if isinstance(value, str):
        text = value.strip()
    else:
        text = str(value).lower() if isinstance(value, bool) else repr(value)
    return quote(text, limit)
