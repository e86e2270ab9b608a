"""Writing results: to a temporary name beside the target, renamed when complete.

A run that fails or is interrupted never leaves half a file, and never
destroys the result an earlier run left (docs/reference/conventions.md). The file gets the
permissions any program's new file gets, 0666 less the user's umask:
`tempfile.mkstemp` alone creates 0600 files, which a shared project folder's
readers cannot open.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def current_umask() -> int:
    """The process's umask (read by setting it, then restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_file_mode() -> int:
    """The mode a plain `open(path, "w")` would give a new file."""
    return 0o666 & ~current_umask()


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside `path` to write; renamed onto `path` when the
    block ends normally, removed when it raises (or is interrupted)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name keeps the target's suffixes: writers that choose a
    # format by suffix (.gz, .csv) write the same into it.
    suffix = "".join(target.suffixes[-2:]) or ".tmp"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, default_file_mode())
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], Any]) -> None:
    """Calls `write(tmp)` to fill a temporary file, then renames it onto `path`."""
    with atomic_path(path) as tmp:
        write(tmp)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Writes UTF-8 text atomically."""
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json(path: str | os.PathLike[str], data: Any, allow_nan: bool = False, **dump: Any) -> None:
    """Writes JSON atomically (indented, with a trailing newline); NaN is refused
    unless `allow_nan` (a measurement summary's fit without a value)."""
    text = json.dumps(data, indent=2, allow_nan=allow_nan, **dump) + "\n"
    write_text(path, text)


def write_npz(path: str | os.PathLike[str], arrays: dict[str, Any]) -> None:
    """NumPy arrays as a compressed `.npz`, atomically and reproducibly: the
    same arrays give the same bytes (numpy's own savez stamps each member with
    the current time), so package data rebuilt from the same inputs is
    identical bit for bit. Read it with `numpy.load(path, allow_pickle=False)`."""
    import io
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(value), allow_pickle=False)
            z.writestr(info, member.getvalue(), compresslevel=9)
    data = buf.getvalue()
    atomic_write(path, lambda p: p.write_bytes(data))
