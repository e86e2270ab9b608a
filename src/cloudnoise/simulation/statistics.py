"""Summary statistics of repeated runs, as the paper's boxplots show them.

Box: quartiles (numpy's linear interpolation). Whiskers: the most extreme
samples within 1.5 IQR of the box (Tukey); samples beyond are outliers.

Both confidence intervals hold whatever the runtime distribution (noise
makes heavy tails, and a time's interval never reaches below its smallest
sample, so never below zero):

* the median's (the notch): the distribution-free 95% interval from order
  statistics, [x_(k), x_(n+1-k)] with the largest k whose coverage under
  the binomial (n, 1/2) is at least 95% (`scipy.special.bdtr`). Below six
  samples no pair of order statistics covers 95%: the interval is then the
  samples' range (coverage 1 - 2^(1-n));
* the mean's: the percentile bootstrap, BOOTSTRAP_RESAMPLES resamples drawn
  with a fixed seed (the same samples give the same interval). Written with
  numpy: scipy.stats.bootstrap computes the same, but importing scipy.stats
  takes longer (~1.2 s) than a small `simulate` runs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    n: int
    min: float
    q1: float
    median: float
    q3: float
    max: float
    mean: float
    std: float
    whisker_low: float
    whisker_high: float
    outliers: int
    median_ci_low: float
    median_ci_high: float
    mean_ci_low: float
    mean_ci_high: float

    def to_dict(self, unit: str | None = "ns") -> dict[str, float | int]:
        """The statistics by name; with `unit`, every value that carries it is
        named with it (`median_ns`), as JSON fields are (docs/reference/conventions.md)."""
        d = asdict(self)
        if unit is None:
            return d
        return {k if k in ("n", "outliers") else f"{k}_{unit}": v for k, v in d.items()}


CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 1000
# The bootstrap's draws at a time (resamples x samples), to bound its memory.
BOOTSTRAP_CHUNK = 1 << 21


def median_interval(sorted_x: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The median's distribution-free interval from the order statistics of `sorted_x` (ascending)."""
    from scipy.special import bdtr

    n = int(sorted_x.size)
    # coverage of [x_(k), x_(n+1-k)] (1-based) is 1 - 2 P(B <= k-1), B ~ binomial(n, 1/2)
    k = np.arange(1, n // 2 + 1)
    ok = k[2.0 * bdtr(k - 1, n, 0.5) <= 1.0 - confidence] if n > 1 else k[:0]
    j = int(ok[-1]) if ok.size else 1
    return float(sorted_x[j - 1]), float(sorted_x[n - j])


def mean_interval(x: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The mean's percentile-bootstrap interval (fixed seed): within the samples' range."""
    n = int(x.size)
    if n == 1 or float(x.min()) == float(x.max()):
        return float(x[0]), float(x[0])
    rng = np.random.default_rng(0x5EED)
    means = np.empty(BOOTSTRAP_RESAMPLES)
    rows = max(1, BOOTSTRAP_CHUNK // n)
    for first in range(0, BOOTSTRAP_RESAMPLES, rows):
        count = min(rows, BOOTSTRAP_RESAMPLES - first)
        means[first:first + count] = x[rng.integers(0, n, size=(count, n))].mean(axis=1)
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def summarize(values: np.ndarray) -> Summary:
    """Boxplot statistics of `values` (at least one sample)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples to summarize")
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    iqr = q3 - q1
    inside = x[(x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)]
    median_low, median_high = median_interval(np.sort(x))
    mean_low, mean_high = mean_interval(x)
    return Summary(
        n=int(x.size),
        min=float(x.min()),
        q1=float(q1),
        median=float(med),
        q3=float(q3),
        max=float(x.max()),
        mean=float(x.mean()),
        std=float(x.std(ddof=1)) if x.size > 1 else 0.0,
        whisker_low=float(inside.min()),
        whisker_high=float(inside.max()),
        outliers=int(x.size - inside.size),
        median_ci_low=median_low,
        median_ci_high=median_high,
        mean_ci_low=mean_low,
        mean_ci_high=mean_high,
    )


def box_stats(values: np.ndarray, label: str = "") -> dict[str, object]:
    """A matplotlib bxp() stats dict from summarize(): the same quartiles, whiskers, notch
    and mean as every table, the notch (the median's interval) drawn within the box."""
    s = summarize(values)
    x = np.asarray(values, dtype=float)
    return {
        "label": label, "med": s.median, "q1": s.q1, "q3": s.q3, "mean": s.mean,
        "whislo": s.whisker_low, "whishi": s.whisker_high,
        # the notch within the box: matplotlib folds a box whose notch reaches beyond it
        "cilo": max(s.median_ci_low, s.q1), "cihi": min(s.median_ci_high, s.q3),
        "fliers": x[(x < s.whisker_low) | (x > s.whisker_high)],
    }
