"""Where runs measured elsewhere come from: a folder of files, a run's
`.tar.xz` (or any tar archive Python reads), or a folder of such archives.

Archives are read as a stream (`tarfile` mode `r|*`): nothing is unpacked to
disk, and each member is handed on as lines while it is read. Only regular
files are read; a member or folder entry that is not one (a directory named
like a file, a link, a device) is reported, never followed. What the files
hold is data: nothing here runs or opens anything a file names.
"""

from __future__ import annotations

import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ContextManager

from cloudnoise.errors import CloudnoiseError

ARCHIVE_SUFFIXES = (".tar", ".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar.bz2")
# what reading a cut or damaged archive (or one of its members) raises
LINE_LIMIT_BYTES = 1 << 22  # longer lines are handed on cut (see _text_lines)
ARCHIVE_ERRORS = (tarfile.TarError, EOFError, lzma.LZMAError, zlib.error, OSError)


@dataclass(frozen=True)
class MeasuredFile:
    """One file: the run it belongs to (the archive's or folder's name), its
    name, where it is (for messages) and how to read its lines, once."""

    run: str
    name: str
    where: str
    open_lines: Callable[[], ContextManager[Iterator[str]]] | None  # None: not a regular file (``problem`` says why)
    problem: str = ""


def is_archive(path: Path) -> bool:
    return path.name.endswith(ARCHIVE_SUFFIXES)


def measured_files(source: Path, wanted: Callable[[str], bool]) -> Iterator[MeasuredFile]:
    """Every file under ``source`` whose name ``wanted`` accepts, archives read
    as streams, in a stable order (sorted names; an archive's own order)."""
    if not source.exists():
        raise CloudnoiseError(f"{source}: no such file or folder. Give a folder of collective runs or a run's .tar.xz")
    if source.is_file():
        if is_archive(source):
            yield from _archive_files(source, wanted)
        elif wanted(source.name):
            yield MeasuredFile(source.parent.name, source.name, str(source), _opener(source))
        else:
            raise CloudnoiseError(f"{source}: neither a collective run (.csv) nor a tar archive of runs")
        return
    for path in sorted(source.rglob("*")):
        if path.is_symlink():
            if wanted(path.name) or is_archive(path):
                yield MeasuredFile(_run_of(path, source), path.name, str(path), None, "a link, not read")
        elif path.is_file() and is_archive(path):
            yield from _archive_files(path, wanted)
        elif wanted(path.name):
            if path.is_file():
                yield MeasuredFile(_run_of(path, source), path.name, str(path), _opener(path))
            else:
                yield MeasuredFile(_run_of(path, source), path.name, str(path), None, "not a regular file")


def _run_of(path: Path, root: Path) -> str:
    """A run is named by its folder (the artifact's run folders are the start time)."""
    parent = path.parent
    return parent.name if parent != root else root.name


def _opener(path: Path) -> Callable[[], ContextManager[Iterator[str]]]:
    @contextmanager
    def lines() -> Iterator[Iterator[str]]:
        with open(path, "rb") as stream:
            yield _text_lines(stream)

    return lines


def _text_lines(stream: IO[bytes]) -> Iterator[str]:
    """A binary stream's lines as text (UTF-8, strict), none longer than
    LINE_LIMIT_BYTES + 1 bytes: a longer line is handed on cut, so a reader's
    own bound refuses it without it ever being held whole."""
    while True:
        line = stream.readline(LINE_LIMIT_BYTES + 1)
        if not line:
            return
        yield line.decode("utf-8")


def _archive_files(path: Path, wanted: Callable[[str], bool]) -> Iterator[MeasuredFile]:
    """The archive's members one at a time; each must be read before the next
    is asked for (a stream cannot go back)."""
    run = path.name
    for suffix in ARCHIVE_SUFFIXES:
        if run.endswith(suffix):
            run = run[: -len(suffix)]
            break
    try:
        with tarfile.open(path, mode="r|*") as archive:
            for member in archive:
                name = member.name.rsplit("/", 1)[-1]
                if not wanted(name):
                    continue
                where = f"{path}:{member.name}"
                folder = member.name.rsplit("/", 2)[-2] if member.name.count("/") else run
                if not member.isreg():
                    yield MeasuredFile(folder, name, where, None,
                                       "a directory, not a file" if member.isdir() else "not a regular file")
                    continue
                stream = archive.extractfile(member)
                if stream is None:  # pragma: no cover - isreg() members always have one
                    yield MeasuredFile(folder, name, where, None, "not a regular file")
                    continue
                yield MeasuredFile(folder, name, where, _member_opener(stream))
    except ARCHIVE_ERRORS as err:
        # a cut or damaged archive: what came before was read; the rest is one line
        yield MeasuredFile(run, path.name, str(path), None, f"the archive cannot be read from here on ({err})")


def _member_opener(stream: IO[bytes]) -> Callable[[], ContextManager[Iterator[str]]]:
    # tarfile's streamed members are read forward only; their lines are decoded here
    return lambda: nullcontext(_text_lines(stream))
