"""Closure of the bandwidth: a profile gives back its own large-message series.

The bandwidth half of model/closure.py. `model build` replays the campaign's
bandwidth series (back-to-back ping-pongs of its largest size: Netgauge's
16 MiB `ng_netnoise_mpi_bw.out`, cloudnoise's `bandwidth-noise` probe) with the
profile it made, through the engine as `simulate --noise both` runs it (its
bandwidth noise and drops in time, its latency noise and stalls, its OS
noise), as many round trips as measured up to MAX_REPLAY, and compares the
round trips with the measured ones.

The table, relative to the measured median round trip: the quantiles p1, p10,
p50, p90, p99 (judged: within 10 %, the latency closure's tolerance; p99.9 shown)
and the shares of round trips more than 2, 5 and 20 % slower than the median
(judged: within 25 % or 0.1 points, as the latency closure's shares late). A
large message's round trip spreads by a few percent where the latency's
spreads by its whole median, so the quantiles judge the level and the shares
the spread: a profile whose level is the series' but whose per-message
fractions, drawn for both messages of a round trip, narrow the spread closes
at the quantiles and misses at the shares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cloudnoise.measurement.summaries import RELATIVE_PRECISION
from cloudnoise.model.closure import (
    MIN_ROUND_TRIPS, QUANTILE_TOLERANCE, SHARE_SLACK, SHARE_TOLERANCE, Closure, ClosureRow, limit_notes, nearest_rank,
    replay_of,
)
from cloudnoise.model.quantile_interval import quantile_interval

if TYPE_CHECKING:
    from cloudnoise.measurement.summaries import StreamStats
    from cloudnoise.model.profile import SystemProfile

QUANTILES = (1.0, 10.0, 50.0, 90.0, 99.0, 99.9)
JUDGED_QUANTILES = (1.0, 10.0, 50.0, 90.0, 99.0)  # p99.9 is shown, not judged
SLOWER = (0.02, 0.05, 0.20)  # shares of round trips slower than the median by more than these
MAX_REPLAY = 100_000  # round trips replayed at most: ~5 min of 16 MiB ping-pongs, a few seconds of engine
TOLERANCE = (f"quantiles within {QUANTILE_TOLERANCE:.0%} (p99.9 shown, not judged); shares slower than the "
             f"measured median by more than {', '.join(f'{100 * f:g}' for f in SLOWER)} % within "
             f"{SHARE_TOLERANCE:.0%} or {100 * SHARE_SLACK:g} points")


def slower_label(fraction: float) -> str:
    """The row's name for the share slower than the median by more than `fraction`."""
    return f"slower > {100 * fraction:g} %"


def compare_bandwidth(stats: StreamStats, replay_ns: np.ndarray, experiment: str, size: int, seed: int) -> Closure:
    """The replay's round trips against the measured series' summary (`stats`, a streaming
    histogram of its round trips), row by row."""
    r = np.sort(np.asarray(replay_ns, np.float64))
    enough = stats.count >= MIN_ROUND_TRIPS
    median = float(stats.percentile(50.0))
    measured_q = stats.quantiles(np.asarray(QUANTILES) / 100.0)
    rows: list[ClosureRow] = []
    limits: list[str] = []
    for p, want in zip(QUANTILES, measured_q.tolist()):
        got = nearest_rank(r, p)
        allowed = QUANTILE_TOLERANCE * abs(want)
        ok = abs(got - want) <= allowed
        interval = _histogram_interval(stats, p) if p in JUDGED_QUANTILES else None
        row = ClosureRow(f"p{p:g}", float(want), float(got), p in JUDGED_QUANTILES and enough, bool(ok), interval)
        rows.append(row)
        limits.extend(limit_notes(row, allowed))
    values, counts = stats.recorded()
    for f in SLOWER:
        limit = median * (1.0 + f)
        want = float(counts[values > limit].sum()) / stats.count
        got = float(np.mean(r > limit))
        ok = abs(got - want) <= max(SHARE_TOLERANCE * want, SHARE_SLACK)
        rows.append(ClosureRow(slower_label(f), want, got, enough, bool(ok)))
    return Closure(experiment, int(size), int(stats.count), tuple(rows), 1.0, int(seed), tuple(limits), int(r.size),
                   tolerance=TOLERANCE)


def _histogram_interval(stats: StreamStats, percent: float) -> tuple[float, float]:
    """The measured quantile's 95 % interval (model/quantile_interval.py) from the streaming
    histogram, whose nearest rank is its bucket's upper end, within RELATIVE_PRECISION above the
    exact value: the low end is widened by that much."""
    n = int(stats.count)
    low, high = quantile_interval(lambda k: stats.quantiles(k / n), n, percent)
    return low / (1.0 + RELATIVE_PRECISION), high


def bandwidth_closure_of(profile: SystemProfile, stats: StreamStats, size: int, experiment: str,
                         seed: int = 0) -> Closure:
    """Replays min(measured, MAX_REPLAY) back-to-back `size`-byte ping-pongs with `profile` (all
    of its noise) and compares them with the measured series' summary."""
    count = min(int(stats.count), MAX_REPLAY)
    closure = compare_bandwidth(stats, replay_of(profile, count, size, seed), experiment, size, seed)
    if count < stats.count:
        from dataclasses import replace

        closure = replace(closure, notes=(f"replayed {count:,} of the {stats.count:,} round trips measured",
                                          *closure.notes))
    return closure
