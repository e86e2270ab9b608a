"""How much more latency, and how much more OS noise, a run tolerates.

LLAMP (Shen et al., SC'24) defines an application's network latency tolerance as the
largest L that keeps its runtime within a threshold (1%) of the runtime at the baseline
L, and finds it on a linear program of the schedule. Here the runtime is a distribution
over noisy repetitions, so the question is asked of a statistic of it: the largest
*added* latency d such that the median, and separately the p99, of the runtimes stays
within `within` of today's; the tolerated L is then L + d (LLAMP's number). And the same
of the OS noise: the largest factor k by which every OS detour may grow.

Two answers, which bracket each other:

- **By the path** (`bound`): each repetition's recorded critical path holds n_r latencies
  (and OS_r of OS detours), so with the path unchanged T_r(L + d) = T_r + d n_r (and
  T_r(k) = T_r + (k - 1) OS_r). Over the repetitions, stat(T_r + d n_r) is piecewise linear
  in d, and the largest d keeping it within the limit is found on it exactly. A path that
  stays critical makes this the answer; a longer path taking over only makes the runtime
  grow faster (the runtime of a schedule without resource contention is the maximum over
  its paths), so the path's tolerance is then an upper bound of the true one.
- **By re-simulation** (`simulated`): the repetitions run again on the same seed (common
  random numbers) with the latency (every message's L: the parameters', each size class's,
  or every sample of the paper authors' switch draws) d higher, or every OS detour k times
  longer, the largest d (k) found by bisection between 0 (1) and past the path's bound.

Where the path is unique and stays critical the two agree to the picosecond
(tests/explanation/test_tolerance.py; docs/how-to/explain.md shows the 1,024-rank dissemination
and the paper's 512 MiB ring on Daint).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cloudnoise.cores import available_cores
from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import run_variant
from cloudnoise.simulation.critical_path import CriticalPaths
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS

STATISTICS = {"median": 50.0, "p99": 99.0}
# Re-simulation's resolution: 1 ps of latency where the repetitions are all the same
# (the answer is then exact), 0.5% of the answer under noise (a re-simulation is a whole run).
NOISY_RESOLUTION = 0.005
FACTOR_RESOLUTION = 0.001
MAX_FACTOR = 1000.0


@dataclass(frozen=True)
class Tolerance:
    """The largest added latency (ns) or OS-noise factor that keeps a statistic within the limit."""

    what: str  # "latency" (added L, ns) | "os_noise" (the detours' factor)
    statistic: str  # "median" | "p99"
    within: float  # the allowed relative increase
    baseline_ns: float  # the statistic today
    bound: float | None  # by the path; None: no such term on any path (no limit)
    simulated: float | None  # by re-simulation; None: not asked for
    evaluations: int = 0  # re-simulations run
    L_ns: float | None = None  # the latency today (the parameters'; None with size classes)

    @property
    def tolerated_L_ns(self) -> float | None:
        """LLAMP's latency tolerance: the largest L itself (today's plus what is tolerated)."""
        added = self.simulated if self.simulated is not None else self.bound
        return None if self.what != "latency" or self.L_ns is None or added is None else self.L_ns + added

    def to_dict(self) -> dict[str, object]:
        unit = "ns" if self.what == "latency" else "factor"
        out: dict[str, object] = {
            "what": self.what, "statistic": self.statistic, "within_fraction": self.within,
            "baseline_ns": self.baseline_ns, f"bound_{unit}": self.bound, f"simulated_{unit}": self.simulated,
            "evaluations": self.evaluations}
        if self.what == "latency":
            out["tolerated_L_ns"] = self.tolerated_L_ns
        return out


def _stat(values: np.ndarray, statistic: str) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), STATISTICS[statistic]))


def _largest_within(f: Callable[[float], float], limit: float, step: float, integer: bool,
                    lo: float, hi: float | None, resolution: Callable[[float], float],
                    ceiling: float) -> tuple[float | None, int]:
    """The largest x in [lo, ceiling] with f(x) <= limit, f nondecreasing and f(lo) <= limit:
    bracketed by doubling from `hi` (or lo + step), then bisected to `resolution(x)`. None
    when even `ceiling` is within. Also returns how many times f was evaluated."""
    calls = 0
    top = hi if hi is not None and hi > lo else lo + step
    while True:
        top = min(top, ceiling)
        if integer:
            top = max(float(int(top)), lo + 1)
        calls += 1
        if f(top) > limit:
            break
        if top >= ceiling:
            return None, calls
        lo, top = top, lo + 2 * (top - lo)
    while top - lo > resolution(lo):
        mid = (lo + top) / 2
        if integer:
            mid = float(int(mid))
            if mid <= lo:
                break
        calls += 1
        if f(mid) <= limit:
            lo = mid
        else:
            top = mid
    return lo, calls


def latency_bound_ps(runtime_ps: np.ndarray, latencies: np.ndarray, statistic: str, within: float) -> float | None:
    """The largest added latency (ps) with stat(T_r + d n_r) <= (1 + within) stat(T_r): exact
    to the picosecond on the piecewise-linear function (None: no latency on any path)."""
    n = np.asarray(latencies, dtype=np.float64)
    if not (n > 0).any():
        return None
    T = np.asarray(runtime_ps, dtype=np.float64)
    limit = (1 + within) * _stat(T, statistic)
    d, _ = _largest_within(lambda d: _stat(T + d * n, statistic), limit, 1.0, True, 0.0,
                           (limit - _stat(T, statistic)) / n.max(), lambda _x: 1.0, 1e17)
    return d


def os_bound(runtime_ps: np.ndarray, os_ps: np.ndarray, statistic: str, within: float) -> float | None:
    """The largest factor k >= 1 with stat(T_r + (k - 1) OS_r) <= (1 + within) stat(T_r) (None: no
    OS detour on any path, or none up to MAX_FACTOR)."""
    os_time = np.asarray(os_ps, dtype=np.float64)
    if not (os_time > 0).any():
        return None
    T = np.asarray(runtime_ps, dtype=np.float64)
    limit = (1 + within) * _stat(T, statistic)
    k, _ = _largest_within(lambda k: _stat(T + (k - 1) * os_time, statistic), limit, 1.0, False, 1.0, None,
                           lambda x: FACTOR_RESOLUTION * x, MAX_FACTOR)
    return k


def with_added_latency(params: LogGOPS, noise: NoiseSetup, d_ps: int) -> tuple[LogGOPS, NoiseSetup]:
    """The parameters and noise with every message's latency d_ps higher."""
    classes = tuple((m, L + d_ps, G, O) for m, L, G, O in params.classes)
    out = NoiseSetup(**{f.name: getattr(noise, f.name) for f in dataclasses.fields(NoiseSetup)})
    for name in ("switch_quiet", "switch_noisy"):
        sets = getattr(out, name)
        if sets is not None:
            setattr(out, name, dataclasses.replace(sets, near_L_ps=sets.near_L_ps + d_ps, far_L_ps=sets.far_L_ps + d_ps))
    return dataclasses.replace(params, L_ps=params.L_ps + d_ps, classes=classes), out


