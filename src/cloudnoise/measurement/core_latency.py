"""The machine state a shared-memory measurement ran in: how far apart the ranks' cores were.

On a virtual machine the host places the guest's vCPUs, and moves them. On
the 2-vCPU AMD EPYC VM cloudnoise is developed on, a cache line passed
between the two cores takes ~57 ns one way in one placement and ~250 ns in
another, and a 1 B MPI ping-pong over shared memory follows it (~200 ns vs
~480 ns one way); the placement changes every few seconds to minutes, in the
middle of a run too. A LogGP profile measured in one placement cannot predict
a run in the other, whatever the estimator does.

The probes time that cache line (src/probes/cn_core_latency.h: records of kind
"core_latency"): `measure loggp` before every size of every round, `validate`
before every block of repetitions. This module says which of them belong to
one state: values within STATE_FACTOR of each other are one state. The loggp
fit keeps the rounds of the typical state; validate compares a run's state
with the profile's and says where they differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Two placements differ by 4x on the machine above; the same placement varies
# by +-15 % between probes. A factor of 1.5 separates them with room on both sides.
STATE_FACTOR = 1.5


def same_state(a_ns: float, b_ns: float, factor: float = STATE_FACTOR) -> bool:
    """Whether two core-to-core latencies belong to one machine state."""
    if not (a_ns > 0 and b_ns > 0):
        return True  # nothing to compare: no probe ran (a host with one rank)
    return max(a_ns, b_ns) <= factor * min(a_ns, b_ns)


@dataclass(frozen=True)
class CoreLatency:
    """The probe's values over one run (ns, one way)."""

    values_ns: np.ndarray

    @property
    def measured(self) -> bool:
        return len(self.values_ns) > 0

    def median(self) -> float | None:
        return float(np.median(self.values_ns)) if self.measured else None

    def one_state(self, reference_ns: float | None = None, factor: float = STATE_FACTOR) -> bool:
        """Every value within `factor` of the reference (default: of the run's median)."""
        if not self.measured:
            return True
        ref = self.median() if reference_ns is None else reference_ns
        return all(same_state(float(v), float(ref), factor) for v in self.values_ns)

    def summary(self) -> dict[str, float | int | None]:
        if not self.measured:
            return {"median": None, "min": None, "max": None, "probes": 0}
        return {"median": self.median(), "min": float(self.values_ns.min()), "max": float(self.values_ns.max()),
                "probes": int(len(self.values_ns))}


def rounds_in_another_state(rounds: np.ndarray, values: dict[int, np.ndarray],
                            factor: float = STATE_FACTOR) -> tuple[np.ndarray, float | None]:
    """Indices (into `rounds`) of the rounds with a probe outside `factor` of
    the typical value (the median of every probe), and that typical value.
    `values` maps a round number to its probes' values; rounds without probes
    are never set aside (an older campaign, or a host with one rank)."""
    every = [v for r in rounds for v in values.get(int(r), ())]
    if not every:
        return np.array([], int), None
    typical = float(np.median(every))
    out = [i for i, r in enumerate(rounds)
           if not CoreLatency(np.asarray(values.get(int(r), ()), float)).one_state(typical, factor)]
    return np.asarray(out, int), typical

