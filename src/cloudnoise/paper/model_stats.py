"""Numbers read off a profile's models, as the paper's Sec. III-IV figures show them.

Latencies are one-way times of a 1-byte message, 2o + L + excess (LogGP's
T(1 B) with a negligible G), in µs or relative to the minimum, as Fig. 9-10
normalise them; bandwidths are fractions of the maximum, as Fig. 11-12
normalise them (drops persisting in episodes counted by their share of
samples: model/bandwidth_episodes.py); OS noise is the detour rate (Fig. 8's frequency), the share
of time lost, and quantiles of the detour durations (Fig. 8's intensity).
"Samples of an hour" (the top of Fig. 9's 1-hour ping-pong) are read at the
quantile 1 - 1e-6 (about a million ping-pongs an hour, as the Oracle spike's
calibrated weight implies; see paper/statements.py).
"""

from __future__ import annotations

import numpy as np

from cloudnoise.model.os_noise import SyntheticOSNoise
from cloudnoise.model.profile import SystemProfile

HOUR_QUANTILE = 1.0 - 1e-6


def _min_ns(p: SystemProfile) -> float:
    return 2.0 * p.loggops.o + p.loggops.L


def min_latency_us(p: SystemProfile) -> float:
    lat = p.latency_distribution()
    low = 0.0 if lat is None else float(lat.quantile(np.array([0.0]))[0])
    return (_min_ns(p) + low) / 1000.0


def mean_latency_us(p: SystemProfile) -> float:
    lat = p.latency_distribution()
    return (_min_ns(p) + (0.0 if lat is None else lat.mean())) / 1000.0


def max_bandwidth_gbit_s(p: SystemProfile) -> float:
    return 8.0 / p.loggops.G


def mean_bandwidth_gbit_s(p: SystemProfile) -> float:
    bw = p.bandwidth_sample_distribution()
    return max_bandwidth_gbit_s(p) * (1.0 if bw is None else bw.mean())


def latency_ratio(p: SystemProfile, q: float) -> float:
    """The latency at quantile q over the minimum (Fig. 9's y axis)."""
    lat = p.latency_distribution()
    extra = 0.0 if lat is None else float(lat.quantile(np.array([q]))[0])
    return (_min_ns(p) + extra) / _min_ns(p)


def bandwidth_quantile(p: SystemProfile, q: float) -> float:
    """The bandwidth fraction at quantile q (Fig. 11's y axis, bottom 0.1%: q = 1e-3)."""
    bw = p.bandwidth_sample_distribution()
    return 1.0 if bw is None else float(bw.quantile(np.array([q]))[0])


def _os(p: SystemProfile) -> SyntheticOSNoise:
    src = p.os_noise_source()
    if not isinstance(src, SyntheticOSNoise):
        raise ValueError(f"{p.name}: OS noise is not a synthetic model")
    return src


def os_rate(p: SystemProfile) -> float:
    """Detours per second."""
    return _os(p).frequency_hz


def os_fraction(p: SystemProfile) -> float:
    """Share of CPU time spent in detours."""
    src = _os(p)
    return src.frequency_hz * src.duration.mean() * 1e-9


def os_duration_us(p: SystemProfile, q: float) -> float:
    """Quantile q of a detour's duration, µs."""
    return float(_os(p).duration.quantile(np.array([q]))[0]) / 1000.0


def latency_above(p: SystemProfile, threshold_ns: float) -> float:
    """Probability that a message's latency excess exceeds `threshold_ns`."""
    lat = p.latency_distribution()
    return 0.0 if lat is None else 1.0 - float(lat.cdf(np.array([threshold_ns]))[0])


def median_ratio_above(p: SystemProfile, threshold_ns: float) -> float:
    """The median latency of the samples whose excess exceeds `threshold_ns`,
    over the minimum (what "one measurement of 59 ms, 35000x" describes)."""
    tail = latency_above(p, threshold_ns)
    if tail <= 0:
        return 0.0
    return latency_ratio(p, 1.0 - 0.5 * tail)


def longest_drop_s(p: SystemProfile) -> float:
    """The longest a bandwidth drop persists, s (0 when drops are per-message draws)."""
    episodes = p.bandwidth_episodes()
    return 0.0 if episodes is None else episodes.duration.support()[1] / 1e9


def bandwidth_share(p: SystemProfile, low: float, high: float) -> float:
    """Share of messages whose bandwidth fraction lies in [low, high]."""
    bw = p.bandwidth_sample_distribution()
    if bw is None:
        return 0.0
    lo, hi = bw.cdf(np.array([low, high]))
    return float(hi - lo)
