"""Measured versus simulated runtimes: statistics and relative errors.

Both sides are summarised with :func:`cloudnoise.simulation.statistics.summarize`
(median with its 95 % notch interval, mean with its Student-t interval). The
relative error of a statistic is |simulated - measured| / measured (the
paper's measure, Sec. V-A); the signed error (simulated - measured) /
measured says which way the model misses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.simulation.statistics import Summary, summarize

PAPER_BOUND = 0.10  # the paper's bound on the relative error (Sec. V-A)


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
        """Relative and signed errors of median and mean for one variant."""
        m, s = self.measured, self.simulated[variant]
        return {
            "relative_error_median": abs(s.median - m.median) / m.median if m.median else float("nan"),
            "relative_error_mean": abs(s.mean - m.mean) / m.mean if m.mean else float("nan"),
            "signed_error_median": (s.median - m.median) / m.median if m.median else float("nan"),
            "signed_error_mean": (s.mean - m.mean) / m.mean if m.mean else float("nan"),
            "signed_error_p90": (self.simulated_p90.get(variant, float("nan")) - self.measured_p90) / self.measured_p90
            if self.measured_p90 else float("nan"),
        }

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
