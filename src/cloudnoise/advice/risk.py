"""Tail risk of a configuration: runtime quantiles with their confidence
intervals, and the probability of exceeding a limit (a deadline, a budget).

Quantiles are numpy's default (linear interpolation between order
statistics). Their confidence interval is the distribution-free one from
order statistics (`scipy.stats.quantile_test`): it holds whatever the
runtime distribution, which matters for the heavy tails noise makes. An
interval is open above (None) when the samples cannot bound the quantile:
the p-quantile's two-sided interval at confidence c has an upper end only
from `bounded_reps(p, c)` repetitions, the smallest n with
1 - p^n >= 1 - (1 - c) / 2 (368 for the p99 at 95%).

A probability of exceeding a limit is the fraction of repetitions strictly
above it, with the exact (Clopper-Pearson) binomial interval
(`scipy.stats.binomtest`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

QUANTILES: dict[str, float] = {"p50": 0.50, "p95": 0.95, "p99": 0.99}
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Quantile:
    """An estimate of the p-quantile and its confidence interval (None: not bounded by the samples)."""

    p: float
    value: float
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class Probability:
    """The fraction of `n` repetitions beyond a limit, with its confidence interval."""

    value: float
    ci_low: float
    ci_high: float
    events: int
    n: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def quantile(samples: np.ndarray, p: float, confidence: float = CONFIDENCE) -> Quantile:
    """The p-quantile of `samples` with its distribution-free confidence interval."""
    from scipy.stats import quantile_test

    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples")
    value = float(np.quantile(x, p))
    if x.size == 1:
        return Quantile(p, value, None, None)
    ci = quantile_test(x, q=value, p=p).confidence_interval(confidence)
    return Quantile(p, value, _finite(ci.low), _finite(ci.high))


def quantiles(samples: np.ndarray, confidence: float = CONFIDENCE) -> dict[str, Quantile]:
    """p50, p95 and p99 of `samples`."""
    return {name: quantile(samples, p, confidence) for name, p in QUANTILES.items()}


def bounded_reps(p: float, confidence: float = CONFIDENCE) -> int:
    """The fewest repetitions whose p-quantile has a two-sided confidence interval
    bounded above: the largest sample must lie above the quantile with probability
    at least 1 - (1 - confidence) / 2, i.e. 1 - p^n >= that."""
    return math.ceil(math.log((1 - confidence) / 2) / math.log(p))


def exceedance(samples: np.ndarray, limit: float, confidence: float = CONFIDENCE) -> Probability:
    """P(sample > limit), estimated from the samples, with the exact binomial interval."""
    from scipy.stats import binomtest

    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples")
    k = int(np.count_nonzero(x > limit))
    ci = binomtest(k, int(x.size)).proportion_ci(confidence, method="exact")
    return Probability(k / x.size, float(ci.low), float(ci.high), k, int(x.size))
