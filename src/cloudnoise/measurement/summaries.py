"""Streaming statistics of sample values, built chunk by chunk.

A long measurement never holds its samples in memory: each converted chunk
adds to a :class:`StreamStats` per group (one message size of one run, one
rank's detours, one slice of the day). Count, minimum, maximum, sum, sum of
squares and sum of reciprocals are exact (the mean, the standard deviation
and the mean bandwidth follow); percentiles and the histogram come from an
HDR histogram (the ``hdrhistogram`` package) with 3 significant figures:
a percentile p it reports is the upper end of the bucket holding the
k-th smallest sample, k = max(1, round(p/100 x count)) (the library's
definition), and a bucket is never wider than 1/1024 of the values it
holds, so

    exact <= reported <= exact * (1 + RELATIVE_PRECISION).

Values are integers in ns from 1 ns to HIGHEST_NS (about 2.8 h); a larger
one is counted in count/min/max/sum exactly and in the histogram as
HIGHEST_NS (``clamped`` says how many).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hdrh.histogram import HdrHistogram

SIGNIFICANT_FIGURES = 3
RELATIVE_PRECISION = 1.0 / 1024  # widest bucket over its lowest value, 3 significant figures
LOWEST_NS = 1
HIGHEST_NS = 10**13
PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999)


def _new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)


@dataclass
class StreamStats:
    """Exact moments and an HDR histogram of one group's values (ns)."""

    count: int = 0
    min: int = 0
    max: int = 0
    sum: int = 0
    sumsq: float = 0.0
    suminv: float = 0.0  # sum of 1/value: the mean bandwidth is size x mean(1/RTT)
    clamped: int = 0
    hist: HdrHistogram = field(default_factory=_new_histogram)

    def add(self, values: np.ndarray) -> None:
        """Add a chunk of values (int64 ns). A chunk's values take a few thousand distinct
        ns values: everything is computed from those and their counts (one sort, no copies)."""
        if len(values) == 0:
            return
        uniq, counts = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
        self.add_counts(uniq, counts)

    def add_counts(self, uniq: np.ndarray, counts: np.ndarray) -> None:
        """Add distinct values (sorted, int64 ns) with how often each occurred."""
        lo, hi = int(uniq[0]), int(uniq[-1])
        self.min = lo if self.count == 0 else min(self.min, lo)
        self.max = hi if self.count == 0 else max(self.max, hi)
        self.count += int(counts.sum())
        self.sum += sum(int(u) * int(c) for u, c in zip(uniq.tolist(), counts.tolist()))  # exact, any size
        f = uniq.astype(np.float64)
        self.sumsq += float(np.dot(f * f, counts))
        self.suminv += float(np.dot(1.0 / np.maximum(f, 1.0), counts))
        self.clamped += int(counts[uniq > HIGHEST_NS].sum())
        for value, n in zip(np.clip(uniq, LOWEST_NS, HIGHEST_NS).tolist(), counts.tolist()):
            self.hist.record_value(value, n)

    def merge(self, other: "StreamStats") -> None:
        if other.count == 0:
            return
        self.min = other.min if self.count == 0 else min(self.min, other.min)
        self.max = other.max if self.count == 0 else max(self.max, other.max)
        self.count += other.count
        self.sum += other.sum
        self.sumsq += other.sumsq
        self.suminv += other.suminv
        self.clamped += other.clamped
        self.hist.add(other.hist)

    @property
    def mean(self) -> float:
        return self.sum / self.count if self.count else math.nan

    @property
    def std(self) -> float:
        if not self.count:
            return math.nan
        m = self.mean
        return math.sqrt(max(0.0, self.sumsq / self.count - m * m))

    def _at_percentiles(self, ps: tuple[float, ...]) -> dict[float, float]:
        """The histogram's value at each percentile, as `HdrHistogram.get_percentile_to_value_dict`
        computes it (the first bucket whose running count reaches the target count; its
        highest equivalent value, the lowest for p = 0), from one cumulative sum of the
        counts instead of a Python loop over every bucket (a few ms per call, and the
        summaries of a large campaign ask for hundreds)."""
        h = self.hist
        n = min(h.counts_len, h.encoder.payload.counts_len)
        cum = np.cumsum(np.ctypeslib.as_array(h.counts)[:n], dtype=np.int64)
        out: dict[float, float] = {}
        for p in sorted(set(ps)):
            if p > 100:
                break
            index = int(np.searchsorted(cum, h.get_target_count_at_percentile(p), side="left"))
            if index < n:
                value = h.get_value_from_index(index)
                out[p] = h.get_highest_equivalent_value(value) if p else h.get_lowest_equivalent_value(value)
        return out

    def percentile(self, p: float) -> float:
        """The p-th percentile (see the module docstring: within RELATIVE_PRECISION above the exact one);
        p = 0 and p = 100 give the exact minimum and maximum."""
        if not self.count:
            return math.nan
        if p <= 0:
            return float(self.min)
        if p >= 100:
            return float(self.max)
        return float(min(max(self._at_percentiles((p,)).get(p, 0), self.min), self.max))

    def percentiles(self, ps: tuple[float, ...] = PERCENTILES) -> dict[str, float]:
        got = self._at_percentiles(tuple(ps)) if self.count else {}
        return {f"p{p:g}": float(min(max(got.get(p, math.nan), self.min), self.max)) for p in ps}

    def quantiles(self, probabilities: np.ndarray) -> np.ndarray:
        """Values at probabilities in [0, 1] (nearest rank per bucket; 0 and 1 give the
        exact min and max), for many probabilities at once (quantile tables)."""
        p = np.asarray(probabilities, dtype=np.float64)
        if not self.count:
            return np.full(p.shape, math.nan)
        v, counts = self.recorded()
        cum = np.cumsum(counts)
        rank = np.clip(np.floor(p * self.count + 0.5), 1, self.count)
        out = v[np.minimum(np.searchsorted(cum, rank), len(v) - 1)]
        out[p <= 0] = self.min
        out[p >= 1] = self.max
        return out

    def recorded(self) -> tuple[np.ndarray, np.ndarray]:
        """The histogram's buckets that hold values, in ascending order: each bucket's highest
        equivalent value (within [min, max]: the largest is the exact maximum) and its count."""
        values, counts = [], []
        for item in self.hist.get_recorded_iterator():
            values.append(item.value_iterated_to)
            counts.append(item.count_at_value_iterated_to)
        v = np.minimum(np.maximum(np.asarray(values, np.float64), self.min), self.max)
        return v, np.asarray(counts, np.int64)

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count, "min": self.min, "max": self.max, "sum": self.sum,
            "sumsq": self.sumsq, "suminv": self.suminv, "clamped": self.clamped,
            "hdr": self.hist.encode().decode("ascii") if self.count else None,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> "StreamStats":
        s = StreamStats(
            count=int(data["count"]), min=int(data["min"]), max=int(data["max"]), sum=int(data["sum"]),
            sumsq=float(data["sumsq"]), suminv=float(data["suminv"]), clamped=int(data.get("clamped", 0)),
        )
        if data.get("hdr"):
            s.hist = HdrHistogram.decode(data["hdr"].encode("ascii"))
        return s


def merged(stats: list[StreamStats]) -> StreamStats:
    out = StreamStats()
    for s in stats:
        out.merge(s)
    return out
