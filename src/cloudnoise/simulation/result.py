"""What a simulation gave: `SimulationResult`, and every repetition of it as a table.

The lowest module of the simulation stage's results: `api` (which runs the
engine) and `repetitions_file` (which writes the table to disk) import it;
it imports neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cloudnoise.simulation.critical_path import CriticalPaths
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.simulation.statistics import Summary, summarize

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class SimulationResult:
    """What a simulation gave: the fields of `cloudnoise simulate --json`.

    Times are nanoseconds (floats only where the ps result is fractional).
    `runtime_ns` holds one runtime per repetition: the latest end time over
    all ranks (LogGOPSim's "maximum finishing time"); `host_end_ns` each
    rank's end time in the first repetition. A run of several noise variants
    is reported as its primary variant (`variant`) with every variant,
    itself included, under `variants` (same seed: common random numbers)."""

    ranks: int
    reps: int
    events: int
    messages: int
    runtime_ns: np.ndarray  # one per repetition
    host_end_ns: np.ndarray  # one per rank, of the first repetition
    params: LogGOPS
    seed: int
    engine_seconds: float
    parse_seconds: float = 0.0
    source: str = ""
    ready_order: str = "program"
    extra: dict[str, Any] = field(default_factory=dict)
    variant: str = ""  # the noise variant ("" when no noise setup was involved)
    variants: dict[str, SimulationResult] = field(default_factory=dict)
    noise_sources: dict[str, Any] = field(default_factory=dict)
    # every repetition's critical path, when it was asked for (simulate(critical_path=True))
    paths: CriticalPaths | None = None
    # each send's departure time (ns) in the first repetition, by op index (-1 for other ops),
    # when run_variant was asked for them: what a ping-pong's timer reads between iterations
    departures_ns: np.ndarray | None = None

    @property
    def max_end_ns(self) -> np.ndarray:
        """`runtime_ns` under LogGOPSim's name (kept for one release)."""
        return self.runtime_ns

    @property
    def statistics(self) -> Summary:
        """Boxplot statistics of `runtime_ns` (median, quartiles, whiskers, CIs)."""
        return summarize(np.asarray(self.runtime_ns, dtype=np.float64))

    def by_variant(self) -> dict[str, SimulationResult]:
        """Every variant run, in the order run (just this result when one ran)."""
        return self.variants or {self.variant or "none": self}

    def to_pandas(self) -> Any:
        """One row per (variant, repetition): `variant`, `rep`, `runtime_ns`,
        `seed` (and an application's compute/communication columns).
        Needs pandas (pip install pandas): without it, a CloudnoiseError says so."""
        from cloudnoise.optional import import_pandas

        import_pandas()
        return repetitions_table(self.by_variant()).to_pandas()

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of `cloudnoise simulate --json` (valid JSON, units in the names)."""
        out = {
            "source": self.source,
            "ranks": self.ranks,
            "reps": self.reps,
            "seed": self.seed,
            "events": self.events,
            "messages": self.messages,
            "params_ns": self.params.as_ns(),
            "runtime_ns": _ns_list(self.runtime_ns),
            "host_end_ns": _ns_list(self.host_end_ns),
            "ready_order": self.ready_order,
            "parse_seconds": round(self.parse_seconds, 6),
            "engine_seconds": round(self.engine_seconds, 6),
            "events_per_second": round(self.events * self.reps / self.engine_seconds)
            if self.engine_seconds > 0
            else None,
            **({"noise": self.variant} if self.variant else {}),
            **self.extra,
            "statistics": self.statistics.to_dict(),
        }
        if self.noise_sources:
            out["noise_sources"] = self.noise_sources
        out["variants"] = {
            name: {
                "runtime_ns": _ns_list(r.runtime_ns),
                "statistics": r.statistics.to_dict(),
                **{k: r.extra[k] for k in VARIANT_KEYS if k in r.extra},
            }
            for name, r in self.by_variant().items()
        }
        return out


# Per-variant keys of an application's result (see schedules.apps.split_times).
VARIANT_KEYS = ("compute_ns", "communication_ns", "cm_cp_ratio", "communication_median_ns", "cm_cp_ratio_median")


def _ns_list(values: np.ndarray) -> list[int | float]:
    return [int(v) if float(v).is_integer() else float(v) for v in values]


def repetitions_table(results: dict[str, SimulationResult]) -> pa.Table:
    """Every repetition of every variant, one row each (pyarrow, imported here: only tables need it)."""
    import pyarrow as pa

    variants, reps, ends, seeds = [], [], [], []
    # applications (simulate --app) add their compute/communication split
    app_cols: dict[str, list[Any]] = {"compute_ns": [], "communication_ns": [], "cm_cp_ratio": []}
    is_app = all("communication_ns" in r.extra for r in results.values())
    for name, r in results.items():
        n = len(r.runtime_ns)
        variants += [name] * n
        reps += list(range(n))
        ends += [float(x) for x in r.runtime_ns]
        seeds += [r.seed] * n
        if is_app:
            app_cols["compute_ns"] += [float(r.extra["compute_ns"])] * n
            app_cols["communication_ns"] += [float(x) for x in r.extra["communication_ns"]]
            app_cols["cm_cp_ratio"] += [None if x is None else float(x) for x in r.extra["cm_cp_ratio"]]
    first = next(iter(results.values()))
    meta = {
        "source": first.source,
        "ranks": str(first.ranks),
        "params_ns": json.dumps(first.params.as_ns()),
    }
    return pa.table(
        {
            "variant": pa.array(variants, pa.string()),
            "rep": pa.array(reps, pa.int64()),
            "runtime_ns": pa.array(ends, pa.float64()),
            "seed": pa.array(seeds, pa.uint64()),
            **({k: pa.array(v, pa.float64()) for k, v in app_cols.items()} if is_app else {}),
        },
        metadata={f"cloudnoise.{k}": v for k, v in meta.items()},
    )
