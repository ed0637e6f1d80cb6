"""A `.zip` hand-in unpacked into a folder laid out like exercises/, refusing archives that could do harm.

Refused, with a message naming the entry: absolute paths, `..`, symbolic links and other special
files, an entry that appears twice (compared as the path it unpacks to: `a/./b` is `a/b`, and so is
`A/B`, which a TA's case-insensitive disk would merge), more entries or bytes than a submission may
hold, entries that inflate past their declared size (zip bombs are stopped while inflating, not
trusted from the header), and whatever zipfile cannot read: a corrupt header, name or compressed
stream. The zip's root, or its single top folder, must be laid out like exercises/.
"""

from __future__ import annotations

import lzma
import stat
import struct
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from grader.errors import SubmissionError
from grader.text import one_line

# What one submission may hold: every exercise's files with room to spare, far below a zip bomb.
MAX_ENTRIES = 500
MAX_BYTES = 32 << 20
MAX_ENTRY_BYTES = 4 << 20
_CHUNK = 1 << 16
# What zipfile raises on a corrupt archive: its headers, an entry's name (UTF-8 flag, invalid bytes), a compressed stream.
_UNREADABLE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, struct.error, ValueError, OverflowError, OSError, RuntimeError, NotImplementedError)


class ArchiveRefused(SubmissionError):
    """This student's archive cannot be graded; the message says why (the batch goes on)."""


def unpack(archive: Path, dest: Path) -> Path:
    """Extract `archive` into the empty folder `dest`; return the folder laid out like exercises/ (dest or its one top folder)."""
    label = archive.name if archive.name.isprintable() else ascii(archive.name)  # messages end up in Markdown and JSON
    try:
        zf = zipfile.ZipFile(archive)
    except _UNREADABLE as e:
        raise ArchiveRefused(f"{label}: not a valid zip file ({_why(e)})") from None
    with zf:
        entries = zf.infolist()
        if len(entries) > MAX_ENTRIES:
            raise ArchiveRefused(f"{label}: {len(entries)} entries; a submission holds at most {MAX_ENTRIES}")
        _refuse_twice(label, entries)
        total = 0
        for entry in entries:
            try:
                target = _target(label, entry, dest)
                if target is not None:
                    total += _extract(zf, label, entry, target, budget=MAX_BYTES - total)
            except ArchiveRefused:
                raise
            except _UNREADABLE as e:  # a corrupt stream, encryption, an unsupported method, a name the disk refuses
                raise ArchiveRefused(f"{label}: the entry {entry.filename!r} cannot be unpacked ({_why(e)})") from None
    tops = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(tops) == 1 and tops[0].is_dir() and _wraps(tops[0]):
        return tops[0]
    return dest


def _refuse_twice(label: str, entries: list[zipfile.ZipInfo]) -> None:
    """ArchiveRefused when two entries unpack to one path; which copy is graded would depend on the unpacker."""
    seen: dict[tuple[str, ...], str] = {}
    for entry in entries:
        parts = tuple(p.casefold() for p in PurePosixPath(entry.filename.replace("\\", "/")).parts)
        if parts in seen:
            raise ArchiveRefused(f"{label}: the entries {seen[parts]!r} and {entry.filename!r} are one file; keep one")
        seen[parts] = entry.filename


def _why(error: BaseException) -> str:
    """An exception of zipfile or a decompressor as one printable line (with its type, unless zipfile's own)."""
    return one_line(str(error) if isinstance(error, zipfile.BadZipFile) else f"{type(error).__name__}: {error}", limit=200)


def _wraps(folder: Path) -> bool:
    """Whether a lone top folder wraps a submission (holds folders or notebooks) rather than being one exercise's folder."""
    return any(p.is_dir() or p.suffix == ".ipynb" for p in folder.iterdir())


def _target(label: str, entry: zipfile.ZipInfo, dest: Path) -> Path | None:
    """Where an entry goes, or None for a folder entry; ArchiveRefused for a path or file type that could do harm."""
    name = entry.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or ".." in path.parts:
        raise ArchiveRefused(f"{label}: the entry {name!r} points outside the submission")
    kind = stat.S_IFMT(entry.external_attr >> 16)  # 0: no file type recorded (zips made by Python's zipfile)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        mode = entry.external_attr >> 16
        what = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
        raise ArchiveRefused(f"{label}: the entry {name!r} is {what}; submit plain files only")
    if entry.is_dir():
        (dest / path).mkdir(parents=True, exist_ok=True)
        return None
    return dest / path


def _extract(zf: zipfile.ZipFile, label: str, entry: zipfile.ZipInfo, target: Path, *, budget: int) -> int:
    """Inflate one entry, counting the bytes it really produces; return how many."""
    limit = min(MAX_ENTRY_BYTES, budget)
    if entry.file_size > limit:
        raise ArchiveRefused(_too_big(label, entry.filename, limit))
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(entry) as src, open(target, "wb") as out:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            if written > limit:
                raise ArchiveRefused(_too_big(label, entry.filename, limit))
            out.write(chunk)
    return written


def _too_big(label: str, name: str, limit: int) -> str:
    if limit < MAX_ENTRY_BYTES:
        return f"{label}: inflates past {MAX_BYTES} bytes in all (at {name!r}); is it a zip bomb?"
    return f"{label}: the entry {name!r} inflates past {MAX_ENTRY_BYTES} bytes"
