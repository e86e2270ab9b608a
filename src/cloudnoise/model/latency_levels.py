"""Latency levels that persist in time: an additive offset per sending host.

A profile's `latency_noise.levels` (`hold=TIME,level=DIST`): each sending
host's latency level is constant for a time drawn exponential (mean
`hold`), then a new level is drawn from `level` (ns, may be negative); each
message the host sends carries the level of the moment it is sent (the
engine's noise/level_process.hpp), and still arrives no earlier than its
send starts. A round trip holds one message of each host, so consecutive
round trips share the two hosts' levels while they hold.

With `shared=1` every host reads one clock of levels: a level of the whole
system, which a message and its reply share. A 2-host series whose round
trips stand at two levels with nothing between (model/shared_levels.py)
shows that its two messages share the level; per-host levels would put a
third mode between them.

A level moves every message of a host alike, floor included: the model of a
path whose latency shifts as a whole (a route, a placement). For most series
`model build` writes a state instead (model/latency_state.py): in them the
round trips' floor mostly stays where it is while their upper part comes
and goes, which a level cannot give back without widening the floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.distributions import Distribution, named_items, one_time_ns, parse_inline_distribution


@dataclass(frozen=True)
class LatencyLevels:
    """Levels per sending host: a new one every `hold_ns` on average, drawn from `level` (ns)."""

    hold_ns: float
    level: Distribution
    text: str
    shared: bool = False  # one clock of levels for every host

    def spec(self) -> str:
        return self.text

    def describe(self) -> str:
        # a level within a femtosecond of 0 is 0 (a quantile table's interpolation leaves dust)
        lo, hi = (0.0 if abs(v) < 1e-6 else float(v) for v in self.level.quantile(np.array([0.05, 0.95])))
        who = "one level for every host (system-wide)" if self.shared else "a level per sending host"
        return (f"{who} that holds {_time(self.hold_ns)} on average (exponential), then a new one "
                f"is drawn: {lo:+.4g} to {hi:+.4g} ns (5-95 %) around the per-message noise")


def _time(ns: float) -> str:
    return f"{ns / 1e6:.4g} ms" if ns >= 1e6 else f"{ns / 1e3:.4g} us" if ns >= 1e3 else f"{ns:.4g} ns"


def parse_latency_levels(spec: str) -> LatencyLevels:
    """LatencyLevels from `hold=TIME,level=DIST[,shared=1]` (DIST in ns, e.g.
    `uniform(low=-200,high=200)`)."""
    text = str(spec).strip()
    params = named_items(text, "latency levels", "hold=TIME,level=DIST[,shared=1]", ("hold", "level"), ("shared",))
    shared = params.get("shared", "0")
    if shared not in ("0", "1"):
        raise CloudnoiseError(f"in {shown(text)}: shared={shown(shared)} must be 0 or 1")
    hold = one_time_ns(params["hold"], "hold", text, 1e14)
    level = parse_inline_distribution(params["level"], "level", time=True)
    a, b = level.support()
    if not (math.isfinite(a) and math.isfinite(b) and -1e9 <= a <= b <= 1e9):
        raise CloudnoiseError(f"in {shown(text)}: level= must lie within +-1 ms (finite bounds), got {a:.4g} to "
                              f"{b:.4g} ns")
    return LatencyLevels(hold, level, text, shared=shared == "1")
