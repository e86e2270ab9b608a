"""Whether a validation ran on the machine its profile describes.

A profile measured on a shared host describes the host as it was for the
minute of the measurement. On the 2-vCPU KVM guest cloudnoise is developed
on, two things change under a run, each by a factor of 2-4 on every small
message, for seconds to minutes at a time:

* where the vCPUs are (a cache line between the ranks' cores: ~57 ns in one
  placement, ~250 ns in another): the core probe, measurement/core_latency.py;
* how fast MPI's transport is with the cores where they were (the host's
  other tenants): the one-way 1 B time of eight loggp fits within half an
  hour ranged from 259 to 1115 ns, and the ping-pong probe moved between
  275 and 1703 ns within single suite runs, also with the core probe
  unchanged.

`validate` runs both probes before every block of repetitions and after the
last (cn_goal_exec.c) and compares them with the profile: the core probe with
the one the profile's loggp run kept (hardware.core_latency_ns), the ping-pong
with the model's own one-way 1 B time (o_s + L + o_r, which the loggp fit
reproduces). A configuration whose probes agree is in the profile's state;
its error is the model's. One whose probes do not was measured on another
machine, in effect, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise.measurement.core_latency import STATE_FACTOR, CoreLatency

# A polled 1 B ping-pong varies by +-10 % within one phase and by 2-4x between
# phases; 1.3 separates them.
PINGPONG_FACTOR = 1.3

SAME = "same"  # every probe of the run within its factor of the profile's
DIFFERENT = "different"  # the run's probes agree with each other, not with the profile
CHANGED = "changed"  # the run's own probes disagree: the state moved during it
UNKNOWN = "unknown"  # nothing to compare (an older profile, ranks on different hosts)
ORDER = (UNKNOWN, SAME, DIFFERENT, CHANGED)  # the run's state is its worst probe's


@dataclass(frozen=True)
class StateProbe:
    """One probe's values over a run and the profile's value to compare them with."""

    name: str  # as the notes name it
    run: CoreLatency
    reference_ns: float | None
    factor: float

    def state(self) -> str:
        if not self.run.measured or not (self.reference_ns and self.reference_ns > 0):
            return UNKNOWN
        if self.run.one_state(self.reference_ns, self.factor):
            return SAME
        return DIFFERENT if self.run.one_state(None, self.factor) else CHANGED

    def summary(self) -> dict[str, float | int | None]:
        return {**self.run.summary(), "profile": self.reference_ns}

    def note(self) -> str | None:
        """One line where the run's state is not the profile's."""
        state = self.state()
        if state not in (DIFFERENT, CHANGED):
            return None
        s = self.run.summary()
        seen = f"{s['median']:.0f} ns" if state == DIFFERENT else f"{s['min']:.0f}-{s['max']:.0f} ns"
        return (f"{self.name} took {seen} against the profile's {self.reference_ns:.0f} ns"
                + (" (it changed during the run)" if state == CHANGED else "")
                + ": the machine was not in the state the profile describes, and small messages cost "
                "accordingly more or less")


def probes(core_ns: np.ndarray, profile_core_ns: float | None, pingpong_ns: np.ndarray,
           model_one_way_ns: float | None) -> list[StateProbe]:
    """The run's two probes against the profile."""
    return [
        StateProbe("a cache line between the first two ranks' cores", CoreLatency(np.asarray(core_ns, float)),
                   profile_core_ns, STATE_FACTOR),
        StateProbe("a 1 B MPI ping-pong (one way)", CoreLatency(np.asarray(pingpong_ns, float)),
                   model_one_way_ns, PINGPONG_FACTOR),
    ]


def machine_state(checks: list[StateProbe]) -> str:
    """The run's state: the worst of its probes' (changed > different > same > unknown)."""
    return max((p.state() for p in checks), key=ORDER.index, default=UNKNOWN)
