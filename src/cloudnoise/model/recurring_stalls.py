"""Stalls that recur in time and never meet a round trip twice: what some ping-pong series show.

The Piz Daint series of March 2022 (same rack, same slot) hold about 10 % of
round trips 12-15 us above the median, one stall each. Drawn per message,
two draws in a round trip put both messages in such a stall 0.3 % of the
time (round trips near 30 us, which the series does not have: 0.035 % above
25 us), and the deconvolution (model/latency_deconvolution.py) lowers the
tail's share to make up for them, so the replay holds 0.3-0.4 points fewer
long round trips than the series, and its p90, which sits at the tail's
edge, falls microseconds short. The series says why: a long round trip is
followed by another 1.5 % of the time, against 10 % overall. The stalls
come in time, on one clock that both messages of a round trip read, each
long enough (12-15 us, several round trips) that one message meets it, and
the next comes no sooner than 20 us later.

How a series is read (`find_recurring_stalls`), in one pass in its order:

1. A stall is a round trip above BODY_FACTOR times the median (the body's
   edge, as model/shared_levels.py reads it); its excess is its round trip
   less the median, so longer than the median round trip: one message of a
   round trip meets it, and the other leaves after it. Times are the round
   trips' own: the sum of the round trips between two samples of a stretch
   (an importer's start times may hold the samples a tool dropped, which the
   replay does not have).
2. Whether they recur, not fall at random: the share of stalls that the next
   round trip of their stretch follows with a stall, against the stall share
   itself (what independent draws give). Refractory where it is at most
   MAX_FOLLOW times the stall share and ACF_Z standard errors below it.
3. Whether they leave time between them: a stall takes less time on average
   than the gap after it (the model's bound, model/latency_episodes.py).

The model (`episodes`): recurring stalls on one clock for every host
(model/latency_episodes.py, `stall=..,gap=..,shared=1`). A message sent
inside a stall waits for its end, and the message that meets it is sent a
phase after the stall began, uniform over a one-way time h (half the median
round trip): the excess measured is the stall less that phase. So a stall
is its excess plus h/2 on average, and its spread is the excess's less the
phase's: the stalls' distribution is drawn in towards its mean by
k = sqrt(1 - (h^2/12) / s^2), s the excess's robust spread (its
interquartile range / 1.349; the phase's variance is h^2/12), a
deconvolution by moments that keeps the mean (the replay's phase spreads
them out again). The gap after a stall is the time from one long round
trip's start to the next one's, less that stall. Both are the measured
distributions (series_order.measured_shape, at every percent), drawn
independently, so the mean cycle is the series' time per stall and the
replay's round trips meet as many stalls each as the series' did.

`model build` builds with them only where its profile misses its own
closure without them, and keeps them where the closure then gives the
series back more closely (model/closer_build.py).

What it cannot tell: a 2-host series cannot tell one clock for the system
from one for this pair of hosts (a collective of many hosts meets the
stalls on one clock under the system-wide reading); nor can it tell a
stall's own spread from the phase's beyond their variances, which the
uniform phase stands in for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.distributions import Constant, Distribution, Mixture, Uniform
from cloudnoise.model.latency_episodes import LatencyEpisodes
from cloudnoise.model.latency_split import LatencySplit
from cloudnoise.model.reading import reading_as_dict
from cloudnoise.model.round_trips import RoundTrips
from cloudnoise.model.series_order import Batch, SeriesOrder, measured_shape
from cloudnoise.model.shared_levels import BODY_FACTOR

MIN_ROUND_TRIPS = 10_000
MIN_STALLS = 100
MAX_FOLLOW = 0.5  # a stall followed by a stall at most this times as often as the stall share
ACF_Z = 6.0  # and this many standard errors below it
ONE_WAY_OF_RTT = 0.5  # h, the time between two sends of a ping-pong: half the median round trip
# the stalls' and gaps' shapes, every percent: the gaps have several modes (25, 35, 51 us on Daint),
# whose mean the coarse shape misses by a percent, and with it the share of round trips that meet a stall
SHAPE_POINTS = (*(k / 100 for k in range(100)), 0.995, 0.998, 1.0)


@dataclass(frozen=True)
class RecurringStalls:
    """What `find_recurring_stalls` read from a series: its stalls, how often one follows another,
    and whether they are a model of the series (`found`, `why`)."""

    found: bool
    why: str
    round_trips: int = 0
    threshold_ns: float = math.nan
    stall_share: float = math.nan  # of the round trips
    followed: float = math.nan  # share of stalls whose next round trip is a stall
    median_ns: float = math.nan  # the series' median round trip
    excess_ns: float = math.nan  # the stalls' median excess over the median round trip
    cycle_ns: float = math.nan  # mean round-trip time from one stall's round trip's start to the next one's
    stall: StreamStats | None = field(default=None, repr=False)  # each stall (excess + the phase's mean, h/2)
    gap: StreamStats | None = field(default=None, repr=False)  # each cycle less its stall

    def episodes(self) -> LatencyEpisodes:
        """The engine's model: recurring stalls, measured lengths and gaps, on one clock for every host."""
        assert self.found and self.stall is not None and self.gap is not None
        shape = measured_shape(self.stall, SHAPE_POINTS)
        return LatencyEpisodes(_drawn_in(shape, shape.mean(), self.phase_factor()),
                               gap=measured_shape(self.gap, SHAPE_POINTS), shared=True)

    def phase_factor(self) -> float:
        """k: how far the stalls' spread is the excess's less the phase's (module docstring)."""
        assert self.stall is not None
        spread = (self.stall.percentile(75.0) - self.stall.percentile(25.0)) / 1.349
        one_way = ONE_WAY_OF_RTT * self.median_ns
        if not spread > 0:
            return 0.0
        return math.sqrt(max(0.0, 1.0 - one_way * one_way / 12.0 / (spread * spread)))

    def describe(self) -> str:
        if not self.found:
            return f"no recurring stalls: {self.why}"
        return (f"recurring stalls on one clock: {100 * self.stall_share:.3g}% of round trips "
                f"{self.excess_ns / 1e3:.3g} us (median) above the median, one every {self.cycle_ns / 1e3:.3g} us "
                f"(mean), a stall followed by another in {100 * self.followed:.2g}% of round trips where independent "
                f"draws give {100 * self.stall_share:.3g}%")

    def as_dict(self) -> dict[str, Any]:
        return reading_as_dict(self)

    def as_split(self) -> LatencySplit:
        """The split `model build` uses with them: the stalls in time, the rest per message."""
        return LatencySplit("recurring", f"{self.describe()} (model/recurring_stalls.py)", self.round_trips,
                            self.threshold_ns, self.stall_share, 1.0 - self.stall_share, self.episodes())


