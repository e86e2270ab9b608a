"""Prices for simulated runs: cost per run and the cost increase due to noise.

Uses the cost model of ``cloudnoise.costs.model``: a run costs its billed
time x nodes x price per node-hour, billed as each provider bills by default
(the rule `cost` and `advise` apply). The per-repetition cost increase due to
noise (`increase_samples`, the paper's Fig. 16-17) is priced pro rata, as the
paper does: cost(noisy) / cost(noiseless median) - 1, the runtime increase.
Systems whose profile cannot be found or has no price for the chosen pricing
are listed without a cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cloudnoise.costs.billing import Billing
from cloudnoise.costs.configs import ConfigCost, config_costs
from cloudnoise.costs.model import Pricing, noise_cost_increase
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile
from cloudnoise.report.data import SweepData

if TYPE_CHECKING:
    from cloudnoise.advice.points import AdvicePoint


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


# A priced configuration of a sweep (the cost stage's row).
CostRow = ConfigCost


def cost_rows(sweep: SweepData, pricing: Pricing, billing: Billing | None = None) -> list[CostRow]:
    """Per system, nodes and variant (in the report's order): the median run's cost
    (billed by `billing`; None: each provider's rule), and its increase over no noise."""
    runtimes = {
        (system, nodes, variant): values
        for system in sweep.systems()
        for nodes in sweep.nodes(system)
        for variant in sweep.variants(system)
        if (values := sweep.get(system, nodes, variant)) is not None
    }
    return config_costs(runtimes, {s: find_profile(s) for s in sweep.systems()}, pricing, billing)


def advice_points_of(sweep: SweepData, pricing: Pricing, billing: Billing | None = None) -> list[AdvicePoint]:
    """The sweep as `cloudnoise advise` weighs it (front marked), for the runtime-cost
    figure: the noisiest variant the sweep has (both, else network, else os) against
    `none`, billed as `advise` bills (None: each provider's rule). Empty when the
    sweep has no noisy variant."""
    from cloudnoise.advice.api import advice_from_runtimes
    from cloudnoise.costs.price_book import PriceBook

    noisy = next((v for v in ("both", "network", "os") if v in sweep.variants()), None)
    if noisy is None:
        return []
    book = PriceBook(pricing, billing=billing)
    quotes = {s: None if (p := find_profile(s)) is None else book.quote(p) for s in sweep.systems()}
    points, _ = advice_from_runtimes(sweep.runtimes_ns, quotes, noise=noisy)
    return points
