"""Prices for simulated runs: cost per run and the cost increase due to noise.

Uses the cost model of ``cloudnoise.cost.model``: a run costs runtime x nodes
x price per node-hour; the cost increase due to noise is cost(noisy) /
cost(noiseless) - 1, here against the noiseless *median* (paper Fig. 16-17),
which equals the runtime increase. Systems whose profile cannot be found or
has no price for the chosen pricing are listed without a cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise.cost.model import Pricing, RunCost, cost_of_run, noise_cost_increase
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile
from cloudnoise.report.data import SweepData


def increase_samples(sweep: SweepData, system: str, nodes: int, variant: str) -> np.ndarray | None:
    """Per repetition of `variant`: its cost increase over the noiseless median (0.5 = +50%)."""
    noisy, base = sweep.get(system, nodes, variant), sweep.get(system, nodes, "none")
    if noisy is None or base is None or len(base) == 0:
        return None
    median = float(np.median(base))
    return np.array([noise_cost_increase(float(v), median) for v in noisy])


def find_profile(system: str) -> SystemProfile | None:
    """The profile a sweep names (built-in name or file), or None when it cannot be loaded."""
    from cloudnoise.profiles.registry import resolve_profile

    try:
        return resolve_profile(system)
    except (CloudnoiseError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class CostRow:
    """Median cost of one (system, nodes, variant) of a sweep."""

    system: str
    nodes: int
    variant: str
    median_runtime_s: float
    cost: RunCost | None  # None when the profile could not be loaded
    increase: float | None = None  # over the noiseless median; needs no price

    @property
    def cost_usd(self) -> float | None:
        return None if self.cost is None else self.cost.cost_usd


def cost_rows(sweep: SweepData, pricing: Pricing) -> list[CostRow]:
    """Per system, nodes and variant: the median run's cost, and its increase over no noise."""
    rows: list[CostRow] = []
    for system in sweep.systems():
        profile = find_profile(system)
        for nodes in sweep.nodes(system):
            base = sweep.get(system, nodes, "none")
            base_s = float(np.median(base)) / 1e9 if base is not None and len(base) else None
            for variant in sweep.variants(system):
                values = sweep.get(system, nodes, variant)
                if values is None or len(values) == 0:
                    continue
                runtime_s = float(np.median(values)) / 1e9
                noiseless = base_s if variant != "none" and base_s else None
                increase = None if noiseless is None else noise_cost_increase(runtime_s, noiseless)
                cost = None
                if profile is not None:
                    cost = cost_of_run(profile, nodes, runtime_s, pricing, noiseless, require_price=False)
                rows.append(CostRow(system, nodes, variant, runtime_s, cost, increase))
    return rows
