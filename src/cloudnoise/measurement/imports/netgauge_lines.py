"""Reading a Netgauge text file a block at a time, with line numbers.

Every Netgauge output is text: ``#`` lines (headers, comments) between lines
of separated numbers. A file is read in blocks of about ``BLOCK_BYTES``
(cut after a newline); the number lines between two ``#`` lines are parsed
by numpy in one call when they are plain ``number<TAB>number`` lines (what
Netgauge writes), else line by line, so a 330,000-sample file never sits in
memory as Python objects and costs a fraction of a second. A damaged line is
named by its file and number: a text line among the numbers, a missing or
extra column, NaN or infinity, and a file cut short (its last line has no
newline: Netgauge ends every line it writes with one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from cloudnoise.errors import CloudnoiseError

BLOCK_BYTES = 1 << 20
MAX_LINE_BYTES = 4096  # a numbers line is a few dozen bytes; a longer one is not Netgauge's
_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*\n")


@dataclass
class Batch:
    """The number lines of one block: values[i] holds line lines[i]'s columns;
    ``comments`` the ``#`` lines met in the block, as (line number, text)."""

    lines: np.ndarray  # int64 line numbers (1-based)
    values: np.ndarray  # float64, shape (n, columns)
    comments: list[tuple[int, str]]


def batches(stream: IO[bytes], where: str, columns: int, sep: bytes | None = None,
            nan_ok: tuple[int, ...] = (), salvaged: list[str] | None = None) -> Iterator[Batch]:
    """The file's number lines, a block at a time (``columns`` numbers each, split at
    ``sep``, whitespace when None). Blank lines are skipped; anything else that is
    not a ``#`` line must be ``columns`` finite numbers (NaN allowed in the ``nan_ok``
    columns). ``salvaged``: where to note a cut-short last line, dropped, instead of
    refusing the file."""
    lineno = 0
    rest = b""
    while True:
        data = stream.read(BLOCK_BYTES)
        if not data:
            if rest.strip() and salvaged is not None:
                salvaged.append(f"{where}: line {lineno + 1}: the file ends inside a line (cut short); "
                                "that line is dropped")
            elif rest.strip():
                raise CloudnoiseError(f"{where}: line {lineno + 1}: the file ends inside a line (cut short?); "
                                      "use a complete copy of the run")
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) > BLOCK_BYTES:
                raise CloudnoiseError(f"{where}: line {lineno + 1}: over {BLOCK_BYTES} bytes without a newline; "
                                      "not a Netgauge output file")
            rest = data
            continue
        block, rest = data[:cut], data[cut:]
        yield _parse(block, lineno, where, columns, sep, nan_ok)
        lineno += block.count(b"\n")


def _parse(block: bytes, lineno: int, where: str, columns: int, sep: bytes | None,
           nan_ok: tuple[int, ...]) -> Batch:
    comments: list[tuple[int, str]] = []
    values: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    at, line = 0, lineno + 1
    for match in list(_COMMENT.finditer(block)) + [None]:
        end = match.start() if match else len(block)
        if end > at:
            segment = block[at:end]
            v, ln = _numbers(segment, line, where, columns, sep, nan_ok)
            values.append(v)
            lines.append(ln)
            line += segment.count(b"\n")
        if match is None:
            break
        comments.append((line, match.group().strip().decode("utf-8", "replace")))
        line += 1
        at = match.end()
    return Batch(np.concatenate(lines) if lines else np.empty(0, np.int64),
                 np.concatenate(values) if values else np.empty((0, columns)), comments)


def _numbers(segment: bytes, first: int, where: str, columns: int, sep: bytes | None,
             nan_ok: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The lines of a segment without ``#`` lines, starting at line ``first``."""
    n = segment.count(b"\n")
    plain = (sep is None and b"\r" not in segment and b" " not in segment and b"\n\n" not in segment
             and not segment.startswith(b"\n") and segment.count(b"\t") == (columns - 1) * n)
    values = None
    if plain:
        try:
            flat = np.fromstring(segment, dtype=np.float64, sep=" ")  # tabs and newlines are whitespace
        except ValueError:
            flat = None  # a field that is not a number: found and named line by line below
        if flat is not None and len(flat) == columns * n:
            values = flat.reshape(n, columns)
            at = first + np.arange(n, dtype=np.int64)
    if values is None:
        values, at = _by_line(segment, first, where, columns, sep)
    strict = [c for c in range(columns) if c not in nan_ok]
    bad = ~np.isfinite(values[:, strict]).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CloudnoiseError(f"{where}: line {at[i]}: {values[i].tolist()} holds a number that is not finite "
                              "(NaN or infinity: the run failed there); drop that run or re-measure")
    return values, at


def _by_line(segment: bytes, first: int, where: str, columns: int, sep: bytes | None) -> tuple[np.ndarray, np.ndarray]:
    rows: list[list[float]] = []
    at: list[int] = []
    for i, line in enumerate(segment.split(b"\n")[:-1], start=first):
        text = line.strip()
        if not text:
            continue
        fields = text.split(sep)
        if len(fields) != columns or len(line) > MAX_LINE_BYTES:
            raise CloudnoiseError(f"{where}: line {i}: expected {columns} numbers, found "
                                  f"{_quoted(text)}; is this a Netgauge output file?")
        try:
            rows.append([float(f) for f in fields])
        except ValueError:
            raise CloudnoiseError(f"{where}: line {i}: {_quoted(text)} is not {columns} numbers") from None
        at.append(i)
    return np.asarray(rows, np.float64).reshape(len(rows), columns), np.asarray(at, np.int64)


def _quoted(text: bytes) -> str:
    s = text.decode("utf-8", "replace")
    return repr(s if len(s) <= 60 else s[:57] + "...")
