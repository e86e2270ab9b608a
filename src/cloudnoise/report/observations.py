"""Short observations computed from the data, as sentences for the report.

Each function looks at one kind of evidence and returns
:class:`Observation` s: the sentence and the numbers behind it (so ``--json``
users and tests can check the values, not parse text). Nothing here draws or
formats HTML; the report shows ``text`` as it is.

* :func:`median_slowdowns` -- per noise variant, the largest ratio of the
  noisy median runtime to the noiseless one, with its system and scale;
* :func:`os_noise_negligible` -- systems where OS noise moves the median
  runtime by less than a tolerance at every simulated scale;
* :func:`cheapest_per_scale` -- the cheapest priced system at each scale;
* :func:`communication_share` -- for applications, how much of the noiseless
  runtime is communication (what decides how much network noise costs);
* :func:`campaign_facts` -- a campaign's tail latency, low bandwidth and OS
  detours.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.costs.billing import Billing
from cloudnoise.costs.model import Pricing, billing_label, cheapest, compare_systems
from cloudnoise.costs.money import per_runs_unit
from cloudnoise.report.costs import find_profile
from cloudnoise.report.data import SweepData
from cloudnoise.units import format_time_ps

NOISE_NOUNS = {"os": "OS noise", "network": "network noise", "both": "combined OS and network noise"}
OS_TOLERANCE = 0.05  # OS noise "does not matter" when it moves the median less than this


@dataclass(frozen=True)
class Observation:
    """One sentence and the values it states."""

    kind: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "values": self.values}


def format_ratio(ratio: float) -> str:
    """2.1x; small effects keep two decimals (1.04x) so they do not read as 1.0x; large ones none,
    in groups of thousands (1791x, 43,650x)."""
    if ratio >= 99.95:
        return f"{ratio:,.0f}x"
    return f"{ratio:.1f}x" if ratio >= 1.095 or ratio < 0.9 else f"{ratio:.2f}x"


def _medians(sweep: SweepData, system: str, nodes: int, variant: str) -> tuple[float, float] | None:
    noisy, base = sweep.get(system, nodes, variant), sweep.get(system, nodes, "none")
    if noisy is None or base is None or len(noisy) == 0 or len(base) == 0:
        return None
    return float(np.median(noisy)), float(np.median(base))


def _time(ns: float) -> str:
    return format_time_ps(ns * 1000.0)


def median_slowdowns(sweep: SweepData, tolerance: float = OS_TOLERANCE) -> list[Observation]:
    """Per noise variant: where noise raises the median runtime most (noisy / noiseless
    median), citing both medians. A variant that moves no median by `tolerance` or more
    is said to be within it, in the same words os_noise_negligible uses, so the two
    sentences never disagree."""
    out: list[Observation] = []
    for variant in ("network", "os", "both"):
        best: tuple[float, str, int, float, float] | None = None
        for system in sweep.systems():
            for nodes in sweep.nodes(system):
                m = _medians(sweep, system, nodes, variant)
                if m is None or m[1] <= 0:
                    continue
                ratio = m[0] / m[1]
                if best is None or ratio > best[0] or (ratio == best[0] and nodes > best[2]):
                    best = (ratio, system, nodes, m[0], m[1])
        if best is None:
            continue
        ratio, system, nodes, noisy, base = best
        medians = f"median {_time(noisy)} against {_time(base)} without noise"
        if ratio < 1.0 + tolerance:
            text = (f"{sweep.title}: {NOISE_NOUNS[variant]} moves the median runtime by less than {tolerance:.0%} at "
                    f"every scale simulated (at most {format_ratio(ratio)}: {medians} at {nodes} nodes on {system}).")
        else:
            text = (f"{sweep.title}: {NOISE_NOUNS[variant]} raises the median runtime {format_ratio(ratio)} "
                    f"at {nodes} nodes on {system} ({medians}; the largest slowdown simulated).")
        out.append(Observation("median_slowdown", text,
                               {"variant": variant, "ratio": ratio, "system": system, "nodes": nodes,
                                "median_ns": noisy, "noiseless_median_ns": base}))
    return out


def os_noise_negligible(sweep: SweepData, tolerance: float = OS_TOLERANCE) -> list[Observation]:
    """Systems where OS noise moves the median runtime by less than `tolerance` at every
    scale, with the largest ratio among them."""
    quiet: list[str] = []
    top_nodes = 0
    largest = 1.0
    for system in sweep.systems():
        ratios = [m[0] / m[1] for n in sweep.nodes(system) if (m := _medians(sweep, system, n, "os")) and m[1] > 0]
        if ratios and all(abs(r - 1.0) < tolerance for r in ratios):
            quiet.append(system)
            top_nodes = max(top_nodes, max(sweep.nodes(system)))
            largest = max([largest, *ratios])
    if not quiet:
        return []
    text = (f"{sweep.title}: OS noise does not matter on {', '.join(quiet)} — it moves the median runtime by "
            f"less than {tolerance:.0%} at every scale simulated (up to {top_nodes} nodes; at most "
            f"{format_ratio(largest)}).")
    return [Observation("os_noise_negligible", text, {"systems": quiet, "tolerance": tolerance,
                                                       "max_nodes": top_nodes, "max_ratio": largest})]


def _worst_variant(variants: list[str]) -> str | None:
    for v in ("both", "network", "os", "none"):
        if v in variants:
            return v
    return None


def cheapest_per_scale(sweep: SweepData, pricing: Pricing, billing: Billing | None = None) -> list[Observation]:
    """At each scale with at least two priced systems: the cheapest one, with the most
    noise simulated, its median run billed by `billing` (None: each provider's rule)."""
    out: list[Observation] = []
    profiles = {s: p for s in sweep.systems() if (p := find_profile(s)) is not None}
    for nodes in sweep.nodes():
        runs = []
        variant = _worst_variant(sweep.variants())
        for system, profile in profiles.items():
            values = sweep.get(system, nodes, variant) if variant else None
            if values is None or len(values) == 0:
                continue
            base = sweep.get(system, nodes, "none")
            runs.append((profile, float(np.median(values)) / 1e9,
                         float(np.median(base)) / 1e9 if base is not None and len(base) else None))
        rows = compare_systems(runs, nodes, pricing, billing)
        priced = [r for r in rows if r.cost_usd is not None]
        if len(priced) < 2:
            continue
        best = cheapest(rows)
        worst = max(priced, key=lambda r: (r.cost_usd, r.system))
        factor = worst.cost_usd / best.cost_usd if best.cost_usd else float("inf")
        noise = "without noise" if variant == "none" else f"with {NOISE_NOUNS[variant]}"
        unit = per_runs_unit([best.cost_usd, worst.cost_usd])  # one unit for both, so they compare at a glance
        text = (f"{sweep.title}: at {nodes} nodes the cheapest system is {best.system} "
                f"({unit.text(best.cost_usd)}, {pricing.label()}, {billing_label(billing)}, {noise}); "
                f"{worst.system} costs {format_ratio(factor)} as much ({unit.text(worst.cost_usd)}).")
        out.append(Observation("cheapest", text, {"nodes": nodes, "system": best.system, "cost_usd": best.cost_usd,
                                                  "variant": variant, "most_expensive": worst.system,
                                                  "factor": factor}))
    return _merge_same_cheapest(sweep, out, pricing, billing)


def _merge_same_cheapest(sweep: SweepData, per_scale: list[Observation], pricing: Pricing,
                         billing: Billing | None = None) -> list[Observation]:
    """One sentence instead of one per scale when the same system is cheapest everywhere."""
    if len(per_scale) < 2 or len({o.values["system"] for o in per_scale}) > 1:
        return per_scale
    first, last = per_scale[0].values, per_scale[-1].values
    factors = [o.values["factor"] for o in per_scale]
    variant = first["variant"]
    noise = "without noise" if variant == "none" else f"with {NOISE_NOUNS[variant]}"
    low, high = format_ratio(min(factors)), format_ratio(max(factors))
    spread = f"{low} as much at every scale" if low == high else f"{low} to {high} as much"
    text = (f"{sweep.title}: {first['system']} is the cheapest system at every scale compared "
            f"({first['nodes']}–{last['nodes']} nodes, {pricing.label()}, {billing_label(billing)}, {noise}): "
            f"{per_runs_unit([first['cost_usd'], last['cost_usd']]).text(first['cost_usd'], last['cost_usd'])}; "
            f"the most expensive costs {spread}.")
    return [Observation("cheapest", text, {"system": first["system"], "variant": variant,
                                           "nodes": [o.values["nodes"] for o in per_scale],
                                           "cost_usd": [o.values["cost_usd"] for o in per_scale],
                                           "factor": factors})]


def communication_share(sweep: SweepData) -> list[Observation]:
    """For application sweeps: the range of communication / runtime (noiseless medians)."""
    shares: list[tuple[float, str, int]] = []
    for (system, nodes, variant), comm in sweep.communication_ns.items():
        total = sweep.get(system, nodes, variant)
        if variant != "none" or total is None or len(comm) == 0 or np.median(total) <= 0:
            continue
        shares.append((float(np.median(comm) / np.median(total)), system, nodes))
    if not shares:
        return []
    low, high = min(shares), max(shares)
    text = (f"{sweep.title}: without noise, communication is {low[0]:.0%} of the median runtime "
            f"({low[1]}, {low[2]} nodes) to {high[0]:.0%} ({high[1]}, {high[2]} nodes).")
    return [Observation("communication_share", text, {"min": low[0], "min_at": [low[1], low[2]],
                                                      "max": high[0], "max_at": [high[1], high[2]]})]


def campaign_facts(name: str, table2: dict[str, Any], os_row: dict[str, Any] | None) -> list[Observation]:
    """Tail latency over the minimum, the low bandwidth tail, and OS detours of one campaign."""
    out: list[Observation] = []
    lat = table2.get("latency_normalized") or {}
    if "p99.9" in lat and "min_latency_us" in table2:
        text = (f"On {name}, the 99.9th-percentile latency is {format_ratio(float(lat['p99.9']))} the minimum "
                f"({table2['min_latency_us']:.3g} µs); the largest sample is {format_ratio(float(lat.get('max', float('nan'))))}.")
        out.append(Observation("latency_tail", text, {"campaign": name, "p999_over_min": lat["p99.9"],
                                                      "max_over_min": lat.get("max"),
                                                      "min_latency_us": table2["min_latency_us"]}))
    bw = table2.get("bandwidth_normalized") or {}
    if "p0.1" in bw and "max_bandwidth_gbps" in table2:
        text = (f"On {name}, 0.1% of bandwidth samples fall below {bw['p0.1']:.0%} of the maximum "
                f"({table2['max_bandwidth_gbps']:.4g} Gb/s); the lowest is {bw.get('min', float('nan')):.1%}.")
        out.append(Observation("bandwidth_tail", text, {"campaign": name, "p01_over_max": bw["p0.1"],
                                                        "min_over_max": bw.get("min"),
                                                        "max_bandwidth_gbps": table2["max_bandwidth_gbps"]}))
    if os_row and os_row.get("detours"):
        text = (f"On {name}, OS detours take {os_row['noise_fraction']:.2%} of the time: "
                f"{os_row['detours_per_s']:,.0f} per second, the longest {os_row['max_detour_us']:,.0f} µs.")
        out.append(Observation("os_noise", text, {"campaign": name, "noise_fraction": os_row["noise_fraction"],
                                                  "detours_per_s": os_row["detours_per_s"],
                                                  "max_detour_us": os_row["max_detour_us"]}))
    return out
