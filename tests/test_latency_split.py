"""Splitting a latency series into stalls in time and an independent remainder
(model/latency_split.py): synthetic ping-pong series with known structure
(periodic + iid, bursty + iid, two hosts' independent bursts + iid, iid only)
are recovered within stated errors; series without order fall back to the
independent model with one line saying why.

The series are made here, sample by sample, the way Netgauge measures:
back-to-back ping-pongs whose round trip is a per-message draw plus the rest
of any stall the ping or the pong meets (each host's stalls on its own clock)."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.model.latency_split import split_latency

RTT_NS = 4800.0


def body(rng: np.random.Generator, n: int) -> np.ndarray:
    """Per-message round trips: 4.8 us, a few percent of spread, independent."""
    return RTT_NS * rng.lognormal(0.0, 0.03, n)


def pingpong(rtt: np.ndarray, stalls: list[list[tuple[float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    """Starts and round trips of back-to-back ping-pongs; host h's stalls are
    stalls[h] (start, end) in ns, sorted: the ping waits for host 0's, the pong
    for host 1's."""
    starts = np.empty(rtt.size, np.int64)
    values = np.empty(rtt.size, np.int64)
    cursor = [0] * len(stalls)
    t = 0.0

    def wait(h: int, at: float) -> float:
        s = stalls[h]
        while cursor[h] < len(s) and s[cursor[h]][1] <= at:
            cursor[h] += 1
        if cursor[h] < len(s) and s[cursor[h]][0] <= at:
            return s[cursor[h]][1] - at
        return 0.0

    for i, r in enumerate(rtt):
        w0 = wait(0, t)
        w1 = wait(1, t + w0 + r / 2) if len(stalls) > 1 else 0.0
        starts[i] = round(t)
        values[i] = round(r + w0 + w1)
        t += r + w0 + w1
    return starts, values


def bursty_stalls(rng: np.random.Generator, span_ns: float, rate_hz: float, duration_ns: float, stall_ns: float,
                  gap_ns: float) -> list[tuple[float, float]]:
    """Episodes at `rate_hz` per second of quiet time, each `duration_ns` long, holding
    stalls of `stall_ns` every `stall_ns + gap_ns`."""
    out: list[tuple[float, float]] = []
    t = rng.exponential(1e9 / rate_hz)
    while t < span_ns:
        end = t + duration_ns
        s = t
        while s <= end:
            out.append((s, s + stall_ns))
            s += stall_ns + gap_ns
        t = out[-1][1] + rng.exponential(1e9 / rate_hz)
    return out


def run_split(starts: np.ndarray, values: np.ndarray, batch: int = 7777, hosts: int = 2):
    """The split as build.py runs it: batches of the series, its median and p90."""
    key = np.zeros_like(starts)

    def batches():
        for i in range(0, starts.size, batch):
            yield starts[i:i + batch], values[i:i + batch], key[i:i + batch]

    return split_latency(batches, float(np.median(values)), float(np.percentile(values, 90)), hosts=hosts)


def test_iid_only_stays_independent():
    rng = np.random.default_rng(1)
    rtt = body(rng, 200_000)
    # rare big spikes, independent per message: a tail, not a state in time
    spikes = rng.random(rtt.size) < 0.004
    rtt[spikes] += rng.uniform(30_000, 60_000, spikes.sum())
    starts = np.concatenate(([0], np.cumsum(rtt)[:-1])).astype(np.int64)
    got = run_split(starts, np.rint(rtt).astype(np.int64))
    assert got.kind == "independent" and got.episodes is None and got.keep == 1.0
    assert "no time structure" in got.why
    assert 0.8 < got.cv < 1.2  # geometric distances between independent stalls


def test_periodic_plus_iid_recovers_period_and_stall():
    # a 12 us stall every 1 ms on host 0 (a timer), independent variation besides
    rng = np.random.default_rng(2)
    span = 1.2e9
    phase = 123_456.0
    stalls = [[(phase + k * 1e6, phase + k * 1e6 + 12_000) for k in range(int(span / 1e6) + 2)], []]
    starts, values = pingpong(body(rng, 240_000), stalls)
    got = run_split(starts, values)
    assert got.kind == "periodic", got.why
    ep = got.episodes
    assert ep.period_ns == pytest.approx(1e6, rel=0.02)
    # a sample meets a stall somewhere within its round trip: the wait is the stall less up to one RTT
    assert 12_000 - RTT_NS <= ep.stall.mean() <= 12_000 * 1.05
    assert got.cv < 0.35
    # the remainder leaves out exactly the stalled samples
    assert got.keep == pytest.approx(1 - got.stall_share)


