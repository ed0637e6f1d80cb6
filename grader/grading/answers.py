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
import sys
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.failures import Fail
from grader.grading.equivalence import equivalent
from grader.grading.expr import MAX_LENGTH, Domain, Expr, ExpressionError, UndefinedError, UnknownSymbolError, evaluate, free_symbols, parse, quote
from grader.text import Text, TextError, one_line, printable

MAX_SHEET_BYTES = 64 * 1024
MAX_NESTING = 8  # arrays and inline tables within one another in one answer (a shape needs 1)
MAX_KEY_CHARS = 200  # a key or table name (tomllib takes time quadratic in a dotted key's parts)
MAX_INT_DIGITS = sys.int_info.default_max_str_digits  # the longest integer int() reads by default (4300)
COARSE_FACTOR = 10  # an answer within this many tolerances is "close, give more digits"
LISTED_KEYS = 10  # unknown keys named in a message, the rest counted
_BIG_INT_BITS = 1024  # an integer beyond floating-point range: described in feedback, not written out

Diagnosis = str | tuple[str, str]  # a named mistake: English, or (English, Chinese)

_DECIMAL = re.compile(r"[+-]?([0-9]*)(\.?)([0-9]*)(?:[eE][+-]?[0-9]+)?")
_SHAPE = re.compile(r"\s*[\[(]?\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*,?\s*[\])]?\s*")


class SheetError(TextError, ValueError):
    """An answer sheet that cannot be read at all; `message` (both languages) names the file."""


# --- answer forms: what kind of answer a key asks for, as public checks declare it (`AnswerSheet.form`) ----------


class Form:
    """The kind of answer a key asks for; the graded check of that key reads the answer the same way."""


@dataclass(frozen=True)
class Number(Form):
    """A number or constant expression; `digits`: significant digits the question asks for when typed as a decimal."""

    digits: int | None = None


@dataclass(frozen=True)
class Integer(Form):
    """A whole number, or an expression with a whole value."""


@dataclass(frozen=True)
class Formula(Form):
    """A formula that uses the question's symbols (name → domain, as the graded check declares them)."""

    symbols: Mapping[str, Domain]


@dataclass(frozen=True)
class Choice(Form):
    """One of the options."""

    options: tuple[str, ...] = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Boolean(Form):
    """true or false."""


@dataclass(frozen=True)
class Shape(Form):
    """A tensor shape: an array of non-negative integers."""


def load_sheet(path: Path, *, root: Path, rtol: float = 1e-3, fallback_seconds: float = 2.0) -> AnswerSheet:
    """Read the answer sheet `path` (relative to `root`, or absolute inside it) as TOML.

    Refuses symlinks, paths that resolve outside `root`, non-regular files, files over 64 KiB,
    non-UTF-8 text and over-long keys; a value too deep or too long to read fails its own key.
    `rtol` is the default tolerance for numbers; `fallback_seconds` bounds the symbolic check of
    one formula.
    """
    path, root = Path(path), Path(root)
    label, data = _read_inside(path if path.is_absolute() else root / path, root)
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise SheetError(f"{label} is not UTF-8 text (byte {e.start}); save it as UTF-8",
                         f"{label} 不是 UTF-8 文本（第 {e.start} 字节）；请以 UTF-8 保存") from None
    answers, unreadable, literals = _read_toml(text, label)
    return AnswerSheet(path, answers, rtol=rtol, label=label, fallback_seconds=fallback_seconds, unreadable=unreadable,
                       literals=literals)


@dataclass(frozen=True)
class _Statement:
    """One top-level line of TOML (with any continuation lines), as a lexical scan sees it."""

    start: int
    end: int
    line: int  # 1-based
    key: str  # the text before '=', or a table header; stripped
    is_header: bool
    depth: int  # deepest nesting of [ and { in its value
    digits: int  # longest run of digits outside strings and comments
    value: str  # the text after '=' (with any comment), as typed; "" for a table header


