"""Two latency levels that a round trip's two messages share: what some ping-pong series show.

Several of the artifact's Piz Daint series (March 2022, same rack and same
slot; May 19) stand at two levels: round trips near 2.6 us and near 3.8-4.1 us
(1.2-1.4 us apart, about half of them at each), with almost nothing between,
a level holding for several round trips in a row. Per-message draws cannot
give that back: a round trip is two draws, so a per-message distribution at
two levels puts a third of its round trips halfway between them, and its
deconvolution (model/latency_deconvolution.py) fits neither level. Nor can
levels per sending host (model/latency_levels.py without `shared`): the two
hosts' levels add, a third mode again. What gives it back is one level both
messages of a round trip carry: a level of the path or of the whole system,
which a 2-host series cannot tell apart; the engine's `shared=1` levels are
one clock for every host, the system-wide reading.

How a series is read (`find_shared_levels`), in two passes over it:

1. The body: the round trips up to BODY_FACTOR times the median (longer
   ones are stalls, modelled by the per-message draws). Its split into two
   levels by Otsu's threshold on the log round trip (the split that
   maximises the between-level variance), each level's median, and the
   share between them (more than a quarter of the gap D from either median).
2. The series in order: each round trip's level (above the body: the level
   of the round trip before it, a level holding through a stall), the
   lag-1 correlation of the level within the series' stretches, and the
   mean run at each level, as a time: its round trips times the level's mean
   round trip. Levels renewed at a rate 1/h, each drawn upper with
   probability p, hold the upper level for h/(1 - p) on average and the
   lower for h/p, so h = 1 / (1/T_lower + 1/T_upper) and p = T_upper /
   (T_lower + T_upper): a share of the time, which is more than the upper
   level's share of round trips (they last longer).

Two levels where each holds at least MIN_SHARE of the body, their gap is
at least MIN_GAP_NS and MIN_GAP_SPREAD times either level's own spread
(p25-p75: a third mode halfway widens the upper one), at most MAX_BETWEEN of the body lies between them, and the level
persists (lag-1 correlation at least MIN_LAG1). `levelled` then gives the
series with D taken off every upper-level round trip, the series the
per-message noise is deconvolved from; the profile carries
`levels: hold=H,level=two points {0, D/2},shared=1` beside it.

`model build` keeps them only where the profile without them misses its own
closure and the one with them gives it back more closely (model/closer_build.py):
where per-message draws already close a two-level series (DEEP-EST's, 85 %
at the upper level) the simpler model stays.

What it cannot tell: a 2-host series cannot tell the system's level from
the path's (a collective of many hosts meets one level at a time under the
system-wide reading, independent ones per path under the other), nor the
level's hold below a round trip: a level that changes between a message and
its reply puts the reply at the other level, about a round trip / h of the
time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cloudnoise.model.latency_levels import LatencyLevels, parse_latency_levels
from cloudnoise.model.reading import reading_as_dict
from cloudnoise.model.round_trips import RoundTrips
from cloudnoise.model.series_order import Batch, otsu

BODY_FACTOR = 2.0  # the body: round trips up to this times the median
MIN_SHARE = 0.05  # each level holds at least this share of the body
MIN_GAP_NS = 200.0  # the levels' medians at least this far apart (the closure's absolute tolerance)
MIN_GAP_SPREAD = 3.0  # and at least this many times either level's p25-p75
MAX_BETWEEN = 0.02  # at most this share of the body more than D/4 from both levels' medians, between them
MIN_LAG1 = 0.2  # a level that persists: its lag-1 correlation within a stretch at least this
BINS_PER_DECADE = 1000  # the log histogram Otsu's split reads (0.23 % wide bins)


@dataclass(frozen=True)
class SharedLevels:
    """What `find_shared_levels` read from a series: its two levels, how often and how long each
    holds, and whether they are a model of the series (`found`, `why`)."""

    found: bool
    why: str
    round_trips: int = 0
    threshold_ns: float = math.nan
    ceiling_ns: float = math.nan  # the body's top: BODY_FACTOR times the median
    lower_ns: float = math.nan  # the median round trip of each level
    upper_ns: float = math.nan
    spread_ns: float = math.nan  # the wider level's p25-p75
    upper_share: float = math.nan  # of the body
    between_share: float = math.nan  # of the body
    lag1: float = math.nan
    run_lower: float = math.nan  # mean run at each level, in round trips
    run_upper: float = math.nan
    lower_mean_ns: float = math.nan  # the mean round trip at each level (of the body)
    upper_mean_ns: float = math.nan
    time_share: float = math.nan  # the upper level's share of the time
    hold_ns: float = math.nan

    @property
    def gap_ns(self) -> float:
        return self.upper_ns - self.lower_ns

    def levels(self) -> LatencyLevels:
        """The engine's model: one clock of levels for every host, at 0 or D/2 per message (a round
        trip's two messages carry D), renewed every `hold_ns` on average."""
        half = self.gap_ns / 2.0
        p = min(max(self.time_share, 1e-6), 1.0 - 1e-6)
        return parse_latency_levels(
            f"hold={self.hold_ns:.6g}ns,level=mixture({1.0 - p:.6g}*constant(value=0)+{p:.6g}*constant("
            f"value={half:.6g})),shared=1")

    def describe(self) -> str:
        if not self.found:
            return f"no shared levels: {self.why}"
        return (f"two levels a round trip's two messages share: {self.lower_ns / 1e3:.4g} and {self.upper_ns / 1e3:.4g} "
                f"us ({100 * self.upper_share:.3g}% of round trips at the upper, {100 * self.time_share:.3g}% of the time; "
                f"{100 * self.between_share:.2g}% between them), "
                f"holding {self.hold_ns / 1e3:.3g} us on average (runs of {self.run_lower:.3g} and "
                f"{self.run_upper:.3g} round trips, lag-1 correlation {self.lag1:.2f})")

    def as_dict(self) -> dict[str, Any]:
        return reading_as_dict(self)


