"""Writing an output file atomically: a temp file in the same folder, fsync, then rename – never a half-written file;
and the files a batch creates, its owner's alone."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def write_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """`path` holds `text`, or what it held before (a new file is its owner's alone unless `mode` says otherwise)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Files and folders created meanwhile are their owner's alone (umask 077): OUT, its journal and its reports."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)