def test_bursty_plus_iid_recovers_episodes_on_one_clock():
    # Alps-like: episodes of ~1 ms, 300/s of quiet time (a quarter of the time), in which a
    # 50 us stall recurs every 70 us
    rng = np.random.default_rng(3)
    span = 2.0e9
    stalls = [bursty_stalls(rng, span, 300.0, 1e6, 50_000, 20_000), []]
    starts, values = pingpong(body(rng, 260_000), stalls)
    got = run_split(starts, values)
    assert got.kind == "bursty", got.why
    ep = got.episodes
    # one train at a time: the scope test puts the episodes on one clock, at the measured rate
    assert ep.shared and "one train of stalls at a time" in got.why
    # on one clock the model's episodes fill the share of time they filled in the series
    # (rate x (duration + one stall)), here ~21%
    assert ep.time_share() == pytest.approx(300 * 1.05e-3 / (1 + 300 * 1.05e-3), rel=0.15)
    assert ep.rate_hz == pytest.approx(300.0, rel=0.3)
    assert ep.stall.mean() == pytest.approx(50_000 - RTT_NS / 2, rel=0.1)
    # the quiet time between stalls in an episode: 20 us less up to one RTT (a stall starts within a sample)
    gap = float(ep.gap.quantile(np.array([0.5]))[0])
    assert 20_000 - 1.5 * RTT_NS <= gap <= 20_000 * 1.1
    assert ep.mean_episode_ns() == pytest.approx(1.05e6, rel=0.3)
    # the stall indicator recurs at the in-episode period, in samples: 50 us of stall + 20 us / 4.8 us
    assert got.lag in (4, 5, 6) and got.acf > 0.2


def test_rare_bursts_stay_per_host_when_overlaps_cannot_be_told():
    # a few episodes: two hosts' would seldom overlap, so the series cannot say whose they are
    rng = np.random.default_rng(3)
    stalls = [bursty_stalls(rng, 2.0e9, 40.0, 1e6, 50_000, 20_000), []]
    starts, values = pingpong(body(rng, 330_000), stalls)
    got = run_split(starts, values)
    assert got.kind == "bursty" and not got.episodes.shared and "cannot be told" in got.why
    # per host: half the pair's episodes, nearly (1 - (1 - q)^(1/2) of the time share q)
    assert got.episodes.rate_hz == pytest.approx(20.0, rel=0.35)


def test_two_hosts_bursting_independently_stay_per_host():
    # each host its own episodes: where they overlap, two trains interleave
    rng = np.random.default_rng(4)
    span = 3.0e9
    stalls = [bursty_stalls(rng, span, 150.0, 2e6, 40_000, 30_000) for _ in range(2)]
    starts, values = pingpong(body(rng, 450_000), stalls)
    got = run_split(starts, values)
    assert got.kind == "bursty", got.why
    ep = got.episodes
    assert not ep.shared and "each host its own episodes" in got.why
    # per host: 150/s of quiet time, episodes of ~2 ms
    assert ep.rate_hz == pytest.approx(150.0, rel=0.4)


def test_shuffled_bursty_series_has_no_time_structure():
    rng = np.random.default_rng(3)
    stalls = [bursty_stalls(rng, 2.0e9, 80.0, 1e6, 50_000, 20_000), []]
    _, values = pingpong(body(rng, 330_000), stalls)
    shuffled = rng.permutation(values)
    starts = np.concatenate(([0], np.cumsum(shuffled)[:-1])).astype(np.int64)
    got = run_split(starts, shuffled)
    assert got.kind == "independent" and got.episodes is None
    assert "no time structure" in got.why


def test_sorted_series_has_no_order_to_read():
    rng = np.random.default_rng(5)
    values = np.sort(np.rint(body(rng, 50_000)).astype(np.int64))
    values[-500:] += 50_000
    starts = np.concatenate(([0], np.cumsum(values)[:-1])).astype(np.int64)
    got = run_split(starts, values)
    assert got.kind == "independent" and "no order to read time from" in got.why and "\n" not in got.why


def test_series_without_times_has_no_order_to_read():
    rng = np.random.default_rng(6)
    values = np.rint(body(rng, 50_000)).astype(np.int64)
    got = run_split(np.zeros_like(values), values)
    assert got.kind == "independent" and "no order to read time from" in got.why


