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
