"""An answer sheet's answers judged as a careful TA would, each as the kind of answer its key asks for.

Each check method returns None when the answer is right and raises `checks.Fail` (English and
Chinese feedback) when it is wrong, unanswered or unreadable. Feedback names the file and key,
says what was expected and what to do, and never reveals the reference answer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from grader.failures import Fail
from grader.grading.answers.forms import Boolean, Choice, Form, Formula, Integer, Number, Shape
from grader.grading.answers.quoting import brief, kind_of, show
from grader.grading.answers.values import close, pick, rounds_to, shape_of, significant_digits
from grader.grading.equivalence import equivalent
from grader.grading.expr import MAX_LENGTH, Domain, Expr, ExpressionError, UndefinedError, UnknownSymbolError, evaluate, free_symbols, parse
from grader.text import Text, one_line

COARSE_FACTOR = 10  # a short decimal within this many tolerances is "close, give more digits"
LISTED_KEYS = 10  # unknown keys named in a message, the rest counted

Diagnosis = str | tuple[str, str]  # a named mistake: English, or (English, Chinese)


class AnswerSheet:
    """The answers of one sheet and the checks that judge them."""

    def __init__(
        self,
        path: Path,
        answers: Mapping[str, object],
        *,
        rtol: float = 1e-3,
        label: str | None = None,
        fallback_seconds: float = 2.0,
        unreadable: Mapping[str, Text] = {},
        literals: Mapping[str, str] = {},
    ):
        """`unreadable`: keys whose values the sheet holds but could not be read, and why (each fails alone);
        `literals`: values as typed, so that a float keeps the significant digits written (0.3660 has 4)."""
        self.path = path
        self.rtol = rtol
        self.label = label or path.name
        self.fallback_seconds = fallback_seconds  # one budget for the whole sheet: undecidable formulas cannot add up
        self._fallback_left = fallback_seconds
        self._answers = dict(answers)
        self._unreadable = dict(unreadable)
        self._literals = dict(literals)

    def raw(self, key: str) -> object:
        """The answer as read from TOML, or None if the key is missing or blank."""
        value = self._answers.get(key)
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def expect_keys(self, expected: Sequence[str]) -> None:
        """Fail unless the sheet holds exactly these keys: none lost, none added (a mistyped key leaves the real one unanswered)."""
        missing = self.missing_keys(expected)
        unknown = self.unknown_keys(expected)
        if missing or unknown:
            named = ", ".join(one_line(k, limit=40) for k in unknown[:LISTED_KEYS])
            more_en = f" and {len(unknown) - LISTED_KEYS} more" if len(unknown) > LISTED_KEYS else ""
            more_zh = f" 等共 {len(unknown)} 个" if more_en else ""
            en = [f"missing key(s) {', '.join(missing)}"] * bool(missing) + [f"unknown key(s) {named + more_en}"] * bool(unknown)
            zh = [f"缺少的键 {', '.join(missing)}"] * bool(missing) + [f"未知的键 {named + more_zh}"] * bool(unknown)
            raise Fail(
                f"{self.label}: {', '.join(en)}; the keys are those of the stub: {', '.join(expected)}",
                f"{self.label}：{'，'.join(zh)}；应有的键与原始答题卡相同：{', '.join(expected)}",
            )

    def unknown_keys(self, expected: Iterable[str]) -> list[str]:
        """Keys in the sheet that no question asks for (typos, renamed keys), sorted."""
        return sorted((set(self._answers) | set(self._unreadable)) - set(expected))

    def missing_keys(self, expected: Iterable[str]) -> list[str]:
        """Keys of `expected` the sheet lacks (deleted or mistyped), in the order given."""
        return [k for k in expected if k not in self._answers and k not in self._unreadable]

    def unanswered(self, keys: Iterable[str]) -> list[str]:
        """Keys of `keys` the sheet holds with a blank answer, in the order given."""
        return [k for k in keys if k in self._answers and self.raw(k) is None]

    def form(self, key: str, form: Form) -> None:
        """Fail unless the answer to `key` has `form`, read and worded exactly as its graded check reads it.

        Judges the form only (the kind of answer, the symbols, the options, the significant digits asked),
        never whether it is right: a public check may call this without revealing anything.
        """
        value = self._answer(key)
        if isinstance(form, Number):
            _, typed = self._number_value(key, value)
            if form.digits is not None and typed is not None and typed < form.digits:
                raise self._fail(
                    key,
                    f"{show(value)} has {typed} significant digit{'s' * (typed > 1)}; this question asks for at least {form.digits} (or an exact expression)",
                    f"{show(value)} 只有 {typed} 位有效数字；本题要求至少 {form.digits} 位（或写精确表达式）",
                )
        elif isinstance(form, Integer):
            self._integer_value(key, value)
        elif isinstance(form, Formula):
            self._formula_value(key, value, form.symbols, constant=False)
        elif isinstance(form, Choice):
            self._picked(key, value, form.options)
        elif isinstance(form, Boolean):
            self._boolean_value(key, value)
        elif isinstance(form, Shape):
            self._shape_value(key, value)
        else:
            raise TypeError(f"{key}: {form!r} is not an answer form")

    # --- checks ----------------------------------------------------------------------------------

    def number(self, key: str, expected: float, *, rtol: float | None = None, mistakes: Mapping[float, Diagnosis] = {}) -> None:
        """A number (TOML number or a constant expression such as "0.5*tanh(3/2)") within `rtol`."""
        tolerance = self.rtol if rtol is None else rtol
        value = self._answer(key)
        got, digits = self._number_value(key, value)
        if close(got, expected, tolerance):
            return
        coarse_right = rounds_to(got, expected, digits)  # the right answer too few digits: no mistake's to claim
        named = [d for wrong, d in mistakes.items() if close(got, wrong, tolerance) or (rounds_to(got, wrong, digits) and not coarse_right)]
        if named:  # two mistakes that give this value here are both named: either explains it
            raise self._diagnosis(key, *dict.fromkeys(named))
        needed = max(2, math.ceil(-math.log10(tolerance)) + 1)
        # more digits is advice for a short decimal only: an expression or a decimal of `needed` digits is exact as typed
        if digits is not None and digits < needed and (close(got, expected, COARSE_FACTOR * tolerance) or rounds_to(got, expected, digits)):
            raise self._fail(
                key,
                f"{show(value)} is close but not within the relative tolerance {tolerance:g}; give at least {needed} significant digits",
                f"{show(value)} 接近但不在相对误差 {tolerance:g} 之内；请至少给出 {needed} 位有效数字",
            )
        raise self._fail(key, f"{show(value)} is not correct", f"{show(value)} 不正确")

    def number_of(self, key: str) -> float:
        """The answer to `key` read as a number (Fail when it is none): what `number` would compare."""
        return self._number_value(key, self._answer(key))[0]

    def integer(self, key: str, expected: int, *, mistakes: Mapping[int, Diagnosis] = {}) -> None:
        """A whole number, exactly (TOML integer, or an expression such as "4*128*(32+128+1)")."""
        value = self._answer(key)
        got = self._integer_value(key, value)
        if got == expected:
            return
        if got in mistakes:
            raise self._diagnosis(key, mistakes[got])
        raise self._fail(key, f"{show(value)} is not correct", f"{show(value)} 不正确")

    def formula(self, key: str, expected: str, symbols: Mapping[str, Domain], *, mistakes: Mapping[str, Diagnosis] = {}) -> None:
        """A formula in `symbols` equivalent to `expected` on the symbols' domains."""
        reference = parse(expected, symbols)
        value = self._answer(key)
        answer = self._formula_value(key, value, symbols, constant=not free_symbols(reference))
        started = time.monotonic()
        verdict = equivalent(answer, reference, symbols, fallback_seconds=max(self._fallback_left, 0.0))
        self._fallback_left -= time.monotonic() - started
        if verdict:
            return
        if verdict is None:
            raise self._fail(
                key,
                "your formula could not be verified automatically in the time allowed; simplify it, or ask a TA to review it",
                "在限定时间内无法自动验证你的公式；请化简，或请助教人工检查",
            )
        for wrong, diagnosis in mistakes.items():
            if equivalent(answer, parse(wrong, symbols), symbols, fallback_seconds=0):
                raise self._diagnosis(key, diagnosis)
        raise self._fail(key, "your formula is not equivalent to the correct one", "你的公式与正确公式不等价")

    def choice(self, key: str, expected: str, options: Sequence[str], *, mistakes: Mapping[str, Diagnosis] = {}) -> None:
        """One of `options`, ignoring case and surrounding spaces ("0.90" also picks "0.9")."""
        if pick(expected, options) is None:
            raise ValueError(f"expected answer {expected!r} is not among the options {list(options)}")
        value = self._answer(key)
        picked = self._picked(key, value, options)
        if picked == pick(expected, options):
            return
        for wrong, diagnosis in mistakes.items():
            if picked == pick(wrong, options):
                raise self._diagnosis(key, diagnosis)
        raise self._fail(key, f"{show(value)} is not correct", f"{show(value)} 不正确")

    def boolean(self, key: str, expected: bool, *, mistake: Diagnosis | None = None) -> None:
        """true or false (TOML boolean, or the string "true"/"false" in any case); `mistake` names the opposite."""
        value = self._answer(key)
        got = self._boolean_value(key, value)
        if got != expected:
            if mistake is not None:
                raise self._diagnosis(key, mistake)
            raise self._fail(key, f"{show(value)} is not correct", f"{show(value)} 不正确")

    def shape(self, key: str, expected: Sequence[int], *, mistakes: Mapping[tuple[int, ...], Diagnosis] = {}) -> None:
        """A tensor shape as a TOML array of integers, e.g. [2, 4, 10] ("(2, 4, 10)" also accepted)."""
        value = self._answer(key)
        dims = self._shape_value(key, value)
        if dims != list(expected):
            if tuple(dims) in mistakes:
                raise self._diagnosis(key, mistakes[tuple(dims)])
            raise self._fail(key, f"shape {brief(dims)} is not correct", f"形状 {brief(dims)} 不正确")

    # --- helpers ---------------------------------------------------------------------------------

    def _fail(self, key: str, en: str, zh: str) -> Fail:
        return Fail(f"{self.label}, {key}: {en}", f"{self.label}，{key}：{zh}")

    def _diagnosis(self, key: str, *diagnoses: Diagnosis) -> Fail:
        both = [(d, d) if isinstance(d, str) else d for d in diagnoses]
        en, zh = "; or ".join(en for en, _ in both), "；或".join(zh for _, zh in both)
        return Fail(f"{self.label}, {key}: not correct: {en}", f"{self.label}，{key}：不正确：{zh}", diagnosis=tuple(both))

    def _answer(self, key: str) -> object:
        """The answer to `key`; a missing or blank one fails as unanswered (0 points, not an error), an
        unreadable or over-long one with the reason."""
        if key in self._unreadable:
            why = self._unreadable[key]
            raise self._fail(key, f"{why.en}; write the answer as in the stub", f"{why.zh}；请按原始答题卡的格式作答")
        value = self.raw(key)
        if value is None:
            raise self._fail(key, "unanswered", "未作答")
        if isinstance(value, str) and len(value) > MAX_LENGTH:
            raise self._fail(
                key, f"the answer is {len(value):,} characters long; the limit is {MAX_LENGTH}", f"答案长度为 {len(value):,} 个字符，上限为 {MAX_LENGTH}"
            )
        return value

    def _number_value(self, key: str, value: object) -> tuple[float, int | None]:
        """The answer as a float, and its significant digits when it was typed as a plain decimal."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self._fail(key, f"expects a number; got {kind_of(value)}", f"需要一个数；你给的是{kind_of(value, 'zh')}")
        if isinstance(value, int):
            try:
                return float(value), significant_digits(str(value))
            except OverflowError:
                raise self._fail(
                    key, f"{show(value)} is beyond the range of numbers the grader reads (±1.8e308)", f"{show(value)} 超出评分程序可读的数值范围（±1.8e308）"
                ) from None
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self._fail(key, f"{value} is not a finite number", f"{value} 不是有限数")
            return value, self._float_digits(key, value)
        try:
            got = evaluate(parse(value, {}), {})
        except UnknownSymbolError as e:
            raise self._fail(
                key,
                f"this question asks for a number, but your answer uses the name "
                f"{show(e.name)} (column {e.column}), which is no function or constant; "
                "substitute the given values",
                f"本题要求一个数，但你的答案用了名称 {show(e.name)}（第 {e.column} 列），它不是函数或常数；请代入已知数值",
            ) from None
        except ExpressionError as e:
            raise self._fail(key, f"could not read your answer: {e.en}", f"无法读取你的答案：{e.zh}") from None
        except UndefinedError:
            raise self._fail(
                key,
                f"{show(value)} has no finite value (division by zero, log of a non-positive number, or overflow)",
                f"{show(value)} 没有有限值（除以零、对非正数取对数或溢出）",
            ) from None
        return got, significant_digits(value.strip())

    def _float_digits(self, key: str, value: float) -> int | None:
        """The significant digits of a TOML float as typed (0.3660 has 4), else as Python writes it."""
        literal = self._literals.get(key, "").replace("_", "")
        try:
            typed = float(literal) == value
        except ValueError:
            typed = False
        return significant_digits(literal if typed else repr(value))

    def _integer_value(self, key: str, value: object) -> int:
        """The answer as a whole number: a TOML integer exactly, or a number or expression with an integral value."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # exactly, however large
        number, _ = self._number_value(key, value)
        if abs(number - round(number)) > 1e-9 * max(1.0, abs(number)):
            raise self._fail(key, f"{show(value)} is not a whole number; this question asks for an integer", f"{show(value)} 不是整数；本题要求整数")
        return round(number)

    def _formula_value(self, key: str, value: object, symbols: Mapping[str, Domain], *, constant: bool) -> Expr:
        """The answer parsed as a formula in `symbols`; unless `constant`, one that uses none of them is refused."""
        names = ", ".join(symbols)
        as_number = (
            f"this question asks for a formula in {names}, but your answer is a number; write it in terms of the symbols",
            f"本题要求用 {names} 表示的公式，但你的答案是一个数；请用这些符号写出公式",
        )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise self._fail(key, *as_number)
        if not isinstance(value, str):
            raise self._fail(
                key,
                f'expects a formula written as a string, e.g. {key} = "..."; got {kind_of(value)}',
                f'需要写成字符串的公式，例如 {key} = "..."；你给的是{kind_of(value, "zh")}',
            )
        try:
            answer = parse(value, symbols)
        except ExpressionError as e:
            raise self._fail(key, f"could not read your formula: {e.en}", f"无法读取你的公式：{e.zh}") from None
        if not constant and not free_symbols(answer):
            raise self._fail(key, *as_number)
        return answer

    def _picked(self, key: str, value: object, options: Sequence[str]) -> str:
        """The option the answer names."""
        picked = pick(value, options)
        if picked is None:
            listed = ", ".join(options)
            raise self._fail(key, f"{show(value)} is not one of the options: {listed}", f"{show(value)} 不是选项之一：{listed}")
        return picked

    def _boolean_value(self, key: str, value: object) -> bool:
        """The answer as true or false (a TOML boolean, or the string "true"/"false" in any case)."""
        got = {"true": True, "false": False}.get(value.strip().lower()) if isinstance(value, str) else value
        if not isinstance(got, bool):
            raise self._fail(
                key,
                f"{show(value)} is not true or false; write {key} = true or {key} = false",
                f"{show(value)} 不是 true 或 false；请写 {key} = true 或 {key} = false",
            )
        return got

    def _shape_value(self, key: str, value: object) -> list[int]:
        """The answer as a tensor shape."""
        dims = shape_of(value)
        if dims is None:
            raise self._fail(
                key,
                f"{show(value)} is not a shape; write an array of integers such as {key} = [2, 3]",
                f"{show(value)} 不是形状；请写整数数组，例如 {key} = [2, 3]",
            )
        return dims
