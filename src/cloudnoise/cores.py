"""How many cores this process may use: the default for `--threads` and `--workers`.

`os.cpu_count()` counts the machine's cores, but a Slurm step, a container or
`taskset` may give this process fewer; `os.sched_getaffinity` says which ones
it may really run on, so that is what defaults are sized by (docs/reference/conventions.md).
"""

from __future__ import annotations

import os


def available_cores() -> int:
    """The number of cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux: the machine's count
        return max(1, os.cpu_count() or 1)
