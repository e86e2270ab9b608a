"""The recommendation: one configuration, and one line saying why.

Among the priced points, those that are *acceptable* meet every limit given
with the required confidence c (`--confidence`, default 0.99):
P(runtime > deadline) <= 1 - c and P(cost > budget) <= 1 - c. Of those, the
recommendation is

* with `--deadline`: the cheapest (median cost; ties: the faster);
* with only `--budget`: the fastest (median runtime; ties: the cheaper);
* with neither: the best value, the lowest median cost x median runtime
  (always a point of the Pareto front).

The line of why compares it with the best acceptable point of another
system by the same measure (else another node count of the same system):
"azure-hpc at 256 nodes: 1.3x faster than gcp-hpc at 256 nodes at the same
cost; p99 +18% over the median". When nothing is acceptable there is no
recommendation, and the line names the point that came closest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cloudnoise.advice.points import AdvicePoint
from cloudnoise.costs.money import format_usd
from cloudnoise.units import format_time_ps

# Ratios closer to 1 than this read "as fast as" / "at the same cost".
SAME = 0.005


@dataclass(frozen=True)
class Recommendation:
    """The chosen point (None when none is acceptable), why, and what it was compared with."""

    point: AdvicePoint | None
    why: str
    objective: str  # cheapest | fastest | best-value
    compared_with: AdvicePoint | None = None
    path: dict[str, Any] | None = None  # its critical path read (advice.critical_path), when explained

    def to_dict(self) -> dict[str, Any]:
        pick = self.point
        alt = self.compared_with
        return {
            "system": None if pick is None else pick.system,
            "nodes": None if pick is None else pick.nodes,
            "objective": self.objective,
            "why": self.why,
            "compared_with": None if alt is None else {"system": alt.system, "nodes": alt.nodes},
            "critical_path": self.path,
        }


def _objective(deadline_ns: float | None, budget_usd: float | None) -> tuple[str, Callable[[AdvicePoint], tuple[float, float]]]:
    if deadline_ns is not None:
        return "cheapest", lambda p: (p.p50_cost or 0.0, p.p50_ns)
    if budget_usd is not None:
        return "fastest", lambda p: (p.p50_ns, p.p50_cost or 0.0)
    return "best-value", lambda p: ((p.p50_cost or 0.0) * p.p50_ns, p.p50_ns)


def _acceptable(p: AdvicePoint, risk: float) -> bool:
    for prob in (p.deadline_miss, p.over_budget):
        if prob is not None and prob.value > risk:
            return False
    return True


def _ratio_text(pick: AdvicePoint, alt: AdvicePoint) -> str:
    speed = alt.p50_ns / pick.p50_ns
    if speed > 1 + SAME:
        fast = f"{speed:.3g}x faster than"
    elif speed < 1 / (1 + SAME):
        fast = f"{1 / speed:.3g}x slower than"
    else:
        fast = "as fast as"
    cost = (pick.p50_cost or 0.0) / (alt.p50_cost or 1.0)
    if abs(cost - 1) <= SAME:
        money = "at the same cost"
    elif cost < 1:
        money = f"at {cost:.2g}x the cost"
    else:
        money = f"for {cost:.2g}x the cost"
    return f"{fast} {alt.system} at {alt.nodes} nodes {money}"


def _tail(pick: AdvicePoint, deadline_ns: float | None, budget_usd: float | None) -> str:
    parts = []
    p99, p50 = pick.runtime_ns["p99"].value, pick.p50_ns
    parts.append(f"p99 {100 * (p99 / p50 - 1):+.0f}% over the median" if p50 > 0 else "")
    if pick.deadline_miss is not None and deadline_ns is not None:
        parts.append(f"misses {format_time_ps(deadline_ns * 1000)} in {100 * pick.deadline_miss.value:.3g}% of runs")
    if pick.over_budget is not None and budget_usd is not None:
        parts.append(f"over {format_usd(budget_usd)} USD in {100 * pick.over_budget.value:.3g}% of runs")
    if pick.noise_cost_percent is not None:
        slower = pick.noise_runtime_percent
        if slower is not None and slower >= 1 and abs(pick.noise_cost_percent) < 0.5:
            # a minimum charge or coarse rounding bills the noisy and the quiet run alike: say
            # so, or "noise adds 0%" reads as "noise does not matter here"
            parts.append(f"noise adds {slower:.0f}% to its runtime but nothing to its bill (billing rounds both "
                         "up to the same charge)")
        else:
            parts.append(f"noise adds {pick.noise_cost_percent:.0f}% to its cost")
    return "; ".join(p for p in parts if p)


def recommend(
    points: list[AdvicePoint],
    deadline_ns: float | None = None,
    budget_usd: float | None = None,
    confidence: float = 0.99,
) -> Recommendation:
    """The recommendation (see the module docstring)."""
    objective, key = _objective(deadline_ns, budget_usd)
    priced = [p for p in points if p.cost_usd is not None]
    if not priced:
        return Recommendation(None, "no system has a price under this pricing: nothing to weigh runtime against", objective)
    risk = 1.0 - confidence
    ok = [p for p in priced if _acceptable(p, risk)]
    if not ok:
        limits = []
        if deadline_ns is not None:
            limits.append(f"meets {format_time_ps(deadline_ns * 1000)}")
        if budget_usd is not None:
            limits.append(f"stays within {format_usd(budget_usd)} USD")
        worst = lambda p: max(pr.value for pr in (p.deadline_miss, p.over_budget) if pr is not None)  # noqa: E731
        near = min(priced, key=lambda p: (worst(p), key(p)))
        return Recommendation(
            None,
            f"nothing {' and '.join(limits)} with {100 * confidence:g}% probability; closest: {near.system} at "
            f"{near.nodes} nodes, beyond the limit in {100 * worst(near):.3g}% of runs",
            objective,
            near,
        )
    pick = min(ok, key=lambda p: (*key(p), p.system, p.nodes))
    others = [p for p in ok if p.system != pick.system] or [p for p in ok if p is not pick]
    alt = min(others, key=lambda p: (*key(p), p.system, p.nodes)) if others else None
    head = f"{pick.system} at {pick.nodes} nodes"
    why = head + (f": {_ratio_text(pick, alt)}" if alt is not None else ": the only acceptable configuration")
    tail = _tail(pick, deadline_ns, budget_usd)
    return Recommendation(pick, f"{why}; {tail}" if tail else why, objective, alt)
