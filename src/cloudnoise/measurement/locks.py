"""Who is measuring into a campaign: told by locks the processes hold, never by a pid in a file.

A campaign folder may come from someone else, so nothing in its metadata
decides which process is signalled. Instead:

* ``cloudnoise measure`` holds an exclusive ``flock`` on ``CAMPAIGN/.measure.lock``
  while it runs; a second one on the same folder is refused;
* every probe rank holds ``raw/PREFIX.rankN.lock`` (``src/probes/cn_parent.h``).
  A probe whose cloudnoise died exits within a second on its own; ``--resume``
  waits for those locks to be released and never signals anything.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from cloudnoise.errors import CloudnoiseError

CAMPAIGN_LOCK = ".measure.lock"
PROBE_WAIT_S = 5.0


class CampaignLock:
    """An exclusive flock on CAMPAIGN/.measure.lock, held while measuring."""

    def __init__(self, root: Path) -> None:
        self.path = root / CAMPAIGN_LOCK
        self.fd: int | None = None

    def __enter__(self) -> "CampaignLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise CloudnoiseError(
                f"another cloudnoise measure is writing {self.path.parent}; wait for it to end or "
                "choose another --out") from None
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def _held(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def wait_for_probes(raw: Path, wait_s: float = PROBE_WAIT_S) -> None:
    """Wait until no probe of an earlier launch holds its lock in ``raw``; raise if
    some still do after ``wait_s`` seconds. Nothing is signalled."""
    if not raw.is_dir():
        return
    deadline = time.monotonic() + wait_s
    while True:
        held = [p for p in sorted(raw.glob("*.lock")) if _held(p)]
        if not held:
            return
        if time.monotonic() > deadline:
            raise CloudnoiseError(
                f"probes of an earlier launch still run (they hold {held[0]}); they stop within a "
                "second of losing their cloudnoise: wait for them, then --resume again")
        time.sleep(0.1)
