"""What a typed answer means: closeness and rounding of numbers, significant digits, the option named, a shape."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

BIG_INT_BITS = 1024  # an integer beyond floating-point range: described in feedback, not written out

_DECIMAL = re.compile(r"[+-]?([0-9]*)(\.?)([0-9]*)(?:[eE][+-]?[0-9]+)?")
_SHAPE = re.compile(r"\s*[\[(]?\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*,?\s*[\])]?\s*")


def close(got: float, target: float, rtol: float) -> bool:
    return abs(got - target) <= rtol * abs(target) + 1e-12


def rounds_to(got: float, target: float, digits: int | None) -> bool:
    """Whether `got`, typed with `digits` (≥ 2) significant digits, is `target` rounded to that many."""
    if digits is None or digits < 2 or target == 0:
        return False
    return math.isclose(got, float(f"{target:.{digits - 1}e}"), rel_tol=1e-9)


def significant_digits(text: str) -> int | None:
    """Significant digits of a plain decimal literal ("0.45" → 2, "1.50" → 3, "1200" → 2), else None."""
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match.group(1) or match.group(3)):
        return None
    whole, point, frac = match.groups()
    digits = (whole + frac).lstrip("0")
    if not point:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def pick(value: object, options: Sequence[str]) -> str | None:
    """The option `value` names: same text ignoring case and spaces, or the same decimal number."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    if isinstance(value, int) and value.bit_length() > BIG_INT_BITS:
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


def shape_of(value: object) -> list[int] | None:
    """A shape from a TOML array of non-negative integers or a string like "(2, 4, 10)"; else None."""
    if isinstance(value, str):
        match = _SHAPE.fullmatch(value)
        return [int(d) for d in match.group(1).split(",")] if match else None
    if isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value):
        return list(value)
    return None
