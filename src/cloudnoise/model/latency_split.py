"""Split a latency noise series into stalls in time and an independent remainder.

A ping-pong series (Netgauge's or cloudnoise's own) is read in its
order, with each sample's start time (model/series_order.py: what the noise
parts' splits share; model/bandwidth_split.py is the bandwidth's). From that
order and those times:

1. **Stalls.** A sample is a stall when its round trip exceeds the median by
   more than ten times the body's spread (p90 - median), and by at least the
   median itself: far outside what per-message variation does; and, where the
   hosts' OS noise is known, by more than the detours delay 99 % of the round
   trips they delay (those are the OS noise's, not stalls). Its stall is its
   excess over the median (the whole wait lands on that one message).
2. **Is there time in them?** Under independent per-message noise, stalls
   fall like coin flips: the number of samples from one stall to the next is
   geometric (coefficient of variation about 1) and the stall indicator's
   autocorrelation is 0 at every lag. Periodic stalls come at regular
   distances (CV below PERIODIC_CV); bursty ones cluster (CV above BURSTY_CV
   and an autocorrelation at some lag 1..MAX_LAG above both MIN_ACF and
   ACF_Z standard errors). Neither: the series is independent per message.
3. **Periodic**: a stall of the median excess every median start-to-start
   time. **Bursty**: the quiet times between stalls (one stall's end to the
   next one's start) have two populations, inside an episode and between
   episodes, separated where Otsu's threshold splits their logarithms; an
   episode is a chain of stalls whose quiet times are below it. Its duration
   (first stall's start to last stall's start), the in-episode gaps and the
   stalls give the model's distributions; the episodes' count over the quiet
   time gives their rate.
4. **Per host.** A ping-pong passes through two hosts and sees both hosts'
   stalls. With independent hosts (the default), each host is in an episode
   a share q_h of the time with 1 - (1 - q_h)^2 = q (the share measured), at
   the measured episode length; with `shared`, the state is the system's and
   the measured rate is every host's.
5. **The remainder** is the series without its stalls: the samples at or
   below the threshold, a share `keep` of them, i.e. the distribution
   truncated there (`keep` is what build.py cuts its quantile table at).

Too short a series (fewer than MIN_SAMPLES), one without order (no times,
times that run backwards, values in sorted order) or one with too few stalls
(MIN_STALLS) falls back to the independent model; `why` says which, in one
line, for the profile's provenance. Memory is bounded: the series is read
twice, a batch at a time, and everything kept is a few streaming histograms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.distributions import Constant, Distribution
from cloudnoise.model.latency_episodes import MAX_EPISODE_SHARE, LatencyEpisodes, StallTable
from cloudnoise.model.series_order import (
    Batch, SeriesOrder, add_log, log_hist, measured_shape, otsu, with_zero,
)

MIN_SAMPLES = 10_000
MIN_STALLS = 30
SPREAD_FACTOR = 10.0  # a stall exceeds the median by this many (p90 - median) ...
MIN_EXCESS_OF_MEDIAN = 1.0  # ... and by at least this many medians
PERIODIC_CV = 0.35
BURSTY_CV = 1.5
MAX_LAG = 64
MIN_ACF = 0.05
ACF_Z = 6.0
LOG_BINS_PER_DECADE = 40
REPLAY_NS = 500_000_000
MIN_OVERLAP_SHARE = 0.03  # below this share of short quiet times in the replay, overlaps cannot be told  # the scope test replays half a second of ping-pongs


@dataclass(frozen=True)
class LatencySplit:
    """What a series holds: stalls in time (or None) and the independent remainder."""

    kind: str  # "periodic" | "bursty" | "independent"
    why: str  # one line: what was seen, or why the time model does not apply
    samples: int
    threshold_ns: float  # a round trip above this is a stall
    stall_share: float  # share of samples that are stalls
    keep: float  # the remainder is the series' distribution below this probability
    episodes: LatencyEpisodes | None = None
    lag: int = 0  # the lag of the stall indicator's largest autocorrelation
    acf: float = 0.0  # that autocorrelation
    cv: float = math.nan  # of the sample counts between stalls


@dataclass
class _Carry:
    """From the previous batch: the last stall seen (its end, and its sample's index);
    the last MAX_LAG flags."""

    index: int = 0
    stall_end: int | None = None
    stall_start: int = 0
    stall_index: int = 0
    stall_key: int | None = None
    flags: np.ndarray | None = None
    seg: np.ndarray | None = None


def split_latency(batches: Callable[[], Iterable[Batch]], median_ns: float, p90_ns: float, hosts: int = 2,
                  scope: str = "auto", seed: int = 0, least_threshold_ns: float = 0.0) -> LatencySplit:
    """Split the series that `batches()` yields (called once per pass); `median_ns`
    and `p90_ns` are its round trips' (from the streaming histogram). `scope`: whether
    bursty stalls are each host's own (`host`), one state of the system (`shared`), or
    as the series shows (`auto`: `_one_train_at_a_time`); `seed` for that test's replay.
    `least_threshold_ns`: a stall is at least this late (the round trips the hosts' OS
    detours delay stay below it: they are the OS noise's, counted once by the profile's trace)."""
    if scope not in ("auto", "host", "shared"):
        raise ValueError(f"scope {scope!r}")
    threshold = max(median_ns + max(SPREAD_FACTOR * (p90_ns - median_ns), MIN_EXCESS_OF_MEDIAN * median_ns),
                    least_threshold_ns)
    a = _first_pass(batches(), threshold, median_ns)

    def independent(why: str, kind: str = "independent") -> LatencySplit:
        return LatencySplit(kind, why, a.n, threshold, a.stalls / max(a.n, 1), 1.0, None, a.lag, a.acf, a.cv)

    unordered = a.order.fallback(MIN_SAMPLES, "latency noise")
    if unordered is not None:
        return independent(unordered)
    if a.stalls < MIN_STALLS:
        return independent(f"no stalls to model: {a.stalls} of {a.n} round trips above {threshold / 1e3:.3g} us "
                           f"(at least {MIN_STALLS}); the latency noise is drawn per message")
    keep = 1.0 - a.stalls / a.n
    seen = (f"{a.stalls} of {a.n} round trips ({100 * a.stalls / a.n:.3g}%) above {threshold / 1e3:.3g} us, "
            f"distances between them with CV {a.cv:.2f}, largest autocorrelation of the stalls {a.acf:.2f} at "
            f"lag {a.lag}")
    significant = a.acf >= max(MIN_ACF, ACF_Z / math.sqrt(a.n))
    if a.cv <= PERIODIC_CV:
        period = a.period.percentile(50.0)
        stall = measured_shape(a.excess)
        if not stall.mean() < 0.5 * period:
            return independent(f"{seen}: stalls of {stall.mean() / 1e3:.3g} us every {period / 1e3:.3g} us are no "
                               "state that comes and goes; the latency noise is drawn per message")
        ep = LatencyEpisodes(stall, period_ns=float(round(period)), shared=scope == "shared")
        return LatencySplit("periodic", f"{seen}: periodic stalls, {ep.describe()}", a.n, threshold,
                           a.stalls / a.n, keep, ep, a.lag, a.acf, a.cv)
    if not (a.cv >= BURSTY_CV and significant):
        return independent(f"{seen}: no time structure (independent stalls: CV near 1, no autocorrelation above "
                           f"{max(MIN_ACF, ACF_Z / math.sqrt(a.n)):.2g}); the latency noise is drawn per message")
    split = _otsu_log(a.gap_hist)
    b = _second_pass(batches(), threshold, median_ns, split)
    if b.episodes < 2 or b.gaps.count < MIN_STALLS // 3:
        return independent(f"{seen}: clustered, but too few episodes to estimate ({b.episodes}); the latency noise "
                           "is drawn per message")
    in_episodes = b.episode_ns / a.observed_ns if a.observed_ns > 0 else 0.0
    if not in_episodes < MAX_EPISODE_SHARE:
        return independent(f"{seen}: clustered, but in episodes {100 * in_episodes:.3g}% of the time (at most "
                           f"{100 * MAX_EPISODE_SHARE:g}%): no state that comes and goes; the latency noise is drawn "
                           "per message")
    ep = _bursty(a, b, hosts, shared=scope == "shared")
    scope_why = ""
    if scope == "auto" and hosts > 1:
        measured, independent_hosts = _one_train_at_a_time(ep, b, median_ns, threshold, hosts, seed)
        if independent_hosts < MIN_OVERLAP_SHARE:
            scope_why = (f"; each host its own episodes (whether {hosts} hosts' trains overlap cannot be told: "
                         f"independent hosts would overlap in {100 * independent_hosts:.2g}% of the quiet times "
                         "inside episodes)")
        elif measured < independent_hosts / 3:
            ep = _bursty(a, b, hosts, shared=True)
            scope_why = (f"; one train of stalls at a time: {100 * measured:.2g}% of the quiet times inside episodes "
                         f"are under half their median, where {hosts} hosts stalling independently would give "
                         f"{100 * independent_hosts:.2g}% (overlapping trains), so the episodes are one state for "
                         f"every host (a {hosts}-host series cannot tell this from only one host stalling)")
        else:
            scope_why = (f"; overlapping trains as from {hosts} independent hosts ({100 * measured:.2g}% of the quiet "
                         f"times inside episodes under half their median, {100 * independent_hosts:.2g}% expected): "
                         "each host its own episodes")
    bounded = (f"; the episodes' durations and the stalls' lengths as measured ({b.durations.count} episodes of "
               f"several stalls, the longest {b.durations.max / 1e6:.3g} ms; stalls up to {b.stalls.max / 1e3:.3g} us): "
               f"nothing longer than {b.observed_s(a.observed_ns)} of series showed is drawn")
    return LatencySplit("bursty", f"{seen}: {ep.describe()}, episodes split at quiet times above {split / 1e3:.3g} us"
                                 f"{scope_why}{bounded}", a.n, threshold, a.stalls / a.n, keep, ep, a.lag, a.acf, a.cv)


@dataclass
class _PassA:
    order: SeriesOrder = field(default_factory=SeriesOrder)
    stalls: int = 0
    cv: float = math.nan
    acf: float = 0.0
    lag: int = 0
    excess: StreamStats = field(default_factory=StreamStats)
    period: StreamStats = field(default_factory=StreamStats)  # start-to-start times between consecutive stalls
    gap_hist: np.ndarray = field(default_factory=lambda: _log_hist())  # quiet times between stalls, log-binned

    @property
    def n(self) -> int:
        return self.order.n

    @property
    def observed_ns(self) -> float:
        return self.order.observed_ns


def _first_pass(batches: Iterable[Batch], threshold: float, median_ns: float) -> _PassA:
    out = _PassA()
    carry = _Carry()
    lag_pairs = np.zeros(MAX_LAG + 1)
    lag_both = np.zeros(MAX_LAG + 1)
    dist_sum = dist_sq = 0.0
    dist_n = 0
    for start, value, key in batches:
        start = np.asarray(start, np.int64)
        value = np.asarray(value, np.int64)
        key = np.asarray(key, np.int64)
        if start.size == 0:
            continue
        seg, _ = out.order.read(start, value, key)
        flag = value > threshold
        # the stall indicator's lagged co-occurrences, with the carried last MAX_LAG samples before
        f = flag if carry.flags is None else np.concatenate((carry.flags, flag))
        s = seg if carry.seg is None else np.concatenate((carry.seg, seg))
        skip = 0 if carry.flags is None else carry.flags.size
        for k in range(1, MAX_LAG + 1):
            lo = max(0, skip - k)
            same = s[lo:-k] == s[lo + k:] if s.size > k else np.zeros(0, bool)
            if same.size == 0:
                continue
            lag_pairs[k] += int(same.sum())
            lag_both[k] += int((same & f[lo:-k] & f[lo + k:]).sum())
        carry.flags, carry.seg = f[-MAX_LAG:].copy(), s[-MAX_LAG:].copy()
        idx = np.nonzero(flag)[0]
        out.stalls += idx.size
        if idx.size:
            out.excess.add(np.maximum(1, np.rint(value[idx] - median_ns).astype(np.int64)))
            g_index = carry.index + idx
            st, en, sg = start[idx], start[idx] + value[idx], seg[idx]
            # the previous stall (carried from earlier batches, or the one before in this batch)
            p_key = np.concatenate(([carry.stall_key if carry.stall_key is not None else -1], sg[:-1]))
            p_end = np.concatenate(([carry.stall_end or 0], en[:-1]))
            p_start = np.concatenate(([carry.stall_start], st[:-1]))
            p_index = np.concatenate(([carry.stall_index], g_index[:-1]))
            ok = p_key == sg
            if carry.stall_key is None:
                ok[0] = False
            if ok.any():
                dist = (g_index - p_index)[ok].astype(np.float64)
                dist_sum += float(dist.sum())
                dist_sq += float((dist * dist).sum())
                dist_n += int(ok.sum())
                out.period.add(np.maximum(1, (st - p_start)[ok]))
                add_log(out.gap_hist, np.maximum(1, (st - p_end)[ok]).astype(np.float64), LOG_BINS_PER_DECADE)
            carry.stall_key, carry.stall_end = int(sg[-1]), int(en[-1])
            carry.stall_start, carry.stall_index = int(st[-1]), int(g_index[-1])
        carry.index += start.size
    if dist_n >= 2:
        mean = dist_sum / dist_n
        var = max(0.0, dist_sq / dist_n - mean * mean)
        out.cv = math.sqrt(var) / mean if mean > 0 else math.nan
    p = out.stalls / max(out.n, 1)
    if 0 < p < 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            acf = (lag_both[1:] / np.maximum(lag_pairs[1:], 1) - p * p) / (p - p * p)
        k = int(np.argmax(acf))
        out.acf, out.lag = float(acf[k]), k + 1
    return out


@dataclass
class _PassB:
    episodes: int = 0
    single: int = 0  # episodes of one stall
    episode_ns: float = 0.0  # time inside episodes, first stall's start to last stall's end
    durations: StreamStats = field(default_factory=StreamStats)  # first to last stall's start, 2+ stalls
    gaps: StreamStats = field(default_factory=StreamStats)  # quiet times inside episodes
    stalls: StreamStats = field(default_factory=StreamStats)  # excess over the median
    gap_hist: np.ndarray = field(default_factory=lambda: _log_hist())  # quiet times inside episodes, log-binned

    @staticmethod
    def observed_s(observed_ns: float) -> str:
        """The series' span for people: `4.3 s`."""
        return f"{observed_ns / 1e9:.3g} s"

    def short_gaps(self) -> float:
        """Share of the quiet times inside episodes under half their median: where two trains overlap."""
        if self.gaps.count == 0:
            return 0.0
        half = 0.5 * float(self.gaps.percentile(50.0))
        bin_ = int(np.log10(max(half, 1.0)) * LOG_BINS_PER_DECADE)
        return float(self.gap_hist[:bin_].sum()) / self.gaps.count


def _second_pass(batches: Iterable[Batch], threshold: float, median_ns: float, split: float) -> _PassB:
    out = _PassB()
    order = SeriesOrder()
    open_ep: list[int] | None = None  # [stretch, first start, last start, last end, count]

    def close(ep: list[int]) -> None:
        out.episodes += 1
        out.episode_ns += ep[3] - ep[1]
        if ep[4] == 1:
            out.single += 1
        else:
            out.durations.add(np.array([max(1, ep[2] - ep[1])]))

    for start, value, key in batches:
        start = np.asarray(start, np.int64)
        value = np.asarray(value, np.int64)
        key = np.asarray(key, np.int64)
        if start.size == 0:
            continue
        seg, _ = order.read(start, value, key)
        idx = np.nonzero(value > threshold)[0]
        if idx.size == 0:
            continue
        out.stalls.add(np.maximum(1, np.rint(value[idx] - median_ns).astype(np.int64)))
        in_gaps: list[int] = []
        for s_, st, en in zip(seg[idx].tolist(), start[idx].tolist(), (start[idx] + value[idx]).tolist()):
            if open_ep is not None and open_ep[0] == s_ and st - open_ep[3] <= split:
                in_gaps.append(max(1, st - open_ep[3]))
                open_ep[2], open_ep[3] = st, en
                open_ep[4] += 1
                continue
            if open_ep is not None:
                close(open_ep)
            open_ep = [s_, st, st, en, 1]
        if in_gaps:
            g = np.array(in_gaps, np.int64)
            out.gaps.add(g)
            add_log(out.gap_hist, g.astype(np.float64), LOG_BINS_PER_DECADE)
    if open_ep is not None:
        close(open_ep)
    return out


def _log_hist() -> np.ndarray:
    """Bins of LOG_BINS_PER_DECADE per decade of ns, from 1 ns to 10^14 ns."""
    return log_hist(14, LOG_BINS_PER_DECADE)


def _otsu_log(hist: np.ndarray) -> float:
    """The quiet time (ns) that best splits the log-binned histogram in two (Otsu's threshold).
    Quiet times under a microsecond (stalls in consecutive samples) are inside an episode
    whatever the split: they are left out, or they would be split off on their own."""
    hist = hist.copy()
    hist[:3 * LOG_BINS_PER_DECADE] = 0
    if hist.sum() == 0:
        return 1e3
    return float(10 ** ((otsu(hist) + 1) / LOG_BINS_PER_DECADE))


def _bursty(a: _PassA, b: _PassB, hosts: int, shared: bool) -> LatencyEpisodes:
    measured_share = b.episode_ns / a.observed_ns if a.observed_ns > 0 else 0.0
    share = measured_share if shared or hosts <= 1 else 1.0 - (1.0 - measured_share) ** (1.0 / hosts)
    multi = b.episodes - b.single
    # the stalls' lengths and the episodes' durations as measured, bounded by the longest seen
    # (a lognormal through a few seconds' median and mean claims a tail the series cannot show)
    duration: Distribution = Constant(0.0) if multi == 0 else with_zero(b.single / b.episodes,
                                                                         measured_shape(b.durations))
    stall = measured_shape(b.stalls)
    # the rate that gives the model's own episodes (duration + one stall) the measured share of time
    mean_episode = duration.mean() + stall.mean()
    rate = share / ((1.0 - share) * mean_episode) * 1e9
    # the quiet times between an episode's stalls as measured too: on Daint they run from 0 (stalls
    # in consecutive round trips) to hundreds of us, and a lognormal through their quartiles
    # (sigma 2.7-6) put its mean at ms to hours, an episode's stalls far apart, and a host's time
    # in stalls at under half the measured
    return LatencyEpisodes(stall, rate, duration, measured_shape(b.gaps), shared=shared)


def _one_train_at_a_time(per_host: LatencyEpisodes, b: _PassB, median_ns: float, threshold: float, hosts: int,
                         seed: int) -> tuple[float, float]:
    """The measured share of short quiet times inside episodes, and the share a replay of the
    ping-pong gives with `hosts` hosts each stalling independently as `per_host` says: where
    two hosts' trains overlap, stalls come closer together than one train's gap."""
    rng = np.random.default_rng([seed, 0x5C0])
    tables = [per_host.table(rng) for _ in range(hosts)]
    offsets = [int(rng.integers(0, t.period_ns)) for t in tables]
    span = min(REPLAY_NS, *(t.period_ns for t in tables))
    start, value = pingpong(tables, offsets, median_ns, span)
    split = _otsu_log(_quiet_hist(start, value, threshold))
    replay = _second_pass([(start, value, np.zeros_like(start))], threshold, median_ns, split)
    return b.short_gaps(), replay.short_gaps()


def _quiet_hist(start: np.ndarray, value: np.ndarray, threshold: float) -> np.ndarray:
    idx = np.nonzero(value > threshold)[0]
    gaps = np.maximum(1, start[idx[1:]] - (start[idx[:-1]] + value[idx[:-1]])).astype(np.float64)
    hist = _log_hist()
    add_log(hist, gaps, LOG_BINS_PER_DECADE)
    return hist


def pingpong(tables: list[StallTable], offsets: list[int], rtt_ns: float, span_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """Back-to-back ping-pongs of `rtt_ns` between hosts whose stalls are `tables`
    (StallTable, read from `offsets`) for `span_ns`: each sample's start and round trip.
    A message leaves when its sender's stall ends; the ping is host 0's, the pong the
    others' in turn (with more than two hosts, the pair's second host changes)."""
    half = int(round(rtt_ns / 2))
    count = int(span_ns // max(1, int(round(rtt_ns)))) + 1
    starts = np.empty(count, np.int64)
    values = np.empty(count, np.int64)
    t, i = 0, 0
    block = 64
    while i < count:
        n = min(block, count - i)
        clean = t + np.arange(n, dtype=np.int64) * (2 * half)
        d0 = tables[0].delay_ns(clean + offsets[0])
        d1 = np.zeros(n, np.int64)
        for k in range(1, len(tables)):
            d1 = np.maximum(d1, tables[k].delay_ns(clean + half + offsets[k]))
        hit = np.nonzero((d0 > 0) | (d1 > 0))[0]
        j = int(hit[0]) if hit.size else n
        starts[i:i + j] = clean[:j]
        values[i:i + j] = 2 * half
        i += j
        t = int(clean[j - 1] + 2 * half) if j else t
        block = min(4096, block * 2) if j == n else 64
        if j < n and i < count:
            # the first stalled sample: the ping waits for host 0, the pong for the others
            w0 = int(tables[0].delay_ns(np.array([t + offsets[0]]))[0])
            w1 = 0
            for k in range(1, len(tables)):
                w1 = max(w1, int(tables[k].delay_ns(np.array([t + w0 + half + offsets[k]]))[0]))
            starts[i] = t
            values[i] = 2 * half + w0 + w1
            t += int(values[i])
            i += 1
    return starts, values
