"""Reading a submission's answers.toml safely: a small regular file inside the submission, UTF-8, and TOML that
tomllib is given only where it cannot recurse too deep or slow down; a value it cannot read fails its own key."""

from __future__ import annotations

import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.grading.answers.judging import AnswerSheet
from grader.text import Text, TextError, printable

MAX_SHEET_BYTES = 64 * 1024
MAX_NESTING = 8  # arrays and inline tables within one another in one answer (a shape needs 1)
MAX_KEY_CHARS = 200  # a key or table name (tomllib takes time quadratic in a dotted key's parts)
MAX_INT_DIGITS = sys.int_info.default_max_str_digits  # the longest integer int() reads by default (4300)


class SheetError(TextError, ValueError):
    """An answer sheet that cannot be read at all; `message` (both languages) names the file."""


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
        raise SheetError(
            f"{label} is not UTF-8 text (byte {e.start}); save it as UTF-8", f"{label} 不是 UTF-8 文本（第 {e.start} 字节）；请以 UTF-8 保存"
        ) from None
    answers, unreadable, literals = _read_toml(text, label)
    return AnswerSheet(path, answers, rtol=rtol, label=label, fallback_seconds=fallback_seconds, unreadable=unreadable, literals=literals)


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


_TOML_LEXEME = re.compile(
    r'"""|\'\'\'|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*|[0-9_]+|[\[\]{}=\n]'
    r'|[^"\'#0-9_\[\]{}=\n]+'
)
_MULTILINE_END = {'"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL), "'''": re.compile(r".*?'''", re.DOTALL)}


def _statements(text: str) -> list[_Statement]:
    """Split TOML `text` into its top-level statements without building any value (linear, no recursion).

    Only a guide for what tomllib may not be given: a statement it splits wrongly is still parsed by tomllib.
    """
    statements: list[_Statement] = []
    start = pos = depth = deepest = digits = 0
    key_end: int | None = None
    while pos < len(text):
        match = _TOML_LEXEME.match(text, pos)
        assert match is not None  # the pattern matches any character
        lexeme = match.group()
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
            head = text[start : key_end if key_end is not None else start].strip()
            value = text[key_end + 1 : pos] if key_end is not None and not head.startswith("[") else ""
            statements.append(_Statement(start, pos, text.count("\n", 0, start) + 1, head, head.startswith("["), deepest, digits, value))
            start, depth, deepest, digits, key_end = pos, 0, 0, 0, None
    return statements


def _read_toml(text: str, label: str) -> tuple[dict[str, object], dict[str, Text], dict[str, str]]:
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
            raise SheetError(
                f"{label}, line {statement.line}: a key or table name is longer than {MAX_KEY_CHARS} characters; the keys are those of the stub",
                f"{label} 第 {statement.line} 行：键或表名超过 {MAX_KEY_CHARS} 个字符；键应与原始答题卡相同",
            )
        if statement.is_header:
            table = statement.key.strip("[] \t") + "."
        reason = None
        if statement.key and not statement.is_header:
            if statement.depth > MAX_NESTING:
                reason = Text(f"the value is nested more than {MAX_NESTING} levels deep (arrays within arrays)", f"取值嵌套超过 {MAX_NESTING} 层（数组套数组）")
            elif statement.digits > MAX_INT_DIGITS:
                reason = Text(f"the value holds a number with more than {MAX_INT_DIGITS} digits", f"取值中有超过 {MAX_INT_DIGITS} 位的数字")
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
        raise SheetError(
            f"{label} holds a value that cannot be read (nested too deeply or too long); write each answer as in the stub",
            f"{label} 中有无法读取的取值（嵌套过深或过长）；请按原始答题卡的格式作答",
        ) from None


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
        raise SheetError(f"{label} is a symbolic link; submit it as a regular file", f"{label} 是符号链接；请提交普通文件")
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
        raise SheetError(f"{label} is larger than {MAX_SHEET_BYTES // 1024} KiB", f"{label} 超过 {MAX_SHEET_BYTES // 1024} KiB")
    return label, data
