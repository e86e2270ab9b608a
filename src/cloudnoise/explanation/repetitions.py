"""Which repetitions stand for the median and the tail of a run.

`pick` names one repetition (`median`, `p99` or a number) as the timeline and the
tail analysis take it: the repetition whose runtime sits at that rank among the
sorted runtimes (ties: the lowest repetition). `median_group` and `tail_group` are the
sets of repetitions the attribution averages over.
"""

from __future__ import annotations

import math

import numpy as np

from cloudnoise.errors import CloudnoiseError

QUANTILES = {"median": 0.5, "p50": 0.5, "p90": 0.9, "p99": 0.99, "max": 1.0, "min": 0.0}


def _order(runtime: np.ndarray) -> np.ndarray:
    return np.argsort(np.asarray(runtime), kind="stable")


def at_quantile(runtime: np.ndarray, q: float) -> int:
    """The index of the repetition at quantile q of the runtimes (nearest rank; of several with
    that runtime, the first)."""
    n = len(runtime)
    rank = min(n - 1, max(0, math.ceil(q * n) - 1)) if q > 0 else 0
    value = np.asarray(runtime)[_order(runtime)[rank]]
    return int(np.flatnonzero(np.asarray(runtime) == value)[0])


def pick(which: str, runtime: np.ndarray, first_rep: int = 0) -> int:
    """The repetition number `which` names: `median`, `p90`, `p99`, `min`, `max`, or a
    repetition number in [first_rep, first_rep + len(runtime))."""
    text = which.strip().lower()
    if text in QUANTILES:
        return first_rep + at_quantile(runtime, QUANTILES[text])
    try:
        rep = int(text)
    except ValueError:
        raise CloudnoiseError(f"--timeline-rep: {which!r} is not median, p99 or a repetition number") from None
    if not first_rep <= rep < first_rep + len(runtime):
        raise CloudnoiseError(
            f"--timeline-rep: repetition {rep} was not run (--reps {len(runtime)} runs repetitions "
            f"{first_rep} to {first_rep + len(runtime) - 1})")
    return rep


def median_group(runtime: np.ndarray) -> np.ndarray:
    """Indices of the repetitions between the 40th and 60th percentiles of the runtimes (at least one)."""
    order = _order(runtime)
    n = len(order)
    lo, hi = math.ceil(0.4 * (n - 1)), math.floor(0.6 * (n - 1))
    if lo > hi:
        lo = hi = (n - 1) // 2
    return np.sort(order[lo:hi + 1])


def tail_group(runtime: np.ndarray, q: float = 0.99) -> np.ndarray:
    """Indices of the repetitions at or above quantile q of the runtimes (at least one)."""
    order = _order(runtime)
    n = len(order)
    return np.sort(order[min(n - 1, max(0, math.ceil(q * n) - 1)):])
