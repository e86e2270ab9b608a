"""Dask preload for the worker processes of a sweep's local cluster.

Ctrl-C in a terminal signals the whole process group: the client stops the
sweep and closes the cluster itself, so the workers ignore SIGINT instead of
each printing a KeyboardInterrupt traceback. (Loaded by Dask in every worker
process it starts, restarted ones included.)
"""

from __future__ import annotations

import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    """Called by Dask when the worker starts."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread of this process: leave it
        pass