def otsu_threshold(values: np.ndarray, counts: np.ndarray) -> float:
    """The split of distinct values (> 0) with their counts into two classes that maximises the
    between-class variance of their logs (series_order.otsu on a log histogram): the middle of
    the empty stretch between the classes."""
    unit = float(values.min())
    bins = np.minimum((np.log10(values / unit) * BINS_PER_DECADE).astype(np.int64), 10 * BINS_PER_DECADE)
    hist = np.bincount(bins, weights=counts.astype(np.float64))
    return unit * 10 ** ((otsu(hist, middle=True) + 1) / BINS_PER_DECADE)


def _states(values: np.ndarray, threshold: float, ceiling: float, before: int) -> np.ndarray:
    """Each round trip's level (1 upper, 0 lower); one above the body (`ceiling`) takes the level of
    the one before it (`before`, -1: none yet, then lower)."""
    state = np.where(values > ceiling, -1, (values > threshold).astype(np.int64))
    if (state < 0).any():
        # carry the last body level forward over the round trips above the body
        idx = np.where(state >= 0, np.arange(state.size), -1)
        np.maximum.accumulate(idx, out=idx)
        first = np.maximum(before, 0)
        state = np.where(idx >= 0, state[np.maximum(idx, 0)], first)
    return state


def _levels_in_order(series: Callable[[], Iterable[Batch]], threshold: float, ceiling: float
                     ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """`series` a batch at a time with each round trip's level (`_states`, carried over a batch's
    edge within a stretch), the level of the round trip before it (-1: none in its stretch) and
    whether it continues that round trip's stretch: (start, value, key, level, previous level, same)."""
    last_key: int | None = None
    last_state = -1
    for start, value, key in series():
        value = np.asarray(value, np.int64)
        if value.size == 0:
            continue
        key = np.asarray(key, np.int64)
        continues = last_key is not None and key[0] == last_key
        state = _states(value, threshold, ceiling, last_state if continues else -1)
        same = np.concatenate(([continues], key[1:] == key[:-1]))
        prev = np.where(same, np.concatenate(([last_state], state[:-1])), -1)
        yield start, value, key, state, prev, same
        last_key, last_state = int(key[-1]), int(state[-1])


def find_shared_levels(series: Callable[[], Iterable[Batch]], trips: RoundTrips) -> SharedLevels:
    """The two levels `series` (its round trips counted as `trips`) stands at, if it shows them
    (see the module's docstring for the rule)."""
    if trips.count < 1000:
        return SharedLevels(False, f"{trips.count} round trips, too few to tell levels", trips.count)
    ceiling = BODY_FACTOR * trips.median()
    body = trips.values <= ceiling
    values, counts = trips.values[body], trips.counts[body]
    if values.size < 2 or values[0] <= 0:
        return SharedLevels(False, "the series' body takes one value", trips.count)
    threshold = otsu_threshold(values, counts)
    up = values > threshold
    if up.all() or not up.any():
        return SharedLevels(False, "the series' body stands at one level", trips.count)
    share = float(counts[up].sum() / counts.sum())
    (lower_q, upper_q) = (RoundTrips(values[m], counts[m]).quantiles([25.0, 50.0, 75.0]) for m in (~up, up))
    lower, upper = float(lower_q[1]), float(upper_q[1])
    spread = max(float(q[2] - q[0]) for q in (lower_q, upper_q))
    gap = upper - lower
    between = (values > lower + gap / 4.0) & (values < upper - gap / 4.0)
    between_share = float(counts[between].sum() / counts.sum())
    lower_mean = float((values[~up] * counts[~up]).sum() / counts[~up].sum())
    upper_mean = float((values[up] * counts[up]).sum() / max(counts[up].sum(), 1))
    read = dict(round_trips=trips.count, threshold_ns=threshold, ceiling_ns=ceiling, lower_ns=lower, upper_ns=upper,
                spread_ns=spread, upper_share=share, between_share=between_share, lower_mean_ns=lower_mean,
                upper_mean_ns=upper_mean)
    reasons = []
    if min(share, 1.0 - share) < MIN_SHARE:
        reasons.append(f"{100 * min(share, 1 - share):.2g}% of the body at one level (a level holds at least "
                       f"{100 * MIN_SHARE:g}%)")
    if gap < max(MIN_GAP_NS, MIN_GAP_SPREAD * spread):
        reasons.append(f"the levels {gap:.4g} ns apart, within {MIN_GAP_SPREAD:g} times a level's spread "
                       f"({spread:.4g} ns) or {MIN_GAP_NS:g} ns")
    if between_share > MAX_BETWEEN:
        reasons.append(f"{100 * between_share:.2g}% of the body between the levels (at most {100 * MAX_BETWEEN:g}%)")
    if reasons:
        return SharedLevels(False, "; ".join(reasons), **read)

    # the series in order: the levels' persistence and runs, within stretches
    pairs = products = 0.0
    sum_a = sum_b = sum_a2 = sum_b2 = 0.0
    runs = np.zeros(2)
    run_rts = np.zeros(2)
    for _, _, _, state, prev, same in _levels_in_order(series, threshold, ceiling):
        ok = prev >= 0
        a, b = prev[ok].astype(np.float64), state[ok].astype(np.float64)
        pairs += a.size
        products += float((a * b).sum())
        sum_a += float(a.sum())
        sum_b += float(b.sum())
        sum_a2 += float((a * a).sum())
        sum_b2 += float((b * b).sum())
        # a run starts where the level or the stretch changes
        starts = ~same | (prev != state)
        for s in (0, 1):
            runs[s] += int((starts & (state == s)).sum())
            run_rts[s] += int((state == s).sum())
    if pairs < 2 or runs.min() == 0:
        return SharedLevels(False, "too few round trips in order to read the levels' runs", **read)
    cov = products / pairs - (sum_a / pairs) * (sum_b / pairs)
    var = math.sqrt(max(sum_a2 / pairs - (sum_a / pairs) ** 2, 0.0) * max(sum_b2 / pairs - (sum_b / pairs) ** 2, 0.0))
    lag1 = cov / var if var > 0 else 0.0
    run_lower, run_upper = float(run_rts[0] / runs[0]), float(run_rts[1] / runs[1])
    t_lower, t_upper = run_lower * lower_mean, run_upper * upper_mean
    hold = t_lower * t_upper / (t_lower + t_upper)
    read.update(lag1=lag1, run_lower=run_lower, run_upper=run_upper, hold_ns=hold, time_share=t_upper / (t_lower + t_upper))
    if lag1 < MIN_LAG1:
        return SharedLevels(False, f"the level does not persist (lag-1 correlation {lag1:.2f}, at least "
                                   f"{MIN_LAG1:g})", **read)
    return SharedLevels(True, "the body stands at two levels with almost nothing between, each holding for "
                              "round trips in a row", **read)


def levelled(series: Callable[[], Iterable[Batch]], levels: SharedLevels) -> Callable[[], Iterator[Batch]]:
    """`series` with the gap D taken off every round trip at the upper level (levels as
    `find_shared_levels` reads them): what is left for the per-message draws."""
    gap = int(round(levels.gap_ns))

    def batches() -> Iterator[Batch]:
        for start, value, key, state, _, _ in _levels_in_order(series, levels.threshold_ns, levels.ceiling_ns):
            yield start, np.maximum(value - gap * state, 1), key

    return batches
