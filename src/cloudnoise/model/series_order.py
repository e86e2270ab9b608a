"""Reading a noise series in its order, with times: what the noise parts' splits share.

A latency or bandwidth noise series (Netgauge's or cloudnoise's own)
is read in the order it was measured, each sample with its start time: a
Netgauge file has no timestamps, but its ping-pongs run back to back in calls
of 1,000, so the importer gives each sample the sum of the round trips before
it (measurement/imports/netgauge_pingpong.py). One file per noise part splits
such a series into interference in time and an independent remainder
(model/latency_split.py, model/bandwidth_split.py); this module is what they
share:

* the batches a campaign's samples come in (`iter_batches`), each
  `(start ns, round trip ns, key)`, read a batch at a time (bounded memory);
* **stretches**: a stretch of the series ends where the key changes (another
  run, part, rank, stream or pair count), where time runs backwards or after a
  pause of over MAX_SEGMENT_GAP_NS (`SeriesOrder.read` numbers them);
* **whether there is an order to read time from** (`SeriesOrder.fallback`):
  enough samples, start times that increase, values not in sorted order; else
  one line saying why, for the profile's provenance;
* log-binned histograms and Otsu's split of one, and the measured
  distribution itself, bounded by what the series showed (`measured_shape`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.distributions import Constant, Distribution, Mixture, Uniform, mixture_of

MAX_SEGMENT_GAP_NS = 10**9  # a longer pause between two samples starts a new stretch of the series
SORTED_SHARE = 0.99  # values non-decreasing at this share of steps: sorted, no order to read
# The probabilities `measured_shape` keeps a distribution at: finer in the upper tail
SHAPE_POINTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0)
# ... and further up the tail, where the series holds enough values above them
_FINER_TAIL = (0.9995, 0.9999, 0.99995, 0.99999, 0.999995, 0.999999)
# The largest values `measured_shape` keeps as they were seen: a shape point counts only where
# at least this many values lie above it
TAIL_VALUES = 50

# A batch of the series: start times (ns), round trips (ns), and a key that
# changes where the series is not one stretch (another run, rank or stream).
Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class SeriesOrder:
    """What a pass over the series learns about its order, batch by batch: its
    samples, the time it covers, how many steps ran backwards, stood still or
    went up; and the last sample carried from one batch to the next."""

    n: int = 0
    steps: int = 0  # steps within a stretch
    ups: int = 0  # of them, values non-decreasing
    same_time: int = 0  # of them, no time passing
    backwards: int = 0  # steps where time ran backwards (each starts a new stretch)
    observed_ns: float = 0.0  # time the series covers: each step within a stretch, each stretch's last sample
    stretches: int = 0
    key: int | None = None
    start: int = 0
    value: int = 0

    def read(self, start: np.ndarray, value: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counts one batch in; per sample, its stretch's number (from 1, over the whole
        series) and whether it begins its stretch."""
        prev_key = np.concatenate(([self.key if self.key is not None else key[0] - 1], key[:-1]))
        prev_start = np.concatenate(([self.start], start[:-1]))
        step = start - prev_start
        backwards = (prev_key == key) & (step < 0)
        new = (prev_key != key) | backwards | (step > MAX_SEGMENT_GAP_NS)
        if self.key is None:
            new[0] = True
        inner = ~new
        prev_value = np.concatenate(([self.value], value[:-1]))
        self.backwards += int(backwards.sum())
        self.same_time += int((inner & (step == 0)).sum())
        self.ups += int((inner & (value >= prev_value)).sum())
        self.steps += int(inner.sum())
        self.observed_ns += float(step[inner].sum()) + float(value[np.concatenate((new[1:], [False]))].sum())
        seg = self.stretches + np.cumsum(new)
        self.stretches = int(seg[-1])
        self.n += start.size
        self.key, self.start, self.value = int(key[-1]), int(start[-1]), int(value[-1])
        return seg, new

    @property
    def no_time(self) -> bool:
        """Most steps stand still or run backwards: the samples carry no increasing start times."""
        return self.n > 1 and (self.same_time + self.backwards) >= 0.5 * max(self.steps, 1)

    @property
    def sorted_share(self) -> float:
        return self.ups / self.steps if self.steps else 0.0

    def fallback(self, min_samples: int, what: str) -> str | None:
        """Why the series has no order to read time from (one line, ending with what the
        profile does instead: `what` is drawn per message), or None when it has one."""
        instead = f"the {what} is drawn per message"
        if self.n < min_samples:
            return f"too short for a time model: {self.n} samples (at least {min_samples:,}); {instead}"
        if self.no_time:
            return f"no order to read time from (the samples carry no increasing start times); {instead}"
        if self.sorted_share >= SORTED_SHARE:
            return (f"no order to read time from (the values are sorted: {100 * self.sorted_share:.3g}% of steps "
                    f"non-decreasing); {instead}")
        return None


def stretches(batches: Iterable[Batch]) -> Iterator[tuple[np.ndarray, bool]]:
    """The series' values in order (float64, ns), a piece at a time, cut where a stretch begins
    (`SeriesOrder.read`'s rule): (values, whether they begin a stretch)."""
    order = SeriesOrder()
    for starts, values, key in batches:
        if values.size == 0:
            continue
        _, new = order.read(np.asarray(starts, np.int64), np.asarray(values, np.int64), np.asarray(key, np.int64))
        cuts = np.flatnonzero(new).tolist()
        bounds = ([0] if not cuts or cuts[0] != 0 else []) + cuts + [values.size]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            yield np.asarray(values[lo:hi], np.float64), bool(new[lo])


