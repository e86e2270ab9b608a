"""Run archives (.tar.xz) made in tests, as the paper artifact stores its runs."""

from __future__ import annotations

import io
import tarfile


def tar_xz(files: dict[str, bytes], folder: str | None = None) -> bytes:
    """The files in an xz-compressed tar, under `folder/` when given (a run unpacks to its folder)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{folder}/{name}" if folder else name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()
