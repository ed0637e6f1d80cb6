"""Per-student numbers: each numeric exercise declares its parameters in `exercises/<folder>/variant.toml`, and each
student's values are drawn from them, reproducibly, by (course salt, student, exercise, variant number).

The draw hashes its inputs with SHA-256 (never `hash()`, never a global random generator), so the same id, salt and
variant number give the same numbers on every machine, Python version and worker. Only the numbers live here: what
each question's answer is for those numbers is computed by the exercise's hidden checks (`expected`, `mistakes`), in
the grading process. Without variants, or without a student id, every student has the statement's numbers
(`default`); `example` holds the sources' own numbers, the statement's worked example.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import CourseError, course_file, no_unknown
from grader.text import Text

if TYPE_CHECKING:
    pass

VARIANT_FILE = "variant.toml"
MAX_TRIES = 1000  # draws of one student's numbers before a declaration is judged unsatisfiable

Number = int | float


@dataclass(frozen=True)
class Parameter:
    """One number of a question: drawn from low, low + step, …, high; written with the step's decimals."""

    name: str
    low: Number
    high: Number
    step: Number
    default: Number  # the statement's question
    example: Number  # the sources' worked example
    what: Text

    @property
    def integer(self) -> bool:
        return isinstance(self.step, int)

    @property
    def decimals(self) -> int:
        return 0 if self.integer else max(0, -math.floor(math.log10(self.step) + 1e-9))

    def value(self, index: int) -> Number:
        if self.integer:
            return int(self.low) + index * int(self.step)
        return round(self.low + index * self.step, self.decimals)

    @property
    def count(self) -> int:
        return round((self.high - self.low) / self.step) + 1


@dataclass(frozen=True)
class Declaration:
    """An exercise's parameters, the groups whose values must differ (gates told apart, d_x ≠ d_h), and the values
    never drawn together (where a named mistake gives the right answer, or two give the same)."""

    exercise: str
    parameters: tuple[Parameter, ...]
    distinct: tuple[tuple[str, ...], ...] = ()
    exclude: tuple[tuple[tuple[str, Number], ...], ...] = ()

    def default(self) -> dict[str, Number]:
        return {p.name: p.default for p in self.parameters}

    def example(self) -> dict[str, Number]:
        return {p.name: p.example for p in self.parameters}

    def accepts(self, values: dict[str, Number]) -> bool:
        apart = all(len({values[n] for n in group}) == len(group) for group in self.distinct)
        return apart and not any(all(values[n] == v for n, v in together) for together in self.exclude)


@dataclass(frozen=True)
class Settings:
    """course.toml's [variants]: off by default (every student the statement's numbers)."""

    enabled: bool = False
    salt: str = ""
    reseed: dict[str, int] = field(default_factory=dict)  # student -> variant number (absent: 0)
    gradescope_id: str = "email"  # which field of Gradescope's users[0] is the student id: "email" or "sid"

    def number(self, student: str) -> int:
        """The student's variant number: [variants.reseed]'s (its ids read as `canonical` reads them), else 0."""
        wanted = canonical(student)
        return next((n for who, n in self.reseed.items() if canonical(who) == wanted), 0)


@dataclass(frozen=True)
class Variant:
    """One student's numbers for one exercise; `student` None: the statement's own (no id, or variants off)."""

    exercise: str
    student: str | None
    number: int | None
    params: dict[str, Number]

    def as_dict(self) -> dict[str, object]:
        return {"exercise": self.exercise, "student": self.student, "variant": self.number, "params": dict(self.params)}


