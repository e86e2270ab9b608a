"""The cost of simulated runs, per configuration (system, nodes, noise
variant): the median run's cost and the increase noise causes over the same
system and scale without noise (paper Fig. 16-17). Shared by `cloudnoise
cost --sweep` and the report, so both price a sweep the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from cloudnoise.costs.billing import Billing
from cloudnoise.costs.model import Pricing, RunCost, cost_of_run, noise_cost_increase
from cloudnoise.model.profile import SystemProfile

Config = tuple[str, int, str]  # system, nodes, variant


@dataclass(frozen=True)
class ConfigCost:
    """The median run of one configuration, priced."""

    system: str
    nodes: int
    variant: str
    median_runtime_s: float
    reps: int
    cost: RunCost | None  # None when the system's profile is unknown
    increase: float | None  # of the runtime, over the noiseless median (0.5 = +50%); needs no price

    @property
    def cost_usd(self) -> float | None:
        return None if self.cost is None else self.cost.cost_usd


def config_costs(
    runtimes_ns: Mapping[Config, np.ndarray], profiles: Mapping[str, SystemProfile | None], pricing: Pricing,
    billing: Billing | None = None,
) -> list[ConfigCost]:
    """One row per configuration, in the order of `runtimes_ns`, billed by
    `billing` (None: each provider's rule). The `none` variant of the same
    system and nodes is the noiseless baseline."""
    medians = {k: float(np.median(v)) / 1e9 for k, v in runtimes_ns.items() if len(v)}
    rows = []
    for (system, nodes, variant), runtime_s in medians.items():
        base = medians.get((system, nodes, "none"))
        noiseless = base if variant != "none" and base else None
        increase = None if noiseless is None else noise_cost_increase(runtime_s, noiseless)
        profile = profiles.get(system)
        cost = None if profile is None else cost_of_run(profile, nodes, runtime_s, pricing, noiseless, require_price=False,
                                                          billing=billing)
        rows.append(ConfigCost(system, nodes, variant, runtime_s, len(runtimes_ns[(system, nodes, variant)]), cost, increase))
    return rows