def find_recurring_stalls(series: Callable[[], Iterable[Batch]], trips: RoundTrips) -> RecurringStalls:
    """The recurring stalls `series` (its round trips counted as `trips`) shows, if it shows them
    (see the module's docstring for the rule). One pass over the series, a batch at a time."""
    if trips.count < MIN_ROUND_TRIPS:
        return RecurringStalls(False, f"{trips.count} round trips, too few to tell stalls that recur (at least "
                                      f"{MIN_ROUND_TRIPS:,})", trips.count)
    median = trips.median()
    threshold = BODY_FACTOR * median
    phase = ONE_WAY_OF_RTT * median / 2.0  # the phase's mean
    order = SeriesOrder()
    stall, gap = StreamStats(), StreamStats()
    stalls = pairs = follows = 0
    cycles = 0.0
    cycle_count = 0
    # carried from the batch before: its last round trip's stretch and whether it was a stall; the
    # last stall's stretch (-1: none yet), start and length
    last_seg, last_long = -1, False
    stall_seg, stall_start, stall_length = -1, 0, 0.0
    clock = 0  # the round trips' own time: the sum of the round trips before a sample
    for start, value, key in series():
        if len(value) == 0:
            continue
        start, value = np.asarray(start, np.int64), np.asarray(value, np.int64)
        seg, _ = order.read(start, value, np.asarray(key, np.int64))
        at = clock + np.cumsum(value) - value
        clock = int(at[-1] + value[-1])
        long = value > threshold
        prev_seg = np.concatenate(([last_seg], seg[:-1]))
        prev_long = np.concatenate(([last_long], long[:-1]))
        after_stall = (prev_seg == seg) & prev_long
        pairs += int(after_stall.sum())
        follows += int((after_stall & long).sum())
        last_seg, last_long = int(seg[-1]), bool(long[-1])
        idx = np.flatnonzero(long)
        if idx.size == 0:
            continue
        stalls += idx.size
        lengths = value[idx].astype(np.float64) - median + phase
        stall.add(np.rint(lengths).astype(np.int64))
        # start to start within a stretch, the first against the last stall of the batches before
        s, g = at[idx], seg[idx]
        prev_s = np.concatenate(([stall_start], s[:-1]))
        prev_len = np.concatenate(([stall_length], lengths[:-1]))
        same = np.concatenate(([stall_seg], g[:-1])) == g
        cyc = (s - prev_s)[same].astype(np.float64)
        cycles += float(cyc.sum())
        cycle_count += cyc.size
        if cyc.size:
            gap.add(np.rint(np.maximum(cyc - prev_len[same], 1.0)).astype(np.int64))
        stall_seg, stall_start, stall_length = int(g[-1]), int(s[-1]), float(lengths[-1])
    share = stalls / trips.count
    read = dict(round_trips=trips.count, threshold_ns=threshold, stall_share=share, median_ns=median)
    unordered = order.fallback(MIN_ROUND_TRIPS, "latency noise")
    if unordered is not None:
        return RecurringStalls(False, unordered, **read)
    if stalls < MIN_STALLS or pairs == 0:
        return RecurringStalls(False, f"{stalls} round trips above {threshold / 1e3:.3g} us (at least {MIN_STALLS})",
                               **read)
    followed = follows / pairs
    read.update(followed=followed, excess_ns=stall.percentile(50.0) - phase,
                cycle_ns=cycles / cycle_count if cycle_count else math.nan, stall=stall, gap=gap)
    expected = share * pairs
    reasons = []
    if not (followed <= MAX_FOLLOW * share and expected - follows >= ACF_Z * math.sqrt(expected)):
        reasons.append(f"a stall followed by another in {100 * followed:.2g}% of round trips, where independent draws "
                       f"give {100 * share:.3g}% (recurring: at most {MAX_FOLLOW:g} times that, by {ACF_Z:g} standard "
                       "errors)")
    if cycle_count < MIN_STALLS // 2:
        reasons.append(f"{cycle_count} times from one stall to the next within a stretch (at least {MIN_STALLS // 2})")
    elif not stall.mean < gap.mean:
        reasons.append(f"stalls of {stall.mean / 1e3:.3g} us with gaps of {gap.mean / 1e3:.3g} us: stalled half "
                       "the time or more")
    if reasons:
        return RecurringStalls(False, "; ".join(reasons), **read)
    found = RecurringStalls(True, "long round trips that one message meets, each rarely followed by another: stalls "
                                  "that recur on one clock", **read)
    try:  # the model's own bounds, on the shapes it draws from (their means are the series' within a bucket)
        found.episodes()
    except CloudnoiseError as err:
        return RecurringStalls(False, f"no model of them: {err}", **read)
    return found


def _drawn_in(dist: Distribution, center: float, k: float) -> Distribution:
    """`dist` (a measured shape: uniform pieces and points) with every value x moved to
    center + k (x - center)."""
    def moved(x: float) -> float:
        return center + k * (x - center)

    def piece(part: Distribution) -> Distribution:
        if isinstance(part, Uniform) and moved(part.high) - moved(part.low) > 1e-6:
            return Uniform(moved(part.low), moved(part.high))
        if isinstance(part, (Uniform, Constant)):
            return Constant(moved(part.low if isinstance(part, Uniform) else part.value))
        raise TypeError(f"a measured shape holds uniform pieces and points, not {part.spec()}")

    if isinstance(dist, Mixture):
        return Mixture(tuple(dist.weights), tuple(piece(c) for c in dist.components))
    return piece(dist)
