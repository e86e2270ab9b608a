"""The Pareto front of (cost, runtime): hand-made points with a known front, and
the definition checked on random sets."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cloudnoise.advice.front import pareto_front


def test_hand_made_front() -> None:
    points = {
        "A": (1.0, 10.0),  # cheapest
        "B": (2.0, 5.0),
        "C": (3.0, 6.0),  # B is cheaper and faster
        "D": (2.0, 5.0),  # B's twin: neither beats the other
        "E": (None, 1.0),  # no price: never on the front, however fast
        "F": (4.0, 1.0),  # fastest priced
        "G": (1.0, 12.0),  # as cheap as A, slower
        "H": (5.0, 1.0),  # as fast as F, dearer
        "I": (3.5, 4.0),  # between B and F
    }
    mask = pareto_front([c for c, _ in points.values()], [r for _, r in points.values()])
    assert {k for k, m in zip(points, mask) if m} == {"A", "B", "D", "F", "I"}


def test_empty_and_single() -> None:
    assert pareto_front([], []).tolist() == []
    assert pareto_front([3.0], [7.0]).tolist() == [True]
    assert pareto_front([float("nan")], [7.0]).tolist() == [False]


def _dominated(i: int, c: np.ndarray, r: np.ndarray) -> bool:
    better_or_equal = (c <= c[i]) & (r <= r[i])
    strictly = (c < c[i]) | (r < r[i])
    return bool(np.any(better_or_equal & strictly))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(1, 8)), max_size=30))
def test_front_is_exactly_the_undominated_points(pairs: list[tuple[int, int]]) -> None:
    # small integers make ties and twins common
    c = np.array([p[0] for p in pairs], dtype=float)
    r = np.array([p[1] for p in pairs], dtype=float)
    mask = pareto_front(c, r)
    assert mask.tolist() == [not _dominated(i, c, r) for i in range(len(pairs))]
