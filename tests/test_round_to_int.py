"""The engine's rounding of drawn values (a latency excess in ps, a G in fs per byte) to
integers: half away from zero, as C's llround, bit for bit.

Every noisy run goes through it twice per message, and the windowed and sequential
paths share it, so the differential tests cannot see it drift: these check it against
exact rational arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cloudnoise import _engine


def exact(x: float) -> int:
    """Half away from zero, on the exact rational value of x."""
    q = Fraction(x)
    n = math.floor(abs(q) + Fraction(1, 2))
    return -n if q < 0 else n


def rounded(values: list[float]) -> list[int]:
    return [int(v) for v in _engine.round_to_int(np.asarray(values, dtype=np.float64))]


HALF_BELOW = math.nextafter(0.5, 0.0)  # 0.49999999999999994: floor(x + 0.5) gets it wrong


def test_known_answers():
    cases = {
        0.0: 0, -0.0: 0, 0.5: 1, -0.5: -1, 1.5: 2, 2.5: 3, -2.5: -3, HALF_BELOW: 0, -HALF_BELOW: 0,
        math.nextafter(0.5, 1.0): 1, 1e-300: 0, 0.7: 1, -0.7: -1, 142013.4999: 142013, 85920.5: 85921,
    }
    assert rounded(list(cases)) == list(cases.values())


def test_around_every_half_and_power_of_two():
    xs: list[float] = []
    for e in range(0, 64):
        p = math.ldexp(1.0, e)
        for x in (p, p - 0.5, p + 0.5, p - 1.5):
            xs += [x, math.nextafter(x, 0.0), math.nextafter(x, math.inf)]
    for k in range(-2000, 2000):
        for d in (0.5, 0.25, 0.75):
            x = k + d
            xs += [x, math.nextafter(x, -math.inf), math.nextafter(x, math.inf)]
    xs = [x for x in xs if abs(x) < 2.0**63]
    xs += [-x for x in xs]
    assert rounded(xs) == [exact(x) for x in xs]


@settings(max_examples=2000, deadline=None)
@given(st.floats(min_value=-(2.0**63) + 2048, max_value=2.0**63 - 2048, allow_nan=False))
def test_any_double_in_range(x):
    assert rounded([x]) == [exact(x)]


def test_a_million_draw_sized_values():
    rng = np.random.default_rng(7)
    # Latency excesses (ps) and G values (fs per byte) as the engine draws them.
    x = np.concatenate([rng.lognormal(11.9, 1.0, 500_000), 85179.0 / rng.uniform(0.5, 1.0, 500_000)])
    x = np.concatenate([x, -x])
    t = np.trunc(x)  # x - trunc(x) is exact below 2^52
    want = (t + np.sign(x) * (np.abs(x - t) >= 0.5)).astype(np.int64)
    assert np.array_equal(_engine.round_to_int(x), want)


@pytest.mark.parametrize("x", [2.0**63, -(2.0**63) - 4096, 1e300, math.inf, -math.inf, math.nan])
def test_out_of_range_stops_instead_of_wrapping(x):
    with pytest.raises(OverflowError, match="overflows"):
        _engine.round_to_int(np.asarray([x]))
