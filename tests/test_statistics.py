"""simulation/statistics.py's boxplot statistics against known answers: quartiles
by linear interpolation, Tukey's whiskers, the median's distribution-free
interval from order statistics (the binomial tables') and the mean's
percentile bootstrap, neither reaching below the smallest sample."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cloudnoise.simulation.statistics import summarize


def test_ten_samples_known_answers():
    s = summarize(np.arange(1, 11))
    assert (s.n, s.min, s.q1, s.median, s.q3, s.max) == (10, 1, 3.25, 5.5, 7.75, 10)
    assert (s.whisker_low, s.whisker_high, s.outliers) == (1, 10, 0)
    # binomial(10, 1/2): 2 P(B <= 1) = 22/1024 <= 5% < 2 P(B <= 2) = 112/1024, so x_(2) to x_(9)
    assert (s.median_ci_low, s.median_ci_high) == (2, 9)
    assert s.std == pytest.approx(math.sqrt(82.5 / 9), rel=1e-12)
    assert 1 < s.mean_ci_low < 5.5 < s.mean_ci_high < 10


def test_the_median_interval_is_the_tabulated_order_statistics():
    # the 95% interval of the median of 100 samples: the 40th and 61st (Conover's table)
    x = np.random.default_rng(2).permutation(np.arange(1.0, 101.0))
    s = summarize(x)
    assert (s.median_ci_low, s.median_ci_high) == (40, 61)
    # below six samples no pair covers 95%: the range
    s = summarize(np.array([3.0, 1.0, 2.0, 5.0, 4.0]))
    assert (s.median_ci_low, s.median_ci_high) == (1, 5)


def test_heavy_tailed_times_keep_their_intervals_above_zero():
    # 999 runs of 0 and one of 1 ms: a resample holds the slow run Poisson(1)-many
    # times (about), so the mean's 2.5% and 97.5% points are 0 and 3 x 1 ms / 1000;
    # Student's t would give 1 us +- 1.96 us, below zero
    x = np.zeros(1000)
    x[0] = 1e6
    s = summarize(x)
    assert (s.mean_ci_low, s.mean_ci_high) == (0, 3000)
    assert (s.median_ci_low, s.median_ci_high) == (0, 0)
    lognormal = summarize(np.random.default_rng(3).lognormal(0, 3, 30))
    assert 0 < lognormal.min <= lognormal.mean_ci_low and 0 < lognormal.median_ci_low


def test_large_samples_bootstrap_close_to_the_normal_interval():
    x = np.random.default_rng(4).normal(100.0, 10.0, 1000)
    s = summarize(x)
    half = 1.96 * x.std(ddof=1) / math.sqrt(1000)
    assert (s.mean_ci_high - s.mean_ci_low) / 2 == pytest.approx(half, rel=0.1)
    assert summarize(x).mean_ci_low == s.mean_ci_low  # a fixed seed: the same samples, the same interval


def test_outliers_beyond_one_and_a_half_iqr_are_counted_not_whiskered():
    s = summarize(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    assert (s.q1, s.q3) == (2, 4)  # fences at -1 and 7
    assert (s.whisker_low, s.whisker_high, s.outliers) == (1, 4, 1)


def test_one_sample_has_no_spread_and_none_is_an_error():
    s = summarize(np.array([7.0]))
    assert (s.std, s.mean_ci_low, s.mean_ci_high, s.median_ci_low, s.median_ci_high) == (0, 7, 7, 7, 7)
    with pytest.raises(ValueError, match="no samples"):
        summarize(np.array([]))


def test_json_names_carry_the_unit():
    d = summarize(np.array([1.0, 3.0])).to_dict()
    assert d["n"] == 2 and d["outliers"] == 0 and d["median_ns"] == 2 and "mean_ci_low_ns" in d
    assert "median" in summarize(np.array([1.0])).to_dict(unit=None)
