"""The per-message latency noise from round trips (model/latency_deconvolution.py), against known
answers: round trips made of two draws of a known distribution and a known OS part, read through
a fine clock and through Netgauge's coarse one."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.model.closure import read_through_clock
from cloudnoise.model.latency_deconvolution import deconvolve

PROBS = np.array([0.5, 0.9, 0.99, 0.999])


def _per_message(rng: np.random.Generator, n: int) -> np.ndarray:
    """A body of 100 +- 60 ns, and 3 % of messages held 2-8 us: p99 and p99.9 in the held ones."""
    body = rng.normal(100.0, 60.0, n)
    held = rng.random(n) < 0.03
    body[held] = rng.uniform(2_000.0, 8_000.0, held.sum())
    return np.maximum(body, -400.0)


def _os_part(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.where(rng.random(n) < 0.006, rng.uniform(6_000.0, 9_000.0, n), 0.0)


@pytest.mark.parametrize("clock", [1.0, 238.4])
def test_two_draws_and_the_os_part_give_the_per_message_noise_back(clock):
    rng = np.random.default_rng(3)
    n = 300_000
    x = _per_message(rng, n) + _per_message(rng, n) + _os_part(rng, n)
    read = read_through_clock(x + 3_576.0, clock, 1) - 3_576.0 if clock > 1 else x
    values, counts = np.unique(np.rint(read), return_counts=True)
    got = deconvolve(values, counts, _os_part(rng, 200_000), floor_ns=-500.0, clock_step_ns=clock)
    want = np.percentile(_per_message(np.random.default_rng(9), 1_000_000), PROBS * 100)
    est = np.interp(PROBS, got.probabilities, got.values_ns)
    assert np.all(np.abs(est - want) <= 0.10 * np.abs(want)), (est, want)
    assert got.below_floor == 0.0 and got.distance < 0.01
    # the OS part is not in it: no per-message draw lands in the detours' 6-9 us band more than
    # the held messages put there (3 % over 6 us: a sixth of them in 6-9 us)
    cdf = np.interp([6_000.0, 9_000.0], got.values_ns, got.probabilities)
    assert cdf[1] - cdf[0] < 0.03 * 0.5 + 0.002


def test_a_tick_read_a_little_off_still_counts_every_round_trip():
    """Azure HBv2's round trips lie on a 100 ns clock, printed within 2 ns of its ticks, and the
    series' tick reads 99.94 ns: 35 ticks up, a value lies a grid step off the tick its reading
    would sit on. Every value is counted on its nearest tick: the held messages' 2-8 us (p99,
    p99.9) are given back, and the model's distribution meets the measured one."""
    rng = np.random.default_rng(3)
    n = 300_000
    x = _per_message(rng, n) + _per_message(rng, n) + _os_part(rng, n)
    read = read_through_clock(x + 3_500.0, 100.0, 1) - 3_500.0 + rng.integers(-2, 2, n)
    values, counts = np.unique(read, return_counts=True)
    got = deconvolve(values, counts, _os_part(rng, 200_000), floor_ns=-500.0, clock_step_ns=99.94)
    want = np.percentile(_per_message(np.random.default_rng(9), 1_000_000), PROBS * 100)
    est = np.interp(PROBS, got.probabilities, got.values_ns)
    assert np.all(np.abs(est - want) <= 0.10 * np.abs(want)), (est, want)
    assert got.distance < 0.01


def test_halving_counts_the_os_part_twice_and_draws_stalls_twice_as_often_at_half_their_size():
    """What the deconvolution replaces: the round trip's excess, halved, per message. Two draws of
    it put twice as many round trips late as were measured (each message may draw the halved
    stall) and keep the OS detours in the noise (the OS trace then adds them again)."""
    rng = np.random.default_rng(4)
    n = 300_000
    x = _per_message(rng, n) + _per_message(rng, n) + _os_part(rng, n)
    halved = np.maximum(0.0, x / 2 - np.median(x / 2))
    twice = rng.choice(halved, n) + rng.choice(halved, n)
    late = np.mean(x - np.median(x) > 2_000.0)
    assert np.mean(twice - np.median(twice) > 1_000.0) > 1.7 * late


def test_round_trips_faster_than_the_overheads_allow_are_counted_at_the_floor():
    rng = np.random.default_rng(5)
    x = rng.normal(0.0, 100.0, 100_000)
    values, counts = np.unique(np.rint(x), return_counts=True)
    got = deconvolve(values, counts, np.zeros(1), floor_ns=-80.0)
    assert got.below_floor == pytest.approx(np.mean(np.rint(x) < -160.0), abs=1e-6)
    assert got.values_ns.min() >= -80.0 and np.all(np.diff(got.values_ns) >= 0)


def test_the_far_tail_beyond_the_grid_is_half_the_round_trips_share():
    # rare 50-60 ms excesses, far beyond any grid of the 60 ns body: one message's each
    rng = np.random.default_rng(6)
    n = 400_000
    e = rng.normal(0.0, 30.0, (2, n))
    held = rng.random((2, n)) < 0.001
    e[held] = rng.uniform(5e7, 6e7, held.sum())
    x = e.sum(axis=0)
    values, counts = np.unique(np.rint(x), return_counts=True)
    got = deconvolve(values, counts, np.zeros(1), floor_ns=-1000.0)
    assert got.tail_share == pytest.approx(np.mean(x > 1e6), rel=1e-9)
    at = np.interp(1e6, got.values_ns, got.probabilities)
    assert 1.0 - at == pytest.approx(0.001, rel=0.1)
    assert 5e7 <= np.interp(0.9995, got.probabilities, got.values_ns) <= 6e7
