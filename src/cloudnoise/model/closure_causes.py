"""Why a latency closure misses: what in the measured series the profile cannot give back.

`model build` replays its own measurement (model/closure.py) and labels a
profile whose replay misses. The label says that it misses; these notes say
why, from what the build already holds, where the cause is one of those the
artifact's runs show (docs/explanation/measurement.md, the closure table):

* **More OS noise than the ping-pongs met.** The OS part (the profile's own
  OS noise replayed back to back with the noiseless ping-pong,
  model/latency_deconvolution.py `os_part_of`) delays more round trips by y
  than the series holds at y or later: the selfish-detour run's detours were
  more, or longer, than those the ping-pongs met. The latency noise cannot
  take them back (a per-message delay is never below what the messages'
  floor allows), so the replay is later than the series there.
* **No sum of two draws.** The deconvolution's best per-message
  distribution, two draws of it and the OS part, still lies far from the
  measured round trips (its largest gap between the two distributions):
  two levels whose middle a sum of two independent draws fills, a peak that
  a sum widens, long round trips followed by fast ones.
* **Faster than the overheads allow.** Round trips faster than twice the
  least L and send overhead, counted at that floor.

Each note is said only where the closure misses, and only where its measure
passes the closure's own tolerance (a share late: 25 % or 0.1 points).
"""

from __future__ import annotations

import numpy as np

from cloudnoise.model.bandwidth_closure import SLOWER
from cloudnoise.model.bandwidth_deconvolution import PerMessageBandwidth
from cloudnoise.model.closure import SHARE_SLACK, SHARE_TOLERANCE, Closure
from cloudnoise.model.latency_deconvolution import CountedOnce, OSPart
from cloudnoise.model.round_trips import RoundTrips

OS_LATE_NS = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000)  # how late the OS part and the series are compared
MAX_DISTANCE = 0.02  # a deconvolution whose largest gap exceeds this is said to leave the series unexplained
MIN_BELOW_FLOOR = 0.01  # a share of round trips faster than the floor worth saying


def excess_share(delays_ns: np.ndarray, trips: RoundTrips, from_ns: float,
                 lateness_ns: tuple[float, ...]) -> tuple[float, float, float] | None:
    """The lateness y (ns, of `lateness_ns`) at which a part alone (`delays_ns`, one per replayed
    round trip) delays the most round trips more than the series holds that late: (y, the part's
    share, the series' share), or None where it nowhere exceeds the series' share by the
    closure's share tolerance. The series' round trips (`trips`) count from `from_ns`, less what
    the per-message draws can take off it (the series' median less its first percentile)."""
    p1, p50 = trips.quantiles([1.0, 50.0])
    slack = float(p50 - p1)
    delays = np.sort(np.asarray(delays_ns, np.float64))
    worst: tuple[float, float, float] | None = None
    for y in lateness_ns:
        part = 1.0 - np.searchsorted(delays, y + slack, side="right") / delays.size
        series = trips.share_above(from_ns + y)
        excess = part - series
        if excess > max(SHARE_TOLERANCE * series, SHARE_SLACK) and (worst is None or excess > worst[1] - worst[2]):
            worst = (float(y), float(part), series)
    return worst


def os_excess(os_part: OSPart, trips: RoundTrips) -> tuple[float, float, float] | None:
    """`excess_share` of the OS part of 1-byte round trips at OS_LATE_NS, from its noiseless
    round trip; None without OS noise."""
    if not os_part.measured:
        return None
    return excess_share(os_part.delays_ns, trips, os_part.noiseless_ns, OS_LATE_NS)


def closure_causes(closure: Closure, once: CountedOnce, os_part: OSPart | None,
                   trips: RoundTrips) -> tuple[str, ...]:
    """The notes that say why `closure` misses (none where it closes or is not judged):
    `once` the per-message noise the build deconvolved, `os_part` its OS part, `trips` the whole
    series' round trips (what the replay gives back; not the remainder below a stall threshold,
    which no OS delay beyond that threshold could fit)."""
    if closure.closes or not closure.judged:
        return ()
    notes: list[str] = []
    if os_part is not None:
        got = os_excess(os_part, trips)
        if got is not None:
            y, os_share, series = got
            notes.append(
                f"why it misses: the OS noise alone, replayed back to back, delays {100 * os_share:.3g}% of the round "
                f"trips by more than {y / 1e3:g} us, where the series holds {100 * series:.3g}% that late: the "
                "OS-noise run's detours were more than the ping-pongs met (it ran at another moment), and the "
                "latency noise cannot take them back; measure both again together")
    distance = once.noise.distance
    if distance > MAX_DISTANCE:
        notes.append(
            f"why it misses: no two independent per-message draws and the OS part give the measured round trips "
            f"back (the best leaves a gap of {distance:.2g} between the two distributions): two levels, a peak, or "
            "long round trips followed by fast ones, which the series' order holds and per-message draws do not")
    below = once.noise.below_floor
    if below > MIN_BELOW_FLOOR:
        notes.append(
            f"why it misses: {100 * below:.2g}% of the round trips are faster than the fitted L and overheads "
            "allow, counted at that floor (the overheads were smaller when the series was measured)")
    return tuple(notes)


def bandwidth_causes(closure: Closure, per_message: PerMessageBandwidth, trips: RoundTrips,
                     median_ns: float) -> tuple[str, ...]:
    """The notes that say why a bandwidth closure misses: the profile's OS and latency noise alone
    (`per_message.others_ns`, what they add to each replayed round trip of the series' size)
    slowing more round trips by 2, 5 or 20 % of the median than the series holds; a
    deconvolution that leaves the series (`trips`) unexplained."""
    if closure.closes or not closure.judged:
        return ()
    notes: list[str] = []
    got = excess_share(per_message.others_ns, trips, median_ns, tuple(f * median_ns for f in SLOWER))
    if got is not None:
        y, part, series = got
        notes.append(
            f"why it misses: the profile's OS and latency noise alone, replayed with round trips this long, slow "
            f"{100 * part:.3g}% of them by more than {100 * y / median_ns:.3g} % of the median, where the series "
            f"holds {100 * series:.3g}% that slow: the latency series' stalls or the OS-noise run's detours were more "
            "than the large messages met, and the bandwidth noise cannot take them back")
    if per_message.noise.distance > MAX_DISTANCE:
        notes.append(
            f"why it misses: no two independent per-message fractions and the other noises give the measured round "
            f"trips back (the best leaves a gap of {per_message.noise.distance:.2g} between the two distributions)")
    return tuple(notes)
