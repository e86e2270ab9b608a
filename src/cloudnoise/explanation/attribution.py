"""What the noise costs: the slowdown from the noiseless run split by noise, and whether the tail has another cause.

Every variant runs on the same seed as `none` (common random numbers). The excess
E = median(T) - median(T_none) is split between OS, latency and bandwidth noise in
proportion to the noise each puts on the critical paths of the median repetitions
(those between the 40th and 60th percentiles): the time a path carries is the time
the run took, so the noise on it is what made the run longer. The noise need not lie on
the path to lengthen it: a late message can put another NIC gap on it, time of no
noise kind (`moved_ns`, the excess the path's noise does not account for; negative where
the path's noise filled what was slack without it). The split gives such time to the
noise that is on the path. docs/how-to/explain.md compares the split with what `--noise os`
and `--noise network` give alone.

The tail: the repetitions at or above the 99th percentile. Its cause is the noise kind
that puts the most time on their paths; it differs from the median's when that kind
differs (a few long OS detours in the tail over latency noise everywhere, say).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise.explanation.decomposition import KINDS, NOISE_KINDS, kind_times
from cloudnoise.explanation.repetitions import median_group, tail_group
from cloudnoise.simulation.critical_path import CriticalPaths


def noise_on_path(paths: CriticalPaths, reps: np.ndarray) -> dict[str, float]:
    """The mean time (ns) each noise kind puts on the paths of repetitions `reps`."""
    times = kind_times(paths)[reps].astype(np.float64)
    kinds = list(KINDS)
    return {k: float(times[:, kinds.index(k)].mean()) / 1000.0 for k in NOISE_KINDS}


@dataclass(frozen=True)
class Slowdown:
    """The median's slowdown from `none` and its split by noise."""

    ratio: float  # median(T) / median(T_none)
    excess_ns: float  # median(T) - median(T_none)
    by_noise_ns: dict[str, float]  # the excess split by noise kind
    on_path_ns: dict[str, float]  # the noise on the median repetitions' paths

    @property
    def moved_ns(self) -> float:
        """The excess the noise on the path does not account for: noiseless activities the noise
        put on the path (a NIC gap more, say); negative where the path's noise filled slack."""
        return round(self.excess_ns - sum(self.on_path_ns.values()), 3)  # to the picosecond

    def to_dict(self) -> dict[str, object]:
        return {"ratio": self.ratio, "excess_ns": self.excess_ns, "by_noise_ns": self.by_noise_ns,
                "on_path_ns": self.on_path_ns, "moved_ns": self.moved_ns}


def slowdown(runtime_ps: np.ndarray, none_runtime_ps: np.ndarray, paths: CriticalPaths) -> Slowdown:
    """The slowdown of a variant's median from `none`'s, split by the noise on its median paths."""
    median = float(np.median(runtime_ps))
    base = float(np.median(none_runtime_ps))
    excess = (median - base) / 1000.0
    on_path = noise_on_path(paths, median_group(runtime_ps))
    total = sum(on_path.values())
    split = {k: excess * v / total if total > 0 else 0.0 for k, v in on_path.items()}
    return Slowdown(median / base if base > 0 else float("nan"), excess, split, on_path)


@dataclass(frozen=True)
class TailCause:
    """The noise that dominates the median repetitions' paths and the tail's."""

    median_cause: str  # a NOISE_KINDS name, or "none" when no noise lies on the paths
    tail_cause: str
    median_noise_ns: dict[str, float]
    tail_noise_ns: dict[str, float]
    tail_reps: list[int]  # repetition indices at or above the 99th percentile

    @property
    def differs(self) -> bool:
        return self.median_cause != self.tail_cause

    def to_dict(self) -> dict[str, object]:
        return {"median_cause": self.median_cause, "tail_cause": self.tail_cause, "differs": self.differs,
                "median_noise_ns": self.median_noise_ns, "tail_noise_ns": self.tail_noise_ns,
                "tail_reps": self.tail_reps}


def _dominant(noise_ns: dict[str, float]) -> str:
    kind = max(noise_ns, key=lambda k: noise_ns[k])
    return kind if noise_ns[kind] > 0 else "none"


def tail_cause(runtime_ps: np.ndarray, paths: CriticalPaths, first_rep: int = 0) -> TailCause:
    """Whether the p99 repetitions owe their time to another noise than the median ones."""
    tail = tail_group(runtime_ps)
    median = noise_on_path(paths, median_group(runtime_ps))
    tail_ns = noise_on_path(paths, tail)
    return TailCause(_dominant(median), _dominant(tail_ns), median, tail_ns, [first_rep + int(r) for r in tail])
