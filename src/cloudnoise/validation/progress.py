"""The progress of a validation: which configuration runs, and the time left."""

from __future__ import annotations

from typing import Any

from cloudnoise.console import Progress


def configuration_progress(opts: dict[str, Any]) -> Progress:
    """Progress over the configurations (stderr; not with --quiet or --json)."""
    return Progress("validate", quiet=bool(opts.get("quiet") or opts.get("as_json")))
