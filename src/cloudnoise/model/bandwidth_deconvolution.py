"""Per-message bandwidth noise from large round trips, counting the other noises once.

The bandwidth half of model/latency_deconvolution.py. A large ping-pong (16 MiB
in Netgauge's runs) holds two messages, each drawn its own fraction f of the
peak bandwidth (G / f per byte), and whatever the profile's OS noise and
latency noise (its stalls in time among them) do to a round trip that long.
The measured round trips already hold all of it. Taking each round trip's
fraction min / RTT as one message's (the paper's way) draws a round trip's
whole variation for each of its two messages: the sum of two such draws
spreads less than the series in its body and is slow twice as often in its
tail, and the OS detours and latency stalls the series' round trips met are
added again on top.

So the per-message fractions are the distribution whose two draws, with
what the other noises do, give the measured round trips back:

* a message of fraction f takes u(f): half the engine's noiseless round trip
  of that size with G / f (`message_time`, tabulated over 1 / f: linear in it
  where the wire's time decides, flat where the CPU's per-byte overhead O
  does, as on AWS c5n);
* with T0 = 2 u(f_ref) (f_ref: the series' median fraction, where the
  profile's level puts the median round trip, model/bandwidth_level.py), a
  round trip's excess R - T0 is e1 + e2 + n, e = u(f) - u(f_ref) per message
  and n what the other noises do (the engine's back-to-back replay of the
  same round trips with the profile's OS and latency noise and no bandwidth
  noise, less its noiseless round trip);
* e is estimated by the latency's EM deconvolution (`deconvolve`), e no less
  than u(1) - u(f_ref) (no message beats the peak);
* the fractions: f = u^-1(u(f_ref) + e), the table's p-quantile from e's
  (1 - p)-quantile (a slow message is a low fraction).

Tested against round trips made from known per-message fractions and a known
other part (tests/model/test_bandwidth_deconvolution.py); the replay that
judges the result is model/bandwidth_closure.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cloudnoise.model.latency_deconvolution import PerMessage, deconvolve

MAX_SLOWDOWN = 1_000.0  # 1 / f tabulated up to this (a message at a thousandth of the peak)
TABLE_POINTS = 48  # engine runs that tabulate u over 1 / f
LEAST_FRACTION = 1e-6  # no table value below this (the engine's least fraction is larger still)


@dataclass(frozen=True)
class MessageTime:
    """u(f): one message's share of the noiseless round trip at fraction f, tabulated over w = 1 / f."""

    slowdowns: np.ndarray  # w = 1 / f, ascending from 1
    times_ns: np.ndarray  # u at each w, non-decreasing

    def at(self, fraction: float) -> float:
        return float(np.interp(1.0 / fraction, self.slowdowns, self.times_ns))

    def fraction_of(self, time_ns: np.ndarray) -> np.ndarray:
        """The fraction whose message takes `time_ns`: the peak (1) at or below u(1); where u is
        flat (the CPU's time decides), the fastest fraction past which it rises; beyond the
        table, linear in 1 / f with the table's last slope."""
        keep = np.append(np.diff(self.times_ns) > 0, True)  # the last point of each flat stretch
        w, u = self.slowdowns[keep], self.times_ns[keep]
        t = np.asarray(time_ns, np.float64)
        out = np.interp(t, u, w)
        if u.size > 1 and u[-1] > u[-2]:
            out = np.where(t > u[-1], w[-1] + (t - u[-1]) * (w[-1] - w[-2]) / (u[-1] - u[-2]), out)
        out = np.where(t <= u[0], 1.0, out)
        return np.clip(1.0 / np.maximum(out, 1.0), LEAST_FRACTION, 1.0)


def message_time(round_trip: Callable[[float], float]) -> MessageTime:
    """u tabulated from `round_trip(w)`: the engine's noiseless round trip (ns) with G times w."""
    w = np.unique(np.concatenate(([1.0], np.geomspace(1.0, MAX_SLOWDOWN, TABLE_POINTS))))
    u = np.maximum.accumulate(np.array([round_trip(float(x)) / 2.0 for x in w]))
    return MessageTime(w, u)


@dataclass(frozen=True)
class PerMessageBandwidth:
    """The per-message bandwidth fractions the round trips give, and how well they explain them."""

    probabilities: np.ndarray
    fractions: np.ndarray  # non-decreasing in p, at most 1, the last 1
    reference_fraction: float  # f_ref: where u was taken from
    noise: PerMessage  # the deconvolution of the per-message times
    others_ns: np.ndarray  # what the other noises add to each replayed round trip (counted against)

    def describe(self) -> str:
        n = self.noise
        below = (f"; {100 * n.below_floor:.2g}% of the round trips faster than two messages at the peak, counted "
                 "there" if n.below_floor > 0 else "")
        return (f"per message, deconvolved (model/bandwidth_deconvolution.py): the fractions of which two draws "
                f"(one per message of a round trip), with what the profile's OS and latency noise do to round trips "
                f"that long, give back the series' round trips ({n.iterations} EM iterations, largest gap between the "
                f"two distributions {n.distance:.2g}){below}")


def deconvolve_bandwidth(values_ns: np.ndarray, counts: np.ndarray, others_ns: np.ndarray, times: MessageTime,
                         reference_fraction: float, probabilities: np.ndarray) -> PerMessageBandwidth:
    """The per-message fractions at `probabilities` (the profile's quantile grid) from the
    measured round trips (`values_ns`, `counts`), what the other noises add to round trips that
    long (`others_ns`, one per replayed round trip, 0 for most), and u (`times`)."""
    u_ref = times.at(reference_fraction)
    floor = times.at(1.0) - u_ref
    x = np.asarray(values_ns, np.float64) - 2.0 * u_ref
    others = np.maximum(np.asarray(others_ns, np.float64), 0.0)
    noise = deconvolve(x, np.asarray(counts, np.float64), others, floor_ns=floor)
    p = np.asarray(probabilities, np.float64)
    e = np.interp(1.0 - p, noise.probabilities, noise.values_ns)
    fractions = np.minimum(np.maximum.accumulate(times.fraction_of(u_ref + e)), 1.0)
    fractions[-1] = 1.0
    return PerMessageBandwidth(p, fractions, float(reference_fraction), noise, others)
