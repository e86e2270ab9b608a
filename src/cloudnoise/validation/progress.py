"""The progress bar of a validation: which configuration runs and the time left."""

from __future__ import annotations

import sys
from typing import Any


def configuration_progress(opts: dict[str, Any]) -> Any:
    """A progress bar over the configurations (stderr, on a terminal, not with --quiet or --json)."""
    from cloudnoise.sweep.progress import SweepProgress

    return SweepProgress(enabled=not (opts.get("quiet") or opts.get("as_json")) and sys.stderr.isatty(),
                         description="validating")
