"""How the runtime moves with each LogGOPS parameter: the terms on the critical path, counted.

Along a critical path the runtime is a sum of LogGOPS terms (and noise), so as long as
that path stays critical, dT/dL is the number of latencies on it, dT/do the number of
CPU overheads (a send's o and its message's, a receive's o), dT/dg the number of NIC
gaps, and dT/dG and dT/dO the bytes charged G and O (size - 1 per message). LLAMP
(Shen et al., SC'24) calls dT/dL the network latency sensitivity and reads it off a
linear program's reduced cost, one value per latency, piecewise constant between its
"critical latencies"; here it is counted on every repetition's recorded path, so it is a
distribution over the repetitions (under noise, each repetition's path is its own).
LLAMP's latency ratio, the share of the runtime that is latency, is L x dT/dL / T: the
path's L over the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise.simulation.critical_path import CriticalPaths

# term -> (the path's counts that make it, the derivative's unit)
TERMS: dict[str, tuple[tuple[str, ...], str]] = {
    "L": (("L",), "ns per ns of L"),
    "o": (("o_send", "o_recv"), "ns per ns of o"),
    "g": (("g",), "ns per ns of g"),
    "G": (("G_bytes",), "ns per ns/B of G (bytes)"),
    "O": (("O_bytes",), "ns per ns/B of O (bytes)"),
}


@dataclass(frozen=True)
class Sensitivity:
    """dT/d(term) over the repetitions: the count of the term on each repetition's path."""

    term: str
    unit: str
    median: float
    p10: float
    p90: float
    min: float
    max: float

    def to_dict(self) -> dict[str, float | str]:
        return {"term": self.term, "unit": self.unit, "median": self.median, "p10": self.p10, "p90": self.p90,
                "min": self.min, "max": self.max}


def sensitivities(paths: CriticalPaths) -> list[Sensitivity]:
    """dT/dL, dT/do, dT/dg, dT/dG and dT/dO on every repetition's path, summarised."""
    out = []
    for term, (counts, unit) in TERMS.items():
        values = sum(paths.count(c) for c in counts).astype(np.float64)
        p10, median, p90 = np.percentile(values, [10, 50, 90])
        out.append(Sensitivity(term, unit, float(median), float(p10), float(p90), float(values.min()),
                               float(values.max())))
    return out


def latency_ratio(paths: CriticalPaths) -> np.ndarray:
    """LLAMP's latency ratio of every repetition: the path's L over its runtime."""
    runtime = paths.parts_ps.sum(axis=1).astype(np.float64)
    return np.divide(paths.part("L").astype(np.float64), runtime, out=np.zeros_like(runtime), where=runtime > 0)
