"""The files of one Netgauge run: a run folder, or its ``.tar.xz``, read as a stream.

The paper's artifact stores each run as ``YYYY_MM_DD_HH_MM_SS.tar.xz`` that
unpacks to a folder of that name. A tarball is read with ``tarfile``'s
streaming mode (``r|*``): members come one after the other and each is read
as a byte stream, so nothing is unpacked to disk and at most one member's
read buffer is in memory. A folder is read file by file in name order.

What is refused, with one line naming it: a path that is neither a folder nor
a readable tar archive, a member that should be a file but is a folder (or a
link, a device: a run folder is data and never points elsewhere), and a
member outside the run's one folder.
"""

from __future__ import annotations

import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from cloudnoise.errors import CloudnoiseError


@dataclass
class Member:
    """One file of the run: its name inside the run folder, where it was read
    from (for messages), and its bytes as a stream."""

    name: str
    where: str
    stream: IO[bytes]


def run_name(source: Path) -> str:
    """The run's name: the folder's, or the tarball's without ``.tar.xz``."""
    name = source.name
    for suffix in (".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def members(source: Path, expected: Callable[[str], bool]) -> Iterator[Member]:
    """Every regular file of the run, one at a time (a tarball's in archive order).
    ``expected``: whether a name must be a file (a folder by such a name is an error)."""
    source = Path(source)
    if source.is_dir():
        yield from _folder(source, expected)
    elif source.is_file():
        yield from _tarball(source, expected)
    else:
        raise CloudnoiseError(f"{source}: no such Netgauge run folder or .tar.xz")


def _folder(root: Path, expected: Callable[[str], bool]) -> Iterator[Member]:
    for path in sorted(root.iterdir()):
        if path.is_symlink():
            raise CloudnoiseError(f"{path}: a link in a Netgauge run folder; copy the file itself in")
        if path.is_dir():
            if expected(path.name):
                raise CloudnoiseError(f"{path}: is a directory where Netgauge writes a file; "
                                      "give the run folder as Netgauge left it")
            continue
        try:
            with open(path, "rb") as stream:
                yield Member(path.name, str(path), stream)
        except OSError as err:
            raise CloudnoiseError(f"{path}: cannot read ({err.strerror or err})") from None


def _tarball(path: Path, expected: Callable[[str], bool]) -> Iterator[Member]:
    try:
        archive = tarfile.open(path, mode="r|*")
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as err:
        raise CloudnoiseError(f"{path}: not a Netgauge run folder nor a readable .tar.xz ({err})") from None
    top: str | None = None
    try:
        with archive:
            for info in archive:
                parts = PurePosixPath(info.name).parts
                if not parts or parts[0] in ("/", "..") or ".." in parts or len(parts) > 2:
                    raise CloudnoiseError(f"{path}: member {info.name!r} is not a file of the run's folder")
                if len(parts) == 2:
                    top = top or parts[0]
                    if parts[0] != top:
                        raise CloudnoiseError(f"{path}: holds more than one run folder ({top}, {parts[0]}); "
                                              "import one run at a time")
                name = parts[-1]
                where = f"{path}:{info.name}"
                if info.isdir():
                    if len(parts) == 2 and expected(name):
                        raise CloudnoiseError(f"{where}: is a directory where Netgauge writes a file")
                    continue
                if not info.isfile():
                    raise CloudnoiseError(f"{where}: a link or special file in a Netgauge run; "
                                          "a run holds plain files only")
                stream = archive.extractfile(info)
                if stream is None:  # pragma: no cover - isfile() members always have data
                    continue
                yield Member(name, where, stream)
    except (tarfile.TarError, EOFError, OSError, lzma.LZMAError, zlib.error) as err:
        raise CloudnoiseError(f"{path}: damaged archive ({err}); fetch it again") from None
