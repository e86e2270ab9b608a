"""`measured_shape`: the measured distribution as seen, its largest values kept as they were.

Known answers from samples whose exact mean, maximum and share of the total above a value are
computed directly: a stall-length sample like Alps 2022-07-09's (13,124 stalls, the top 13 from
217 us to one of 11.5 ms), a sample too small for any uniform piece, and values that agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.measurement.summaries import RELATIVE_PRECISION, StreamStats
from cloudnoise.model.distributions import Constant
from cloudnoise.model.series_order import TAIL_VALUES, measured_shape


def _stats(values: np.ndarray) -> StreamStats:
    s = StreamStats()
    s.add(np.asarray(values, np.int64))
    return s


def _stalls() -> np.ndarray:
    rng = np.random.default_rng(7)
    body = rng.normal(80_000, 25_000, 13_111).clip(30_000, 215_000)
    top = np.array([217_000, 219_000, 222_000, 226_000, 231_000, 238_000, 245_000, 252_000, 263_000, 281_000,
                    305_000, 350_000, 11_468_907])
    return np.concatenate([body, top]).round()


def _draws(values: np.ndarray) -> np.ndarray:
    dist = measured_shape(_stats(values))
    # the quantile function on a fine even grid: a sample of the shape without sampling error
    return np.asarray(dist.quantile((np.arange(400_000) + 0.5) / 400_000), np.float64)


def test_a_long_tail_keeps_its_mean_and_its_share_of_the_time() -> None:
    values = _stalls()
    x = _draws(values)
    # the mean: one uniform piece from the 99.9th percentile to the 11.5 ms maximum put it 6 % high
    assert x.mean() == pytest.approx(values.mean(), rel=0.01)
    # what meets a stall by time meets the long ones in proportion to their length: the share of
    # the stalls' time above their p99 (one piece to the maximum: 2.4 times the measured share)
    p99 = np.percentile(values, 99.0)
    measured = values[values > p99].sum() / values.sum()
    assert x[x > p99].sum() / x.sum() == pytest.approx(measured, rel=0.05)
    assert x.max() == values.max()


def test_the_largest_values_are_the_ones_seen() -> None:
    values = _stalls()
    dist = measured_shape(_stats(values))
    atoms = sorted(c.value for c in dist.components if isinstance(c, Constant))  # type: ignore[attr-defined]
    top = np.sort(values)[-10:]
    # the ten largest, each at its histogram bucket (within the histogram's precision)
    for seen in top:
        assert any(seen <= a <= seen * (1 + RELATIVE_PRECISION) for a in atoms), seen
    assert len(atoms) <= 2 * TAIL_VALUES


def test_a_small_sample_is_its_values() -> None:
    values = np.array([1_000, 1_000, 2_000, 5_000, 40_000], np.int64)
    x = _draws(values)
    seen = sorted(set(x.round().tolist()))  # each at its histogram bucket's highest value
    assert len(seen) == 4
    assert all(v <= s <= v * (1 + RELATIVE_PRECISION) for v, s in zip([1_000, 2_000, 5_000, 40_000], seen))
    assert x.mean() == pytest.approx(values.mean(), rel=RELATIVE_PRECISION)


def test_values_that_agree_are_a_constant() -> None:
    assert isinstance(measured_shape(_stats(np.full(100, 5_000))), Constant)
    assert isinstance(measured_shape(_stats(np.array([7_000]))), Constant)
