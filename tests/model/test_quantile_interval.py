"""A measured quantile's own 95 % interval (model/quantile_interval.py) and the closure's note
for a row that misses at the measurement's limit (model/closure.py, model/bandwidth_closure.py):
the order-statistic ranks against the textbook's, their coverage on samples with a known
quantile, and a closure whose p90 sits in an empty stretch between two levels, which a short
series cannot pin and a long one can."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.bandwidth_closure import compare_bandwidth
from cloudnoise.model.closure import Measured, compare
from cloudnoise.model.quantile_interval import quantile_interval, quantile_ranks, sorted_at_rank, unpinned_note
from cloudnoise.model.round_trips import RoundTrips


def test_the_median_of_100_lies_between_the_40th_and_61st():
    # the distribution-free 95 % interval of the median of 100 samples: ranks 40 and 61
    assert quantile_ranks(100, 50.0) == (40, 61)
    # of 1,000 samples, the p90: 900 +- 1.96 sqrt(90), ranks 882 and 919
    low, high = quantile_ranks(1_000, 90.0)
    assert abs(low - 881) <= 1 and abs(high - 919) <= 1
    with pytest.raises(ValueError):
        quantile_ranks(0, 50.0)


def test_the_interval_holds_the_true_quantile_95_percent_of_the_time():
    rng = np.random.default_rng(3)
    true_p90 = -np.log(0.1)  # exponential(1)
    held = 0
    trials = 600
    for _ in range(trials):
        v = np.sort(rng.exponential(1.0, 400))
        low, high = quantile_interval(sorted_at_rank(v), v.size, 90.0)
        held += low <= true_p90 <= high
    assert 0.93 <= held / trials <= 0.985


def test_round_trips_and_sorted_values_give_the_same_interval():
    rng = np.random.default_rng(4)
    v = np.rint(rng.lognormal(8.0, 0.5, 5_000))
    trips = RoundTrips(*np.unique(v, return_counts=True))
    assert quantile_interval(trips.at_ranks, trips.count, 99.0) == quantile_interval(sorted_at_rank(np.sort(v)),
                                                                                      v.size, 99.0)


def test_the_note_needs_the_replay_inside_and_an_interval_wider_than_the_tolerance():
    shown = lambda v: f"{v:g}"  # noqa: E731
    assert unpinned_note("p90", 100.0, 112.0, (80.0, 120.0), 10.0, shown) is not None
    assert unpinned_note("p90", 100.0, 125.0, (80.0, 120.0), 10.0, shown) is None  # the replay outside it
    assert unpinned_note("p90", 100.0, 89.0, (95.0, 105.0), 10.0, shown) is None  # the series pins it


def _levels(rng: np.random.Generator, n: int, tail: float) -> np.ndarray:
    """Round trips at two levels with nothing between: 4 us and, a share `tail` of them, 12 us."""
    return np.where(rng.random(n) < tail, rng.uniform(11_500, 12_500, n), rng.uniform(3_800, 4_200, n))


def test_a_p90_between_two_levels_misses_at_the_limit_of_a_short_series_and_not_of_a_long_one():
    rng = np.random.default_rng(5)
    # 10.1 % of the series is at the upper level, 9.9 % of the replay: the series' p90 is at
    # 12 us, the replay's at 4 us; with 2,000 round trips, 10 +- 1.3 % is what a series can say
    short = _levels(rng, 2_000, 0.101)
    closure = compare(Measured.of(short), _levels(rng, 200_000, 0.099), "latency-noise", 1, 0)
    p90 = next(r for r in closure.rows if r.statistic == "p90")
    assert not p90.within and p90.interval is not None and p90.interval[0] < 4_300 < 11_000 < p90.interval[1]
    assert "p90" in closure.misses
    notes = [n for n in closure.notes if "at the measurement's limit" in n]
    assert len(notes) == 1 and notes[0].startswith("p90 ") and "a longer one can" in notes[0]
    assert p90.as_dict()["interval_95"] == list(p90.interval)
    # 200,000 round trips pin the p90 to the upper level: the same miss is the model's
    long = _levels(rng, 200_000, 0.101)
    closure = compare(Measured.of(long), _levels(rng, 200_000, 0.099), "latency-noise", 1, 0)
    assert "p90" in closure.misses
    assert not any("at the measurement's limit" in n for n in closure.notes)
    # a row within its tolerance says nothing
    closure = compare(Measured.of(long), _levels(rng, 200_000, 0.101), "latency-noise", 1, 0)
    assert closure.closes and not closure.notes


def test_the_bandwidth_closure_says_it_too():
    rng = np.random.default_rng(6)
    # 3,000 16 MiB round trips at 3.4 ms and 33 of them (1.1 %) at 4.4 ms; the replay 0.97 %: the p99 flips
    stats = StreamStats()
    measured = np.where(np.arange(3_000) < 33, 4.4e6, 3.4e6) * rng.uniform(0.999, 1.001, 3_000)
    stats.add(np.rint(measured).astype(np.int64))
    replay = np.where(np.arange(100_000) < 970, 4.4e6, 3.4e6) * rng.uniform(0.999, 1.001, 100_000)
    closure = compare_bandwidth(stats, replay, "bandwidth-noise", 16 << 20, 0)
    assert "p99" in closure.misses
    assert any(n.startswith("p99 at the measurement's limit") for n in closure.notes)
