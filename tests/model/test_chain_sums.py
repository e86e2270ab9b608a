"""Chains of K round trips from a measured series, by sample and by time, against known answers."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.model.chain_sums import Series, by_sample, by_time


def _stalled(n_cycles: int = 1000, m: float = 1000.0, stall: float = 9000.0) -> Series:
    """Nine round trips of `m`, then one stall of `stall`, over and over: stalls are a tenth of the
    round trips and half of the time."""
    one = np.array([m] * 9 + [stall])
    return Series.of(np.tile(one, n_cycles))


def test_by_sample_sums_k_consecutive_non_overlapping_within_stretches():
    s = Series.of([1, 2, 3, 4, 5, 6, 7, 10, 20, 30], stretch_starts=[7])
    got = by_sample(s, 2, median_ns=0.0)
    # stretch one: (1,2) (3,4) (5,6), 7 left over; stretch two: (10,20), 30 left over
    assert sorted(got.excess_ns.tolist()) == [3, 7, 11, 30]
    assert np.allclose(got.weights, 0.25)


def test_by_sample_meets_a_stall_as_often_as_the_round_trips_hold_one():
    got = by_sample(_stalled(), 1, median_ns=1000.0)
    share = float(got.weights[got.excess_ns > 0].sum())
    assert share == pytest.approx(0.1)


def test_by_time_starts_in_a_stall_as_often_as_stalls_take_time_and_meets_its_rest():
    m, stall = 1000.0, 9000.0
    got = by_time(_stalled(m=m, stall=stall), 1, stall_threshold_ns=2 * m, median_ns=m, points=1000)
    assert got.stall_time_share == pytest.approx(0.5)
    # a chain started at a uniform moment in a stall waits its rest, at least a median:
    # P(excess > x) = 0.5 * (stall - m - x) / stall for 0 <= x < stall - m
    for x in (0.0, 1000.0, 4000.0, 7000.0):
        want = 0.5 * (stall - m - x) / stall
        assert float(got.weights[got.excess_ns > x + 1e-9].sum()) == pytest.approx(want, abs=2e-3)
    # outside the stalls, an ordinary round trip: excess 0
    assert float(got.weights[np.abs(got.excess_ns) < 1e-9].sum()) == pytest.approx(1.0 - 0.5 * (stall - m) / stall,
                                                                                  abs=2e-3)


def test_by_time_takes_the_k_minus_1_round_trips_after_the_stall():
    m, stall = 1000.0, 9000.0
    got = by_time(_stalled(m=m, stall=stall), 3, stall_threshold_ns=2 * m, median_ns=m, points=8)
    # from inside a stall: its rest and two ordinary round trips; from a quiet start, the three
    # round trips after it hold the next stall when it starts at one of the last two quiet ones
    rest = np.maximum(stall * (1 - (np.arange(8) + 0.5) / 8), m) - m
    stalled = np.sort(got.excess_ns[np.isin(got.excess_ns, rest)])
    assert np.allclose(np.unique(stalled), np.unique(rest))
    quiet_with_stall = float(got.weights[np.isclose(got.excess_ns, stall - m)].sum())
    assert quiet_with_stall == pytest.approx(0.5 * 2 / 9, rel=0.01)


def test_by_time_without_stalls_in_time_asks_what_by_sample_asks():
    rng = np.random.default_rng(3)
    s = Series.of(1000.0 + rng.exponential(200.0, 20_000))
    a, b = by_sample(s, 1), by_time(s, 1, stall_threshold_ns=None)
    assert b.stall_time_share == 0.0
    assert np.allclose(a.percentiles([50, 90, 99]), b.percentiles([50, 90, 99]))


def test_weighted_percentiles_are_nearest_rank():
    s = Series.of(np.arange(1.0, 101.0))
    got = by_sample(s, 1, median_ns=0.0)
    assert got.percentiles([50, 90, 99, 100]).tolist() == [50.0, 90.0, 99.0, 100.0]


def test_persistence_of_independent_round_trips_is_one_and_a_level_per_call_shows_across_calls():
    from cloudnoise.model.chain_sums import persistence

    rng = np.random.default_rng(9)
    calls, length = 400, 1000
    iid = Series.of(1000.0 + rng.normal(0.0, 50.0, calls * length))
    p = persistence(iid, 20, length, clip_ns=1e9)
    assert p.ratio == pytest.approx(1.0, abs=0.1) and p.ratio_within_calls == pytest.approx(1.0, abs=0.1)
    # each call at its own level (sd 50 ns): sums of 20 vary by 20 levels more, within calls not
    levels = np.repeat(rng.normal(0.0, 50.0, calls), length)
    leveled = Series.of(1000.0 + levels + rng.normal(0.0, 50.0, calls * length))
    p = persistence(leveled, 20, length, clip_ns=1e9)
    # var(sum) = 20 (s^2) + 400 (s^2) against 20 x 2 s^2: 10.5
    assert p.ratio == pytest.approx(10.5, rel=0.2) and p.ratio_within_calls == pytest.approx(1.0, abs=0.1)
    assert p.call_medians_ns[1] - p.call_medians_ns[0] == pytest.approx(2 * 1.645 * 50.0, rel=0.2)


def _batches(values, stretch_starts=(), per=7):
    """The series as `model build` reads it: (start ns, round trip ns, key) batches of `per`
    samples, times increasing, the key changing where a stretch starts."""
    v = np.asarray(values, np.int64)
    key = np.zeros(v.size, np.int64)
    for s in stretch_starts:
        key[s:] += 1
    starts = np.cumsum(v) - v
    return [(starts[i:i + per], v[i:i + per], key[i:i + per]) for i in range(0, v.size, per)]


def test_streamed_sums_are_by_samples_sums_across_batches_and_stretches():
    from cloudnoise.model.chain_sums import streamed_sums

    rng = np.random.default_rng(4)
    v = rng.integers(900, 1100, 200)
    v[::10] += 5000  # no sorted order
    got = streamed_sums(_batches(v, stretch_starts=(53, 120)), 3, limit=10**6)
    want = by_sample(Series.of(v.astype(float), stretch_starts=[53, 120]), 3, median_ns=0.0).excess_ns
    assert got is not None and sorted(got.tolist()) == sorted(want.tolist())
    # the first `limit` round trips only
    first = streamed_sums(_batches(v), 3, limit=30)
    assert first is not None and first.tolist() == v[:30].reshape(10, 3).sum(axis=1).tolist()


def test_streamed_sums_of_a_series_without_order_are_none():
    from cloudnoise.model.chain_sums import streamed_sums

    assert streamed_sums(_batches(np.arange(1000, 1500)), 3, limit=10**6) is None  # sorted values
    assert streamed_sums(_batches([1000, 1200, 900]), 20, limit=10**6) is None  # too short for a sum


def test_segment_sums_stay_within_each_segment():
    from cloudnoise.model.chain_sums import segment_sums

    got = segment_sums(np.arange(1.0, 11.0), 2, segment=5)
    # segments (1..5) and (6..10): (1+2) (3+4), 5 left over; (6+7) (8+9), 10 left over
    assert got.tolist() == [3.0, 7.0, 13.0, 17.0]
