"""A `.zip` hand-in unpacked into a folder laid out like exercises/, refusing archives that could do harm.

Refused, with a message naming the entry: absolute paths, `..`, symbolic links and other special
files, an entry that appears twice, more entries or bytes than a submission may hold, and entries that inflate past their
declared size (zip bombs are stopped while inflating, not trusted from the header). The zip's root,
or its single top folder, must be laid out like exercises/.
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath

from grader.errors import SubmissionError

# What one submission may hold: every exercise's files with room to spare, far below a zip bomb.
MAX_ENTRIES = 500
MAX_BYTES = 32 << 20
MAX_ENTRY_BYTES = 4 << 20
_CHUNK = 1 << 16


class ArchiveRefused(SubmissionError):
    """This student's archive cannot be graded; the message says why (the batch goes on)."""


def unpack(archive: Path, dest: Path) -> Path:
    """Extract `archive` into the empty folder `dest`; return the folder laid out like exercises/ (dest or its one top folder)."""
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = zf.infolist()
            if len(entries) > MAX_ENTRIES:
                raise ArchiveRefused(f"{archive.name}: {len(entries)} entries; a submission holds at most {MAX_ENTRIES}")
            names = [e.filename.replace("\\", "/").rstrip("/") for e in entries]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:  # which copy is graded would depend on the unpacker: a TA could read another
                raise ArchiveRefused(f"{archive.name}: the entry {twice[0]!r} appears more than once")
            total = 0
            for entry in entries:
                target = _target(archive, entry, dest)
                if target is None:
                    continue
                total += _extract(zf, archive, entry, target, budget=MAX_BYTES - total)
    except zipfile.BadZipFile as e:
        raise ArchiveRefused(f"{archive.name}: not a valid zip file ({e})") from None
    except (OSError, RuntimeError, NotImplementedError) as e:  # encrypted entries, unsupported compression
        raise ArchiveRefused(f"{archive.name}: could not be read ({e})") from None
    tops = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(tops) == 1 and tops[0].is_dir() and _wraps(tops[0]):
        return tops[0]
    return dest


def _wraps(folder: Path) -> bool:
    """Whether a lone top folder wraps a submission (holds folders or notebooks) rather than being one exercise's folder."""
    return any(p.is_dir() or p.suffix == ".ipynb" for p in folder.iterdir())


def _target(archive: Path, entry: zipfile.ZipInfo, dest: Path) -> Path | None:
    """Where an entry goes, or None for a folder entry; ArchiveRefused for a path or file type that could do harm."""
    name = entry.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or ".." in path.parts:
        raise ArchiveRefused(f"{archive.name}: the entry {name!r} points outside the submission")
    kind = stat.S_IFMT(entry.external_attr >> 16)  # 0: no file type recorded (zips made by Python's zipfile)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        mode = entry.external_attr >> 16
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
        raise ArchiveRefused(f"{archive.name}: the entry {name!r} is {kind}; submit plain files only")
    if entry.is_dir():
        (dest / path).mkdir(parents=True, exist_ok=True)
        return None
    return dest / path


def _extract(zf: zipfile.ZipFile, archive: Path, entry: zipfile.ZipInfo, target: Path, *, budget: int) -> int:
    """Inflate one entry, counting the bytes it really produces; return how many."""
    limit = min(MAX_ENTRY_BYTES, budget)
    if entry.file_size > limit:
        raise ArchiveRefused(_too_big(archive, entry.filename, limit))
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(entry) as src, open(target, "wb") as out:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            if written > limit:
                raise ArchiveRefused(_too_big(archive, entry.filename, limit))
            out.write(chunk)
    return written


def _too_big(archive: Path, name: str, limit: int) -> str:
    if limit < MAX_ENTRY_BYTES:
        return f"{archive.name}: inflates past {MAX_BYTES} bytes in all (at {name!r}); is it a zip bomb?"
    return f"{archive.name}: the entry {name!r} inflates past {MAX_ENTRY_BYTES} bytes"
