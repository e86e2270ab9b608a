"""The level of a profile's bandwidth: the large message's round trip at the bandwidth series' median.

The bandwidth half of model/latency_level.py. A campaign measures G (the
LogGP fit, from Netgauge's table of sizes up to 127 KiB, or a ping-pong sweep)
and the bandwidth noise (back-to-back ping-pongs of one large size, 16 MiB in
Netgauge's runs) in separate experiments. The noise's quantile table holds
each sample's bandwidth over the series' highest (least round trip over its
own), and G is scaled by the table's median fraction (`consistent_gap` in
model/build.py), so that a message drawn at the median fraction takes G / f =
the fitted G per byte. That keeps the fit's level, not the series': where the
size class holding the large size was extrapolated from the table, or where
its fitted per-byte overhead O is as large as G, the built profile replayed
the series at up to 1.96 times its median round trip (AWS c5n.metal
2022_03_21: 6.58 ms against 3.62 ms measured), and every large message of a
collective paid the same.

The profile puts its level where its noise was measured: the per-byte costs
of the size class holding the series' size, G and O together (and the plain
G and O where they are that class's), move by one factor, so that the
noiseless round trip of that size, with G at the table's median fraction
(G / f), is the series' median round trip: found by bisection on the engine's
own noiseless ping-pong (`noiseless_round_trip`), which grows with the
factor. One factor for both: the series gives the whole per-byte time and
cannot tell the CPU's share (O) from the wire's (G); the fit's split stays,
but for an O above G at the peak, which is taken at G first. The engine's
message is the slower of the CPU and the wire, so with O above G the round
trip is the CPU's for every bandwidth fraction up to O / G: no fraction makes
one faster than the median, where the series' are. On AWS c5n the fitted O
(0.10 ns/B against G 0.057) is the rendezvous send call's time, which holds
the transfer; 1 % of its round trips run 7 % faster than the median, and the
replay ran none faster (Daint March 2022_03_18: 50 % of its round trips
faster than two messages at the peak). L, o, g, S and the other
classes stay as fitted (the sizes the LogGP table measured). Where o and L
alone exceed the median, the factor goes to 0 and the provenance says what
is left. The paper's semantics (`model build --as-paper`) keep the fit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ITERATIONS = 40  # bisection steps on the factor
MAX_DOUBLINGS = 40


@dataclass(frozen=True)
class BandwidthLevel:
    """How a profile's per-byte costs for the bandwidth series' size move to that series' level."""

    size: int  # bytes: the bandwidth series' message size
    median_ns: float  # the series' median round trip (of the per-message draws)
    fitted_ns: float  # the noiseless round trip at the median fraction with the fitted costs
    moved_ns: float  # the same with the moved costs
    factor: float  # the fitted G and O of the class times this
    G_fitted: float  # ns/B, as written before the move (already scaled by the median fraction)
    G_moved: float
    O_fitted: float
    O_moved: float
    median_fraction: float = 1.0  # the bandwidth fraction at which the round trip is the median
    to_median: bool = True  # False: the series gave no median to move to, the fit's costs stay
    O_capped: bool = False  # the fit's O was above its G at the peak and moved as G does

    @property
    def residual_ns(self) -> float:
        """What stays between the moved round trip and the median (0 unless the costs reached 0)."""
        return self.median_ns - self.moved_ns

    def describe(self) -> str:
        """One clause for the profile's provenance."""
        if not self.to_median:
            return (f"the per-byte costs of {self.size} B messages stay as fitted: the bandwidth series gives no "
                    "median round trip to move them to (model/bandwidth_level.py)")
        text = (f"the per-byte costs of {self.size} B messages moved (G {self.G_fitted:.6g} "
                f"-> {self.G_moved:.6g} ns/B, O {self.O_fitted:.6g} -> {self.O_moved:.6g} ns/B), so that their noiseless "
                f"round trip at the bandwidth noise's median fraction ({self.fitted_ns:.6g} ns with the fitted costs) is "
                f"the bandwidth series' median {self.median_ns:.6g} ns: the LogGP run ran at another level "
                "(model/bandwidth_level.py)")
        if self.O_capped:
            text += (f"; O taken at G before the move (the fit's O {self.O_fitted:.6g} ns/B is above G at the peak, "
                     "so the CPU would decide the round trip and no bandwidth fraction could make one faster than "
                     "the median, where the series' are: a rendezvous send call's time holds the transfer)")
        if self.residual_ns < -max(1.0, RESIDUAL_SHARE * self.median_ns):
            text += (f"; with no per-byte cost it is {self.moved_ns:.6g} ns: the fit's o and L alone exceed the median "
                     f"by {-self.residual_ns:.6g} ns")
        return text


