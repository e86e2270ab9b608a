"""simulation/statistics.py's boxplot statistics against known answers: quartiles
by linear interpolation, Tukey's whiskers, McGill's notch, and the mean's 95%
interval from Student's t (the critical values are the printed tables')."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cloudnoise.simulation.statistics import summarize


def test_ten_samples_known_answers():
    s = summarize(np.arange(1, 11))
    assert (s.n, s.min, s.q1, s.median, s.q3, s.max) == (10, 1, 3.25, 5.5, 7.75, 10)
    assert (s.whisker_low, s.whisker_high, s.outliers) == (1, 10, 0)
    notch = 1.57 * 4.5 / math.sqrt(10)
    assert (s.median_ci_low, s.median_ci_high) == pytest.approx((5.5 - notch, 5.5 + notch), rel=1e-12)
    std = math.sqrt(82.5 / 9)
    assert s.std == pytest.approx(std, rel=1e-12)
    # t(0.975, 9 degrees of freedom) = 2.262157 (tables give 2.262)
    half = 2.2621571627 * std / math.sqrt(10)
    assert (s.mean_ci_low, s.mean_ci_high) == pytest.approx((5.5 - half, 5.5 + half), rel=1e-9)


def test_two_samples_take_the_wide_t_quantile():
    # t(0.975, 1) = 12.706205: two samples say little about the mean
    s = summarize(np.array([0.0, 2.0]))
    assert s.std == pytest.approx(math.sqrt(2), rel=1e-12)
    assert (s.mean_ci_low, s.mean_ci_high) == pytest.approx((1 - 12.7062047364, 1 + 12.7062047364), rel=1e-9)


def test_large_samples_approach_the_normal_quantile():
    # t(0.975, 999) = 1.962341; the normal's is 1.959964
    x = np.arange(1000, dtype=float)
    s = summarize(x)
    half = (s.mean_ci_high - s.mean_ci_low) / 2
    assert half == pytest.approx(1.9623414611 * x.std(ddof=1) / math.sqrt(1000), rel=1e-9)


def test_outliers_beyond_one_and_a_half_iqr_are_counted_not_whiskered():
    s = summarize(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    assert (s.q1, s.q3) == (2, 4)  # fences at -1 and 7
    assert (s.whisker_low, s.whisker_high, s.outliers) == (1, 4, 1)


def test_one_sample_has_no_spread_and_none_is_an_error():
    s = summarize(np.array([7.0]))
    assert (s.std, s.mean_ci_low, s.mean_ci_high) == (0, 7, 7)
    with pytest.raises(ValueError, match="no samples"):
        summarize(np.array([]))


def test_json_names_carry_the_unit():
    d = summarize(np.array([1.0, 3.0])).to_dict()
    assert d["n"] == 2 and d["outliers"] == 0 and d["median_ns"] == 2 and "mean_ci_low_ns" in d
    assert "median" in summarize(np.array([1.0])).to_dict(unit=None)
