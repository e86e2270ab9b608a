"""Where an unexpected exception's traceback goes: a file, never the terminal.

A bug in cloudnoise prints one line naming the exception and this file
(exit 1); the file holds what a bug report needs: the command line, the
version, Python and the platform, and the full traceback. It is written under
the user's cache folder (`$XDG_CACHE_HOME/cloudnoise/crashes`, else
`~/.cache/...`), or the temporary folder when that is not writable.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import traceback
from datetime import datetime, timezone
from pathlib import Path


def crash_folders() -> list[Path]:
    """Candidate folders for crash files, the preferred first."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [Path(cache) / "cloudnoise" / "crashes", Path(tempfile.gettempdir()) / "cloudnoise-crashes"]


def write_crash_report(err: BaseException, argv: list[str]) -> Path | None:
    """Writes the traceback of `err` with its context; returns the file (None if no folder took it)."""
    from cloudnoise.version import __version__

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    text = "".join(
        [
            f"cloudnoise {__version__} crashed at {stamp}\n",
            f"command: cloudnoise {' '.join(argv)}\n",
            f"python: {sys.version.split()[0]} ({sys.executable})\n",
            f"platform: {platform.platform()}\n\n",
            *traceback.format_exception(type(err), err, err.__traceback__),
        ]
    )
    for folder in crash_folders():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"crash-{stamp}-{os.getpid()}.txt"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    return None
