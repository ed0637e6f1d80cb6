"""When each student handed in, and each student's extensions: from the TA's files and from the hand-ins themselves.

A submission time comes from, in this order: `--submitted-at FILE.csv` (`student,submitted_at`, ISO 8601
with offset), then nbgrader's `timestamp.txt` in the student's entry (`<entry>/<id>/timestamp.txt`, as
nbgrader's `submitted/<student>/<id>/` holds it, or `<entry>/timestamp.txt` for every exercise); on
Gradescope, `submission_metadata.json`'s `created_at`. Only trust `timestamp.txt` where nbgrader's
exchange wrote it: in a folder a student uploads it is theirs to edit.
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.deadlines import offset_datetime, plausible
from grader.errors import CourseError
from grader.term.csvin import TermFileError, read_rows
from grader.variants import canonical

TIMESTAMP = "timestamp.txt"
_MOST_BYTES = 1024  # of a timestamp.txt
_NBGRADER_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})? UTC")  # as nbgrader writes it (timezone UTC)


@dataclass(frozen=True)
class HandIn:
    """When one student handed in one exercise, and which file says so."""

    at: dt.datetime
    source: str


def submitted_at(path: Path) -> dict[str, dt.datetime]:
    """`--submitted-at`: student -> the time of their hand-in (every exercise)."""
    times: dict[str, dt.datetime] = {}
    seen: dict[str, tuple[int, str]] = {}  # canonical id -> its first line and id as written
    for line, row in read_rows(path, ("student", "submitted_at"), example="student,submitted_at"):
        again = _again(seen, canonical(row["student"]), line, row["student"])
        if again is not None:
            raise TermFileError(f"{path}, line {line}: student {row['student']} a second time{again}; keep one line per student")
        times[row["student"]] = _when(row["submitted_at"], path, line, "submitted_at")
    return times


def extensions(path: Path, exercise_ids: list[str]) -> dict[tuple[str, str], dt.datetime]:
    """`--extensions`: (student, exercise id or "*") -> that student's due date."""
    found: dict[tuple[str, str], dt.datetime] = {}
    seen: dict[str, tuple[int, str]] = {}
    for line, row in read_rows(path, ("student", "exercise", "due"), example="student,exercise,due"):
        exercise = row["exercise"]
        if exercise != "*" and exercise not in exercise_ids:
            raise TermFileError(f"{path}, line {line}: unknown exercise {exercise!r}; write one of {', '.join(exercise_ids)}, or * for all")
        again = _again(seen, f"{canonical(row['student'])}\n{exercise}", line, row["student"])
        if again is not None:
            raise TermFileError(f"{path}, line {line}: a second extension of {row['student']} for {exercise}{again}; keep one")
        found[(row["student"], exercise)] = _when(row["due"], path, line, "due")
    return found


def _again(seen: dict[str, tuple[int, str]], key: str, line: int, student: str) -> str | None:
    """None for a student's first line (kept in `seen`); for a second one, "" or where the first wrote the id in other
    capitals: a batch's entries `bob/` and `Bob.zip` are one student, Gradescope's `Bob@x.edu` is bob@x.edu, so which
    line counts is the TA's to say, never the file's order."""
    if key not in seen:
        seen[key] = (line, student)
        return None
    first, written = seen[key]
    return "" if written == student else f" (line {first} has {written}: one student in any capitals)"


def extension_of(found: dict[tuple[str, str], dt.datetime], student: str, exercise: str) -> dt.datetime | None:
    """The student's extension for this exercise: its own, else their `*` one, else None."""
    return found.get((student, exercise)) or found.get((student, "*"))


