"""Reading a campaign folder that may come from someone else: its metadata.json
and summaries, checked against the schemas below before anything uses them.

A campaign is data (docs/reference/security.md): these checks make sure every reader
(`model build`, `report`, `measure --resume`) meets the types it expects, so
a hand-edited or hostile file gives `FILE: not a valid ...: KEY must be ...`
instead of a traceback. The schemas fix only what readers rely on; other keys
are allowed, so the measure stage may add to the format freely.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.input_files import read_json

_TEXT = {"type": "string", "maxLength": 100_000}
_OPT_TEXT = {"type": ["string", "null"], "maxLength": 100_000}
_COUNT = {"type": "integer", "minimum": 0, "maximum": 2**62}
_OPT_NUMBER = {"type": ["number", "null"]}

_UNIT = {
    "type": "object",
    "required": ["size"],
    "properties": {"size": _COUNT, "interval_ns": _COUNT, "iterations": _COUNT},
}
_RUN = {
    "type": "object",
    "required": ["probe", "mode", "ranks", "units"],
    "properties": {
        "probe": _TEXT,
        "mode": _TEXT,
        "ranks": {"type": "integer", "minimum": 1, "maximum": 2**31},
        "units": {"type": "array", "items": _UNIT},
        "ppn": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31},
        "split": {"type": "boolean"},
        "warmup": _COUNT,
        "duration_s": {"type": "number", "minimum": 0},
        "detours": _COUNT,
        "inject": {"type": ["array", "null"], "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "role": {"enum": ["measure", "sweep"]},
        "extra": {"type": "object"},
    },
}
_NAME = {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,63}$"}
_EXPERIMENT = {
    "type": "object",
    "properties": {"plan": {"type": "array", "items": _RUN}, "complete": {"type": "boolean"}},
}

METADATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "cloudnoise_version": _OPT_TEXT,
        "created": _OPT_TEXT,
        "launch_host": _OPT_TEXT,
        "cpu_model": _OPT_TEXT,
        "os": _OPT_TEXT,
        "labels": {"type": "object", "additionalProperties": _TEXT},
        # Experiment names become folder names: no path may hide in one.
        "experiments": {"type": "object", "additionalProperties": _EXPERIMENT, "propertyNames": _NAME},
        "complete": {"type": "boolean"},
        "mpi": {"type": "object", "additionalProperties": _OPT_TEXT},
        "hosts": {"type": "array", "items": _TEXT},
        "timer": {"type": "object"},
    },
}

_TABLE2 = {
    "type": "object",
    "properties": {
        key: _OPT_NUMBER
        for key in ("min_latency_us", "mean_latency_us", "max_bandwidth_gbps", "mean_bandwidth_gbps",
                    "latency_size_bytes", "bandwidth_size_bytes")
    },
}
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "table2": _TABLE2,
        "experiments": {"type": "object", "additionalProperties": {"type": "object"}},
        "labels": {"type": "object"},
    },
}
EXPERIMENT_SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "table2": _TABLE2,
        "results": {"type": "array", "items": {"type": "object"}},
        "samples": _COUNT,
        "loggp": {
            "type": "object",
            "properties": {k: _OPT_NUMBER for k in ("L", "o", "g", "G", "O", "S", "O_rendezvous", "r2_eager",
                                                    "r2_rendezvous")},
        },
    },
}


def read_metadata(root: Path) -> dict[str, Any]:
    """CAMPAIGN/metadata.json, checked; an error when the folder is not a campaign."""
    root = Path(root)
    if not root.is_dir():
        raise CloudnoiseError(f"{root}: not a directory; a campaign is the folder `cloudnoise measure --out` wrote")
    path = root / "metadata.json"
    if not path.exists():
        raise CloudnoiseError(f"{root} is not a campaign (no metadata.json); measure with cloudnoise measure --out")
    return read_json(path, "campaign metadata (metadata.json)", METADATA_SCHEMA, allow_nan=True)


def read_summary(root: Path) -> dict[str, Any]:
    """CAMPAIGN/summary.json, checked ({} when there is none yet)."""
    path = Path(root) / "summary.json"
    if not path.exists():
        return {}
    return read_json(path, "campaign summary (summary.json)", SUMMARY_SCHEMA, allow_nan=True)


def read_experiment_summary(root: Path, experiment: str) -> dict[str, Any] | None:
    """CAMPAIGN/EXPERIMENT/summary.json, checked (None when there is none)."""
    path = Path(root) / experiment / "summary.json"
    if not path.is_file():
        return None
    return read_json(path, f"{experiment} summary (summary.json)", EXPERIMENT_SUMMARY_SCHEMA, allow_nan=True)
