"""Load and validate `course.toml`: the course, its limits and its exercises."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from grader.deadlines import TABLES as TERM_TABLES
from grader.deadlines import Policy
from grader.deadlines import load as load_policy
from grader.errors import CourseError, no_unknown
from grader.inside import layout
from grader.inside.layout import COURSE_FILE
from grader.location import beside_grader, course_folder
from grader.rubric import RUBRIC_FILE, WRITTEN_SUFFIX, Rubric
from grader.text import Text
from grader.variants import VARIANT_FILE, Declaration, Settings, settings_from

DEVICES = ("cpu", "cuda", "auto")
LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Exercise:
    id: str
    folder: str
    title: str
    points: float
    root: Path
    title_zh: str = ""  # the title in Chinese ("" where course.toml gives none: the English is shown)

    @property
    def heading(self) -> Text:
        """The title in both languages."""
        return Text(self.title, self.title_zh)

    @property
    def stub_dir(self) -> Path:
        return self.root / layout.EXERCISES / self.folder

    @property
    def solution_dir(self) -> Path:
        return self.root / layout.SOLUTIONS / self.folder

    @property
    def hidden_checks(self) -> Path:
        """The hidden-check module, named by the exercise id; absent in a student bundle."""
        return layout.checks(self.root, self.id)

    def given_code(self, *, hidden: bool) -> list[Path]:
        """The course code this exercise's student process receives: the public given code, and the hidden checks'
        own where `hidden` (loaded by grader.inside.given)."""
        return layout.given(self.root, self.id, hidden=hidden)

    @cached_property
    def public_checks(self) -> list[Path]:
        return sorted(self.stub_dir.glob("test_*.py"))

    @cached_property
    def student_files(self) -> list[str]:
        """The files a student edits: in a student bundle, those it was released with (its record of the stubs), as the
        course staff's grading reads no other – a helper module or notes a student adds beside them is neither run nor
        packed; else those the stub folder held when the course was read (see `student_names`)."""
        released = sorted(n.removeprefix(f"{self.folder}/") for n in stub_record(self.root) or () if n.startswith(f"{self.folder}/"))
        return released or student_names(self.stub_dir)

    @cached_property
    def code_files(self) -> list[str]:
        """The student files grading reads: all but the written answers, which only the course staff read."""
        return [n for n in self.student_files if not n.endswith(WRITTEN_SUFFIX)]

    @cached_property
    def rubric(self) -> Rubric | None:
        """The rubric of the exercise's written answer (`rubric.toml` beside its statement), or None (no written answer)."""
        from grader.rubric import load

        return load(self.stub_dir, self.id)

    @property
    def checked_points(self) -> float:
        """What the checks are worth: course.toml's points less the written answer's, which the course staff mark."""
        return self.points - (self.rubric.points if self.rubric else 0.0)

    @cached_property
    def variant(self) -> Declaration | None:
        """The exercise's per-student parameters (`variant.toml` beside its statement), or None (everyone's the same)."""
        from grader.variants import declaration

        return declaration(self.stub_dir, self.id)

    @property
    def declared(self) -> Declaration:
        """The variant declaration of an exercise known to have one (a caller that checked `variant`)."""
        if self.variant is None:
            raise CourseError(f"{self.id}: no {VARIANT_FILE}, so no numbers of a student's own")
        return self.variant

    @cached_property
    def runs_code(self) -> bool:
        """Whether grading needs a student process (the exercise has a Python file to import)."""
        return any(name.endswith(".py") for name in self.student_files)

    @cached_property
    def available(self) -> bool:
        """Whether any check exists yet (placeholders have a folder but no checks)."""
        return bool(self.public_checks) or self.hidden_checks.is_file()


def stub_record(root: Path) -> dict[str, str] | None:
    """A student bundle's record of its stubs as released, {"<folder>/<file>": SHA-256} (grader.handout.release writes
    it); None in a course folder without one (a TA's)."""
    record = root / layout.STUBS
    if not record.is_file():
        return None
    lines = record.read_text(encoding="utf-8", errors="replace").splitlines()
    return {name.removeprefix(f"{layout.EXERCISES}/"): sha for sha, _, name in (line.partition("  ") for line in lines)}


