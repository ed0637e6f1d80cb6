"""The student's answer quoted for feedback: shortened, safe to print, bounded however large or deep it is."""

from __future__ import annotations

import math

from grader.grading.answers.values import BIG_INT_BITS
from grader.grading.expr import quote


def kind_of(value: object, language: str = "en") -> str:
    """The TOML kind of `value`, for messages."""
    kinds = {bool: ("a boolean", "布尔值"), list: ("an array", "数组"), dict: ("a table", "表")}
    en, zh = kinds.get(type(value), ("a date or time", "日期或时间"))
    return zh if language == "zh" else en


def show(value: object, limit: int = 40) -> str:
    """The student's answer quoted for feedback: shortened, safe to print, bounded however large or deep it is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > BIG_INT_BITS:
        return brief(value)
    return quote(value.strip() if isinstance(value, str) else brief(value), limit)


def brief(value: object, depth: int = 3, items: int = 4) -> str:
    """A short text for a TOML value: `items` elements of an array at most, `depth` levels, no huge integer's digits."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) and value.bit_length() > BIG_INT_BITS:
        return f"an integer of about {math.floor(math.log10(abs(value))) + 1} digits"
    if isinstance(value, str):
        return repr(value[:40])
    if isinstance(value, list):
        if depth == 0:
            return "[…]"
        shown = [brief(v, depth - 1, items) for v in value[:items]] + (["…"] if len(value) > items else [])
        return "[" + ", ".join(shown) + "]"
    if isinstance(value, dict):
        return "{…}"
    return str(value)
