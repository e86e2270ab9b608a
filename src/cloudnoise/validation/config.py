"""A validation configuration (one schedule at one rank count) and what every
validation path does with it before comparing: check that it completes and
simulate it.

Shared by the run on this machine (`local_run.py`), the suite (`suite.py`)
and runs measured elsewhere (`measured.py`), so that none of them imports the
command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cloudnoise.comma_lists import parse_counts
from cloudnoise.errors import CloudnoiseError


@dataclass
class Config:
    """One configuration to validate: its label, rank count and schedule."""

    ranks: int
    label: str
    schedule: Any


def parse_ranks(text: str | None) -> list[int]:
    """'2,4,8' -> [2, 4, 8] (repeats dropped, order kept)."""
    if not text:
        return []
    return list(dict.fromkeys(parse_counts(text, "--ranks")))


def check_completes(config: Config, params: Any, ready_order: str) -> None:
    """Deadlocks are found by the engine before anything is launched or
    compared (exit 3, the stuck ranks named)."""
    from cloudnoise.errors import EXIT_STUCK
    from cloudnoise.simulation.api import simulate

    try:
        simulate(config.schedule, params=params, reps=1, ready_order=ready_order)
    except CloudnoiseError as err:
        if err.exit_code == EXIT_STUCK:
            raise CloudnoiseError(
                f"{config.label} on {config.ranks} ranks cannot complete, nothing was launched: {err}", EXIT_STUCK
            ) from None
        raise


def simulate_config(config: Config, params: Any, noise: Any, variants: list[str], reps: int, seed: int,
                    ready_order: str) -> dict[str, np.ndarray]:
    """``reps`` simulated runtimes (ns) of the configuration per noise variant."""
    from cloudnoise.simulation.api import simulate

    return {
        v: np.asarray(
            simulate(config.schedule, params=params, noise=noise, variant=v, reps=reps, seed=seed,
                     ready_order=ready_order).runtime_ns,
            dtype=np.float64,
        )
        for v in variants
    }