def iter_batches(chunks: Iterator[dict[str, np.ndarray]]) -> Iterator[Batch]:
    """(start, round trip, key) batches from a campaign's sample columns (time, value_ns, and the
    run, part, rank, stream and, where read, pairs that name a stretch)."""
    for c in chunks:
        key = c["run"] * 1_000_003 + c["part"] * 10_007 + c["rank"] * 101 + c["stream"]
        if "pairs" in c:
            key = key * 1_009 + c["pairs"]
        yield c["time"], c["value_ns"], key


def log_hist(decades: int, per_decade: int) -> np.ndarray:
    """An empty histogram of `per_decade` bins per decade over `decades` decades."""
    return np.zeros(decades * per_decade)


def add_log(hist: np.ndarray, values: np.ndarray, per_decade: int, unit: float = 1.0) -> None:
    """Counts `values` (>= unit) into a log-binned histogram whose first bin starts at `unit`."""
    bins = np.clip((np.log10(np.maximum(values, unit) / unit) * per_decade).astype(np.int64), 0, hist.size - 1)
    np.add.at(hist, bins, 1)


def otsu(hist: np.ndarray, middle: bool = False) -> int:
    """The bin that best splits a histogram in two (Otsu's threshold): the split lies
    after it, so the lower class is bins [0, k]. Across an empty stretch between two
    populations every split is as good: the first is taken, or with `middle` the
    stretch's middle."""
    total = hist.sum()
    if total == 0:
        return 0
    centers = np.arange(hist.size) + 0.5
    w0 = np.cumsum(hist)
    m0 = np.cumsum(hist * centers)
    w1 = total - w0
    with np.errstate(invalid="ignore", divide="ignore"):
        between = (m0[-1] * w0 / total - m0) ** 2 / (w0 * w1 / total)
    between[~np.isfinite(between)] = -1
    k = int(np.argmax(between))
    if middle:
        last = k
        while last + 1 < hist.size and hist[last + 1] == 0 and between[last + 1] >= between[k]:
            last += 1
        k = (k + last) // 2
    return k


def measured_shape(stats: StreamStats, shape_points: tuple[float, ...] = SHAPE_POINTS) -> Distribution:
    """The measured distribution itself, so nothing lies beyond the largest value the series
    showed: uniform between its quantiles at SHAPE_POINTS (and finer ones up the tail), and its
    TAIL_VALUES largest values as they were seen (the histogram's buckets, each with its count).
    A model fitted through a few seconds' median and mean (a lognormal of sigma 2.5 through a
    handful of long episodes) claims a tail 10^3 times the median that no such series can
    support; this one claims what was seen. The largest values are kept as seen because one
    uniform piece from a high quantile to the maximum weighs the maximum as much as the quantile:
    with 13,124 stalls of which the top 13 run from 217 us to one of 11.5 ms, that piece put 8.9 %
    of the stalls' time above their p99 where the series has 3.7 %, and whatever meets a stall by
    time (a collective started at a random moment) meets the longest ones that much more often.
    A constant where the values agree. `shape_points`: the probabilities below the finer tail's
    (from 0, increasing, ending at 1); finer ones keep a distribution of several modes, whose
    mean the coarse ones miss."""
    if stats.count < 2 or not stats.max > stats.min * 1.001:
        return Constant(float(stats.mean))
    tail = tuple(p for p in _FINER_TAIL if p > shape_points[-2])
    points = np.array([p for p in (*shape_points[:-1], *tail) if (1.0 - p) * stats.count >= TAIL_VALUES])
    q = np.maximum.accumulate(np.asarray(stats.quantiles(np.append(points, 1.0)), np.float64))
    pieces: list[tuple[float, Distribution]] = []
    for lo, hi, w in zip(q[:-2], q[1:-1], np.diff(points)):
        if w > 0:
            pieces.append((float(w), Uniform(float(lo), float(hi)) if hi > lo else Constant(float(lo))))
    # the values above the last point, as seen: the ranks above it, bucket by bucket
    values, counts = stats.recorded()
    below = round(float(points[-1]) * stats.count) if points.size else 0
    above = np.cumsum(counts) - below
    held = np.minimum(counts, np.maximum(above, 0))
    for value, n in zip(values[held > 0].tolist(), held[held > 0].tolist()):
        pieces.append((n / stats.count, Constant(max(float(value), float(q[-2]) if points.size else 0.0))))
    merged: list[tuple[float, Distribution]] = []
    for w, part in pieces:
        if merged and isinstance(part, Constant) and isinstance(merged[-1][1], Constant) \
                and merged[-1][1].value == part.value:
            merged[-1] = (merged[-1][0] + w, part)
        else:
            merged.append((w, part))
    total = sum(w for w, _ in merged)
    if len(merged) == 1:
        return merged[0][1]
    return Mixture(tuple(w / total for w, _ in merged), tuple(part for _, part in merged))


def with_zero(share: float, dist: Distribution) -> Distribution:
    """`dist`, except that a share `share` of draws is 0 (a mixture; mixtures do not nest, so a
    mixture's own components join it)."""
    if share <= 0:
        return dist
    return mixture_of([(share, Constant(0.0)), (1.0 - share, dist)])
