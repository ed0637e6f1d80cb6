"""Feedback text: one bilingual value rendered once, at the edge, and safe handling of what a submission wrote.

`Text(en, zh)` travels through the engine; exporters call `render(language)`. Anything a submission
controls (its messages, exception names, output, answers) passes through `printable` or `quoted`
before it reaches a person: no terminal escapes, lone surrogates, bidi overrides or line separators.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """A message in both feedback languages."""

    en: str
    zh: str = ""

    def __post_init__(self) -> None:
        if not self.zh:
            object.__setattr__(self, "zh", self.en)

    def render(self, language: str) -> str:
        return self.zh if language == "zh" else self.en

    def __str__(self) -> str:
        return self.en

    def __contains__(self, fragment: str) -> bool:
        """Whether either language holds `fragment` (how tests look for a diagnosis)."""
        return fragment in self.en or fragment in self.zh

    def __bool__(self) -> bool:
        return bool(self.en)

    def __add__(self, other: Text | str) -> Text:
        other = other if isinstance(other, Text) else Text(other)
        return Text(self.en + other.en, self.zh + other.zh)

    @staticmethod
    def join(separator: Text | str, texts: list[Text]) -> Text:
        separator = separator if isinstance(separator, Text) else Text(separator)
        return Text(separator.en.join(t.en for t in texts), separator.zh.join(t.zh for t in texts))


class TextError(Exception):
    """An exception whose message is a Text in both languages (`en`, `zh`); str() is the English."""

    def __init__(self, en: str | Text, zh: str | None = None):
        message = en if isinstance(en, Text) else Text(en, zh or en)
        super().__init__(message.en)
        self.message = message

    @property
    def en(self) -> str:
        return self.message.en

    @property
    def zh(self) -> str:
        return self.message.zh


_REPLACEMENT = "\N{REPLACEMENT CHARACTER}"


def _unsafe(c: str) -> bool:
    """Control, format (bidi overrides, zero-width), line/paragraph separator, surrogate and unassigned code points."""
    if c in "\n\t":
        return False
    return unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def printable(text: str) -> str:
    """`text` with every unsafe character replaced by "?" (controls) or U+FFFD (the rest); newlines and tabs kept.

    The result always encodes as UTF-8.
    """
    if text.replace("\n", "").replace("\t", "").isprintable():  # str.isprintable: no Other or Separator but " "
        return text
    return "".join(c if c.isprintable() or not _unsafe(c) else "?" if ord(c) < 0x100 else _REPLACEMENT for c in text)


def format_points(x: float, *, digits: int = 2) -> str:
    """A number of points as people write it: 14, 2.5, 0.33 (at most `digits` decimals, no trailing zeros)."""
    return f"{x:.{digits}f}".rstrip("0").rstrip(".")


def signed(points: float) -> str:
    """Points with their sign: +1, -0.5, 0."""
    return ("+" if points > 0 else "") + format_points(points)


# What makes a spreadsheet read a cell as a formula (OWASP's CSV injection rule): its first character.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading formula character gets a quote mark before it, and so does one
    after a ";" (where the locale separates lists with ";", a spreadsheet splits a comma-separated file there, and
    the writer quotes no ";"), and control characters (a carriage return would end the row: the writer quotes only
    "\\n") become "?"."""
    parts = ("'" + part if part.startswith(_FORMULA_STARTS) else part for part in value.split(";"))
    return printable(";".join(parts).replace("\n", "\r"))


def quoted(text: object, *, limit: int = 300) -> str:
    """Text the submission controls, as one printable line, truncated, in quotes that mark it as its own."""
    if not isinstance(text, str):
        return "<none>"
    return f'"{one_line(text, limit=limit)}"'


def one_line(text: str, *, limit: int = 300) -> str:
    text = " ".join(printable(text).split())
    return text[:limit] + " [...]" if len(text) > limit else text


def shown_path(path: str) -> str:
    """A path as a person reads it where the command runs: relative to the current directory when that is
    shorter ("exercises", "..", "mywork/ex05_gated_steps"), else as given; a label that is no path stays as it is."""
    import os

    try:
        relative = os.path.relpath(path)
    except (ValueError, OSError):  # another drive, or no current directory
        return path
    return relative if len(relative) < len(path) else path


def title(function: Callable[..., object]) -> Text:
    """A check's title in both languages: its docstring's first line in English, its second in Chinese.

    A blank second line (or none) leaves the English alone; what follows a blank line is for readers of the check.
    """
    lines = [line.strip() for line in (function.__doc__ or function.__name__).strip().splitlines()]
    return Text(lines[0], lines[1] if len(lines) > 1 else "")