def hand_ins(entry: Path, exercises: list[tuple[str, str]], given: dt.datetime | None) -> tuple[dict[str, HandIn], str]:
    """Each exercise's hand-in time for one student (`exercises`: (id, folder)), and a problem to report ("" if none).

    `given` is their --submitted-at time, which comes first; else the entry's timestamp.txt files."""
    if given is not None:
        return {i: HandIn(given, "--submitted-at") for i, _ in exercises}, ""
    try:
        files = _timestamps(entry, {p for pair in exercises for p in pair})
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError, NotImplementedError, EOFError, zlib.error) as e:
        # an encrypted member (RuntimeError), a compression zipfile lacks (NotImplementedError), a damaged stream
        return {}, f"{entry.name}: timestamp unreadable: its timestamp.txt could not be read ({type(e).__name__}: {e})"
    found, problems = {}, []
    for exercise, folder in exercises:
        for place in (exercise, folder, ""):
            if place in files:
                when = _nbgrader_time(files[place])
                if when is None:
                    problems.append(
                        f"{'/'.join(p for p in (entry.name, place, TIMESTAMP) if p)}: timestamp unreadable: "
                        f"{files[place].strip()[:60]!r} is not a UTC time as nbgrader writes it "
                        "(%Y-%m-%d %H:%M:%S.%f UTC, a year from 1900 to 9000); no late penalty without one"
                    )
                else:
                    found[exercise] = HandIn(when, f"{place + '/' if place else ''}{TIMESTAMP}")
                break
    return found, "; ".join(dict.fromkeys(problems))


def _timestamps(entry: Path, places: set[str]) -> dict[str, str]:
    """The entry's timestamp.txt texts by the folder that holds them ("" for the entry's root, or a zip's one top
    folder that is none of the exercises' `places`)."""
    if entry.is_dir():
        found = {}
        for path in [entry / TIMESTAMP, *entry.glob(f"*/{TIMESTAMP}")]:
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= _MOST_BYTES:
                found["" if path.parent == entry else path.parent.name] = path.read_text(encoding="utf-8", errors="replace")
        return found
    with zipfile.ZipFile(entry) as zf:
        infos = [i for i in zf.infolist() if i.filename.rsplit("/", 1)[-1] == TIMESTAMP and i.file_size <= _MOST_BYTES]
        tops = {i.filename.split("/", 1)[0] for i in zf.infolist() if "/" in i.filename}
        found = {}
        for info in infos:
            parts = info.filename.split("/")
            if len(tops) == 1 and len(parts) > 1 and parts[0] in tops - places:
                parts = parts[1:]  # a zip with one top folder
            if len(parts) <= 2:
                found["" if len(parts) == 1 else parts[0]] = zf.read(info).decode("utf-8", errors="replace")
        return found


def _nbgrader_time(text: str) -> dt.datetime | None:
    """nbgrader's timestamp as an aware UTC time: its format `%Y-%m-%d %H:%M:%S.%f %Z` with the zone nbgrader writes, UTC
    (read by nbgrader's own parse_utc); None for anything else – another zone's abbreviation (PST: which one?), no
    zone, a date alone – and for a time no time zone can show (year 1, 9999)."""
    from grader.errors import need

    if _NBGRADER_FORMAT.fullmatch(text.strip()) is None:
        return None
    utils = need("nbgrader.utils", "reading nbgrader's timestamp.txt")
    try:
        when = utils.parse_utc(text.strip())
    except (ValueError, OverflowError, TypeError):
        return None
    if not isinstance(when, dt.datetime):
        return None
    when = when.replace(tzinfo=dt.UTC)
    return when if plausible(when) else None


def _when(text: str, path: Path, line: int, column: str) -> dt.datetime:
    try:
        return offset_datetime(text, column)
    except CourseError as e:
        raise TermFileError(f"{path}, line {line}: {e}") from None


def gradescope_created_at(metadata: Mapping[str, object]) -> dt.datetime | None:
    """When Gradescope received the upload (`created_at` of its submission_metadata.json, as read); None if it does not say."""
    when = metadata.get("created_at")
    try:
        found = dt.datetime.fromisoformat(when) if isinstance(when, str) else None
    except ValueError:
        return None
    return found if found is not None and found.utcoffset() is not None and plausible(found) else None