def declaration(folder: Path, exercise: str) -> Declaration | None:
    """The declaration in `folder`/variant.toml, or None when the exercise has no per-student numbers."""
    path = folder / VARIANT_FILE
    if not path.is_file():
        return None
    where = f"{exercise}: {path.name}"
    data = course_file(path, where)
    no_unknown(data, {"params", "distinct", "exclude"}, where)
    tables = data.get("params")
    if not isinstance(tables, dict) or not tables:
        raise CourseError(f"{where}: no [params.<name>] tables")
    parameters = tuple(_parameter(name, table, f"{where}, params.{name}") for name, table in tables.items())
    distinct = data.get("distinct", [])
    if not (isinstance(distinct, list) and all(isinstance(g, list) and all(isinstance(n, str) and n in tables for n in g) for g in distinct)):
        raise CourseError(f"{where}: distinct must be a list of lists of parameter names")
    exclude = data.get("exclude", [])
    if not (isinstance(exclude, list) and all(_values_of(t, tables) for t in exclude)):
        raise CourseError(f"{where}: exclude must be a list of tables of parameter = number, e.g. {{d_x = 4, d_h = 2}}")
    declared = Declaration(exercise, parameters, tuple(tuple(g) for g in distinct), tuple(tuple(t.items()) for t in exclude))
    for label, values in (("default", declared.default()), ("example", declared.example())):
        if not declared.accepts(values):
            raise CourseError(f"{where}: the {label} values break a distinct group or are excluded")
    return declared


def _values_of(table: object, parameters: dict[str, object]) -> bool:
    """Whether `table` is one entry of `exclude`: some of the parameters, each with a number."""
    return (
        isinstance(table, dict) and bool(table) and all(n in parameters and isinstance(v, (int, float)) and not isinstance(v, bool) for n, v in table.items())
    )


def _parameter(name: str, table: object, where: str) -> Parameter:
    if not isinstance(table, dict):
        raise CourseError(f"{where}: expected a table")
    keys = {"range", "step", "default", "example", "what"}
    no_unknown(table, keys, where)
    missing = sorted(keys - set(table))
    if missing:
        raise CourseError(f"{where}: missing {', '.join(missing)}")
    bounds, step = table["range"], table["step"]
    numbers = [*bounds, step, table["default"], table["example"]] if isinstance(bounds, list) else []
    if len(numbers) != 5 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in numbers):
        raise CourseError(f"{where}: range = [low, high], step, default and example must be finite numbers")
    low, high = bounds
    integer = isinstance(step, int)
    if integer and not all(isinstance(v, int) for v in (low, high, table["default"], table["example"])):
        raise CourseError(f"{where}: an integer step needs integer bounds, default and example")
    if not (step > 0 and low < high and math.isfinite((high - low) / step)):  # the number of steps, counted as an int
        raise CourseError(f"{where}: needs low < high and a positive step that counts the range in a finite number of steps")
    what = table["what"]
    if not (isinstance(what, list) and len(what) == 2 and all(isinstance(w, str) for w in what)):
        raise CourseError(f"{where}: what = [English, Chinese]")
    parameter = Parameter(name, low, high, step, table["default"], table["example"], Text(*what))
    if abs((high - low) / step - (parameter.count - 1)) > 1e-6:
        raise CourseError(f"{where}: the range is not a whole number of steps")
    if not (low <= table["default"] <= high):
        raise CourseError(f"{where}: default {table['default']} lies outside the range")
    return parameter


def seed(salt: str, student: str, exercise: str, number: int) -> bytes:
    """The seed of one student's variant of one exercise: a SHA-256 of the four, as canonical JSON."""
    return hashlib.sha256(json.dumps([salt, student, exercise, number], ensure_ascii=True).encode()).digest()


def draw(declared: Declaration, *, salt: str, student: str, number: int) -> dict[str, Number]:
    """The student's values: each parameter's grid index from a hash of the seed, the parameter and the try, redrawn
    until every distinct group holds distinct values and no excluded values are drawn together."""
    return dict(_draw(declared, salt, student, number))


@functools.lru_cache(maxsize=1 << 16)  # a batch worker looks up every classmate's numbers for each student it grades
def _draw(declared: Declaration, salt: str, student: str, number: int) -> dict[str, Number]:
    base = seed(salt, student, declared.exercise, number)
    for attempt in range(MAX_TRIES):
        values = {}
        for p in declared.parameters:
            digest = hashlib.sha256(base + json.dumps([attempt, p.name]).encode()).digest()
            values[p.name] = p.value(int.from_bytes(digest[:8], "big") % p.count)
        if declared.accepts(values):
            return values
    raise CourseError(f"{declared.exercise}: {VARIANT_FILE} cannot be satisfied: its distinct groups and exclusions reject every draw")


