"""course.toml's `[deadlines]` and `[late]`: each exercise's due date, and what handing in late costs.

    [deadlines]
    due = 2026-12-10T23:59:00+08:00     # every exercise (TOML offset date-time: the time zone is required)
    ex08 = 2026-12-17T23:59:00+08:00    # an exercise's own due date
    [late]
    per_day = 0.10       # share of an exercise's points lost per started day late (default 0: lateness is only shown)
    max_days = 3         # later than this: 0 points for that exercise (default: no such limit)
    grace_minutes = 0    # minutes after the due date that are not late

Neither table is part of the course's hash: changing a date or the penalty recomputes the final points
from the journal and regrades no one.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from grader.errors import CourseError

TABLES = ("deadlines", "late")  # the tables of course.toml this module reads (and the course hash leaves out)
_LATE_KEYS = {"per_day": float, "max_days": int, "grace_minutes": float}
DAY = dt.timedelta(days=1)
_YEARS = (1900, 9000)  # of any date-time the term reads: far from both ends of what datetime can hold
_MOST_GRACE = 60 * 24 * 366  # minutes: a year


@dataclass(frozen=True)
class Lateness:
    """How late one exercise was handed in, and what it cost."""

    due: dt.datetime
    extended: bool  # `due` is the student's extension
    submitted: dt.datetime
    days: int  # started days late (0: on time, or within the grace)
    share: float  # of the exercise's points lost: per_day * days, or 1 past max_days


@dataclass(frozen=True)
class Policy:
    """The due dates and the late penalty of a term."""

    due: dt.datetime | None  # every exercise's, where it has none of its own
    own: dict[str, dt.datetime] = field(default_factory=dict)  # exercise id -> its own due date
    per_day: float = 0.0
    max_days: int | None = None
    grace: dt.timedelta = dt.timedelta(0)

    def due_for(self, exercise: str) -> dt.datetime | None:
        return self.own.get(exercise, self.due)

    def lateness(self, exercise: str, submitted: dt.datetime, extension: dt.datetime | None = None) -> Lateness | None:
        """How late `submitted` is for `exercise` (due at `extension` when the student has one); None without a due date."""
        due = extension or self.due_for(exercise)
        if due is None:
            return None
        over = submitted - due - self.grace
        days = 0 if over <= dt.timedelta(0) else math.ceil(over / DAY)
        share = 1.0 if self.max_days is not None and days > self.max_days else min(1.0, self.per_day * days)
        return Lateness(due, extension is not None, submitted, days, share)


def load(data: Mapping[str, object], where: str) -> Policy | None:
    """The policy of course.toml's parsed `data` (`where` names the file in errors); None without `[deadlines]`."""
    deadlines, late = data.get("deadlines"), data.get("late")
    if deadlines is None:
        if late is not None:
            raise CourseError(f"{where}: [late] without [deadlines]; add [deadlines] with due = <date-time>, or remove [late]")
        return None
    if not isinstance(deadlines, dict) or not deadlines:
        raise CourseError(f"{where}: [deadlines] must be a table of due dates (due = 2026-12-10T23:59:00+08:00)")
    listed = data.get("exercises")
    exercises = {e.get("id") for e in listed if isinstance(e, dict)} if isinstance(listed, list) else set()
    unknown = sorted(k for k in deadlines if k != "due" and k not in exercises)
    if unknown:
        raise CourseError(f"[deadlines]: unknown key(s) {', '.join(unknown)}; known: due and the exercise ids")
    dates = {key: offset_datetime(value, f"deadlines.{key}") for key, value in deadlines.items()}
    late = {} if late is None else late
    if not isinstance(late, dict):
        raise CourseError(f"{where}: [late] must be a table (per_day, max_days, grace_minutes)")
    unknown = sorted(set(late) - set(_LATE_KEYS))
    if unknown:
        raise CourseError(f"[late]: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_LATE_KEYS))}")
    values = {key: _number(late[key], _LATE_KEYS[key], f"late.{key}") for key in late}
    per_day = values.get("per_day", 0.0)
    if not 0 <= per_day <= 1:
        raise CourseError(f"late.per_day: a share of the exercise's points, between 0 and 1, got {per_day}")
    for key in ("max_days", "grace_minutes"):
        if values.get(key, 0) < 0:
            raise CourseError(f"late.{key}: must not be negative, got {values[key]}")
    if values.get("grace_minutes", 0) > _MOST_GRACE:
        raise CourseError(f"{where}: late.grace_minutes: at most {_MOST_GRACE} (a year), got {late['grace_minutes']}")
    max_days = values.get("max_days")
    return Policy(dates.pop("due", None), dates, per_day, None if max_days is None else int(max_days), dt.timedelta(minutes=values.get("grace_minutes", 0.0)))


def offset_datetime(value: object, where: str) -> dt.datetime:
    """A date-time with its offset (a TOML offset date-time, or an ISO 8601 string); CourseError naming `where` else."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise CourseError(f"{where}: not an ISO 8601 date-time: {value!r} (write 2026-12-10T23:59:00+08:00)") from None
    if not isinstance(value, dt.datetime):
        raise CourseError(f"{where}: expected a date-time with its time zone (2026-12-10T23:59:00+08:00), got {value!r}")
    if value.utcoffset() is None:
        raise CourseError(f"{where}: {value.isoformat()} has no time zone; add its offset (e.g. {value.isoformat()}+08:00)")
    if not plausible(value):
        raise CourseError(f"{where}: {value.isoformat()} is outside the years {_YEARS[0]} to {_YEARS[1]}; write the real date")
    return value


def plausible(value: dt.datetime) -> bool:
    """Whether an aware time lies in years that every time zone can show and subtract (year 1 at +14:00 is year 0 in
    UTC, 9999-12-31 at -10:00 is year 10000: neither exists for Python)."""
    try:
        return _YEARS[0] <= value.astimezone(dt.UTC).year <= _YEARS[1]
    except OverflowError:
        return False


def _number(value: object, kind: type, where: str) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (kind is int and not isinstance(value, int)):
        raise CourseError(f"{where}: expected {'a whole number' if kind is int else 'a number'}, got {value!r}")
    return float(value)  # type: ignore[arg-type]
