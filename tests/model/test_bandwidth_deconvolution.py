"""Per-message bandwidth fractions from large round trips (model/bandwidth_deconvolution.py),
against known answers: round trips made of two messages with known per-message fractions, a
known per-byte time, and a known part that the other noises add."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.model.bandwidth_deconvolution import deconvolve_bandwidth, message_time

FIXED_NS = 10_000.0  # a message's time that no fraction changes
WIRE_NS = 1_677_722.0  # a 16 MiB message at the peak (0.1 ns/B)
PROBS = np.array([0.01, 0.05, 0.1, 0.5, 0.9])


def _slowdowns(rng: np.random.Generator, n: int) -> np.ndarray:
    """1 / f per message: 1.03 +- 0.01 in the body, 2 % of messages at 1.3-1.5 (drops)."""
    w = np.maximum(1.0, rng.normal(1.03, 0.01, n))
    held = rng.random(n) < 0.02
    w[held] = rng.uniform(1.3, 1.5, held.sum())
    return w


def _others(rng: np.random.Generator, n: int) -> np.ndarray:
    """What OS and latency noise add to a round trip: 0.5 % of them 50-200 us."""
    return np.where(rng.random(n) < 0.005, rng.uniform(50_000.0, 200_000.0, n), 0.0)


def _wire(w: np.ndarray) -> np.ndarray:
    return FIXED_NS + WIRE_NS * w


def _round_trips(rng: np.random.Generator, n: int) -> np.ndarray:
    return _wire(_slowdowns(rng, n)) + _wire(_slowdowns(rng, n)) + _others(rng, n)


def _true_fractions() -> np.ndarray:
    return np.percentile(1.0 / _slowdowns(np.random.default_rng(9), 2_000_000), PROBS * 100)


def test_two_messages_and_the_other_noises_give_the_per_message_fractions_back():
    rng = np.random.default_rng(1)
    rt = _round_trips(rng, 200_000)
    values, counts = np.unique(np.rint(rt), return_counts=True)
    times = message_time(lambda w: 2.0 * _wire(np.array([w]))[0])
    f_ref = float(rt.min() / np.median(rt))
    grid = np.linspace(0.0, 1.0, 1001)
    got = deconvolve_bandwidth(values, counts, _others(rng, 100_000), times, f_ref, grid)
    est = np.interp(PROBS, got.probabilities, got.fractions)
    want = _true_fractions()
    assert np.all(np.abs(est - want) <= 0.003 * want), (est, want)
    assert got.fractions[-1] == 1.0 and np.all(np.diff(got.fractions) >= 0)
    assert got.noise.distance < 0.01
    # the paper's way, each round trip's fraction min / RTT as a message's, puts the 1 % of
    # slowest messages at what a round trip of one slow and one typical message does
    per_round_trip = np.percentile(rt.min() / rt, PROBS * 100)
    assert per_round_trip[0] > 1.1 * want[0]


def test_where_the_cpu_decides_a_message_time_every_faster_fraction_is_the_peak():
    """u flat up to 1 / f = 1.1 (a per-byte CPU overhead as long as the wire at 1 / 1.1 of the
    peak): a time at the flat part is the peak; above it, the fraction that takes it."""
    times = message_time(lambda w: 2.0 * (FIXED_NS + WIRE_NS * max(w, 1.1)))
    flat = FIXED_NS + WIRE_NS * 1.1
    f = times.fraction_of(np.array([flat - 5.0, flat, FIXED_NS + WIRE_NS * 1.25, FIXED_NS + WIRE_NS * 2_000.0]))
    assert f[0] == 1.0 and f[1] == 1.0
    assert f[2] == pytest.approx(1 / 1.25, rel=1e-3)
    assert f[3] == pytest.approx(1 / 2_000.0, rel=1e-3)  # beyond the table: linear in 1 / f
