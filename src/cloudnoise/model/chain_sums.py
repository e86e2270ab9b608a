"""What a measured ping-pong series says a chain of K back-to-back ping-pongs takes, started two ways.

A chain of K ping-pongs (simulate's check of a profile: a 2-rank GOAL
schedule of K round trips, model/closure.py's `pingpong_goal`) is compared
with the series it was built from through the sums of K consecutive
measured round trips, less K medians. Where the chain starts decides which
sums:

* **By sample**: the sums of K consecutive round trips, non-overlapping,
  within each stretch of the series (model/series_order.py). Every round
  trip starts a chain as often as any other: the question of a stream of
  messages already under way, which meets a stall of 75 us in the one round
  trip it delays.
* **By time**: the chain starts at a moment drawn uniformly over the
  series' time (its round trips laid end to end), as each repetition of
  `simulate` does (its noise in time read from a drawn offset, its
  repetitions independent). A moment falls inside a stall as often as the
  stalls take time: on a series that spends 32 % of its time in stalls that
  are 3 % of its round trips, a third of the chains start in one. The
  stalls are the round trips above the stall threshold of a profile that
  models its stalls in time (model/latency_split.py); a chain that starts
  inside one meets what is left of it from that moment: its first round
  trip takes the rest of the measured one, at least the median (once the
  stall ends its messages still need a round trip), and the K - 1 measured
  after it follow. Everything else is per-message noise, which holds no
  time: outside the stalls the chain starts at a round trip drawn uniformly
  among those that are no stall, and takes it and the K - 1 after it (the
  round trip in progress at a moment, taken whole, would weigh every round
  trip by its length, and a per-message draw has none). Without stalls in
  time both ways ask the same question, and the two distributions agree
  but for the windows' overlap.

Not the round trip in progress taken whole (a stall of 75 us met 10 us
from its end costs a chain 10 us, not 75); not what is left of any round
trip (what is left of an ordinary one is a fraction of a flight, which no
chain started at that moment takes). The rest of a stall is integrated
exactly enough: POINTS evenly spaced moments in each stall.

`by_sample` and `by_time` hold the series in memory (the bench's check reads
it whole); `streamed_sums` reads a campaign's series a batch at a time, up to
a bound (`model build`'s closure), and `segment_sums` adds up a replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

import numpy as np

from cloudnoise.model.series_order import Batch, SeriesOrder

POINTS = 32  # moments per stall round trip at which a chain may start (its midpoints)


@dataclass(frozen=True)
class Series:
    """A measured ping-pong series in order: round trips (ns) and where each stretch starts."""

    values_ns: np.ndarray
    stretch_starts: np.ndarray  # indices into values_ns, ascending, the first 0

    @staticmethod
    def of(values_ns: np.ndarray | list[float], stretch_starts: np.ndarray | list[int] | tuple[int, ...] = (0,)) -> Series:
        """From round trips in order and the indices where stretches start (0 is always one)."""
        v = np.asarray(values_ns, np.float64)
        s = np.unique(np.concatenate(([0], np.asarray(stretch_starts, np.int64))))
        return Series(v, s[s < max(v.size, 1)])

    def median(self) -> float:
        return float(np.median(self.values_ns))

    def _bounds(self) -> list[tuple[int, int]]:
        ends = np.concatenate((self.stretch_starts[1:], [self.values_ns.size]))
        return [(int(a), int(b)) for a, b in zip(self.stretch_starts, ends) if b > a]

    def starts(self, k: int) -> np.ndarray:
        """Every index that K consecutive round trips of its stretch can start from."""
        got = [np.arange(a, b - k + 1) for a, b in self._bounds() if b - a >= k]
        return np.concatenate(got) if got else np.zeros(0, np.int64)


@dataclass(frozen=True)
class ChainSums:
    """The excess of K-round-trip chains over K medians (ns), each with its weight (they sum to 1)."""

    k: int
    excess_ns: np.ndarray
    weights: np.ndarray
    stall_time_share: float  # the share of the series' time in stalls (0 by sample)

    def percentiles(self, percents: Iterable[float]) -> np.ndarray:
        """Weighted percentiles: the least excess whose cumulative weight reaches p/100."""
        order = np.argsort(self.excess_ns, kind="stable")
        x, w = self.excess_ns[order], self.weights[order]
        cum = np.cumsum(w)
        cum /= cum[-1]
        p = np.asarray(list(percents), np.float64) / 100.0
        return x[np.minimum(np.searchsorted(cum, p - 1e-12, side="left"), x.size - 1)]

    @property
    def count(self) -> int:
        return int(self.excess_ns.size)


def by_sample(series: Series, k: int, median_ns: float | None = None) -> ChainSums:
    """Sums of K consecutive round trips, non-overlapping, within each stretch, less K medians."""
    m = series.median() if median_ns is None else float(median_ns)
    v = series.values_ns
    sums = []
    for a, b in series._bounds():
        n = (b - a) // k
        if n:
            sums.append(v[a:a + n * k].reshape(n, k).sum(axis=1))
    x = np.concatenate(sums) - k * m if sums else np.zeros(0)
    return ChainSums(k, x, np.full(x.size, 1.0 / max(x.size, 1)), 0.0)


def by_time(series: Series, k: int, stall_threshold_ns: float | None, median_ns: float | None = None,
            points: int = POINTS) -> ChainSums:
    """Chains started at a moment uniform over the series' time (module docstring): with the
    share of that time in stalls (round trips above `stall_threshold_ns`; None: the profile
    models no stall in time), inside one, meeting its rest; otherwise at a round trip that is no
    stall, drawn uniformly. Less K medians."""
    m = series.median() if median_ns is None else float(median_ns)
    v = series.values_ns
    starts = series.starts(k)
    if starts.size == 0:
        return ChainSums(k, np.zeros(0), np.zeros(0), 0.0)
    cum = np.concatenate(([0.0], np.cumsum(v)))
    window = cum[starts + k] - cum[starts]  # the K round trips from each start
    stall = v > stall_threshold_ns if stall_threshold_ns is not None else np.zeros(v.size, bool)
    share = float(v[stall].sum() / v.sum()) if stall.any() else 0.0
    quiet = starts[~stall[starts]]
    in_stall = starts[stall[starts]]
    if quiet.size == 0:  # every start a stall: the chains start in one
        share = 1.0
    parts_x, parts_w = [], []
    if quiet.size and share < 1.0:
        parts_x.append(window[~stall[starts]] - k * m)
        parts_w.append(np.full(quiet.size, (1.0 - share) / quiet.size))
    if in_stall.size and share > 0.0:
        length = v[in_stall]
        after = window[stall[starts]] - length  # the K - 1 after the stall
        u = (np.arange(points) + 0.5) / points  # where in the stall the chain starts
        rest = np.maximum(length[:, None] * (1.0 - u[None, :]), m)
        parts_x.append((rest + after[:, None]).ravel() - k * m)
        parts_w.append(np.repeat(share * length / length.sum() / points, points))
    x, w = np.concatenate(parts_x), np.concatenate(parts_w)
    return ChainSums(k, x, w / w.sum(), share)


def streamed_sums(batches: Iterable[Batch], k: int, limit: int) -> np.ndarray | None:
    """By sample, streamed: the sums of K consecutive round trips (ns), non-overlapping, within
    each stretch, of the series' first `limit` round trips read a batch at a time
    (model/series_order.py); None where the series has no order to read (too short for one sum,
    no increasing start times, or values in sorted order: no consecutive round trips to add)."""
    order = SeriesOrder()
    sums: list[np.ndarray] = []
    carry = np.zeros(0)
    seen = 0
    for starts, values, key in batches:
        if seen >= limit:
            break
        take = min(values.size, limit - seen)
        s, v, kk = (np.asarray(a[:take], np.int64) for a in (starts, values, key))
        if take == 0:
            continue
        _, new = order.read(s, v, kk)
        seen += take
        cuts = np.flatnonzero(new).tolist()
        bounds = ([0] if not cuts or cuts[0] != 0 else []) + cuts + [take]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            x = v[lo:hi].astype(np.float64)
            x = x if new[lo] or carry.size == 0 else np.concatenate((carry, x))
            full = x.size // k
            if full:
                sums.append(x[:full * k].reshape(full, k).sum(axis=1))
            carry = x[full * k:]
    if order.fallback(2 * k, "noise") is not None or not sums:
        return None
    return np.concatenate(sums)


def segment_sums(values_ns: np.ndarray, k: int, segment: int) -> np.ndarray:
    """Sums of K consecutive values, non-overlapping, within each segment of `segment` values (a
    replay's repetitions: model/closure.py)."""
    out = []
    v = np.asarray(values_ns, np.float64)
    for a in range(0, v.size, segment):
        part = v[a:a + segment]
        full = part.size // k
        if full:
            out.append(part[:full * k].reshape(full, k).sum(axis=1))
    return np.concatenate(out) if out else np.zeros(0)


@dataclass(frozen=True)
class Persistence:
    """How much more sums of K consecutive round trips vary than independent draws would: the
    variance of the sums over K times the round trips' variance (1 for independent round trips),
    over the whole series and within calls (each call's mean taken out: what a level that
    changes from call to call adds is the difference), and the spread of the calls' medians."""

    k: int
    ratio: float
    ratio_within_calls: float
    call_medians_ns: tuple[float, float]  # their 5th and 95th percentiles
    calls: int


def persistence(series: Series, k: int, call_length: int, clip_ns: float) -> Persistence:
    """The variance of sums of `k` consecutive round trips against independent ones, with round
    trips above `clip_ns` (the stalls) counted at it, over calls of `call_length` consecutive
    round trips (a Netgauge run's calls: 979 kept samples each)."""
    v = np.minimum(series.values_ns, clip_ns)
    calls = v.size // call_length
    if calls == 0 or call_length < k:
        return Persistence(k, float("nan"), float("nan"), (float("nan"), float("nan")), calls)
    x = v[:calls * call_length].reshape(calls, call_length)
    within = x - x.mean(axis=1, keepdims=True)
    per_call = call_length // k

    def ratio(a: np.ndarray) -> float:
        sums = a[:, :per_call * k].reshape(calls, per_call, k).sum(axis=2)
        var = float(a.var())
        return float(sums.var() / (k * var)) if var > 0 else float("nan")

    medians = np.median(series.values_ns[:calls * call_length].reshape(calls, call_length), axis=1)
    lo, hi = np.percentile(medians, [5.0, 95.0])
    return Persistence(k, ratio(x), ratio(within), (float(lo), float(hi)), calls)