def student_names(stub_dir: Path) -> list[str]:
    """The files a student edits in an exercise folder: every file but the statement, its numbers, its rubric, the
    public checks and an editor's own (a written answer, `interpretation.md`, is one: handed in and marked by the course
    staff). A bundle's student edits the stub folder in place, where vim keeps `.gated.py.swp`, and writes `gated.py~`,
    emacs `#gated.py#`: none of them is work to grade or pack, nor a save for `grade watch`."""
    return sorted(
        p.name
        for p in stub_dir.iterdir()
        if p.is_file() and p.name not in ("README.md", VARIANT_FILE, RUBRIC_FILE) and not p.name.startswith(("test_", ".", "#")) and not p.name.endswith("~")
    )


@dataclass(frozen=True)
class Course:
    id: str
    title: str
    language: str
    rtol: float
    time_limit: float
    memory_limit: int
    symbolic_limit: float
    device: str
    exercises: tuple[Exercise, ...]
    root: Path
    public_only: bool = False  # run the public checks alone (`grade status`), even where hidden checks exist
    policy: Policy | None = None  # [deadlines] and [late] (grader.deadlines); None: no late policy
    variants: Settings = Settings()  # [variants]: per-student numbers (off: everyone the statement's)
    title_zh: str = ""

    @property
    def heading(self) -> Text:
        """The title in both languages."""
        return Text(self.title, self.title_zh)

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.exercises]

    def exercise(self, exercise_id: str) -> Exercise:
        for e in self.exercises:
            if e.id == exercise_id:
                return e
        raise KeyError(exercise_id)

    @cached_property
    def has_hidden_checks(self) -> bool:
        """False in a student bundle, which ships no hidden checks and no `solutions/` (and for `public_only`); looked up
        once a loaded course (a pipeline asks it several times a submission)."""
        return not self.public_only and layout.has_hidden_checks(self.root)

    @property
    def secrets(self) -> list[Path]:
        """What no student process may see: the references and the course tree (the zygote's own list: both are
        `grader.inside.layout.secrets`)."""
        return layout.secrets(self.root)


_SCHEMA: dict[str, dict[str, type]] = {
    "course": {"id": str, "title": str, "language": str},
    "limits": {"rtol": float, "time_limit": float, "memory_limit": int, "symbolic_limit": float, "device": str},
}
_EXERCISE_KEYS: dict[str, type] = {"id": str, "folder": str, "title": str, "points": float}
_OPTIONAL_KEYS: dict[str, type] = {"title_zh": str}  # in [course] and in each exercise; "" when absent
# Upper bounds that keep a typo from becoming a limit the operating system cannot take.
_LIMIT_RANGES = {"rtol": 1.0, "time_limit": 3600.0, "memory_limit": 1 << 20, "symbolic_limit": 600.0}
# Ids and folders name files and folders (course/<id>/checks.py, exercises/<folder>/): plain names only.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")


def find_root(start: Path) -> Path:
    """The course folder: the nearest folder at or above `start` holding course.toml, else the one beside the grader.

    The one place the course is located (grader.location): a student bundle installed elsewhere is found from inside it.
    """
    found = course_folder(start)
    if found is None:
        raise CourseError(
            f"no course here: no {COURSE_FILE} in {start} or any folder above it, nor beside the installed "
            f"grader ({beside_grader()}). Run grade from inside the course folder (the one holding {COURSE_FILE} and "
            "exercises/), or install the course from its folder with `pip install -e .`"
        )
    return found


