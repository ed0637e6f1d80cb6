"""A TA's CSV file read whole, or refused with an error naming the file, the line and what to write instead."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from grader.errors import USAGE, GraderError


class TermFileError(GraderError):
    """A file the TA gave (a roster, --submitted-at, --extensions) is missing or malformed: the message says where."""

    exit_code = USAGE


def read_rows(path: Path, required: tuple[str, ...], *, example: str) -> list[tuple[int, dict[str, str]]]:
    """(line number, row by header) for each non-empty row of the CSV `path`, which must have the columns `required`
    (each cell stripped; a UTF-8 byte-order mark, as spreadsheets write, is ignored). `example` shows a valid first line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise TermFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TermFileError(f"{path}: cannot be read as UTF-8 text ({e})") from None
    reader = csv.reader(io.StringIO(text, newline=""))  # CSV's line ends alone: a name holding U+2028 or NEL is one cell
    try:
        header = [h.strip() for h in next(reader, [])]
        missing = [c for c in required if c not in header]
        if missing:
            raise TermFileError(f"{path}, line 1: no column {', '.join(missing)}; the header must name {', '.join(required)} (e.g. {example})")
        twice = [c for c in required if header.count(c) > 1]  # a row's cell would be the last such column's, silently
        if twice:
            raise TermFileError(f"{path}, line 1: the header names column {', '.join(twice)} twice; keep one (e.g. {example})")
        rows = []
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(header):
                raise TermFileError(f"{path}, line {reader.line_num}: {len(cells)} cells, but the header has {len(header)}")
            rows.append((reader.line_num, {h: c.strip() for h, c in zip(header, cells)} | dict.fromkeys(header[len(cells) :], "")))
    except csv.Error as e:
        raise TermFileError(f"{path}, line {reader.line_num}: not valid CSV ({e})") from None
    return rows
