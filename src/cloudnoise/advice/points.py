"""One advice point per (system, node count): runtime and cost with their
tails, what noise costs, and the risk of missing a deadline or a budget.

From a sweep's repetitions of the noisy variant (default `both`: OS and
network noise) and of `none` (no noise, the baseline), and the system's
price `Quote`:

* runtime p50/p95/p99 with confidence intervals (`risk.quantiles`);
* cost p50/p95/p99: the billed cost of those runtimes. Billing is monotone
  in the runtime (rounding up, a minimum), so the cost of the p-quantile
  runtime is the p-quantile of the cost;
* cost of noise: the billed cost of the noisy median over the billed cost of
  the noiseless run, minus one, in percent (what noise adds to what the
  user pays; a minimum charge can make it 0 where the runtime grew), and
  the same for the runtime alone;
* P(runtime > deadline) and P(cost > budget) over the repetitions, with
  exact binomial intervals;
* `on_front`: on the Pareto front of (p50 cost, p50 runtime) over every
  priced point (`front.pareto_front`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cloudnoise.advice.front import pareto_front
from cloudnoise.advice.risk import Probability, Quantile, exceedance, quantiles
from cloudnoise.costs.price_book import Quote

Config = tuple[str, int, str]  # system, nodes, variant


@dataclass(frozen=True)
class AdvicePoint:
    """A system at a node count, as advise reports it (times in ns, money in USD)."""

    system: str
    nodes: int
    reps: int
    runtime_ns: dict[str, Quantile]  # p50, p95, p99
    noiseless_runtime_ns: float | None
    quote: Quote | None
    cost_usd: dict[str, float] | None  # p50, p95, p99; None when the system has no price
    noiseless_cost_usd: float | None
    noise_cost_percent: float | None
    noise_runtime_percent: float | None
    deadline_miss: Probability | None = None
    over_budget: Probability | None = None
    on_front: bool = False

    @property
    def p50_ns(self) -> float:
        return self.runtime_ns["p50"].value

    @property
    def p50_cost(self) -> float | None:
        return None if self.cost_usd is None else self.cost_usd["p50"]

    def to_dict(self) -> dict[str, Any]:
        """The JSON row of this point (units in the field names)."""
        out: dict[str, Any] = {"system": self.system, "nodes": self.nodes, "reps": self.reps, "on_front": self.on_front}
        for name, q in self.runtime_ns.items():
            out[f"runtime_{name}_ns"] = q.value
            out[f"runtime_{name}_ci_low_ns"] = q.ci_low
            out[f"runtime_{name}_ci_high_ns"] = q.ci_high
        out["noiseless_runtime_ns"] = self.noiseless_runtime_ns
        for name in ("p50", "p95", "p99"):
            out[f"cost_{name}_usd"] = None if self.cost_usd is None else self.cost_usd[name]
        out["noiseless_cost_usd"] = self.noiseless_cost_usd
        out["noise_cost_percent"] = self.noise_cost_percent
        out["noise_runtime_percent"] = self.noise_runtime_percent
        for name, prob in (("deadline_miss", self.deadline_miss), ("over_budget", self.over_budget)):
            out[f"{name}_fraction"] = None if prob is None else prob.value
            out[f"{name}_ci_low_fraction"] = None if prob is None else prob.ci_low
            out[f"{name}_ci_high_fraction"] = None if prob is None else prob.ci_high
        q = self.quote
        out["pricing"] = None if q is None else q.pricing
        out["usd_per_node_hour"] = None if q is None else q.usd_per_node_hour
        out["price_date"] = None if q is None else q.date
        out["price_source"] = None if q is None else q.source
        out["billing"] = None if q is None else q.billing.label()
        return out


def _percent(new: float, base: float | None) -> float | None:
    if base is None or not base > 0:
        return None
    return 100.0 * (new / base - 1.0)


def advice_point(
    system: str,
    nodes: int,
    noisy_ns: np.ndarray,
    noiseless_ns: np.ndarray | None,
    quote: Quote | None,
    deadline_ns: float | None = None,
    budget_usd: float | None = None,
) -> AdvicePoint:
    """The point of one configuration from its repetitions (ns)."""
    x = np.asarray(noisy_ns, dtype=np.float64)
    q = quantiles(x)
    base = None if noiseless_ns is None or len(noiseless_ns) == 0 else float(np.median(noiseless_ns))
    cost = base_cost = None
    over = None
    if quote is not None:
        cost = {name: float(quote.cost_usd(v.value / 1e9, nodes)) for name, v in q.items()}
        base_cost = None if base is None else float(quote.cost_usd(base / 1e9, nodes))
        if budget_usd is not None:
            over = exceedance(np.asarray(quote.cost_usd(x / 1e9, nodes)), budget_usd)
    return AdvicePoint(
        system=system,
        nodes=nodes,
        reps=int(x.size),
        runtime_ns=q,
        noiseless_runtime_ns=base,
        quote=quote,
        cost_usd=cost,
        noiseless_cost_usd=base_cost,
        noise_cost_percent=None if cost is None else _percent(cost["p50"], base_cost),
        noise_runtime_percent=_percent(q["p50"].value, base),
        deadline_miss=None if deadline_ns is None else exceedance(x, deadline_ns),
        over_budget=over,
    )


def with_front(points: list[AdvicePoint]) -> list[AdvicePoint]:
    """The points with `on_front` set (Pareto front of p50 cost and p50 runtime)."""
    mask = pareto_front([p.p50_cost for p in points], [p.p50_ns for p in points])
    return [replace(p, on_front=bool(m)) for p, m in zip(points, mask)]


def advice_points(
    runtimes_ns: Mapping[Config, np.ndarray],
    quotes: Mapping[str, Quote | None],
    noisy: str = "both",
    deadline_ns: float | None = None,
    budget_usd: float | None = None,
) -> list[AdvicePoint]:
    """Every (system, nodes) with repetitions of the `noisy` variant, in the order
    the runtimes list them, with the front marked."""
    points = []
    for (system, nodes, variant), values in runtimes_ns.items():
        if variant != noisy or len(values) == 0:
            continue
        base = runtimes_ns.get((system, nodes, "none")) if noisy != "none" else None
        points.append(advice_point(system, nodes, values, base, quotes.get(system), deadline_ns, budget_usd))
    return with_front(points)
