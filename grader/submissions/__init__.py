"""Any input a student hands in – a folder laid out like exercises/, or a .zip of one – as one folder to grade.

`workspace.py` then copies the files students edit from that folder into a private workspace.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def opened(path: Path) -> Iterator[Path]:
    """The folder to grade for `path`: itself, or a zip's contents unpacked for as long as the block runs.

    ArchiveRefused (a SubmissionError) when a zip could do harm or cannot be read.
    """
    if path.is_file() and path.suffix.lower() == ".zip":
        from grader.submissions.archive import unpack

        scratch = Path(tempfile.mkdtemp(prefix="grade-zip-"))
        try:
            yield unpack(path, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    else:
        yield path


HANDIN_ID_FILE = "student.txt"  # the id `grade pack --student` records at a hand-in's root
_MAX_ID_BYTES = 200


def recorded_student(folder: Path) -> str | None:
    """The student id a hand-in records (`grade pack --student`), or None (absent, unreadable or not a plain name)."""
    path = folder / HANDIN_ID_FILE
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_ID_BYTES:
        return None
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and text.isprintable() else None