_TOML_LEXEME = re.compile(r'"""|\'\'\'|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*|[0-9_]+|[\[\]{}=\n]'
                          r'|[^"\'#0-9_\[\]{}=\n]+')
_MULTILINE_END = {'"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL), "'''": re.compile(r".*?'''", re.DOTALL)}


def _statements(text: str) -> list[_Statement]:
    """Split TOML `text` into its top-level statements without building any value (linear, no recursion).

    Only a guide for what tomllib may not be given: a statement it splits wrongly is still parsed by tomllib.
    """
    statements: list[_Statement] = []
    start = pos = depth = deepest = digits = 0
    key_end: int | None = None
    while pos < len(text):
        lexeme = _TOML_LEXEME.match(text, pos).group()  # the pattern matches any character
        at, pos = pos, pos + len(lexeme)
        if lexeme in _MULTILINE_END:
            closing = _MULTILINE_END[lexeme].match(text, pos)
            pos = closing.end() if closing else len(text)
        elif lexeme in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif lexeme in ("]", "}"):
            depth = max(depth - 1, 0)
            if depth == 0 and key_end is None and text[start:at].lstrip().startswith("["):
                key_end = pos  # the end of a table header
        elif lexeme == "=" and depth == 0 and key_end is None:
            key_end = at
        elif lexeme[0] in "0123456789_":
            digits = max(digits, len(lexeme.replace("_", "")))
        if (lexeme == "\n" and depth == 0) or pos >= len(text):
            head = text[start:key_end if key_end is not None else start].strip()
            value = text[key_end + 1 : pos] if key_end is not None and not head.startswith("[") else ""
            statements.append(_Statement(start, pos, text.count("\n", 0, start) + 1, head,
                                         head.startswith("["), deepest, digits, value))
            start, depth, deepest, digits, key_end = pos, 0, 0, 0, None
    return statements


def _read_toml(text: str, label: str) -> tuple[dict, dict[str, Text], dict[str, str]]:
    """The answers in TOML `text`, why each answer left out of them cannot be read, and each top-level value as typed.

    tomllib recurses once per level of nesting, refuses integers over Python's int-string limit and slows
    quadratically with a dotted key's parts. A value nested too deeply or with too many digits is left out
    (its key fails alone, with the reason); a key or table name over MAX_KEY_CHARS refuses the sheet.
    """
    kept: list[str] = []
    unreadable: dict[str, Text] = {}
    literals: dict[str, str] = {}
    table = ""
    for statement in _statements(text):
        span = text[statement.start : statement.end]
        if len(statement.key) > MAX_KEY_CHARS:
            raise SheetError(f"{label}, line {statement.line}: a key or table name is longer than {MAX_KEY_CHARS} "
                             "characters; the keys are those of the stub",
                             f"{label} 第 {statement.line} 行：键或表名超过 {MAX_KEY_CHARS} 个字符；键应与原始答题卡相同")
        if statement.is_header:
            table = statement.key.strip("[] \t") + "."
        reason = None
        if statement.key and not statement.is_header:
            if statement.depth > MAX_NESTING:
                reason = Text(f"the value is nested more than {MAX_NESTING} levels deep (arrays within arrays)",
                              f"取值嵌套超过 {MAX_NESTING} 层（数组套数组）")
            elif statement.digits > MAX_INT_DIGITS:
                reason = Text(f"the value holds a number with more than {MAX_INT_DIGITS} digits",
                              f"取值中有超过 {MAX_INT_DIGITS} 位的数字")
        if reason is None:
            kept.append(span)
            if statement.key and not statement.is_header:
                literals[table + _unquoted(statement.key)] = statement.value.split("#")[0].strip()
        else:
            unreadable[table + _unquoted(statement.key)] = reason
            kept.append("\n" * span.count("\n"))  # keeps the line numbers of later errors
    try:
        return tomllib.loads("".join(kept)), unreadable, literals
    except tomllib.TOMLDecodeError as e:
        message = printable(str(e))
        raise SheetError(f"{label} is not valid TOML: {message}", f"{label} 不是合法的 TOML：{message}") from None
    except (ValueError, RecursionError):  # a value the scan above did not foresee
        raise SheetError(f"{label} holds a value that cannot be read (nested too deeply or too long); "
                         "write each answer as in the stub",
                         f"{label} 中有无法读取的取值（嵌套过深或过长）；请按原始答题卡的格式作答") from None


def _unquoted(key: str) -> str:
    """A TOML key as tomllib names it when it is bare or simply quoted; otherwise as written."""
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'" and not any(c in key[1:-1] for c in "\"'\\"):
        return key[1:-1]
    return key


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
                 label: str | None = None, fallback_seconds: float = 2.0, unreadable: Mapping[str, Text] = {},
                 literals: Mapping[str, str] = {}):
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
            raise Fail(
                f"{self.label}: missing key(s) {', '.join(missing) or 'none'}, unknown key(s) "
                f"{named + more_en or 'none'}; the keys are those of the stub: {', '.join(expected)}",
                f"{self.label}：缺少的键 {', '.join(missing) or '无'}，未知的键 {named + more_zh or '无'}；"
                f"应有的键与原始答题卡相同：{', '.join(expected)}",
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
                raise self._fail(key, f"{_show(value)} has {typed} significant digit{'s' * (typed > 1)}; this question "
                                      f"asks for at least {form.digits} (or an exact expression)",
                                 f"{_show(value)} 只有 {typed} 位有效数字；本题要求至少 {form.digits} 位（或写精确表达式）")
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
        raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def formula(self, key: str, expected: str, symbols: Mapping[str, Domain], *,
                mistakes: Mapping[str, Diagnosis] = {}) -> None:
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
        picked = self._picked(key, value, options)
        if picked == _pick(expected, options):
            return
        for wrong, diagnosis in mistakes.items():
            if picked == _pick(wrong, options):
                raise self._diagnosis(key, diagnosis)
        raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def boolean(self, key: str, expected: bool, *, mistake: Diagnosis | None = None) -> None:
        """true or false (TOML boolean, or the string "true"/"false" in any case); `mistake` names the opposite."""
        value = self._answer(key)
        got = self._boolean_value(key, value)
        if got != expected:
            if mistake is not None:
                raise self._diagnosis(key, mistake)
            raise self._fail(key, f"{_show(value)} is not correct", f"{_show(value)} 不正确")

    def shape(self, key: str, expected: Sequence[int], *,
              mistakes: Mapping[tuple[int, ...], Diagnosis] = {}) -> None:
        """A tensor shape as a TOML array of integers, e.g. [2, 4, 10] ("(2, 4, 10)" also accepted)."""
        value = self._answer(key)
        dims = self._shape_value(key, value)
        if dims != list(expected):
            if tuple(dims) in mistakes:
                raise self._diagnosis(key, mistakes[tuple(dims)])
            raise self._fail(key, f"shape {_brief(dims)} is not correct", f"形状 {_brief(dims)} 不正确")

    # --- helpers ---------------------------------------------------------------------------------

    def _fail(self, key: str, en: str, zh: str) -> Fail:
        return Fail(f"{self.label}, {key}: {en}", f"{self.label}，{key}：{zh}")

    def _diagnosis(self, key: str, diagnosis: Diagnosis) -> Fail:
        en, zh = (diagnosis, diagnosis) if isinstance(diagnosis, str) else diagnosis
        return Fail(f"{self.label}, {key}: not correct: {en}", f"{self.label}，{key}：不正确：{zh}", diagnosis=(en, zh))

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
            raise self._fail(key, f"the answer is {len(value):,} characters long; the limit is {MAX_LENGTH}",
                             f"答案长度为 {len(value):,} 个字符，上限为 {MAX_LENGTH}")
        return value

    def _number_value(self, key: str, value: object) -> tuple[float, int | None]:
        """The answer as a float, and its significant digits when it was typed as a plain decimal."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self._fail(key, f"expects a number; got {_kind(value)}", f"需要一个数；你给的是{_kind(value, 'zh')}")
        if isinstance(value, int):
            try:
                return float(value), _significant_digits(str(value))
            except OverflowError:
                raise self._fail(key, f"{_show(value)} is beyond the range of numbers the grader reads (±1.8e308)",
                                 f"{_show(value)} 超出评分程序可读的数值范围（±1.8e308）") from None
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self._fail(key, f"{value} is not a finite number", f"{value} 不是有限数")
            return value, self._float_digits(key, value)
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

    def _float_digits(self, key: str, value: float) -> int | None:
        """The significant digits of a TOML float as typed (0.3660 has 4), else as Python writes it."""
        literal = self._literals.get(key, "").replace("_", "")
        try:
            typed = float(literal) == value
        except ValueError:
            typed = False
        return _significant_digits(literal if typed else repr(value))

    def _integer_value(self, key: str, value: object) -> int:
        """The answer as a whole number: a TOML integer exactly, or a number or expression with an integral value."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # exactly, however large
        number, _ = self._number_value(key, value)
        if abs(number - round(number)) > 1e-9 * max(1.0, abs(number)):
            raise self._fail(key, f"{_show(value)} is not a whole number; this question asks for an integer",
                             f"{_show(value)} 不是整数；本题要求整数")
        return round(number)

    def _formula_value(self, key: str, value: object, symbols: Mapping[str, Domain], *, constant: bool) -> Expr:
        """The answer parsed as a formula in `symbols`; unless `constant`, one that uses none of them is refused."""
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
        if not constant and not free_symbols(answer):
            raise self._fail(key, *as_number)
        return answer

    def _picked(self, key: str, value: object, options: Sequence[str]) -> str:
        """The option the answer names."""
        picked = _pick(value, options)
        if picked is None:
            listed = ", ".join(options)
            raise self._fail(key, f"{_show(value)} is not one of the options: {listed}",
                             f"{_show(value)} 不是选项之一：{listed}")
        return picked

    def _boolean_value(self, key: str, value: object) -> bool:
        """The answer as true or false (a TOML boolean, or the string "true"/"false" in any case)."""
        got = {"true": True, "false": False}.get(value.strip().lower()) if isinstance(value, str) else value
        if not isinstance(got, bool):
            raise self._fail(key, f"{_show(value)} is not true or false; write {key} = true or {key} = false",
                             f"{_show(value)} 不是 true 或 false；请写 {key} = true 或 {key} = false")
        return got

    def _shape_value(self, key: str, value: object) -> list[int]:
        """The answer as a tensor shape."""
        dims = _shape_of(value)
        if dims is None:
            raise self._fail(key, f"{_show(value)} is not a shape; write an array of integers such as {key} = [2, 3]",
                             f"{_show(value)} 不是形状；请写整数数组，例如 {key} = [2, 3]")
        return dims


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
    if isinstance(value, int) and value.bit_length() > _BIG_INT_BITS:
        return None  # no option is a number that large
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
    """The student's answer quoted for feedback: shortened, safe to print, bounded however large or deep it is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _BIG_INT_BITS:
        return _brief(value)
    return quote(value.strip() if isinstance(value, str) else _brief(value), limit)


def _brief(value: object, depth: int = 3, items: int = 4) -> str:
    """A short text for a TOML value: `items` elements of an array at most, `depth` levels, no huge integer's digits."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) and value.bit_length() > _BIG_INT_BITS:
        return f"an integer of about {math.floor(math.log10(abs(value))) + 1} digits"
    if isinstance(value, str):
        return repr(value[:40])
    if isinstance(value, list):
        if depth == 0:
            return "[…]"
        shown = [_brief(v, depth - 1, items) for v in value[:items]] + (["…"] if len(value) > items else [])
        return "[" + ", ".join(shown) + "]"
    if isinstance(value, dict):
        return "{…}"
    return str(value)
