"""Split a bandwidth noise series into drops that persist in time and an independent remainder.

The bandwidth half of model/latency_split.py. A series of large
ping-pongs (Netgauge's 16 MiB `ng_netnoise_mpi_bw.out`, or cloudnoise's own
`measure bandwidth-noise`) is read in its order, with each sample's start time
(model/series_order.py). Its bandwidth is the series' least round trip over
each sample's (a fraction of the peak, as the profile's quantile table has it).

1. **Blocks.** Consecutive samples are taken BLOCK at a time within a stretch,
   each block summed up by its median round trip. Independent per-message
   variation averages out in a block median (a block is slow only when half its
   samples are), a drop that persists does not.
2. **Two levels?** Otsu's threshold splits the blocks' log-binned medians in
   two: the body and the drops. They are two levels when the drops' median
   bandwidth is at most 1 - MIN_DEPTH of the body's, and SEPARATION of the
   body's block spreads (interquartile range / 1.349, in logarithms) below it.
   Otherwise (one level, or a level that varies little from call to call) the
   series has no drops to model.
3. **In time?** Independent per-message drops, however bimodal, put slow
   blocks at random: the slow-block indicator's autocorrelation at lag 1
   (within stretches) is 0. Drops that persist make it at least MIN_ACF and
   ACF_Z standard errors (1 / sqrt(pairs)), with MIN_LOW_BLOCKS slow blocks;
   otherwise the slow samples are per-message variation.
4. **Episodes**: a slow block opens one; it goes on while its blocks stay
   above halfway (in logarithms) from the threshold to the body (hysteresis:
   a drop whose level lies near the threshold is not cut into pieces), and
   MERGE_BLOCKS blocks back at the body between two do not end it. Each edge
   then moves to the sample: the slow samples next to it in the block before
   (after) join it. Its duration is its first sample's start to its last
   sample's end. Its levels are its samples' bandwidths (the least round trip
   over each sample's), each weighted by the time it took: the engine draws
   an episode's level apart from its length, so the levels a moment inside
   an episode meets are these, longer and deeper drops included as measured
   (Daint 2022_05_13: the longer episodes are the deeper ones; one level per
   episode, each episode counted once, gave 4.9 % of round trips more than
   20 % slow where the series has 7.1 %).
5. **Per host.** A ping-pong's round trip holds one message of each host, and
   the engine holds a host's *sent* messages at the episode's fraction
   (model/bandwidth_episodes.py). Read as one host's drop while the other
   host's message moves at the body's median fraction f_b, a measured level
   f is a host fraction f_h with 2/f = 1/f_h + 1/f_b; the levels' measured
   shape (series_order.measured_shape) is mapped through it. Independent hosts: each
   is in an episode a share q_h of the time with 1 - (1 - q_h)^2 = q (the
   share measured), at the measured episodes' mean length; the rate is
   q_h / mean length. The engine replaying the ping-pong then reproduces the
   measured series (a 2-node series cannot tell one host's drop from a drop of
   both directions at once, or of the path).
6. **The remainder** is the samples outside episodes (a streaming histogram:
   the per-message quantile table is taken from it).

Netgauge's series are calls of 1,000 ping-pongs, each a new MPI launch: the
importer drops each call's warm-ups, so the times jump there (a *break*: a step
more than twice the previous round trip). Episodes that begin and end with a
call are counted: a drop that lasts exactly a call is a state of the launch
(its connection or route) as much as a state in time; `why` says how many.

Too short a series (under MIN_SAMPLES), one without order, or with no drops
found falls back to per-message draws of every sample; `why` says which, in
one line, for the profile's provenance. Memory is bounded: the series is read
twice, a batch at a time, and what is kept is a few histograms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from cloudnoise import limits
from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.bandwidth_episodes import BandwidthEpisodes
from cloudnoise.model.distributions import Constant, Distribution, Mixture, Uniform
from cloudnoise.model.series_order import Batch, SeriesOrder, add_log, log_hist, measured_shape, otsu

MIN_SAMPLES = 2_000
BLOCK = 4  # samples per block
PER_DECADE = 2_000  # histogram bins per decade of round trip over the least (0.115 % wide)
DECADES = 3  # down to a thousandth of the peak (limits.MIN_EPISODE_FRACTION)
MIN_DEPTH = 0.05  # the drops' median bandwidth at most 95 % of the body's ...
SEPARATION = 6.0  # ... and this many of the body's block spreads below it
MIN_LOW_BLOCKS = 10
MIN_ACF = 0.1  # a persistent drop: the slow-block indicator's lag-1 autocorrelation at least this ...
ACF_Z = 6.0  # ... and this many standard errors (1 / sqrt(pairs)) above 0
MIN_EPISODES = 3
MERGE_BLOCKS = 1  # this many blocks that are not slow between two that are do not end an episode
MAX_HOST_SHARE = 0.45  # a host in a drop more of the time: the drop is a second normal state, not an episode
BREAK_FACTOR = 2.0  # a step longer than this many previous round trips (+ BREAK_SLACK_NS): samples left out
BREAK_SLACK_NS = 2_000
LEVEL_WEIGHT = 100  # a sample's level counts its round trip in hundredths of the least: weighted by its time


@dataclass(frozen=True)
class BandwidthSplit:
    """What a bandwidth series holds: drops in time (or None) and the independent remainder."""

    kind: str  # "episodes" | "independent"
    why: str  # one line: what was seen, or why the time model does not apply
    samples: int
    episodes: BandwidthEpisodes | None = None
    remainder: StreamStats | None = None  # round trips (ns) outside episodes; None: every sample
    threshold_ns: float = math.nan  # a block whose median round trip is above this is slow
    slow_blocks: int = 0
    acf: float = 0.0  # of the slow-block indicator at lag 1, within stretches
    count: int = 0  # episodes found
    sample_share: float = 0.0  # share of samples inside them
    time_share: float = 0.0  # share of the series' time inside them
    with_calls: int = 0  # episodes that begin and end with a call (a break or the stretch's ends)


@dataclass
class _Blocks:
    """One batch's complete blocks: start, end, median, count, sum (ns), whether a call
    begins in the block, the stretch; and their samples' round trips, block by block."""

    start: np.ndarray
    end: np.ndarray
    median: np.ndarray
    count: np.ndarray
    total: np.ndarray
    call: np.ndarray
    stretch: np.ndarray
    values: np.ndarray
    sample_starts: np.ndarray
    offsets: np.ndarray  # block i's samples are values[offsets[i]:offsets[i + 1]]


