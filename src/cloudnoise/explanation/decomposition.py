"""A critical path's time by kind: the LogGOPS terms and each noise, as shares of the runtime.

The engine splits every repetition's path into parts that add up to its runtime
(cloudnoise.simulation.critical_path.PARTS); this groups them into the kinds a user
asks about (`KINDS`) and summarises them over the repetitions: the median and the 90th
percentile of each kind's share of the runtime, its mean share (the kinds' means add
up to 1, as a stacked bar needs), and its median time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise.simulation.critical_path import PARTS, CriticalPaths

# The kinds of time on a path, from the engine's parts.
KINDS: dict[str, tuple[str, ...]] = {
    "compute": ("compute",),
    "o": ("o",),
    "g": ("g",),
    "L": ("L",),
    "G": ("G",),
    "O": ("O",),
    "os_noise": ("os_detour",),
    "latency_noise": ("latency_draw", "latency_stall"),
    "bandwidth_noise": ("bandwidth_draw", "bandwidth_episode"),
}
NOISE_KINDS: tuple[str, ...] = ("os_noise", "latency_noise", "bandwidth_noise")
LABELS: dict[str, str] = {
    "compute": "compute (calcs)",
    "o": "o: CPU overhead per message",
    "g": "g: NIC gap per message",
    "L": "L: latency",
    "G": "G x bytes: NIC time per byte",
    "O": "O x bytes: CPU time per byte",
    "os_noise": "OS detours",
    "latency_noise": "latency noise (draws, stalls)",
    "bandwidth_noise": "bandwidth noise (draws, drops)",
}

# The kinds' names in a sentence.
SHORT: dict[str, str] = {
    "compute": "compute", "o": "o", "g": "g", "L": "L", "G": "G x bytes", "O": "O x bytes",
    "os_noise": "OS detours", "latency_noise": "latency noise", "bandwidth_noise": "bandwidth noise",
}
# One colour per kind (the report's stacked shares and timelines): the LogGOPS terms in
# cool tones, the noise in warm ones.
COLORS: dict[str, str] = {
    "compute": "#8c8c8c", "o": "#4c72b0", "g": "#8fb0d9", "L": "#55a868", "G": "#64b5b0", "O": "#8172b3",
    "os_noise": "#c44e52", "latency_noise": "#dd8452", "bandwidth_noise": "#937860",
}


def kind_times(paths: CriticalPaths) -> np.ndarray:
    """Each repetition's path time by kind (reps x KINDS, ps): rows add up to the runtimes."""
    columns = [paths.parts_ps[:, [PARTS.index(p) for p in parts]].sum(axis=1) for parts in KINDS.values()]
    return np.stack(columns, axis=1)


@dataclass(frozen=True)
class KindShare:
    """One kind's share of the runtime over the repetitions (fractions), and its median time."""

    kind: str
    median_share: float
    p90_share: float
    median_ns: float
    mean_share: float  # over the repetitions: the kinds' mean shares add up to 1

    def to_dict(self) -> dict[str, float | str]:
        return {"kind": self.kind, "median_fraction": self.median_share, "p90_fraction": self.p90_share,
                "mean_fraction": self.mean_share, "median_ns": self.median_ns}


def shares(paths: CriticalPaths) -> list[KindShare]:
    """Every kind's share of its repetition's runtime, summarised over the repetitions."""
    times = kind_times(paths).astype(np.float64)
    runtime = times.sum(axis=1)
    fraction = np.divide(times, runtime[:, None], out=np.zeros_like(times), where=runtime[:, None] > 0)
    return [
        KindShare(kind, float(np.median(fraction[:, k])), float(np.percentile(fraction[:, k], 90)),
                  float(np.median(times[:, k])) / 1000.0, float(fraction[:, k].mean()))
        for k, kind in enumerate(KINDS)
    ]
