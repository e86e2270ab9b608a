"""Splitting a bandwidth series into drops that persist in time and an independent
remainder (model/bandwidth_split.py): synthetic series with known structure
(episodes on each host + independent per-message variation, independent
variation only, bimodal but independent, drops that last a call) are recovered
within stated errors; series too short or without order fall back to
per-message draws with one line saying why.

The series are made here, sample by sample, the way Netgauge measures: back to
back 16 MiB ping-pongs whose round trip is the ping's transfer (host 0 sends)
plus the pong's (host 1 sends), each at its own per-message bandwidth draw, or
at its sender's episode's fraction while the sender is in one (as the engine
charges a message: the lower of the two)."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.model.bandwidth_split import split_bandwidth

HALF_NS = 1_400_000.0  # one 16 MiB transfer at the peak: 1.4 ms


def body(rng: np.random.Generator, n: int) -> np.ndarray:
    """Per-message bandwidth fractions: 0.95 of the peak with 1 % spread, independent."""
    return np.minimum(1.0, 0.95 * rng.lognormal(0.0, 0.01, n))


def host_episodes(rng: np.random.Generator, span_ns: float, rate_hz: float, duration_ns: float,
                  fraction: float) -> list[tuple[float, float, float]]:
    """(start, end, fraction) of one host's episodes: `rate_hz` per second, each lasting
    uniformly 0.5-1.5 x `duration_ns`, gaps exponential."""
    out: list[tuple[float, float, float]] = []
    mean_gap = 1e9 / rate_hz - duration_ns
    t = rng.exponential(mean_gap)
    while t < span_ns:
        d = duration_ns * rng.uniform(0.5, 1.5)
        out.append((t, t + d, fraction))
        t += d + rng.exponential(mean_gap)
    return out


def pingpong(rng: np.random.Generator, n: int, hosts: list[list[tuple[float, float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    """Starts and round trips (ns) of n back-to-back ping-pongs between two hosts whose
    episodes are `hosts` (sorted)."""
    draws = [body(rng, n), body(rng, n)]
    starts = np.empty(n, np.int64)
    values = np.empty(n, np.int64)
    cursor = [0, 0]

    def episode(h: int, at: float) -> float:
        eps = hosts[h]
        while cursor[h] < len(eps) and eps[cursor[h]][1] <= at:
            cursor[h] += 1
        if cursor[h] < len(eps) and eps[cursor[h]][0] <= at:
            return eps[cursor[h]][2]
        return 1.0

    t = 0.0
    for i in range(n):
        ping = HALF_NS / min(draws[0][i], episode(0, t))
        pong = HALF_NS / min(draws[1][i], episode(1, t + ping))
        starts[i] = round(t)
        values[i] = round(ping + pong)
        t += ping + pong
    return starts, values


def run_split(starts: np.ndarray, values: np.ndarray, batch: int = 7777, key: np.ndarray | None = None):
    """The split as build.py runs it: batches of the series and its least round trip."""
    key = np.zeros_like(starts) if key is None else key

    def batches():
        for i in range(0, starts.size, batch):
            yield starts[i:i + batch], values[i:i + batch], key[i:i + batch]

    return split_bandwidth(batches, float(values.min()))


def one_host_drops(rng: np.random.Generator, gap_ns: float, draw, n: int = 120_000):
    """Starts, round trips and host 0's drops (start, end, fraction) of n ping-pongs in which host 0
    drops as `draw(rng)` says (its duration in ns and fraction) after exponential gaps of mean
    `gap_ns`, and host 1 never does."""
    span = n * 2 * HALF_NS / 0.9
    out: list[tuple[float, float, float]] = []
    t = rng.exponential(gap_ns)
    while t < span:
        d, f = draw(rng)
        out.append((t, t + d, f))
        t += d + rng.exponential(gap_ns)
    starts, values = pingpong(rng, n, [out, []])
    return starts, values, out


def episodes_series(seed: int = 1, n: int = 120_000):
    # each host: 0.5 drops per second lasting 200 ms (mean) at 0.6 of the peak; about 330 s
    rng = np.random.default_rng(seed)
    span = n * 2 * HALF_NS / 0.9
    hosts = [host_episodes(rng, span, 0.5, 200e6, 0.6) for _ in range(2)]
    return pingpong(rng, n, hosts)


def test_episodes_plus_iid_recover_rate_duration_and_depth():
    starts, values = episodes_series()
    got = run_split(starts, values)
    assert got.kind == "episodes", got.why
    ep = got.episodes
    # per host, within 25 % (rate), 20 % (duration) and 0.05 (fraction): the edges are known to a
    # block of 4 samples (11 ms), and two hosts' drops overlap a few % of the time
    assert ep.rate_hz == pytest.approx(0.5, rel=0.25)
    assert ep.duration.mean() == pytest.approx(200e6, rel=0.2)
    assert ep.fraction.mean() == pytest.approx(0.6, abs=0.05)
    assert ep.time_share() == pytest.approx(0.1, rel=0.25)
    # the remainder is the body alone: nothing near the drops' level (0.74 of the peak in a round trip)
    assert values.min() / got.remainder.percentile(99.9) > 0.9
    # every sample is in an episode or in the remainder, once
    assert got.remainder.count + round(got.sample_share * got.samples) == got.samples == values.size
    assert got.acf > 0.8 and got.with_calls == 0
    assert "\n" not in got.why and "per host" in got.why


def test_iid_only_has_no_drops():
    rng = np.random.default_rng(2)
    n = 60_000
    f = np.minimum(body(rng, n), body(rng, n))
    values = np.rint(2 * HALF_NS / f).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(values)[:-1]))
    got = run_split(starts, values)
    assert got.kind == "independent" and got.episodes is None and got.remainder is None
    assert got.why.startswith("no drops to model")


def test_independent_drops_do_not_persist():
    # two levels (5 % of messages at 0.6 of the peak), drawn independently per message: the
    # levels are there, time structure is not
    rng = np.random.default_rng(3)
    n = 100_000
    f = body(rng, n)
    drop = rng.random(n) < 0.05
    f[drop] = 0.6
    values = np.rint(2 * HALF_NS / f).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(values)[:-1]))
    got = run_split(starts, values)
    assert got.kind == "independent" and got.episodes is None
    assert "no drops that persist" in got.why, got.why


def test_shuffled_episodes_have_no_time_structure():
    rng = np.random.default_rng(4)
    _, values = episodes_series(seed=4)
    shuffled = rng.permutation(values)
    starts = np.concatenate(([0], np.cumsum(shuffled)[:-1]))
    got = run_split(starts, shuffled)
    assert got.kind == "independent" and "no drops that persist" in got.why


def test_sorted_series_has_no_order_to_read():
    _, values = episodes_series(seed=5, n=20_000)
    values = np.sort(values)
    starts = np.concatenate(([0], np.cumsum(values)[:-1]))
    got = run_split(starts, values)
    assert got.kind == "independent" and "no order to read time from" in got.why and "\n" not in got.why


def test_series_without_times_has_no_order_to_read():
    _, values = episodes_series(seed=6, n=20_000)
    got = run_split(np.zeros_like(values), values)
    assert got.kind == "independent" and "no order to read time from" in got.why


def test_too_short_a_series_falls_back():
    starts, values = episodes_series(seed=7, n=1_500)
    got = run_split(starts, values)
    assert got.kind == "independent" and got.why.startswith("too short for a time model: 1500 samples")


def test_batches_do_not_change_the_answer():
    starts, values = episodes_series(seed=8, n=40_000)
    one, many = run_split(starts, values, batch=10**9), run_split(starts, values, batch=999)
    assert one.kind == many.kind == "episodes"
    assert one.episodes.spec() == many.episodes.spec() and one.why == many.why


def test_drops_that_last_a_call_are_counted():
    # Netgauge-like: calls of 979 kept samples, the times jumping over each call's warm-ups; one
    # call in ten is slow throughout (0.7 of the peak in the round trip), the others are not
    rng = np.random.default_rng(9)
    calls, per_call = 100, 979
    f = body(rng, calls * per_call)
    slow_calls = np.arange(calls) % 10 == 3
    f[np.repeat(slow_calls, per_call)] = 0.7 * rng.lognormal(0.0, 0.01, slow_calls.sum() * per_call)
    values = np.rint(2 * HALF_NS / f).astype(np.int64)
    gaps = np.zeros_like(values)
    gaps[::per_call] = 21 * 2 * int(HALF_NS)  # the warm-ups left out before each call
    starts = np.cumsum(values + gaps) - values
    got = run_split(starts, values)
    assert got.kind == "episodes", got.why
    assert got.count == 10 and got.with_calls == 10
    assert "10 of them begin and end with a call" in got.why
    # each drop lasts its call: 979 round trips of 4 ms
    assert got.episodes.duration.mean() == pytest.approx(per_call * 2 * HALF_NS / 0.7, rel=0.02)


def test_episode_durations_are_bounded_by_what_the_series_showed():
    # a few dozen drops whose lengths vary tenfold (50 ms to 500 ms, log-uniform): a lognormal
    # through their median and mean reaches far beyond the longest; the durations drawn are
    # the measured ones, nothing longer than the longest, at the measured mean
    starts, values, out = one_host_drops(np.random.default_rng(5), 3e9, lambda rng: (
        float(np.exp(rng.uniform(np.log(50e6), np.log(500e6)))), 0.6))
    got = run_split(starts, values)
    assert got.kind == "episodes", got.why
    d = got.episodes.duration
    assert d.support()[1] <= 1.1 * max(e - s for s, e, _ in out)
    import re

    longest_ms = float(re.search(r"the longest ([0-9.e+-]+) ms: nothing longer is drawn", got.why).group(1))
    assert d.support()[1] == pytest.approx(longest_ms * 1e6, rel=0.01)
    assert longest_ms <= 500 * 1.1
    # the mean (what the time in drops rests on): the lognormal through median and mean kept it too
    assert d.mean() == pytest.approx(float(np.mean([e - s for s, e, _ in out])), rel=0.25)


def test_levels_are_weighted_by_the_time_they_hold():
    # host 0 drops as often to 0.6 of the peak for 40 ms as to 0.4 for 400 ms: a moment inside a
    # drop is at 0.4 ten times as often as at 0.6, (400 x 0.4 + 40 x 0.6) / 440 = 0.418 on average,
    # where one level per drop, each drop counted once, says 0.5; the deepest level is kept
    starts, values, _ = one_host_drops(np.random.default_rng(11), 2e9, lambda rng: (
        (400e6, 0.4) if rng.random() < 0.5 else (40e6, 0.6)))
    got = run_split(starts, values)
    assert got.kind == "episodes", got.why
    fraction = got.episodes.fraction
    assert fraction.mean() == pytest.approx((400 * 0.4 + 40 * 0.6) / 440, abs=0.025)
    assert fraction.support()[0] == pytest.approx(0.4, abs=0.02)
    # the share of a drop's time below 0.5 of the peak: 400 / 440
    below = np.mean(fraction.sample(np.random.default_rng(0), 200_000) < 0.5)
    assert below == pytest.approx(400 / 440, abs=0.05)
    assert "by time" in got.why
