"""`cloudnoise.explanation.api.explain`: why a run takes as long as it does, and what its noise costs.

The same inputs as `cloudnoise.simulate` (a GOAL file, a pattern, an application or a
trace; a profile or parameters; noise; repetitions). Every variant runs with its
critical paths recorded, beside the noiseless baseline (`none`, on the same seed), and
each is read: each kind's share of the runtime (median and p90 over the repetitions),
the slowdown from `none` split by OS, latency and bandwidth noise, the ranks whose
noise lies on the path most often, and whether the tail (the p99 repetitions) has
another cause than the median. The CLI (`cloudnoise explain`) prints this; `to_dict()`
is its `--json`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.attribution import Slowdown, TailCause, slowdown, tail_cause
from cloudnoise.explanation.decomposition import KindShare, shares
from cloudnoise.explanation.hosts import NoisyRank, noisy_ranks
from cloudnoise.explanation.sensitivity import Sensitivity, latency_ratio, sensitivities
from cloudnoise.explanation.timeline import Timeline, TimelineRequest, record_all
from cloudnoise.explanation.tolerance import Tolerance, tolerances
from cloudnoise.simulation.api import prepare_run, simulate
from cloudnoise.simulation.critical_path import CriticalPaths
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.simulation.result import SimulationResult
from cloudnoise.simulation.variants import VARIANTS



@dataclass
class VariantExplanation:
    """One noise variant's critical paths, read."""

    variant: str
    result: SimulationResult
    shares: list[KindShare]
    slowdown: Slowdown | None  # None for `none` itself
    tail: TailCause
    noisy_ranks: list[NoisyRank]
    sensitivity: list[Sensitivity] = field(default_factory=list)
    tolerance: list[Tolerance] = field(default_factory=list)  # when asked for (explain(tolerance=True))

    @property
    def paths(self) -> CriticalPaths:
        assert self.result.paths is not None
        return self.result.paths

    @property
    def runtime_ps(self) -> np.ndarray:
        return self.paths.parts_ps.sum(axis=1)

    def to_dict(self) -> dict[str, Any]:
        runtime = np.asarray(self.result.runtime_ns, dtype=np.float64)
        return {
            "reps": len(runtime),
            "runtime_ns": {"median": float(np.median(runtime)), "p90": float(np.percentile(runtime, 90)),
                           "p99": float(np.percentile(runtime, 99))},
            "shares": [s.to_dict() for s in self.shares],
            "slowdown": self.slowdown.to_dict() if self.slowdown is not None else None,
            "tail": self.tail.to_dict(),
            "noisy_ranks": [r.to_dict() for r in self.noisy_ranks],
            "sensitivity": [s.to_dict() for s in self.sensitivity],
            "latency_ratio": {"median": float(np.median(latency_ratio(self.paths))),
                              "p90": float(np.percentile(latency_ratio(self.paths), 90))},
            "tolerance": [t.to_dict() for t in self.tolerance],
        }


@dataclass
class Explanation:
    """Every variant explained (the baseline `none` first), with what ran."""

    source: str
    ranks: int
    reps: int
    seed: int
    params: LogGOPS
    variants: dict[str, VariantExplanation] = field(default_factory=dict)
    noise_sources: dict[str, Any] = field(default_factory=dict)
    engine_seconds: float = 0.0
    schedule: Any = None  # the engine schedule that ran (for timelines)
    noise: NoiseSetup | None = None
    ready_order: str = "program"

    @property
    def primary(self) -> str:
        """The variant explained first after the baseline (the baseline when it ran alone)."""
        names = list(self.variants)
        return names[1] if len(names) > 1 else names[0]

    def timelines(self, reps: Sequence[str] = ("median", "p99"), variant: str | None = None,
                  ranks: np.ndarray | None = None, start_ps: int = 0, end_ps: int | None = None) -> list[Timeline]:
        """The timelines of repetitions `reps` (median, p99 or numbers) of `variant` (default: the
        primary one), every rank (or those whose byte in `ranks` is set), within a window."""
        name = variant or self.primary
        wanted = TimelineRequest(tuple(reps), ranks, start_ps, end_ps)
        return record_all(self.schedule, self.params, self.noise, name, self.seed,
                          self.variants[name].result.runtime_ns, wanted, ready_order=self.ready_order)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ranks": self.ranks,
            "reps": self.reps,
            "seed": self.seed,
            "params_ns": self.params.as_ns(),
            "noise_sources": self.noise_sources,
            "engine_seconds": round(self.engine_seconds, 6),
            "variants": {name: v.to_dict() for name, v in self.variants.items()},
        }