def load_course(root: Path) -> Course:
    """Read `root/course.toml`, check every key, and return the course it describes (its paths absolute)."""
    root = root.resolve()
    path = root / COURSE_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CourseError(f"{path}: not found; the grader needs the course description here") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise CourseError(f"{path}: not valid TOML: {e}") from None
    try:
        course = _course(data, path, root)
    except CourseError as e:  # a key's message names the key; the file is named here, once
        raise CourseError(str(e) if str(e).startswith(str(path)) else f"{path}: {e}") from None
    for exercise in course.exercises:
        _ = exercise.variant  # a declaration that cannot be read is the course's error, said now (naming its own file)
        if exercise.rubric is not None and exercise.rubric.points > exercise.points:
            raise CourseError(
                f"{exercise.id}: {RUBRIC_FILE} gives the written answer {exercise.rubric.points:g} points, more than course.toml's {exercise.points:g}"
            )
    return course


def _course(data: dict[str, Any], path: Path, root: Path) -> Course:
    """The course `data` (course.toml's, as parsed) describes; CourseError naming the key of anything malformed."""
    no_unknown(data, set(_SCHEMA) | {"exercises", "variants", *TERM_TABLES}, str(path))
    tables: dict[str, dict[str, Any]] = {}
    for table, keys in _SCHEMA.items():
        section = data.get(table)
        if not isinstance(section, dict):
            raise CourseError(f"{path}: missing table [{table}]")
        tables[table] = {key: _typed(section, key, kind, f"{table}.{key}") for key, kind in keys.items()}
        optional: dict[str, type] = _OPTIONAL_KEYS if table == "course" else {}
        tables[table] |= {key: _typed(section, key, kind, f"{table}.{key}") for key, kind in optional.items() if key in section}
        no_unknown(section, set(keys) | set(optional), f"[{table}]")

    course, limits = tables["course"], tables["limits"]
    if course["language"] not in LANGUAGES:
        raise CourseError(f"course.language: expected one of {', '.join(LANGUAGES)}, got {course['language']!r}")
    if limits["device"] not in DEVICES:
        raise CourseError(f"limits.device: expected one of {', '.join(DEVICES)}, got {limits['device']!r}")
    for key, most in _LIMIT_RANGES.items():
        if not (0 < limits[key] <= most):  # also false for NaN
            raise CourseError(f"limits.{key}: must be positive and at most {most:g}, got {limits[key]}")

    entries = data.get("exercises")
    if not isinstance(entries, list) or not entries:
        raise CourseError(f"{path}: no [[exercises]] entries")
    exercises = tuple(_exercise(entry, n, root) for n, entry in enumerate(entries))
    for attr in ("id", "folder"):
        seen: set[str] = set()
        for exercise in exercises:
            if getattr(exercise, attr) in seen:
                raise CourseError(f"exercises: duplicate {attr} {getattr(exercise, attr)!r}")
            seen.add(getattr(exercise, attr))

    variants = settings_from(data.get("variants"))
    return Course(**course, **limits, exercises=exercises, root=root, policy=load_policy(data, str(path)), variants=variants)


def _exercise(entry: object, n: int, root: Path) -> Exercise:
    where = f"exercises[{n}]"
    if not isinstance(entry, dict):
        raise CourseError(f"{where}: expected a table")
    no_unknown(entry, set(_EXERCISE_KEYS) | set(_OPTIONAL_KEYS), where)
    values = {key: _typed(entry, key, kind, f"{where}.{key}") for key, kind in _EXERCISE_KEYS.items()}
    values |= {key: _typed(entry, key, kind, f"{where}.{key}") for key, kind in _OPTIONAL_KEYS.items() if key in entry}
    for key in ("id", "folder"):
        if not _PLAIN_NAME.fullmatch(values[key]):
            raise CourseError(f"{where}.{key}: must be a plain name of letters, digits and _, got {values[key]!r}")
    if not (0 <= values["points"] < math.inf):
        raise CourseError(f"{where}.points: must be a finite number, not negative, got {values['points']}")
    exercise = Exercise(**values, root=root)
    if not exercise.stub_dir.is_dir():
        raise CourseError(f"{where}.folder: {exercise.stub_dir} does not exist")
    return exercise


def _typed(table: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in table:
        raise CourseError(f"{where}: missing")
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise CourseError(f"{where}: expected {kind.__name__}, got {value!r}")
    return value
