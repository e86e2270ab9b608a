"""The cost model: what a run costs, what noise adds, which system is cheapest.

cost = billed time [h] x nodes x price per node-hour (paper Sec. V-D, with
the time billed as the provider bills it). The default billing is every
provider's own rule (`costs.billing`: per-second or per-hour rounding and
minimum charges), the one rule `cost`, `advise` and the report share;
`billing=EXACT` (`--billing exact`) bills the runtime pro rata, the paper's
cost model, and a `Billing` of its own (`--billing 1s:60s`) applies to
every system.

Pricing (`parse_pricing`):

* `on-demand` or `committed` -- the profile's Table I price;
* `spot:F` -- a fraction F of the on-demand price (e.g. `spot:0.3`);
* a number, optionally with `USD` or `$` (`1.25`, `1.25USD`) -- that price per
  node-hour, for any system (also those without a published price).

The cost increase due to noise is cost(noisy) / cost(noiseless) - 1: pro
rata it equals the runtime increase (nodes and price are the same); billed,
a run within the minimum charge costs the same with noise or without.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

from cloudnoise.costs.billing import Billing, provider_billing
from cloudnoise.errors import CloudnoiseError
from cloudnoise.limits import MAX_PRICE_PER_NODE_HOUR
from cloudnoise.model.profile import SystemProfile


@dataclass(frozen=True)
class Pricing:
    """Which hourly price to charge."""

    kind: str  # committed | on-demand | spot | fixed
    value: float | None = None  # spot fraction, or fixed USD per node-hour

    def label(self) -> str:
        if self.kind == "spot":
            return f"spot ({self.value:g} x on-demand)"
        if self.kind == "fixed":
            return f"{self.value:g} USD/node-hour"
        return self.kind

    def price_per_node_hour(self, profile: SystemProfile) -> float | None:
        """USD per node-hour on `profile`, or None when the profile has no such price."""
        if self.kind == "fixed":
            return self.value
        if self.kind == "committed":
            return profile.prices.committed_per_node_hour
        on_demand = profile.prices.on_demand_per_node_hour
        if on_demand is None:
            return None
        fraction = self.value if self.kind == "spot" and self.value is not None else 1.0
        return on_demand * fraction

    def require_price(self, profile: SystemProfile) -> float:
        """Like price_per_node_hour, but a missing price is an error that says what to do."""
        price = self.price_per_node_hour(profile)
        if price is None:
            raise CloudnoiseError(
                f"{profile.name} has no published {self.kind} price (N.A. in Table I); "
                "pass --pricing PRICE with a USD per node-hour figure"
            )
        return price


_PRICE = re.compile(r"^\s*\$?\s*([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*(usd|\$)?\s*(/\s*(node-)?h(our)?)?\s*$", re.I)


def parse_pricing(text: str) -> Pricing:
    """A Pricing from `on-demand`, `committed`, `spot:F` or a USD price per node-hour."""
    t = str(text).strip().lower()
    if t in ("on-demand", "ondemand", "on_demand"):
        return Pricing("on-demand")
    if t == "committed":
        return Pricing("committed")
    if t.startswith("spot"):
        _, sep, frac = t.partition(":")
        try:
            value = float(frac) if sep else math.nan
        except ValueError:
            value = math.nan
        if not (0 < value <= 1):
            raise CloudnoiseError(f"--pricing {text}: write spot:F with F the fraction of on-demand, 0 < F <= 1")
        return Pricing("spot", value)
    match = _PRICE.match(t)
    if match:
        value = float(match.group(1))
        if not 0 < value <= MAX_PRICE_PER_NODE_HOUR:
            raise CloudnoiseError(
                f"--pricing {text}: a price must be positive and at most {MAX_PRICE_PER_NODE_HOUR:g} USD per node-hour"
            )
        return Pricing("fixed", value)
    raise CloudnoiseError(f"--pricing {text}: use on-demand, committed, spot:FRACTION or a USD price per node-hour")


def run_cost_usd(runtime_s: float, nodes: int, price_per_node_hour: float) -> float:
    """runtime x nodes x hourly price, in USD."""
    if runtime_s < 0 or nodes < 1 or price_per_node_hour < 0:
        raise CloudnoiseError(f"cost needs runtime >= 0, nodes >= 1, price >= 0; got {runtime_s}, {nodes}, {price_per_node_hour}")
    return runtime_s / 3600.0 * nodes * price_per_node_hour


def noise_cost_increase(noisy_runtime_s: float, noiseless_runtime_s: float) -> float:
    """Relative cost increase due to noise: noisy / noiseless - 1 (0.5 means +50%)."""
    if not noiseless_runtime_s > 0:
        raise CloudnoiseError(f"the noiseless runtime must be positive, got {noiseless_runtime_s}")
    return noisy_runtime_s / noiseless_runtime_s - 1.0


@dataclass(frozen=True)
class RunCost:
    """The cost of one run of a job on one system at one scale."""

    system: str
    nodes: int
    runtime_s: float
    pricing: str
    price_per_node_hour: float | None
    cost_usd: float | None
    noiseless_runtime_s: float | None = None
    noiseless_cost_usd: float | None = None
    noise_increase: float | None = None  # of the cost when priced, else of the runtime; 0.5 = +50%
    billing: str | None = None  # the rule the cost is billed by ("per-second, 5 min minimum")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cost_of_run(
    profile: SystemProfile,
    nodes: int,
    runtime_s: float,
    pricing: Pricing,
    noiseless_runtime_s: float | None = None,
    require_price: bool = True,
    billing: Billing | None = None,
) -> RunCost:
    """The cost of a run, billed by `billing` (None: the provider's rule for this
    system and pricing); with a noiseless runtime, also the cost increase due to noise."""
    price = pricing.require_price(profile) if require_price else pricing.price_per_node_hour(profile)
    if runtime_s < 0 or nodes < 1:
        raise CloudnoiseError(f"cost needs runtime >= 0 and nodes >= 1; got {runtime_s}, {nodes}")
    rule = billing or provider_billing(profile, pricing.kind)
    cost = None if price is None else float(rule.cost_usd(runtime_s, nodes, price))
    base_cost = increase = None
    if noiseless_runtime_s is not None:
        increase = noise_cost_increase(runtime_s, noiseless_runtime_s)
        if price is not None:
            base_cost = float(rule.cost_usd(noiseless_runtime_s, nodes, price))
            increase = cost / base_cost - 1.0 if base_cost > 0 else increase  # type: ignore[operator]
    return RunCost(profile.name, nodes, runtime_s, pricing.label(), price, cost, noiseless_runtime_s, base_cost, increase,
                   rule.label() if price is not None else None)


def costs_at_scales(
    profile: SystemProfile,
    runtimes_s: dict[int, float],
    pricing: Pricing,
    noiseless_runtimes_s: dict[int, float] | None = None,
    billing: Billing | None = None,
) -> list[RunCost]:
    """Cost per run at each scale (nodes -> runtime), in node order."""
    noiseless = noiseless_runtimes_s or {}
    return [
        cost_of_run(profile, n, runtimes_s[n], pricing, noiseless.get(n), billing=billing) for n in sorted(runtimes_s)
    ]


def compare_systems(
    runs: list[tuple[SystemProfile, float, float | None]], nodes: int, pricing: Pricing, billing: Billing | None = None
) -> list[RunCost]:
    """Cost of the same job on several systems (profile, runtime, noiseless runtime or None).

    Sorted cheapest first; systems without a price for `pricing` come last with cost None.
    """
    rows = [cost_of_run(p, nodes, rt, pricing, base, require_price=False, billing=billing) for p, rt, base in runs]
    return sorted(rows, key=lambda r: (r.cost_usd is None, r.cost_usd if r.cost_usd is not None else 0.0, r.system))


def billing_label(billing: Billing | None) -> str:
    """The billing rule as an output's header states it."""
    if billing is None:
        return "billed as each provider bills"
    if billing.increment_s == 0 and billing.minimum_s == 0:
        return "billed pro rata"
    return f"billed {billing.label()} on every system"


def cheapest(rows: list[RunCost]) -> RunCost:
    """The cheapest priced row; an error if none has a price."""
    priced = [r for r in rows if r.cost_usd is not None]
    if not priced:
        raise CloudnoiseError("none of these systems has a price for this pricing; pass --pricing PRICE")
    return min(priced, key=lambda r: (r.cost_usd, r.system))
