"""The class a batch grades: one student per folder or .zip of SUBMISSIONS, each named by a student id that names
files in OUT, a journal row, a CSV cell and Markdown lines (`grade similarity` reads the class so too)."""

from __future__ import annotations

import hashlib
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from grader.errors import SubmissionError
from grader.text import safe_cell

MAX_ID_BYTES = 200  # of a student id in UTF-8: reports/<id>.json's temporary name (".<id>.json.XXXXXXXX.tmp") fits in 255


@dataclass(frozen=True)
class Student:
    id: str
    path: Path
    key: str = ""
    refused: str = ""  # why this entry is "could not be read" without being opened ("" for nearly every student)
    others: tuple[Path, ...] = ()  # the other entries that are this student (then refused, all of them)


def discover(submissions: Path) -> list[Student]:
    """One student per folder or .zip in `submissions`, sorted by id (`student_id`: the entry's name without `.zip`).

    Entries whose ids differ at most in case (a TA's case-insensitive disk would merge their reports), or that
    grades.csv shows alike (`-bob` and `'-bob` are both `'-bob` there, `safe_cell`), are one student, refused
    as "could not be read" until one is left: which one is the work is for the TA to say.
    """
    if not submissions.is_dir():
        raise SubmissionError(f"{submissions}: not a folder of submissions (one folder or .zip per student)")
    groups: dict[str, list[tuple[str, Path]]] = {}
    for entry in sorted(submissions.iterdir()):
        name = _named(entry)
        if name is None:
            continue
        student = student_id(name)
        shown = unicodedata.normalize("NFC", safe_cell(student)).lower()  # lower, not casefold: ß is not ss
        groups.setdefault(shown, []).append((student, entry))
    students = []
    for (student, path), *others in groups.values():
        refused = ""
        if others:
            names = " and ".join(student_id(p.name) for p in [path, *(p for _, p in others)])
            refused = f"the entries {names} of the class are all student {safe_cell(student)} (as grades.csv shows ids, in any capitals); keep one"
        students.append(Student(student, path, refused=refused, others=tuple(p for _, p in others)))
    return sorted(students, key=lambda s: s.id)


def left_out(submissions: Path) -> list[str]:
    """The entries of `submissions` that are no student (`discover`), each with why, for the TA: a hand-in as a loose
    file or a .tar.gz, or a link to a folder, would else be no one's without a word (hidden names, as .DS_Store, aside)."""
    return [
        f"{student_id(e.name)} (a link to a folder)" if e.is_dir() else f"{student_id(e.name)} (neither a folder nor a .zip)"
        for e in sorted(submissions.iterdir())
        if not e.name.startswith(".") and _named(e) is None
    ]


def _named(entry: Path) -> str | None:
    """The name of the student an entry of SUBMISSIONS is (a folder's, a .zip's without `.zip`); None for anything else:
    a hidden name, a link to a folder, a file of another kind."""
    if entry.name.startswith("."):
        return None
    if entry.is_dir() and not entry.is_symlink():
        return entry.name
    if entry.is_file() and entry.suffix.lower() == ".zip":
        return entry.name[: -len(".zip")]
    return None


def student_id(name: str) -> str:
    """An entry's name as a student id, which names files in OUT, a journal row, a CSV cell and Markdown lines.

    The name itself when it is printable UTF-8 without a backslash and at most MAX_ID_BYTES; else escaped
    (`\\xNN` an undecodable byte, `\\uNNNN` a control, format or separator character, `\\\\` a backslash) and,
    if still too long, cut and ended with `~` and a hash of the whole name: distinct names keep distinct ids.
    """
    if name.isprintable() and "\\" not in name and len(name.encode()) <= MAX_ID_BYTES:
        return name
    escaped = "".join(_escaped(c) for c in name)
    if len(escaped.encode()) <= MAX_ID_BYTES:
        return escaped
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    return escaped.encode()[: MAX_ID_BYTES - len(digest) - 1].decode("utf-8", errors="ignore") + "~" + digest


def _escaped(c: str) -> str:
    """One character of a student id as `student_id` escapes it."""
    if "\udc80" <= c <= "\udcff":  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{ord(c) - 0xDC00:02x}"
    if c == "\\":
        return "\\\\"
    if not c.isprintable():
        return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
    return c