def test_too_short_a_series_falls_back():
    rng = np.random.default_rng(7)
    values = np.rint(body(rng, 5_000)).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(values)[:-1])).astype(np.int64)
    got = run_split(starts, values)
    assert got.kind == "independent" and got.why.startswith("too short for a time model: 5000 samples")


def test_batches_do_not_change_the_answer():
    # the carry between batches: one batch or many give the same split
    rng = np.random.default_rng(3)
    stalls = [bursty_stalls(rng, 1.0e9, 80.0, 1e6, 50_000, 20_000), []]
    starts, values = pingpong(body(rng, 170_000), stalls)
    one, many = run_split(starts, values, batch=10**9), run_split(starts, values, batch=1000)
    assert one.episodes.spec() == many.episodes.spec() and (one.lag, one.acf, one.cv) == (many.lag, many.acf, many.cv)



def test_episode_durations_and_stall_lengths_are_bounded_by_what_the_series_showed():
    """A few seconds of series cannot support a heavy tail (the busy demo's lognormal of sigma
    2.5 through a median and a mean): the durations and stalls drawn are the measured ones, and
    nothing longer than the longest seen; the profile's line says so."""
    rng = np.random.default_rng(8)
    stalls = [bursty_stalls(rng, 2.0e9, 300.0, 1e6, 50_000, 20_000), []]
    starts, values = pingpong(body(rng, 260_000), stalls)
    got = run_split(starts, values)
    ep = got.episodes
    longest_stall = float(np.max(values)) - float(np.median(values))
    assert ep.stall.support()[1] <= longest_stall + 1.0
    # episodes of 1 ms (two close together may read as one): the longest measured is the bound
    import re

    longest_ms = float(re.search(r"the longest ([0-9.e+-]+) ms", got.why).group(1))
    assert ep.duration.support()[1] == pytest.approx(longest_ms * 1e6, rel=0.01) and longest_ms < 5.0
    assert "nothing longer than" in got.why and "of series showed is drawn" in got.why


def test_episodes_that_fill_the_series_are_no_state_that_comes_and_goes():
    # a busy machine: trains of 20 us stalls every 220 us lasting 200 ms, ~12 ms of quiet between
    # them (~96% of the time in episodes): beyond what an episode model holds, so the series is
    # drawn per message and the profile builds (its episodes used to stop model build)
    rng = np.random.default_rng(11)
    stalls = [bursty_stalls(rng, 3e9, 1e9 / 12e6, 200e6, 20_000, 200_000), []]
    starts, values = pingpong(body(rng, 450_000), stalls)
    got = run_split(starts, values)
    assert got.kind == "independent" and got.episodes is None, got.why
    assert "no state that comes and goes" in got.why and "at most 90%" in got.why


def test_episodes_give_back_the_time_the_series_spent_in_stalls():
    # Daint-like: episodes of ~2 ms at 80/s, stalls of 500 us, and between an episode's stalls
    # either almost nothing (stalls in consecutive round trips) or 100-300 us: quiet times of two
    # kinds, whose quartiles span 5 to 250 us. What meets the stalls by time (a collective started
    # at a random moment) needs the time in them: a lognormal through those quartiles put the
    # mean quiet time at ms and a host's time in stalls at a fraction of the measured
    rng = np.random.default_rng(12)
    span = 3.0e9
    out: list[tuple[float, float]] = []
    t = rng.exponential(1e9 / 80.0)
    while t < span:
        s, end = t, t + 2e6
        while s <= end:
            out.append((s, s + 500_000))
            s += 500_000 + (5_000 if rng.random() < 0.4 else rng.uniform(100_000, 300_000))
        t = out[-1][1] + rng.exponential(1e9 / 80.0)
    starts, values = pingpong(body(rng, 420_000), [out, []])
    got = run_split(starts, values)
    assert got.kind == "bursty", got.why
    ep = got.episodes
    median = float(np.median(values))
    measured = float(np.sum(values[values > got.threshold_ns] - median)) / float(values.sum())
    host = float(np.mean([ep.table(np.random.default_rng(s)).time_share() for s in range(4)]))
    pair = host if ep.shared else 1.0 - (1.0 - host) ** 2
    assert pair == pytest.approx(measured, rel=0.15)
    # the quiet times between an episode's stalls keep their mean (about 122 us, less up to a round trip)
    assert 100_000 <= ep.gap.mean() <= 130_000
