"""An exercise's rubric (`rubric.toml` beside its statement): the written answer the course staff mark by hand.

The rubric names the written answer's file (`interpretation.md`), what it is worth, its items – each with an id,
points (positive: earned; negative: taken) and a description the student reads – and reusable comments (as
Gradescope's rubrics and nbgrader's comment bank #1294 have them). A mark is the set of items that apply and any
comments: its points are the sum of the items' current points, kept within 0 and the rubric's points, so that
editing an item's points in rubric.toml changes the points of every student who has it (`grader.term.marks`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.errors import CourseError, course_file, no_unknown
from grader.text import Text

RUBRIC_FILE = "rubric.toml"
WRITTEN_SUFFIX = ".md"  # a student file the course staff read and mark, never a file a check runs
_ID = re.compile(r"[a-z0-9][a-z0-9_-]*")  # what `grade mark --item` and `--comment` take


@dataclass(frozen=True)
class Item:
    id: str
    points: float  # positive: what the answer earns with it; negative: what it loses
    description: Text


@dataclass(frozen=True)
class Comment:
    id: str
    text: Text


@dataclass(frozen=True)
class Rubric:
    exercise: str
    file: str  # the written answer it marks, one of the exercise's student files
    points: float  # what the written answer is worth
    title: Text
    items: tuple[Item, ...]
    comments: tuple[Comment, ...] = ()

    def item(self, item_id: str) -> Item:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)

    def comment(self, comment_id: str) -> Comment:
        for comment in self.comments:
            if comment.id == comment_id:
                return comment
        raise KeyError(comment_id)

    def score(self, item_ids: list[str] | tuple[str, ...]) -> float:
        """The points of these items as the rubric has them now, within 0 and the rubric's points (an item the rubric
        no longer has counts nothing)."""
        known = {i.id: i.points for i in self.items}
        return round(min(self.points, max(0.0, sum(known.get(i, 0.0) for i in item_ids))), 4)

    def as_dict(self) -> dict[str, Any]:
        """Plain data, as `grade rubric --json` prints it and the journal keeps what was applied."""
        return {
            "exercise": self.exercise,
            "file": self.file,
            "points": self.points,
            "title": [self.title.en, self.title.zh],
            "items": [{"id": i.id, "points": i.points, "description": [i.description.en, i.description.zh]} for i in self.items],
            "comments": [{"id": c.id, "text": [c.text.en, c.text.zh]} for c in self.comments],
        }


def load(folder: Path, exercise: str) -> Rubric | None:
    """The rubric in `folder`/rubric.toml, or None when the exercise has no written answer; CourseError naming the key
    for anything malformed."""
    path = folder / RUBRIC_FILE
    if not path.is_file():
        return None
    where = f"{exercise}: {path.name}"
    data: dict[str, Any] = course_file(path, where)
    no_unknown(data, {"file", "points", "title", "title_zh", "items", "comments"}, where)
    file = _typed(data, "file", str, where)
    if not file.endswith(WRITTEN_SUFFIX) or "/" in file or not (folder / file).is_file():
        raise CourseError(f"{where}: file = {file!r}: the written answer is a {WRITTEN_SUFFIX} file beside rubric.toml (the stub students fill in)")
    points = _points(data, "points", where)
    if points <= 0:
        raise CourseError(f"{where}: points must be positive, got {points:g}")
    items = tuple(
        Item(
            _id(entry, f"{where}, items[{n}]", "description"),
            _points(entry, "points", f"{where}, items[{n}]"),
            _bilingual(entry, "description", f"{where}, items[{n}]"),
        )
        for n, entry in enumerate(_tables(data, "items", where, required=True))
    )
    comments = tuple(
        Comment(_id(entry, f"{where}, comments[{n}]", "text"), _bilingual(entry, "text", f"{where}, comments[{n}]"))
        for n, entry in enumerate(_tables(data, "comments", where, required=False))
    )
    for kind, ids in (("items", [i.id for i in items]), ("comments", [c.id for c in comments])):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise CourseError(f"{where}: {kind}: id {', '.join(twice)} given twice")
    for item in items:
        if item.points == 0 or abs(item.points) > points:
            raise CourseError(f"{where}: item {item.id}: points must be non-zero and at most the rubric's {points:g} either way, got {item.points:g}")
    if sum(i.points for i in items if i.points > 0) < points:
        raise CourseError(f"{where}: its positive items add up to less than its {points:g} points: no answer could earn them all")
    return Rubric(exercise, file, points, _bilingual(data, "title", where), items, comments)


def _tables(data: dict[str, Any], key: str, where: str, *, required: bool) -> list[dict[str, Any]]:
    tables = data.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables) or (required and not tables):
        raise CourseError(f"{where}: {key}: expected {'one or more' if required else 'a list of'} [[{key}]] tables")
    return tables


def _id(entry: dict[str, Any], where: str, text: str) -> str:
    """The entry's id, once its keys are checked: an item's `id, points, description`, a comment's `id, text`."""
    no_unknown(entry, {"id", text, f"{text}_zh"} | ({"points"} if text == "description" else set()), where)
    value: str = _typed(entry, "id", str, where)
    if not _ID.fullmatch(value):
        raise CourseError(f"{where}.id: lower-case letters, digits, - and _ (what `grade mark --item` takes), got {value!r}")
    return value


def _bilingual(entry: dict[str, Any], key: str, where: str) -> Text:
    english = _typed(entry, key, str, where).strip()
    chinese = entry.get(f"{key}_zh", "")
    if not english or not isinstance(chinese, str):
        raise CourseError(f"{where}.{key}: a non-empty string (and {key}_zh, a string, for the Chinese)")
    return Text(english, chinese.strip())


def _points(entry: dict[str, Any], key: str, where: str) -> float:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CourseError(f"{where}.{key}: a finite number, got {value!r}")
    return float(value)


def _typed(entry: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = entry.get(key)
    if not isinstance(value, kind):
        raise CourseError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value
