"""What keys a student's journal row: a hash of what grading reads of their hand-in and of the course's files as they
decide grades. A rerun grades again exactly the students whose key changed."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.inside import layout
from grader.rubric import RUBRIC_FILE

if TYPE_CHECKING:
    from grader.batch.roster import Student
    from grader.course import Course, Exercise

# What decides a grade besides the submission: a change to any of these regrades everyone.
_COURSE_PARTS = layout.GRADING
_HASHED_SUFFIXES = {".py", ".toml", ".md"}
_MAX_HASHED = 64 << 20  # bytes of one submission read for its key (the archive refuses more anyway)
_READ_PER_FILE = 17 << 20  # bytes of one student file or notebook read for its key (more is refused anyway)


@dataclass(frozen=True)
class Keys:
    """A class's journal keys: the course's hash, each student's submission hash, and each student's key (both, with
    the exercises graded and, with variants on, the student's variant number)."""

    course: str
    submissions: dict[str, str]  # student -> content_hash
    students: dict[str, str]  # student -> the key of their journal row

    def hashes(self) -> dict[str, tuple[str, str]]:
        """student -> (submission hash, course hash): what the published table and the audit rows keep."""
        return {s: (h, self.course) for s, h in self.submissions.items()}


def class_keys(course: Course, exercises: list[Exercise], students: list[Student]) -> Keys:
    """The journal keys of `students`, graded on `exercises`."""
    course_key = course_hash(course)
    common = hashlib.sha256(f"{course_key}|{','.join(e.id for e in exercises)}".encode()).hexdigest()
    contents = {s.id: content_hash(s, exercises) for s in students}
    keys = {s.id: hashlib.sha256(f"{common}|{contents[s.id]}|{_variant_key(course, s.id)}".encode()).hexdigest() for s in students}
    return Keys(course_key, contents, keys)


def course_hash(course: Course) -> str:
    """What keys every journal row: the course's files as they decide grades (`_graded_bytes`)."""
    digest = hashlib.sha256()
    for part in _COURSE_PARTS:
        root = course.root / part
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _HASHED_SUFFIXES)
        for path in files:
            if "__pycache__" in path.parts or path.name == RUBRIC_FILE:  # a rubric is applied after grading (grader.term.marks)
                continue
            if layout.for_developers(path.relative_to(course.root)):  # a mutant bank grades no one
                continue
            digest.update(str(path.relative_to(course.root)).encode() + b"\0" + _graded_bytes(path, course) + b"\0")
    return digest.hexdigest()


def _graded_bytes(path: Path, course: Course) -> bytes:
    """What of a course file decides a grade: course.toml without the term's tables ([deadlines], [late]), which are
    applied after grading (grader.term) – a date changed regrades no one – and without [variants.reseed], whose
    change regrades only the students it names (their journal key holds their variant number); every other file whole."""
    if path != course.root / layout.COURSE_FILE:
        return path.read_bytes()
    import json
    import tomllib

    from grader.deadlines import TABLES

    data = {k: v for k, v in tomllib.loads(path.read_text(encoding="utf-8")).items() if k not in TABLES}
    if isinstance(data.get("variants"), dict):
        data["variants"] = {k: v for k, v in data["variants"].items() if k != "reseed"}
    return json.dumps(data, sort_keys=True, default=str).encode()


def _variant_key(course: Course, student: str) -> str:
    """The part of a student's journal key that their own numbers add: their variant number, with variants on."""
    return str(course.variants.number(student)) if course.variants.enabled else ""


def content_hash(student: Student, exercises: list[Exercise]) -> str:
    """What keys a student's journal row besides the course: what grading reads of each of its entries, and why it
    is refused."""
    digest = hashlib.sha256(student.refused.encode())
    for path in (student.path, *student.others):
        digest.update(submission_hash(path, exercises).encode())
    return digest.hexdigest()


def submission_hash(path: Path, exercises: list[Exercise]) -> str:
    """A hash of what grading reads of one entry: a zip's bytes, or, in a folder, each exercise's student files and
    notebooks – their place, kind, size and first bytes – and nothing else, so that no other file, however large,
    hides a change (a file past its limit is refused whatever follows its first bytes).

    A file that cannot be read counts as its error: hashing never fails (the grading that follows says what
    could not be read).
    """
    from grader.submissions import notebook

    digest = hashlib.sha256()
    if not path.is_dir():
        digest.update(_file_key(path, _MAX_HASHED))
        return digest.hexdigest()
    for exercise in exercises:
        folder = path / exercise.folder
        digest.update(f"{exercise.id}|{folder.is_dir()}|{folder.is_symlink()}".encode())
        for file in [*(folder / name for name in exercise.student_files), *notebook.find(path, exercise)]:
            digest.update(os.fsencode(file.relative_to(path)) + b"\0" + _file_key(file, _READ_PER_FILE))
    return digest.hexdigest()


def _file_key(file: Path, limit: int) -> bytes:
    """One file as it decides a grade: its kind and size (lstat: a link is not followed) and its first `limit` bytes."""
    try:
        info = os.lstat(file)
    except OSError:
        return b"absent\0"
    head = f"{info.st_mode:o}|{info.st_size}|".encode()
    if not os.path.isfile(file) or os.path.islink(file):
        return head
    try:
        with open(file, "rb") as f:
            return head + f.read(limit) + b"\0"
    except OSError as e:
        return head + f"unreadable: {e.strerror}".encode() + b"\0"
