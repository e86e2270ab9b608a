"""Free-disk checks before and during a measurement.

A long run writes a few bytes per sample for hours; running the disk full
would lose the chunk being written and leave no room for the summaries. The
run is refused, or stopped cleanly (like Ctrl-C: everything converted, the
experiment marked incomplete, ``--resume`` continues) while at least
``min_free`` bytes are still free.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cloudnoise.errors import CloudnoiseError

DEFAULT_MIN_FREE = 1 << 30  # 1 GiB


class DiskLow(CloudnoiseError):
    """The disk holding the campaign is (nearly) full."""


def free_bytes(path: Path) -> int:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return shutil.disk_usage(p).free


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


def check_before(path: Path, min_free: int) -> None:
    free = free_bytes(path)
    if free < min_free:
        raise DiskLow(f"only {_mib(free)} free where {path} is written (keeping {_mib(min_free)} free); "
                      "free some space or lower --min-free")


def check_during(path: Path, min_free: int) -> None:
    free = free_bytes(path)
    if free < min_free:
        raise DiskLow(f"stopped: only {_mib(free)} free where {path} is written (keeping {_mib(min_free)} "
                      "free); free some space, then continue with --resume")