RESIDUAL_SHARE = 1e-3  # a residual below this share of the median is the costs' resolution (whole fs per byte)


def size_class_of(loggops: dict[str, Any], size: int) -> dict[str, Any] | None:
    """The size class (a dict of the profile's loggops) that `size`-byte messages fall in, or None
    where the profile has no class for them (the plain G and O apply)."""
    classes = sorted(loggops.get("size_classes") or [], key=lambda c: int(c["min_bytes"]))
    held = [c for c in classes if int(c["min_bytes"]) <= size]
    return held[-1] if held else None


def with_costs(loggops: dict[str, Any], size: int, G: float, O: float) -> dict[str, Any]:
    """A copy of the loggops dict with `size`-byte messages' G and O set (their class's, and the
    plain ones where they are that class's or no class holds those messages)."""
    out = {**loggops, "size_classes": [dict(c) for c in loggops.get("size_classes") or []]}
    held = size_class_of(out, size)
    for key, value in (("G", G), ("O", O)):
        if held is None or float(loggops.get(key, 0.0)) == float(held.get(key, 0.0)):
            out[key] = value
        if held is not None:
            held[key] = value
    if not out["size_classes"]:
        out.pop("size_classes")
    return out


def _fs(value: float) -> float:
    return round(value, 6)  # whole femtoseconds per byte, the engine's resolution


def level_costs(loggops: dict[str, Any], size: int, median_fraction: float, median_ns: float,
                round_trip: Callable[[dict[str, Any]], float]) -> BandwidthLevel:
    """The factor on the `size`-byte class's G and O that puts their noiseless round trip, at
    G / `median_fraction`, at `median_ns`. `round_trip(loggops)` is the engine's noiseless round
    trip (ns) of that size with a loggops dict; it must not decrease as G and O grow."""
    held = size_class_of(loggops, size)
    G0 = float(held["G"] if held is not None else loggops["G"])
    O0 = float((held if held is not None else loggops).get("O", 0.0))
    if not (0.0 < median_fraction <= 1.0 and median_ns > 0.0 and math.isfinite(median_ns)):
        # no level to move to (a series whose median is no round trip, or faster than its
        # fastest): the fit's costs stay, as the residual says
        same = round_trip(with_costs(loggops, size, G0, O0))
        return BandwidthLevel(int(size), float(median_ns), same, same, 1.0, G0, G0, O0, O0, float(median_fraction),
                              to_median=False)
    fitted_ns = round_trip(with_costs(loggops, size, G0 / median_fraction, O0))
    O_fitted = O0
    # the CPU's per-byte time no longer than the wire's at the peak: above it the round trip is the
    # CPU's for every fraction up to O / G, and the bandwidth noise could not give back a series
    # whose round trips run faster than its median (AWS c5n: the fit's O is the rendezvous send
    # call's time, which holds the transfer)
    capped = O0 > G0 > 0.0
    if capped:
        O0 = G0
    if G0 <= 0.0 and O0 <= 0.0:
        # no per-byte cost to scale (a class the fit left flat): the wire's alone, a factor on
        # the time of the whole message at the median as if it were all G
        G0 = max(0.0, median_ns - fitted_ns) / (2.0 * size) * median_fraction

    @functools.cache
    def at(k: float) -> float:  # the round trip with the costs times k, G at the median fraction (an engine run)
        return round_trip(with_costs(loggops, size, _fs(k * G0) / median_fraction, _fs(k * O0)))

    lo, hi = 0.0, 1.0
    if G0 <= 0.0 and O0 <= 0.0 or at(0.0) >= median_ns:
        hi = 0.0
    else:
        for _ in range(MAX_DOUBLINGS):
            if at(hi) >= median_ns:
                break
            lo, hi = hi, 2.0 * hi
        for _ in range(ITERATIONS):
            mid = 0.5 * (lo + hi)
            if at(mid) < median_ns:
                lo = mid
            else:
                hi = mid
    k = hi if abs(at(hi) - median_ns) <= abs(at(lo) - median_ns) else lo
    G_fitted = float(held["G"] if held is not None else loggops["G"])
    return BandwidthLevel(int(size), float(median_ns), float(fitted_ns), float(at(k)), float(k),
                          G_fitted, _fs(k * G0), O_fitted, _fs(k * O0), float(median_fraction), O_capped=capped)