def with_os_factor(noise: NoiseSetup, k: float) -> NoiseSetup:
    """The noise with every OS detour k times as long (to the nanosecond)."""
    from cloudnoise.model.os_noise import OSNoiseTrace

    out = NoiseSetup(**{f.name: getattr(noise, f.name) for f in dataclasses.fields(NoiseSetup)})
    trace = noise.os_trace
    if trace is None:
        raise CloudnoiseError("no OS noise to scale")
    out.os_trace = OSNoiseTrace(trace.starts, np.round(trace.durations * k).astype(np.int64))
    return out


def tolerances(schedule: Any, params: LogGOPS, noise: NoiseSetup | None, variant: str, paths: CriticalPaths, *,
               seed: int, ready_order: str = "program", within: float = 0.01, resimulate: bool = True,
               threads: int | None = None) -> list[Tolerance]:
    """The latency and OS-noise tolerance of `variant` of a run of `schedule` (its repetitions'
    critical paths: `paths`), for its median and p99, by the path and (with `resimulate`) by
    re-simulation on the same seed."""
    if not 0 < within < 1:
        raise CloudnoiseError(f"--within must be above 0% and below 100%, got {within:g}")
    runtime = paths.parts_ps.sum(axis=1)
    setup = noise if noise is not None else NoiseSetup()
    reps = len(runtime) if setup.draws(variant) else 1

    def runtimes(params: LogGOPS, noise: NoiseSetup) -> np.ndarray:
        r = run_variant(schedule, params=params, noise=noise, variant=variant, reps=reps, seed=seed,
                        threads=threads or available_cores(), ready_order=ready_order)
        return np.asarray(r.runtime_ns, dtype=np.float64) * 1000.0

    out: list[Tolerance] = []
    latencies = paths.count("L")
    os_time = paths.part("os_detour")
    for statistic in STATISTICS:
        base = _stat(runtime, statistic)
        limit = (1 + within) * base
        bound = latency_bound_ps(runtime, latencies, statistic, within)
        simulated, calls = None, 0
        if resimulate:
            exact = reps == 1
            simulated, calls = _largest_within(
                lambda d: _stat(runtimes(*with_added_latency(params, setup, int(d))), statistic), limit, 1000.0,
                True, 0.0, None if bound is None else bound + 1, (lambda _x: 1.0) if exact
                else (lambda x: max(1.0, NOISY_RESOLUTION * x)), 1e15)
        out.append(Tolerance("latency", statistic, within, base / 1000.0, None if bound is None else float(bound) / 1000.0,
                             None if simulated is None else simulated / 1000.0, calls,
                             None if params.classes else params.L_ps / 1000.0))
        if setup.os_trace is not None and variant in ("os", "both"):
            k_bound = os_bound(runtime, os_time, statistic, within)
            k_sim, k_calls = None, 0
            if resimulate:
                k_sim, k_calls = _largest_within(
                    lambda k: _stat(runtimes(params, with_os_factor(setup, k)), statistic), limit, 1.0, False, 1.0,
                    None if k_bound is None else k_bound * (1 + FACTOR_RESOLUTION), lambda x: FACTOR_RESOLUTION * x * 10,
                    MAX_FACTOR)
            out.append(Tolerance("os_noise", statistic, within, base / 1000.0, k_bound, k_sim, k_calls))
    return out
