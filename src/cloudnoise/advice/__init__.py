"""`cloudnoise advise`: for a workload, which system, how many nodes, at what
cost and what risk.

On top of the sweep stage (the simulations) and the cost stage (prices and
billing): `workload` (what WORKLOAD names), `risk` (quantiles with their
confidence intervals, the probability of missing a limit), `points` (one
per system and node count), `front` (Pareto front of median cost and
runtime), `recommend` (the choice and one line of why), `api`
(`run_advice`, `advice_from_runtimes`), `table` and `cli` (printing).
"""

from __future__ import annotations

from typing import Any

__all__ = ["AdviseRequest", "Advice", "advice_from_runtimes", "run_advice"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package must not pull in the engine or Dask.
    if name in __all__:
        from cloudnoise.advice import api

        return getattr(api, name)
    raise AttributeError(f"module 'cloudnoise.advice' has no attribute {name!r}")
