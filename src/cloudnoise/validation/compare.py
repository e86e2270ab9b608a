"""Measured versus simulated runtimes: statistics, relative errors, and one
verdict over the median and the tail.

Both sides are summarised with :func:`cloudnoise.simulation.statistics.summarize`
(median with its distribution-free 95 % interval, mean with its bootstrap
interval). The relative error of a statistic is |simulated - measured| /
measured (the paper's measure, Sec. V-A); the signed error (simulated -
measured) / measured says which way the model misses.

The verdict judges the p90 beside the median: what `advise`, `cost` and the
report say about risk comes from the tail, and noise can predict the median
while missing the tail by a multiple. A configuration is within the bound
when both are (`verdict`); a set of configurations (`summarize_errors`) has
its median and worst |error| of each, per noise variant, and names every
variant whose p90 errs more than the noiseless simulation's (`tail_worse_than_none`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.simulation.statistics import Summary, summarize

PAPER_BOUND = 0.10  # the paper's bound on the relative error (Sec. V-A)
NEAR = 0.15  # the summaries also count the configurations within this


@dataclass
class Comparison:
    """One configuration: the measured distribution against each simulated variant."""

    ranks: int
    reps: int
    measured: Summary
    simulated: dict[str, Summary]  # noise variant -> summary
    primary: str  # the variant reported at top level
    oversubscribed: bool = False
    late_reps: int = 0
    notes: list[str] = field(default_factory=list)
    load_average: float | None = None  # of the launching host, just before the launch
    # the run's state probes against the profile (validation/machine_state.py) and
    # what they say: same | different | changed | unknown
    core_latency_ns: dict[str, Any] = field(default_factory=dict)
    pingpong_ref_ns: dict[str, Any] = field(default_factory=dict)
    machine_state: str = "unknown"
    # paced runs (validate --rep-gap): the gap asked for and the period of each block after the first
    rep_gap_ns: int | None = None
    period_ns: list[float] = field(default_factory=list)
    # the 90th percentiles (ns): how the tail of each side compares
    measured_p90: float = float("nan")
    simulated_p90: dict[str, float] = field(default_factory=dict)

    def errors(self, variant: str) -> dict[str, float]:
        """Relative and signed errors of median, mean and p90 for one variant."""
        m, s = self.measured, self.simulated[variant]
        p90 = (self.simulated_p90.get(variant, float("nan")) - self.measured_p90) / self.measured_p90 \
            if self.measured_p90 else float("nan")
        return {
            "relative_error_median": abs(s.median - m.median) / m.median if m.median else float("nan"),
            "relative_error_mean": abs(s.mean - m.mean) / m.mean if m.mean else float("nan"),
            "relative_error_p90": abs(p90),
            "signed_error_median": (s.median - m.median) / m.median if m.median else float("nan"),
            "signed_error_mean": (s.mean - m.mean) / m.mean if m.mean else float("nan"),
            "signed_error_p90": p90,
        }

    def tail_worse_than_none(self, variant: str) -> bool | None:
        """Whether `variant`'s p90 errs more than the noiseless simulation's (None without `none`)."""
        if variant == "none" or "none" not in self.simulated:
            return None
        return bool(self.errors(variant)["relative_error_p90"] > self.errors("none")["relative_error_p90"])

    def row(self) -> dict[str, Any]:
        """The JSON row of `cloudnoise validate --json` (times in microseconds)."""
        m, s = self.measured, self.simulated[self.primary]
        us = lambda ns: ns / 1000.0  # noqa: E731
        err = self.errors(self.primary)
        return {
            "ranks": self.ranks,
            "reps": self.reps,
            "noise": self.primary,
            "measured_median_us": us(m.median),
            "measured_median_ci_us": [us(m.median_ci_low), us(m.median_ci_high)],
            "measured_mean_us": us(m.mean),
            "measured_mean_ci_us": [us(m.mean_ci_low), us(m.mean_ci_high)],
            "simulated_median_us": us(s.median),
            "simulated_median_ci_us": [us(s.median_ci_low), us(s.median_ci_high)],
            "simulated_mean_us": us(s.mean),
            "simulated_mean_ci_us": [us(s.mean_ci_low), us(s.mean_ci_high)],
            "measured_p90_us": us(self.measured_p90),
            "simulated_p90_us": us(self.simulated_p90.get(self.primary, float("nan"))),
            **err,
            "within_paper_bound": bool(err["relative_error_median"] <= PAPER_BOUND),
            "within_paper_bound_p90": bool(err["relative_error_p90"] <= PAPER_BOUND),
            "verdict": verdict(err["signed_error_median"], err["signed_error_p90"]),
            "oversubscribed": self.oversubscribed,
            "late_start_reps": self.late_reps,
            "load_average": self.load_average,
            "core_latency_ns": self.core_latency_ns,
            "pingpong_ref_ns": self.pingpong_ref_ns,
            "machine_state": self.machine_state,
            "rep_gap_ns": self.rep_gap_ns,
            "period_ns": self.period_ns,
            "variants": {
                name: {
                    "simulated_median_us": us(v.median),
                    "simulated_mean_us": us(v.mean),
                    "simulated_p90_us": us(self.simulated_p90.get(name, float("nan"))),
                    **self.errors(name),
                    "p90_worse_than_none": self.tail_worse_than_none(name),
                }
                for name, v in self.simulated.items()
            },
            "measured_ns": self.measured.to_dict(unit=None),  # the unit is in the container's name
            "simulated_ns": {name: v.to_dict(unit=None) for name, v in self.simulated.items()},
            "notes": self.notes,
        }


def compare(
    ranks: int,
    measured_ns: np.ndarray,
    simulated_ns: dict[str, np.ndarray],
    primary: str,
    oversubscribed: bool = False,
    late_reps: int = 0,
) -> Comparison:
    """Summaries of both sides for one configuration."""
    notes = []
    if oversubscribed:
        notes.append(
            "more ranks than cores: ranks share cores (busy-polling), which the LogGOPS model does not cover"
        )
    if late_reps:
        notes.append(f"{late_reps} repetitions had a rank start more than 1 us after the common start")
    return Comparison(
        ranks=ranks,
        reps=int(len(measured_ns)),
        measured=summarize(np.asarray(measured_ns, dtype=np.float64)),
        simulated={k: summarize(np.asarray(v, dtype=np.float64)) for k, v in simulated_ns.items()},
        primary=primary,
        oversubscribed=oversubscribed,
        late_reps=late_reps,
        notes=notes,
        measured_p90=p90(measured_ns),
        simulated_p90={k: p90(v) for k, v in simulated_ns.items()},
    )


def p90(values: np.ndarray) -> float:
    """The 90th percentile (numpy's linear interpolation)."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), 90))


def verdict(signed_error_median: float, signed_error_p90: float, bound: float = PAPER_BOUND) -> str:
    """One configuration's verdict over its median and its p90: `within` (both within
    the bound), `median only`, `p90 only` or `outside`."""
    median, tail = abs(signed_error_median) <= bound, abs(signed_error_p90) <= bound  # NaN: not within
    return "within" if median and tail else "median only" if median else "p90 only" if tail else "outside"


def _abs_errors(values: list[float]) -> list[float]:
    return [abs(v) for v in values if v == v]


def summarize_errors(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The verdict over rows of `Comparison.row()` (their reported variant at top level, every
    variant under `variants`): median and worst |error| of the median and of the p90, the
    configurations within NEAR at each and at both, the same per variant, and the variants
    whose p90 errs more than the noiseless one's (median |error| of the p90 over the rows)."""
    nan = float("nan")
    med = _abs_errors([r["signed_error_median"] for r in rows])
    tail = _abs_errors([r.get("signed_error_p90", nan) for r in rows])
    finite = lambda key: [r for r in rows if r.get(key, nan) == r.get(key, nan)]  # noqa: E731
    worst = max(finite("signed_error_median"), key=lambda r: abs(r["signed_error_median"]), default=None)
    worst90 = max(finite("signed_error_p90"), key=lambda r: abs(r.get("signed_error_p90", nan)), default=None)
    where = lambda r: None if r is None else f"{r['config']} on {r['ranks']} ranks"  # noqa: E731
    variants = list(dict.fromkeys(v for r in rows for v in r.get("variants", {})))
    by_variant: dict[str, dict[str, Any]] = {}
    for v in variants:
        vrows = [r["variants"][v] for r in rows if v in r.get("variants", {})]
        vm = _abs_errors([x["signed_error_median"] for x in vrows])
        vt = _abs_errors([x["signed_error_p90"] for x in vrows])
        by_variant[v] = {
            "configs": len(vrows),
            "median_abs_error": float(np.median(vm)) if vm else None,
            "median_abs_error_p90": float(np.median(vt)) if vt else None,
            "within_15_percent": sum(1 for x in vm if x <= NEAR),
            "within_15_percent_p90": sum(1 for x in vt if x <= NEAR),
        }
    base = by_variant.get("none", {}).get("median_abs_error_p90")
    worse = [v for v, b in by_variant.items()
             if v != "none" and base is not None and b["median_abs_error_p90"] is not None
             and b["median_abs_error_p90"] > base]
    return {
        "median_abs_error": float(np.median(med)) if med else None,
        "worst_abs_error": float(max(med)) if med else None,
        "worst": where(worst),
        "median_abs_error_p90": float(np.median(tail)) if tail else None,
        "worst_abs_error_p90": float(max(tail)) if tail else None,
        "worst_p90": where(worst90),
        "within_15_percent": sum(1 for r in rows if abs(r["signed_error_median"]) <= NEAR),
        "within_15_percent_p90": sum(1 for r in rows if abs(r.get("signed_error_p90", nan)) <= NEAR),
        "within_15_percent_both": sum(1 for r in rows if verdict(r["signed_error_median"], r.get("signed_error_p90", nan), NEAR)
                                      == "within"),
        # one verdict: every configuration within the paper's bound at the median and at the p90
        "within_10_percent": bool(med) and len(med) == len(rows) and len(tail) == len(rows)
        and max(med) <= PAPER_BOUND and max(tail) <= PAPER_BOUND,
        "by_variant": by_variant,
        "tail_worse_than_none": worse,
    }


def verdict_lines(result: dict[str, Any]) -> list[str]:
    """The verdict of `summarize_errors` in words, for the terminal."""
    if result.get("median_abs_error") is None:
        return []
    n = len(result["results"])
    p90 = result.get("median_abs_error_p90")
    lines = [f"median |error| {result['median_abs_error']:.1%} at the median"
             + (f" and {p90:.1%} at the p90" if p90 is not None else "")
             + f"; worst {result['worst_abs_error']:.1%} ({result['worst']})"
             + (f" and {result['worst_abs_error_p90']:.1%} at the p90 ({result['worst_p90']})" if p90 is not None
                else "")]
    lines.append(f"{result['within_15_percent']} of {n} configurations within {NEAR:.0%} at the median, "
                 f"{result['within_15_percent_p90']} at the p90, {result['within_15_percent_both']} at both; "
                 f"the paper's bound is {PAPER_BOUND:.0%}"
                 + (" (met at the median and the p90)" if result.get("within_10_percent") else ""))
    by_variant = result.get("by_variant") or {}
    if len(by_variant) > 1:
        lines.append("per noise: " + "; ".join(
            f"{v} {b['median_abs_error']:.1%} at the median, {b['median_abs_error_p90']:.1%} at the p90"
            for v, b in by_variant.items() if b["median_abs_error"] is not None and b["median_abs_error_p90"] is not None))
    base = by_variant.get("none", {}).get("median_abs_error_p90")
    for v in result.get("tail_worse_than_none") or []:
        lines.append(f"{v} noise makes the tail worse than no noise: median |error| of the p90 "
                     f"{by_variant[v]['median_abs_error_p90']:.1%} against {base:.1%} without noise")
    return lines
