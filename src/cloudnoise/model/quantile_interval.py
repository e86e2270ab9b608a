"""How closely a measured series pins one of its own quantiles: the quantile's 95 % interval.

A closure row compares the replay's p90 with the series' p90 within 10 %. Where
the series' p90 lies in a sparse stretch (Daint March 2022_03_21: between a body
of round trips and a tail of long ones, 0.10 % of the round trips within 10 %
of it), the measurement itself cannot tell its p90 to 10 %: another run of the
same length on the same system would put it elsewhere. The interval says so.

Distribution-free, by order statistics: of n independent round trips, the
number B at or below the true p-quantile is binomial(n, p), so the round trips
of ranks (1-based) ppf(0.025) and ppf(0.975) + 1 of B bound it with about 95 %
confidence (`scipy.stats.binom`). A series' round trips are not independent
(stalls and levels persist over many of them), which makes the true interval
wider: this one is the narrowest the series can claim.

The interval never changes a verdict. A row that misses stays a miss; where the
replay's value lies inside the measured quantile's interval and the interval is
wider than the row's tolerance, `model build` says so beside it
(`unpinned_note`): a longer measurement, not another model, would tell.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

CONFIDENCE = 0.95


def quantile_ranks(n: int, percent: float, confidence: float = CONFIDENCE) -> tuple[int, int]:
    """The 1-based ranks (low, high) of n sorted independent samples between which the true
    `percent`-th percentile lies with about `confidence`."""
    from scipy.stats import binom

    if n < 1:
        raise ValueError(f"no samples to bound a quantile with (n={n})")
    p = min(max(percent / 100.0, 0.0), 1.0)
    tail = (1.0 - confidence) / 2.0
    low = int(binom.ppf(tail, n, p))
    high = int(binom.ppf(1.0 - tail, n, p)) + 1
    return max(1, min(low, n)), max(1, min(high, n))


def quantile_interval(at_rank: Callable[[np.ndarray], np.ndarray], n: int, percent: float,
                      confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The interval's ends as values: `at_rank(ranks)` gives the k-th smallest of the n samples
    for each 1-based rank k (a sorted array, a histogram's nearest rank)."""
    low, high = quantile_ranks(n, percent, confidence)
    got = np.asarray(at_rank(np.array([low, high], np.int64)), np.float64)
    return float(got[0]), float(got[1])


def sorted_at_rank(sorted_values: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """`at_rank` for samples in memory, sorted ascending."""
    return lambda ranks: sorted_values[np.clip(ranks, 1, sorted_values.size) - 1]


def unpinned_note(statistic: str, measured: float, replay: float, interval: tuple[float, float],
                  allowed: float, shown: Callable[[float], str]) -> str | None:
    """One line for a quantile row that misses where the series cannot pin its quantile to the
    tolerance: the replay's value inside the measured quantile's interval, and the interval
    reaching beyond measured +- `allowed`; None otherwise. `shown` prints a value."""
    low, high = interval
    if not (low <= replay <= high) or not (low < measured - allowed or high > measured + allowed):
        return None
    return (f"{statistic} at the measurement's limit: the replay's {shown(replay)} lies inside the measured "
            f"{statistic}'s own {CONFIDENCE:.0%} interval, {shown(low)} to {shown(high)} (order statistics, the round "
            f"trips counted as independent: the true interval is wider), which reaches beyond the tolerance "
            f"({shown(measured - allowed)} to {shown(measured + allowed)}): this series cannot pin its {statistic} that "
            "closely; a longer one can")
