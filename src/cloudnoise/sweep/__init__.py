"""`cloudnoise sweep`: scalability experiments -- systems x node counts x noise
variants x repetitions of a collective or an application -- run on Dask,
saved to Parquet as they finish, resumable.

Public entry points: `run_sweep` (with `SweepRequest`), `load_results`, and
the paper's experiments in `PRESETS`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_results", "run_sweep", "SweepRequest", "PRESETS"]


def __getattr__(name: str) -> Any:
    # Lazy: `load_results` needs only pyarrow, not the engine or Dask.
    if name == "load_results":
        from cloudnoise.sweep.store import load_results

        return load_results
    if name in ("run_sweep", "SweepRequest"):
        from cloudnoise.sweep import sweeper

        return getattr(sweeper, name)
    if name == "PRESETS":
        from cloudnoise.sweep.presets import PRESETS

        return PRESETS
    raise AttributeError(f"module 'cloudnoise.sweep' has no attribute {name!r}")
