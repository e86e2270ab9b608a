"""A ping-pong series' round trips, counted exactly: what the deconvolution and the closure read.

The streaming histograms of the measure stage keep three significant figures;
a deconvolution on a grid of a few ns, and a closure judged to 200 ns, need
the round trips as measured. Round trips are integers in ns and a latency
series takes few distinct values, so the series is read a batch at a time
into counts per distinct value (np.unique per batch, merged): memory grows
with the distinct values, not the samples. A series is also read for what
it covers: its samples and the time they span (observed_ns), which `model
build` reports as what the measurement can vouch for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from cloudnoise.model.series_order import Batch


@dataclass(frozen=True)
class RoundTrips:
    """Distinct round trips (ns, sorted) and how often each was measured."""

    values: np.ndarray
    counts: np.ndarray
    observed_ns: float = 0.0  # the time the series spans (start of its first sample to end of its last)

    @property
    def count(self) -> int:
        return int(self.counts.sum())

    def quantiles(self, percents: Iterable[float]) -> np.ndarray:
        """Nearest-rank percentiles (the k-th smallest, k = ceil(p/100 n))."""
        ranks = np.ceil(np.asarray(list(percents), np.float64) / 100.0 * self.count)
        return self.at_ranks(ranks.astype(np.int64))

    def at_ranks(self, ranks: np.ndarray) -> np.ndarray:
        """The k-th smallest round trip for each 1-based rank k (clipped to 1..count)."""
        cum = np.cumsum(self.counts)
        k = np.clip(np.asarray(ranks, np.int64), 1, int(cum[-1]))
        return self.values[np.searchsorted(cum, k)].astype(np.float64)

    def median(self) -> float:
        return float(self.quantiles([50.0])[0])

    def share_above(self, threshold: float) -> float:
        return float(self.counts[self.values > threshold].sum()) / max(self.count, 1)

    def below(self, threshold: float) -> RoundTrips:
        """The round trips at or below `threshold` (a series' remainder without its stalls)."""
        keep = self.values <= threshold
        return RoundTrips(self.values[keep], self.counts[keep], self.observed_ns)


def count_round_trips(batches: Callable[[], Iterable[Batch]]) -> RoundTrips:
    """Reads the series `batches()` yields once: every round trip counted by value, and the
    time it spans (per stretch: first start to last end; model/series_order.py's stretches)."""
    merged: dict[int, int] = {}
    observed = 0.0
    first_start: int | None = None
    last_end = 0
    last_key: int | None = None
    for start, value, key in batches():
        value = np.asarray(value, np.int64)
        if value.size == 0:
            continue
        start = np.asarray(start, np.int64)
        key = np.asarray(key, np.int64)
        uniq, counts = np.unique(value, return_counts=True)
        for u, c in zip(uniq.tolist(), counts.tolist()):
            merged[u] = merged.get(u, 0) + c
        # the span of each stretch (a change of key, or time running backwards, starts a new one)
        ends = start + value
        new = np.concatenate(([last_key is None or key[0] != last_key or start[0] < last_end - int(value[0])],
                              (key[1:] != key[:-1]) | (start[1:] < start[:-1])))
        cuts = np.unique(np.concatenate(([0], np.flatnonzero(new))))
        lows, highs = np.minimum.reduceat(start, cuts), np.maximum.reduceat(ends, cuts)
        for j, (lo, hi) in enumerate(zip(lows.tolist(), highs.tolist())):
            if j == 0 and not new[0]:  # the stretch the previous batch left open goes on
                last_end = max(last_end, hi)
                continue
            if first_start is not None:
                observed += max(0, last_end - first_start)
            first_start, last_end = lo, hi
        last_key = int(key[-1])
    if first_start is not None:
        observed += max(0, last_end - first_start)
    values = np.fromiter(sorted(merged), np.int64, len(merged))
    counts = np.fromiter((merged[v] for v in values.tolist()), np.int64, len(merged))
    return RoundTrips(values, counts, observed)