def _blocks(batches: Iterable[Batch], order: SeriesOrder) -> Iterator[_Blocks]:
    """The series' blocks of BLOCK consecutive samples (fewer at a stretch's end), aligned
    to each stretch's first sample, carried over batches."""
    pend: tuple[np.ndarray, ...] | None = None  # start, value, stretch, call: the open block's samples
    for start, value, key in batches:
        start = np.asarray(start, np.int64)
        value = np.asarray(value, np.int64)
        key = np.asarray(key, np.int64)
        if start.size == 0:
            continue
        prev_start, prev_value = order.start, order.value
        seg, new = order.read(start, value, key)
        step = start - np.concatenate(([prev_start], start[:-1]))
        before = np.concatenate(([prev_value], value[:-1]))
        call = new | (step > BREAK_FACTOR * before + BREAK_SLACK_NS)
        if pend is not None:
            start, value, seg, call = (np.concatenate((p, x)) for p, x in zip(pend, (start, value, seg, call)))
            new = np.concatenate((np.zeros(pend[0].size, bool), new))
            new[0] = True  # the open block began a block: count positions from it
        idx = np.arange(start.size)
        first = np.maximum.accumulate(np.where(new, idx, 0))
        pos = idx - first
        begins = np.flatnonzero(pos % BLOCK == 0)
        ends = np.concatenate((begins[1:], [start.size]))
        # a block ends early where its stretch does; the last one may go on in the next batch
        stretch_end = np.concatenate((np.flatnonzero(new[1:]) + 1, [start.size]))
        ends = np.minimum(ends, stretch_end[np.searchsorted(stretch_end, begins, side="right")])
        whole = (ends - begins == BLOCK) | (ends < start.size)
        if not whole[-1]:
            b = begins[-1]
            pend = (start[b:], value[b:], seg[b:], call[b:])
            begins, ends = begins[:-1], ends[:-1]
        else:
            pend = None
        if begins.size:
            yield _make(start, value, seg, call, begins, ends)
    if pend is not None:
        yield _make(*pend, np.array([0]), np.array([pend[0].size]))