def canonical(student: str) -> str:
    """The id the numbers are drawn for: Unicode NFC, no surrounding space, lower case – so that `Alice`, ` alice` and
    an LMS folder `ALICE/` (one student to `grade batch`) all get alice's numbers."""
    return unicodedata.normalize("NFC", student).strip().lower()


def variant_of(settings: Settings, declared: Declaration, student: str | None) -> Variant:
    """`student`'s variant of the declared exercise; the statement's numbers when variants are off or no id is known."""
    student = canonical(student) if student else None
    if not settings.enabled or not student:
        return Variant(declared.exercise, None, None, declared.default())
    number = settings.number(student)
    return Variant(declared.exercise, student, number, draw(declared, salt=settings.salt, student=student, number=number))


def settings_from(table: object, where: str = "[variants]") -> Settings:
    """course.toml's [variants] table, validated: enabled (bool), salt (str), reseed (student → variant number),
    gradescope_id ("email" or "sid")."""
    if table is None:
        return Settings()
    if not isinstance(table, dict):
        raise CourseError(f"{where}: expected a table")
    no_unknown(table, {"enabled", "salt", "reseed", "gradescope_id"}, where)
    gradescope_id = table.get("gradescope_id", "email")
    if gradescope_id not in ("email", "sid"):
        raise CourseError(f'{where}.gradescope_id: expected "email" or "sid", got {gradescope_id!r}')
    enabled, salt, reseed = table.get("enabled", False), table.get("salt", ""), table.get("reseed", {})
    if not isinstance(enabled, bool):
        raise CourseError(f"{where}.enabled: expected true or false, got {enabled!r}")
    if not isinstance(salt, str):
        raise CourseError(f"{where}.salt: expected a string, got {salt!r}")
    if enabled and not salt.strip():
        raise CourseError(
            f'{where}.salt: variants are enabled but the salt is empty; set salt = "<any text of the '
            "course's own>\" (a new salt gives every student new numbers)"
        )
    if not isinstance(reseed, dict) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in reseed.values()):
        raise CourseError(f"{where}.reseed: expected a table of student = variant number (a whole number ≥ 0)")
    ids: dict[str, str] = {}
    for who in reseed:  # `number` takes the first a student's id matches: two of one student would be chosen by order
        if ids.setdefault(canonical(who), who) != who:
            raise CourseError(f"{where}.reseed: {ids[canonical(who)]!r} and {who!r} are one student (ids in any capitals); keep one")
    return Settings(enabled, salt, dict(reseed), gradescope_id)


def with_reseed(text: str, student: str, number: int) -> str:
    """course.toml's `text` with `student = number` in its [variants.reseed] table (added at the end when absent),
    every other line as the TA wrote it; CourseError if the table then no longer reads as [variants]."""
    import re

    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)  # TOML's lines: U+2028 or NEL in an id or a comment ends none
    entry = f"{json.dumps(student, ensure_ascii=False)} = {number}\n"
    header = next((n for n, line in enumerate(lines) if re.match(r"\s*\[\s*variants\s*\.\s*reseed\s*\]", line)), None)
    if header is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += ["\n", "[variants.reseed]  # students given new numbers by `grade reseed` (variant number)\n", entry]
    else:
        end = next((n for n in range(header + 1, len(lines)) if lines[n].lstrip().startswith("[")), len(lines))
        found = [n for n in range(header + 1, end) if _entry_of(lines[n]) == canonical(student)]
        if found:
            lines[found[0]] = entry
        else:
            lines.insert(header + 1, entry)
    changed = "".join(lines)
    try:
        settings_from(tomllib.loads(changed).get("variants"))
    except tomllib.TOMLDecodeError as e:
        raise CourseError(f"course.toml with {student} = {number} in [variants.reseed] is not valid TOML: {e}") from None
    return changed


def _entry_of(line: str) -> str | None:
    """The student a `student = number` line of [variants.reseed] names (as `canonical` reads ids), else None: the line
    is read as TOML, so that an id holding `=` or quotes is found again."""
    try:
        parsed = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return None
    if len(parsed) != 1:
        return None
    ((key, value),) = parsed.items()
    return canonical(key) if isinstance(value, int) else None