def explain(
    schedule: Any = None,
    *,
    reps: int = 1,
    seed: int = 0,
    threads: int | None = None,
    ready_order: str = "program",
    top_ranks: int = 5,
    tolerance: bool = False,
    within: float = 0.01,
    progress: Callable[[int], None] | None = None,
    **inputs: Any,
) -> Explanation:
    """Explains a workload's runtime with its critical paths, variant by variant.

    `schedule` and `inputs` name the workload, parameters and noise as `cloudnoise.simulate`
    takes them (`pattern=`, `ranks=`, `size=`, `app=`, `trace=`; `profile=`, `params=`,
    `L=` ... `S=`; `noise=` the variants or a NoiseSetup, `variant=`, `os_noise=` ...;
    simulation.api.RUN_INPUTS); the variants default to all the noise given. The noiseless
    baseline `none` always runs too, first, on the same seed; a variant that draws
    nothing at random runs once and stands for every repetition. `top_ranks`: how many
    of the ranks whose noise lies on the path most often to name. `tolerance`: also the
    largest added latency and OS-noise factor that keep each variant's median and p99 within
    `within` (a fraction) of today's, by the path and by re-simulation (explanation.tolerance;
    a run again per step of a bisection). `progress(done)` counts repetitions over all
    variants. Bad input raises CloudnoiseError.
    """
    if reps < 1:
        raise CloudnoiseError(f"--reps must be at least 1, got {reps}")
    run = prepare_run(schedule, seed=seed, **inputs)
    setup = run.noise if run.noise is not None else NoiseSetup()
    names = setup_variants(setup, run.variants)
    runs: dict[str, SimulationResult] = {}
    done = 0
    for name in names:
        n = reps if setup.draws(name) else 1  # the same every repetition: once is all of them
        step = None if progress is None else (lambda k, base=done: progress(base + k * reps // n))
        runs[name] = _broadcast(simulate(
            run.workload, params=run.params, noise=setup, variant=name, reps=n, seed=seed, threads=threads,
            ready_order=ready_order, progress=step, critical_path=True,
        ), reps)
        done += reps
    out = Explanation(run.workload.source, run.workload.schedule.num_ranks, reps, seed, run.params,
                      noise_sources=setup.describe(), engine_seconds=sum(r.engine_seconds for r in runs.values()),
                      schedule=run.workload.schedule, noise=setup, ready_order=ready_order)
    base = runs["none"]
    for name, r in runs.items():
        paths = r.paths
        assert paths is not None and base.paths is not None
        runtime = paths.parts_ps.sum(axis=1)
        out.variants[name] = VariantExplanation(
            name, r, shares(paths),
            None if name == "none" else slowdown(runtime, base.paths.parts_ps.sum(axis=1), paths),
            tail_cause(runtime, paths), noisy_ranks(paths, len(runtime), top_ranks), sensitivities(paths),
        )
        if tolerance:
            out.variants[name].tolerance = tolerances(
                run.workload.schedule, run.params, setup, name, paths, seed=seed, ready_order=ready_order,
                within=within, threads=threads)
    return out


def setup_variants(setup: NoiseSetup, names: Sequence[str]) -> list[str]:
    """The variants to explain: `none` first, then those named."""
    for name in names:
        if name not in VARIANTS:
            raise CloudnoiseError(f"--noise: unknown variant {name!r} (choose from {', '.join(VARIANTS)})")
    setup.check_variants(list(names))
    return list(dict.fromkeys(["none", *names]))


def _broadcast(result: SimulationResult, reps: int) -> SimulationResult:
    """A run of one repetition that stands for `reps` identical ones."""
    if result.reps == reps:
        return result
    paths = result.paths
    assert paths is not None
    result.runtime_ns = np.repeat(result.runtime_ns, reps)
    result.reps = reps
    noise = np.concatenate([np.column_stack([np.full(len(paths.noise), k), paths.noise[:, 1:]]) for k in range(reps)]) \
        if len(paths.noise) else paths.noise
    result.paths = CriticalPaths(np.repeat(paths.parts_ps, reps, axis=0), np.repeat(paths.counts, reps, axis=0),
                                 np.repeat(paths.last_host, reps), noise.reshape(-1, 4), paths.segments)
    return result