def _make(start: np.ndarray, value: np.ndarray, seg: np.ndarray, call: np.ndarray, begins: np.ndarray,
          ends: np.ndarray) -> _Blocks:
    cuts = np.concatenate((begins, [ends[-1]]))
    values = value[begins[0]:ends[-1]]
    offsets = cuts - begins[0]
    medians = np.array([np.median(values[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]) \
        if np.any(ends - begins != BLOCK) else np.median(values.reshape(-1, BLOCK), axis=1)
    count = ends - begins
    return _Blocks(start[begins], start[ends - 1] + value[ends - 1], medians, count,
                   np.add.reduceat(values, offsets[:-1]), np.logical_or.reduceat(call[:ends[-1]], begins), seg[begins],
                   values, start[begins[0]:ends[-1]], offsets)


@dataclass
class _PassA:
    order: SeriesOrder = field(default_factory=SeriesOrder)
    blocks: int = 0
    block_hist: np.ndarray = field(default_factory=lambda: log_hist(DECADES, PER_DECADE))


def split_bandwidth(batches: Callable[[], Iterable[Batch]], min_ns: float) -> BandwidthSplit:
    """Split the bandwidth series that `batches()` yields (called once per pass); `min_ns`
    is its least round trip (the peak bandwidth's), from the streaming histogram."""
    if not min_ns > 0:
        raise ValueError(f"least round trip {min_ns!r}")
    a = _PassA()
    for b in _blocks(batches(), a.order):
        a.blocks += b.median.size
        add_log(a.block_hist, b.median, PER_DECADE, min_ns)
    n = a.order.n

    def independent(why: str, **seen: float) -> BandwidthSplit:
        return BandwidthSplit("independent", why, n, **seen)  # type: ignore[arg-type]

    unordered = a.order.fallback(MIN_SAMPLES, "bandwidth noise")
    if unordered is not None:
        return independent(unordered)
    k = otsu(a.block_hist, middle=True)
    body_q = _percentiles(a.block_hist[:k + 1], (25.0, 50.0, 75.0))
    drop_med = _percentiles(a.block_hist[k + 1:], (50.0,))[0] + (k + 1)
    spread = (body_q[2] - body_q[0]) / 1.349 / PER_DECADE  # log10 units
    depth = 10 ** (-(drop_med - body_q[1]) / PER_DECADE)  # the drops' bandwidth over the body's
    threshold = min_ns * 10 ** ((k + 1) / PER_DECADE)
    slow = int(a.block_hist[k + 1:].sum())
    levels = (f"blocks of {BLOCK} samples at {_fraction(body_q[1])} of the peak (spread {100 * spread * math.log(10):.2g}% "
              f"in logarithms), {slow} of {a.blocks} slower")
    if slow == 0 or not (depth <= 1 - MIN_DEPTH and drop_med - body_q[1] >= SEPARATION * spread * PER_DECADE):
        return independent(f"no drops to model: {levels}, at {_fraction(drop_med)} (at most {1 - MIN_DEPTH:g} of the "
                           f"body and {SEPARATION:g} spreads below it to be drops); the bandwidth noise is drawn per message",
                           threshold_ns=threshold, slow_blocks=slow)
    # hysteresis: an episode goes on while its blocks stay below halfway (in logarithms) from the
    # threshold to the body, so a drop whose level lies near the threshold is not cut into pieces
    # (and at least 3 of the body's spreads above it)
    stay_bin = min(k + 1.0, max((k + 1 + body_q[1]) / 2, body_q[1] + 3 * (body_q[2] - body_q[0]) / 1.349))
    stay = min_ns * 10 ** (stay_bin / PER_DECADE)
    b = _second_pass(batches(), threshold, stay, min_ns)
    pb = slow / a.blocks
    acf = (b.both / b.pairs - pb * pb) / (pb - pb * pb) if b.pairs and 0 < pb < 1 else 0.0
    least_acf = max(MIN_ACF, ACF_Z / math.sqrt(max(b.pairs, 1)))
    seen = (f"{levels}: {slow} blocks at {_fraction(drop_med)}, the autocorrelation of slow blocks {acf:.2f} at lag 1")
    if not (slow >= MIN_LOW_BLOCKS and acf >= least_acf):
        return independent(f"{seen}: no drops that persist (at least {MIN_LOW_BLOCKS} slow blocks and an "
                           f"autocorrelation of {least_acf:.2g}); the bandwidth noise is drawn per message",
                           threshold_ns=threshold, slow_blocks=slow, acf=acf)
    if b.episodes < MIN_EPISODES:
        return independent(f"{seen}: {b.episodes} episodes (at least {MIN_EPISODES}); the bandwidth noise is drawn "
                           "per message", threshold_ns=threshold, slow_blocks=slow, acf=acf)
    q = min(1.0, b.episode_ns / a.order.observed_ns) if a.order.observed_ns > 0 else 0.0
    q_host = 1.0 - math.sqrt(1.0 - q)
    shares = dict(threshold_ns=threshold, slow_blocks=slow, acf=acf, count=b.episodes,
                  sample_share=b.samples / n, time_share=q, with_calls=b.with_calls)
    found = (f"{seen}: {b.episodes} episodes, {100 * q:.3g}% of the time ({100 * b.samples / n:.3g}% of samples), "
             f"mean {b.episode_ns / b.episodes / 1e6:.4g} ms, at {_level_text(b.levels)} of the peak")
    calls = (f"; {b.with_calls} of them begin and end with a call of the series (a break in its times or its ends): "
             "a state of the launch as much as of time" if b.with_calls else "")
    if q_host > MAX_HOST_SHARE:
        return independent(f"{found}{calls}: each host would be in a drop {100 * q_host:.3g}% of the time (at most "
                           f"{100 * MAX_HOST_SHARE:g}%): a second normal state, not drops; the bandwidth noise is drawn "
                           "per message", **shares)
    body = min_ns / float(b.remainder.percentile(50.0))
    fraction = _host_fraction(b.levels, body)
    # the durations as measured, bounded by the longest seen: a lognormal through a few
    # episodes' median and mean (sigma 2.3 on Daint 2022_05_13's 16 MiB series) claims episodes
    # of 1,000 times the median that no such series can show
    duration = measured_shape(b.durations)
    rate = q_host / (b.episode_ns / b.episodes) * 1e9
    ep = BandwidthEpisodes(float(f"{rate:.6g}"), duration, fraction)
    bounded = (f"; the episodes' durations as measured ({b.episodes} episodes, the longest "
               f"{b.durations.max / 1e6:.4g} ms: nothing longer is drawn)")
    return BandwidthSplit(
        "episodes", f"{found}{calls}{bounded}; per host (one host's drop, the other's message at the body's median "
        f"{body:.3g}): {describe_episodes(ep)}", n, ep, b.remainder, **shares)  # type: ignore[arg-type]


@dataclass
class _PassB:
    episodes: int = 0
    samples: int = 0
    pairs: int = 0  # consecutive blocks in one stretch
    both: int = 0  # of them, both slow
    episode_ns: float = 0.0
    with_calls: int = 0
    durations: StreamStats = field(default_factory=StreamStats)  # ns
    levels: StreamStats = field(default_factory=StreamStats)  # episodes' samples: round trip over the least, x 1e6, by time
    remainder: StreamStats = field(default_factory=StreamStats)  # round trips outside episodes, ns


@dataclass
class _Block:
    """One block in pass B: its samples' starts and round trips, stretch, whether a call
    begins in it, whether it is slow."""

    starts: np.ndarray
    values: np.ndarray
    stretch: int
    call: bool
    slow: bool


@dataclass
class _Episode:
    stretch: int
    start: float
    end: float
    call: bool  # begins with a call
    levels: StreamStats  # where its samples' levels go (_add_levels)
    least_ns: float
    samples: int = 0
    call_inside: bool = False  # a call begins after its first block

    def take(self, values: np.ndarray) -> None:
        self.samples += values.size
        _add_levels(self.levels, values, self.least_ns)


def _add_levels(levels: StreamStats, values: np.ndarray, least_ns: float) -> None:
    """Each sample's level (its round trip over the least, x 1e6), counted LEVEL_WEIGHT times
    for every least round trip it took: the levels by time."""
    if values.size == 0:
        return
    ratio = np.asarray(values, np.float64) / least_ns
    uniq, where = np.unique(np.maximum(10**6, np.rint(ratio * 1e6)).astype(np.int64), return_inverse=True)
    weight = np.maximum(1, np.rint(ratio * LEVEL_WEIGHT)).astype(np.int64)
    levels.add_counts(uniq, np.bincount(where, weights=weight, minlength=uniq.size).astype(np.int64))


def _second_pass(batches: Iterable[Batch], threshold: float, stay: float, min_ns: float) -> _PassB:
    """Episodes: chains of blocks that begin with a slow one (median above `threshold`) and go
    on while they stay above `stay`, each edge moved to the first (last) sample above `stay`
    next to it in the block before (after); the blocks' lag-1 pairs; the remainder."""
    out = _PassB()
    order = SeriesOrder()
    rest: list[np.ndarray] = []  # samples outside episodes, added to the remainder once per batch
    ep: _Episode | None = None
    quiet: list[_Block] = []  # blocks since the open episode's last slow one
    held: _Block | None = None  # the last block outside an episode: its slow tail may begin the next

    def close(stretch_ends: bool) -> None:
        nonlocal ep, held
        assert ep is not None
        call_after = stretch_ends or ep.call_inside
        if quiet:
            first = quiet[0]
            k = _run_length(first.values > stay)
            if k:
                ep.take(first.values[:k])
                ep.end = float(first.starts[k - 1] + first.values[k - 1])
                first.starts, first.values = first.starts[k:], first.values[k:]
            call_after = call_after or first.call
        out.episodes += 1
        out.samples += ep.samples
        out.episode_ns += ep.end - ep.start
        out.with_calls += int(ep.call and call_after)
        out.durations.add(np.array([max(1, int(round(ep.end - ep.start)))]))
        rest.extend(q.values for q in quiet[:-1])
        held = None if stretch_ends or not quiet else quiet[-1]
        if stretch_ends and quiet:
            rest.append(quiet[-1].values)
        quiet.clear()
        ep = None

    prev: tuple[int, bool] | None = None  # the last block's stretch and whether it was slow
    for blk in _blocks(batches, order):
        slow_blocks = blk.median > threshold
        staying = blk.median > stay
        same = blk.stretch == np.concatenate(([prev[0] if prev else -1], blk.stretch[:-1]))
        both = slow_blocks & np.concatenate(([prev[1] if prev else False], slow_blocks[:-1]))
        out.pairs += int(same.sum())
        out.both += int((same & both).sum())
        prev = (int(blk.stretch[-1]), bool(slow_blocks[-1]))
        if ep is None and not slow_blocks.any():
            # nothing opens here: every block but the last goes to the remainder, the last is held
            if held is not None:
                rest.append(held.values)
            rest.append(blk.values[:blk.offsets[-2]])
            i = blk.median.size - 1
            held = _Block(blk.sample_starts[blk.offsets[i]:], blk.values[blk.offsets[i]:], int(blk.stretch[i]),
                          bool(blk.call[i]), False)
        else:
            for i in range(blk.median.size):
                lo, hi = blk.offsets[i], blk.offsets[i + 1]
                b = _Block(blk.sample_starts[lo:hi], blk.values[lo:hi], int(blk.stretch[i]), bool(blk.call[i]),
                           bool(slow_blocks[i] or (ep is not None and staying[i])))
                if ep is not None and ep.stretch != b.stretch:
                    close(True)
                if held is not None and held.stretch != b.stretch:
                    rest.append(held.values)
                    held = None
                if b.slow:
                    if ep is None:
                        ep = _Episode(b.stretch, float(b.starts[0]), 0.0, b.call or (held is not None and held.call),
                                      out.levels, min_ns)
                        if held is not None:
                            k = _run_length(held.values[::-1] > stay)
                            if k:
                                ep.take(held.values[-k:])
                                ep.start = float(held.starts[-k])
                            rest.append(held.values[:held.values.size - k])
                            held = None
                    else:
                        for q in quiet:
                            ep.take(q.values)
                        quiet.clear()
                        ep.call_inside = ep.call_inside or b.call
                    ep.take(b.values)
                    ep.end = float(b.starts[-1] + b.values[-1])
                elif ep is not None:
                    quiet.append(b)
                    if len(quiet) > MERGE_BLOCKS:
                        close(False)
                else:
                    if held is not None:
                        rest.append(held.values)
                    held = b
        if rest:
            out.remainder.add(np.concatenate(rest))
            rest.clear()
    if ep is not None:
        close(True)
    if held is not None:
        rest.append(held.values)
    if rest:
        out.remainder.add(np.concatenate(rest))
    return out


def _run_length(flags: np.ndarray) -> int:
    """How many of `flags` are true from the first on."""
    off = np.flatnonzero(~flags)
    return int(off[0]) if off.size else int(flags.size)


def _percentiles(hist: np.ndarray, ps: tuple[float, ...]) -> list[float]:
    """Percentiles of a histogram, in bins (fractional: linear within a bin)."""
    total = float(hist.sum())
    cum = np.cumsum(hist)
    out = []
    for p in ps:
        target = total * p / 100.0
        i = int(np.searchsorted(cum, target))
        below = float(cum[i - 1]) if i else 0.0
        inside = float(hist[i]) if i < hist.size else 1.0
        out.append(i + (target - below) / inside if inside else float(i))
    return out


def _fraction(bins: float) -> str:
    return f"{10 ** (-bins / PER_DECADE):.3g}"


def _level_text(levels: StreamStats) -> str:
    lo, mid, hi = (1e6 / float(levels.percentile(p)) for p in (75.0, 50.0, 25.0))
    return f"{mid:.3g} (quartiles {lo:.3g}-{hi:.3g}, by time)"


def _host_fraction(levels: StreamStats, body: float) -> Distribution:
    """The fraction a host's episode holds its messages at: the measured levels' shape
    (series_order.measured_shape), each level read as one host's (see the module doc)."""

    def host(level: float) -> float:
        inverse = 2.0 * level / 1e6 - 1.0 / body  # 2/f - 1/f_b, f = 1e6 / level
        fraction = 1.0 / inverse if inverse > 1.0 else 1.0
        return float(f"{min(1.0, max(limits.MIN_EPISODE_FRACTION, fraction)):.4g}")

    shape = measured_shape(levels)
    parts = zip(shape.weights, shape.components) if isinstance(shape, Mixture) else ((1.0, shape),)
    pieces: list[tuple[float, Distribution]] = []
    for w, part in parts:
        if isinstance(part, Uniform):
            lo, hi = host(part.high), host(part.low)  # a higher round trip is a lower fraction
            pieces.append((w, Uniform(lo, hi) if hi > lo else Constant(lo)))
        else:
            pieces.append((w, Constant(host(float(part.mean())))))
    if len(pieces) == 1:
        return pieces[0][1]
    return Mixture(tuple(w for w, _ in pieces), tuple(d for _, d in pieces))


def describe_episodes(ep: BandwidthEpisodes) -> str:
    """Episodes in a few words: rate, mean length, share of time, fraction of the peak."""
    lo, hi = ep.fraction.support()
    return (f"{ep.rate_hz:.3g} episodes/s of {ep.duration.mean() / 1e6:.4g} ms (mean), {100 * ep.time_share():.3g}% "
            f"of the time, at {ep.fraction.mean():.3g} of the peak ({lo:.3g}-{hi:.3g})")
