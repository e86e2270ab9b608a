"""The Pareto front of (cost, runtime): the configurations no other one beats on both.

A point is dominated when another costs no more and runs no longer, and is
strictly better in one of the two; the front is every point that is not.
Two identical points are both on the front (neither beats the other).
Points without a cost (a system with no price) are never on it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pareto_front(cost: Sequence[float | None] | np.ndarray, runtime: Sequence[float] | np.ndarray) -> np.ndarray:
    """A boolean mask: True for the points on the front, minimising both `cost` and
    `runtime` (None or NaN cost: not on the front). O(n log n): sorted by cost, then
    runtime, a point is on the front when it runs faster than every cheaper one."""
    c = np.array([np.nan if v is None else float(v) for v in cost], dtype=np.float64)
    r = np.asarray(runtime, dtype=np.float64)
    if c.shape != r.shape:
        raise ValueError("cost and runtime must have the same length")
    on = np.zeros(c.size, dtype=bool)
    valid = np.flatnonzero(np.isfinite(c) & np.isfinite(r))
    order = valid[np.lexsort((r[valid], c[valid]))]
    best = np.inf
    last: tuple[float, float] | None = None
    for i in order:
        if r[i] < best:
            on[i] = True
            best = r[i]
            last = (c[i], r[i])
        elif last is not None and (c[i], r[i]) == last:  # a twin of a front point
            on[i] = True
    return on
