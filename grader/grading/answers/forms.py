"""The kinds of answer a key of answers.toml asks for, as public checks declare them (`AnswerSheet.form`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from grader.grading.expr import Domain


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
