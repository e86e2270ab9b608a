"""The level of a profile's latency: the noiseless round trip at the latency series' median.

A campaign measures the LogGP parameters and the latency noise in separate
experiments, at different times. Netgauge's LogGP table takes its 1-byte
round trip as the median of 100 single ping-pongs (PRTT(1,0,1): L of the
table is half of it), the latency-noise series is 10^5 to 10^6
back-to-back round trips over tens to hundreds of calls, each its own
launch. On the paper's artifact runs with a LogGP table, the fit's
noiseless round trip T0 is the table's PRTT(1,0,1) to the ns, and T0 - m
(m the series' median) runs from -1.7 to +10.7 us; on 16 of those 35 runs
T0 lies outside the 5-95 % range of the series' own per-call medians: the
table ran at another level than any typical call of the series. A fit of L
and o reproduces the table, not the series.

The profile puts its level where its noise was measured: every L (the
plain one and each size class's) moves by the same delta, half the
difference between the series' median round trip m and the noiseless round
trip T0 of the fitted parameters (`noiseless_round_trip`, the engine's own
replay of one ping-pong), so that the noiseless round trip is m, and the
latency noise is the variation around it (model/latency_deconvolution.py
deconvolves the round trips' excess over the new T0). o, g and S stay as
fitted: the difference is a level of the messages, not of the CPU's
overheads (G and O move to the bandwidth series' level:
model/bandwidth_level.py).

Why here and not in the noise: `simulate --noise none` is the profile
without noise, so its small-message level should be the measured one; with
the offset in the noise, the noise's median per message is (m - T0) / 2,
and a profile whose table ran 10.7 us slower than its series has network
noise that makes every message 5 us faster than noiseless. With the noise
on (`both`), either choice gives the same round trips: the sum of L and the
noise is the same, message by message (a message that pays L more than
once, a rendezvous, pays the moved level each time).

The move is computed on the round trip of L and the overheads alone (g left
out: a ping-pong's noiseless round trip is 2 (o_s + L + o_r)). A level below
0 is no latency: where m is below the overheads alone, the series' L goes to
0 (g no longer enters: model/gap_bound.py bounds it by the series' own
round trips first). There the rest of the offset stays in the noise
(`residual_ns`), and the provenance says so. A size class whose fitted L is
less than a negative move ends at 0.
The paper's semantics (`model build --as-paper`) keep the table's L.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile


@dataclass(frozen=True)
class LevelShift:
    """How a profile's L moves to the latency series' level."""

    noiseless_ns: float  # T0: the fitted parameters' noiseless round trip, back to back
    median_ns: float  # m: the latency series' median round trip
    delta_ns: float  # added to every L (`level_delta`)
    moved_noiseless_ns: float  # T0 with the moved L, back to back
    series: str = "the latency series' median"  # what median_ns is the median of

    @property
    def residual_ns(self) -> float:
        """What stays between the moved noiseless round trip and the median (0 unless an L hit 0 or
        the fit's g holds the pings apart longer than the median round trip)."""
        return self.median_ns - self.moved_noiseless_ns

    def describe(self) -> str:
        """One clause for the profile's provenance."""
        if self.delta_ns == 0.0 and abs(self.residual_ns) < 0.5:
            return f"the noiseless round trip of these L and o is {self.series} ({self.median_ns:.5g} ns)"
        text = (f"every L moved by {self.delta_ns:+.5g} ns from the fit, so that the noiseless round trip "
                f"({self.noiseless_ns:.5g} ns with the fitted L) is {self.series} "
                f"{self.median_ns:.5g} ns: the LogGP run ran at another level (model/latency_level.py)")
        if abs(self.residual_ns) >= 0.5:
            text += (f"; back to back it is {self.moved_noiseless_ns:.5g} ns, and the noise keeps the rest of the "
                     f"offset, {self.residual_ns:+.5g} ns per round trip (L cannot go below 0, and the fit's g "
                     "spaces consecutive sends)")
        return text


def level_delta(gapless_round_trip_ns: float, median_ns: float, series_L_ns: float) -> float:
    """The move of every L (ns, whole ps) that puts the round trip of L and the overheads
    (`gapless_round_trip_ns`: g left out) at the median; the L of the series' own messages
    (`series_L_ns`: their size class's) goes no lower than 0."""
    half_ps = round((median_ns - gapless_round_trip_ns) * 1000.0 / 2.0)
    return max(half_ps, -round(series_L_ns * 1000.0)) / 1000.0


def series_L(loggops: dict[str, Any], size: int) -> float:
    """The L (ns) of a `size`-byte message under a profile dict's loggops: its size class's, else L."""
    classes = sorted(loggops.get("size_classes") or [], key=lambda c: int(c["min_bytes"]))
    held = [c for c in classes if int(c["min_bytes"]) <= size]
    return float(held[-1]["L"]) if held else float(loggops["L"])


def shift_loggops(loggops: dict[str, Any], delta_ns: float) -> None:
    """Moves the profile dict's L and every size class's L by `delta_ns`, in place; none below 0
    (a class whose fitted L is less than a negative move ends at 0)."""
    if delta_ns == 0.0:
        return
    loggops["L"] = _moved(loggops["L"], delta_ns)
    for c in loggops.get("size_classes") or []:
        c["L"] = _moved(c["L"], delta_ns)


def _moved(value: float, delta_ns: float) -> float:
    # whole picoseconds, the engine's resolution
    return max(0.0, round((float(value) + delta_ns) * 1000.0) / 1000.0)


def noiseless_round_trip(profile: SystemProfile, size: int, seed: int = 0, gapless: bool = False) -> float:
    """The noiseless round trip (ns) of `size`-byte ping-pongs with the profile's parameters, back
    to back as the engine runs them (model/closure.py's replay: one ping's departure to the next);
    `gapless`: with g = 0, the round trip of L and the overheads alone (a fit's g may exceed it)."""
    from dataclasses import replace

    from cloudnoise.model.closure import replay_round_trips
    from cloudnoise.simulation.params import LogGOPS

    params = LogGOPS.from_profile(profile)
    if gapless:
        params = replace(params, g_ps=0)
    return float(replay_round_trips(params, None, "none", size, 1, seed)[0])
