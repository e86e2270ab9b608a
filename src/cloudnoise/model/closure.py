"""Closure: a profile gives back its own measurement.

`model build` replays the experiment a profile's network noise was estimated
from, with the profile it made, and compares the replay with the
measurement. The replay is the measurement as the probe ran it: back-to-back
ping-pongs of the experiment's message size between two ranks, one after
another (Netgauge's `ng_netnoise_mpi` loop, cloudnoise's `latency-noise`
probe), as many round trips as were measured. A round trip is what the
probe's timer reads: from one ping's departure to the next ping's departure
(the receive of the pong and its overhead in between), through the clock's
step (`clock_step_ns`: Netgauge's timer on some systems ticks in 238 ns).

The replay drives the engine exactly as `simulate` does
(`simulation.api.run_variant` with the profile's parameters and noise, the
same seeds: repetition r depends only on (seed, r)), never a second
simulator: the chain is a GOAL schedule, cut into `SEGMENT` round trips per
repetition (bounded memory; each segment starts at its own drawn offsets into
the noise, as a measurement resumed at another moment would), and the
engine records each send's departure time (`departures`).

Back to back matters: a stall of 75 us delays one round trip of a
back-to-back series, while it takes the time of twenty; single ping-pongs
started at random moments meet it in proportion to its time instead.

The table compares, relative to the measured median round trip: the
quantiles p50, p90, p99, p99.9 (within 10 %, or 200 ns) and the shares of
round trips more than 1, 2 and 10 us late (within 25 %, or 0.1 points). The
replay closes when every judged row does (p99.9 is shown, not judged).

Beside them, shown and not judged, how consecutive round trips add up: the
sums of SUMS_K consecutive round trips, non-overlapping (the series' within
its stretches, the replay's within its segments; model/chain_sums.py), their
p50 over SUMS_K medians and how far they reach above it (p90 - p50, p99 -
p50), within 25 % or 300 ns. The spreads carry neither the level (a sum
multiplies a median's error by SUMS_K) nor the clock's step; they are what
`model build` keeps or leaves out a latency state by (model/latency_state.py
model/state_choice.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.chain_sums import segment_sums
from cloudnoise.model.quantile_interval import quantile_interval, sorted_at_rank, unpinned_note

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.model.round_trips import RoundTrips
    from cloudnoise.simulation.noise import NoiseSetup
    from cloudnoise.simulation.params import LogGOPS

SEGMENT = 1 << 16  # round trips per repetition of the replay
MAX_REPLAY = 1 << 22  # a longer series is replayed this far (a distribution, not the series itself, is compared)
QUANTILES = (50.0, 90.0, 99.0, 99.9)
LATE_NS = (1_000, 2_000, 10_000)
QUANTILE_TOLERANCE = 0.10  # relative ...
QUANTILE_SLACK_NS = 200.0  # ... or absolute
SHARE_TOLERANCE = 0.25  # relative ...
SHARE_SLACK = 0.001  # ... or absolute (0.1 points)
JUDGED_QUANTILES = (50.0, 90.0, 99.0)  # p99.9 is shown, not judged: a few hundred samples decide it
MIN_ROUND_TRIPS = 1_000  # fewer measured round trips: shown, nothing judged (no p99 to speak of)
SUMS_K = 20  # the closure also shows sums of this many consecutive round trips ...
SUMS_PERCENTILES = (50.0, 90.0, 99.0)  # ... at these percentiles, less K medians ...
SUMS_TOLERANCE = 0.25  # ... within this share ...
SUMS_SLACK_NS = 300.0  # ... or this much (shown, not judged: how a stream of them adds up)


def pingpong_goal(round_trips: int, size: int) -> bytes:
    """GOAL text of `round_trips` back-to-back ping-pongs of `size` bytes between ranks 0 and 1,
    one after another: rank 0 sends, receives the pong, sends again. Rank 0's sends are its ops
    0, 2, 4, ... (send i then receive i)."""
    if round_trips < 1 or size < 1:
        raise CloudnoiseError(f"a ping-pong chain needs at least one round trip of at least 1 B, got "
                              f"{round_trips} of {size} B")
    r0 = [f"s{i}: send {size}b to 1 tag 0\nr{i}: recv {size}b from 1 tag 0\nr{i} requires s{i}\n"
          + (f"s{i} requires r{i - 1}\n" if i else "") for i in range(round_trips)]
    r1 = [f"r{i}: recv {size}b from 0 tag 0\ns{i}: send {size}b to 0 tag 0\ns{i} requires r{i}\n"
          + (f"r{i} requires s{i - 1}\n" if i else "") for i in range(round_trips)]
    return ("num_ranks 2\nrank 0 {\n" + "".join(r0) + "}\nrank 1 {\n" + "".join(r1) + "}\n").encode()


def replay_round_trips(params: LogGOPS, noise: NoiseSetup | None, variant: str, size: int, count: int,
                       seed: int = 0, segment: int = SEGMENT,
                       progress: Callable[[int], None] | None = None) -> np.ndarray:
    """`count` round trips (ns) of back-to-back `size`-byte ping-pongs through the engine, as
    `simulate` runs them with `params`, `noise` and `variant`: segment k is repetition k."""
    from cloudnoise import _engine
    from cloudnoise.simulation.api import run_variant

    out = np.empty(count, np.float64)
    done = 0
    schedules: dict[int, Any] = {}
    k = 0
    while done < count:
        n = min(segment, count - done)
        if n not in schedules:  # a chain of n + 1 pings gives n round trips
            schedules[n] = _engine.parse_goal(pingpong_goal(n + 1, size), f"<{n + 1} ping-pongs>")
        r = run_variant(schedules[n], params=params, noise=noise, variant=variant, reps=1, seed=seed,
                        first_rep=k, threads=1, departures=True)
        assert r.departures_ns is not None
        pings = np.asarray(r.departures_ns[0:2 * (n + 1):2], np.float64)
        out[done:done + n] = np.diff(pings)
        done += n
        k += 1
        if progress is not None:
            progress(done)
    return out


def read_through_clock(values_ns: np.ndarray, step_ns: float, seed: int = 0) -> np.ndarray:
    """Round trips as a clock of `step_ns` reads them: the difference of two readings, each the
    time rounded down to the tick, from a random phase (a reading is exact on average)."""
    if not step_ns > 1.0:
        return values_ns
    rng = np.random.default_rng([seed, 0xC10C])
    phase = rng.uniform(0.0, step_ns, values_ns.size)
    return (np.floor((phase + values_ns) / step_ns) - np.floor(phase / step_ns)) * step_ns


MIN_UNEVEN_TICK_NS = 12.0  # the least tick read from the least gap: four times the 3 ns a value may sit off its tooth


def clock_step(values: np.ndarray, counts: np.ndarray) -> float:
    """The tick of the timer that read these round trips (ns): the usual distance between the
    clusters of distinct values in the body of the distribution (values within 3 ns of each
    other are one tick written with rounding: Netgauge prints RTT/2 in us), or, where the
    values do not take every tick alike and that distance is no tick, their least distance.
    Either only where (nearly) every value of the body lies on its comb. 1 for a clock too
    fine to see."""
    order = np.argsort(values)
    v, c = np.asarray(values, np.float64)[order], np.asarray(counts, np.float64)[order]
    if v.size < 3:
        return 1.0
    cum = np.cumsum(c) / c.sum()
    body = (cum >= 0.01) & (cum <= 0.99)
    v, c = v[body], c[body]
    if v.size < 3:
        return 1.0
    new = np.concatenate(([True], np.diff(v) > 3.0))
    group = np.cumsum(new) - 1
    centres = np.bincount(group, weights=v * c) / np.bincount(group, weights=c)
    if centres.size < 3:
        return 1.0
    gaps = np.diff(centres)
    typical = float(np.median(gaps))
    if typical <= 4.0:
        return 1.0
    close = gaps[gaps < 1.5 * typical]
    step = float(close.mean()) if close.size else typical

    def lattice(tick: float) -> bool:
        """(Nearly) every value of the body within 3 ns of centres[0] + k * tick; a fine clock's
        values fill the gaps between any such comb."""
        offset = (v - centres[0]) % tick
        near = np.minimum(offset, tick - offset) <= 3.0
        return float(c[near].sum()) >= 0.95 * float(c.sum())

    if lattice(step):
        return step
    # a clock whose ticks are not all taken alike (GCP 2022-07-02: values on a 238.4 ns clock,
    # most of them on every fourth tick, gaps of 238 and 715 ns): the least gap, made exact over
    # the body's whole span (a tick read from one gap is off by the printing's rounding), from
    # MIN_UNEVEN_TICK_NS up (a finer comb holds any values within 3 ns of its teeth)
    least = float(gaps.min())
    if least >= MIN_UNEVEN_TICK_NS:
        span = float(centres[-1] - centres[0])
        fine = span / max(round(span / least), 1)
        if lattice(fine):
            return fine
    return 1.0


@dataclass(frozen=True)
class Measured:
    """What the closure compares against, from the measured series: its quantiles (ns), its
    median, the shares more than LATE_NS late (above the median), its length and clock step."""

    count: int
    median_ns: float
    quantiles_ns: dict[float, float]
    late: dict[int, float]
    clock_step_ns: float = 1.0
    # the percentiles SUMS_PERCENTILES of the series' sums of SUMS_K consecutive round trips less
    # SUMS_K medians (ns), by sample (model/chain_sums.py); None where the series has no order
    sums_excess_ns: tuple[float, ...] | None = None
    # each judged quantile's own 95 % interval (ns; model/quantile_interval.py)
    intervals_ns: dict[float, tuple[float, float]] = field(default_factory=dict)

    def with_sums(self, sums_ns: np.ndarray | None) -> Measured:
        """The same, with the series' sums of SUMS_K consecutive round trips (ns; None: no order)."""
        from dataclasses import replace

        if sums_ns is None or sums_ns.size == 0:
            return replace(self, sums_excess_ns=None)
        return replace(self, sums_excess_ns=sums_excess(sums_ns, self.median_ns))

    @staticmethod
    def of(values_ns: np.ndarray, clock_step_ns: float = 1.0) -> Measured:
        """From round trips in memory (a replay, a test's series)."""
        v = np.sort(np.asarray(values_ns, np.float64))
        median = float(nearest_rank(v, 50.0))
        return Measured(int(v.size), median, {p: float(nearest_rank(v, p)) for p in QUANTILES},
                        {t: float(np.mean(v > median + t)) for t in LATE_NS}, clock_step_ns,
                        intervals_ns={p: quantile_interval(sorted_at_rank(v), int(v.size), p)
                                      for p in JUDGED_QUANTILES} if v.size else {})

    @staticmethod
    def from_round_trips(trips: RoundTrips, clock_step_ns: float = 1.0) -> Measured:
        """From a campaign's counted round trips (model/round_trips.py)."""
        median = trips.median()
        q = trips.quantiles(QUANTILES)
        return Measured(trips.count, median, {p: float(x) for p, x in zip(QUANTILES, q)},
                        {t: trips.share_above(median + t) for t in LATE_NS}, clock_step_ns,
                        intervals_ns={p: quantile_interval(trips.at_ranks, trips.count, p) for p in JUDGED_QUANTILES})


def sums_excess(sums_ns: np.ndarray, median_ns: float) -> tuple[float, ...]:
    """The percentiles SUMS_PERCENTILES of sums of SUMS_K round trips, less SUMS_K medians (ns)."""
    v = np.sort(np.asarray(sums_ns, np.float64))
    return tuple(nearest_rank(v, p) - SUMS_K * median_ns for p in SUMS_PERCENTILES)


def sums_spreads(excess: tuple[float, ...]) -> tuple[float, float]:
    """How far sums of SUMS_K reach above their median: p90 - p50 and p99 - p50 (ns), from the
    percentiles SUMS_PERCENTILES. Free of the level (the median round trip, which the quantile
    rows judge, and whose error a sum multiplies by SUMS_K) and of the clock's step."""
    return excess[1] - excess[0], excess[2] - excess[0]


def sums_distance(measured: tuple[float, ...], replay: tuple[float, ...]) -> float:
    """How far a replay's sums spread from the measured ones (`sums_spreads`), in tolerances: the
    largest |replay - measured| over max(SUMS_TOLERANCE x |measured|, SUMS_SLACK_NS); 1 or less:
    within."""
    return max(abs(r - m) / max(SUMS_TOLERANCE * abs(m), SUMS_SLACK_NS)
               for m, r in zip(sums_spreads(measured), sums_spreads(replay)))


def nearest_rank(sorted_values: np.ndarray, percent: float) -> float:
    """The k-th smallest of sorted values, k = ceil(p/100 n) (at least 1): the definition
    model/round_trips.py uses for the measured side."""
    n = sorted_values.size
    k = max(1, math.ceil(percent / 100.0 * n))
    return float(sorted_values[min(k, n) - 1])


@dataclass(frozen=True)
class ClosureRow:
    statistic: str  # "p90", "late > 2 us"
    measured: float  # ns for a quantile, a share for a late row
    replay: float
    judged: bool
    within: bool
    # a quantile row's measured value's own 95 % interval (model/quantile_interval.py)
    interval: tuple[float, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"statistic": self.statistic, "measured": self.measured, "replay": self.replay,
                               "judged": self.judged, "within": self.within}
        if self.interval is not None:
            out["interval_95"] = list(self.interval)
        return out


@dataclass(frozen=True)
class Closure:
    """The replay against the measurement, row by row, and whether it closes."""

    experiment: str
    size_bytes: int
    round_trips: int
    rows: tuple[ClosureRow, ...]
    clock_step_ns: float
    seed: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    replayed: int = 0  # round trips the replay ran (the measured count, up to MAX_REPLAY)
    tolerance: str = ""  # what the rows are judged by, where not the latency's (model/bandwidth_closure.py)

    @property
    def judged(self) -> bool:
        """Whether the measurement was long enough to judge the replay by (MIN_ROUND_TRIPS)."""
        return self.round_trips >= MIN_ROUND_TRIPS

    @property
    def closes(self) -> bool:
        return self.judged and all(r.within for r in self.rows if r.judged)

    @property
    def misses(self) -> list[str]:
        return [r.statistic for r in self.rows if r.judged and not r.within]

    def summary(self) -> str:
        """One line: closes, or which rows miss."""
        if not self.judged:
            return (f"not judged: {self.round_trips} round trips of {self.experiment} are too few (at least "
                    f"{MIN_ROUND_TRIPS:,})")
        if self.closes:
            return f"closes: the replay of {self.round_trips:,} round trips gives back {self.experiment}"
        worst = ", ".join(f"{r.statistic} {shown_value(r.statistic, r.replay)} against "
                          f"{shown_value(r.statistic, r.measured)}"
                          for r in self.rows if r.judged and not r.within)
        return f"misses: the replay of {self.experiment} gives {worst}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment, "size_bytes": self.size_bytes, "round_trips": self.round_trips,
            "replayed": self.replayed,
            "clock_step_ns": self.clock_step_ns, "seed": self.seed, "closes": self.closes,
            "rows": [r.as_dict() for r in self.rows], "notes": list(self.notes),
            "tolerance": self.tolerance or (
                f"quantiles within {QUANTILE_TOLERANCE:.0%} or {QUANTILE_SLACK_NS:g} ns (p99.9 shown, not "
                f"judged); shares late (above the measured median) within {SHARE_TOLERANCE:.0%} or "
                f"{100 * SHARE_SLACK:g} points; sums of {SUMS_K} consecutive round trips (shown, not "
                f"judged): their p50 over {SUMS_K} medians, and how far they reach above it (p90 - p50, "
                f"p99 - p50), within {SUMS_TOLERANCE:.0%} or {SUMS_SLACK_NS:g} ns"),
        }


def shown_value(statistic: str, value: float) -> str:
    """A closure row's value as printed: a share late or slower in %, a time in us."""
    return f"{100 * value:.3g}%" if statistic.startswith(("late", "slower")) else f"{value / 1e3:.4g} us"


def compare(measured: Measured, replay_ns: np.ndarray, experiment: str, size: int, seed: int,
            notes: tuple[str, ...] = (), replay_sums_ns: np.ndarray | None = None) -> Closure:
    """The closure table: the replay's round trips against the measured statistics; with the
    measured sums (`measured.sums_excess_ns`) and the replay's (`replay_sums_ns`, sums of
    SUMS_K of its round trips in order), their rows too, shown and not judged."""
    r = np.sort(np.asarray(replay_ns, np.float64))
    rows: list[ClosureRow] = []
    enough = measured.count >= MIN_ROUND_TRIPS
    limits: list[str] = []
    for p in QUANTILES:
        got = nearest_rank(r, p)
        want = measured.quantiles_ns[p]
        allowed = max(QUANTILE_TOLERANCE * abs(want), QUANTILE_SLACK_NS)
        ok = abs(got - want) <= allowed
        row = ClosureRow(f"p{p:g}", want, float(got), p in JUDGED_QUANTILES and enough, bool(ok),
                         measured.intervals_ns.get(p))
        rows.append(row)
        limits.extend(limit_notes(row, allowed))
    for t in LATE_NS:
        want = measured.late[t]
        got = float(np.mean(r > measured.median_ns + t))
        ok = abs(got - want) <= max(SHARE_TOLERANCE * want, SHARE_SLACK)
        rows.append(ClosureRow(f"late > {t // 1000} us", want, got, enough, bool(ok)))
    if measured.sums_excess_ns is not None and replay_sums_ns is not None and replay_sums_ns.size:
        want_sums = measured.sums_excess_ns
        got_sums = sums_excess(replay_sums_ns, measured.median_ns)
        p50_ok = abs(got_sums[0] - want_sums[0]) <= max(SUMS_TOLERANCE * abs(want_sums[0]), SUMS_SLACK_NS)
        rows.append(ClosureRow(f"sums of {SUMS_K} p50", want_sums[0], got_sums[0], False, bool(p50_ok)))
        for name, want, got in zip(("p90 - p50", "p99 - p50"), sums_spreads(want_sums), sums_spreads(got_sums)):
            ok = abs(got - want) <= max(SUMS_TOLERANCE * abs(want), SUMS_SLACK_NS)
            rows.append(ClosureRow(f"sums of {SUMS_K} {name}", want, got, False, bool(ok)))
    return Closure(experiment, int(size), int(measured.count), tuple(rows), float(measured.clock_step_ns), int(seed),
                   (*notes, *limits), int(r.size))


def limit_notes(row: ClosureRow, allowed: float) -> list[str]:
    """The note for a judged quantile row that misses at the measurement's limit
    (model/quantile_interval.py), as a list of none or one."""
    if not row.judged or row.within or row.interval is None:
        return []
    note = unpinned_note(row.statistic, row.measured, row.replay, row.interval, allowed,
                         lambda v: shown_value(row.statistic, v))
    return [note] if note else []


def replay_of(profile: SystemProfile, count: int, size: int, seed: int = 0) -> np.ndarray:
    """`count` back-to-back ping-pongs of `size` bytes with `profile` (`--noise both`: all of its
    noise), in order (ns; segment k is repetition k)."""
    from cloudnoise.simulation.noise import noise_from_profile
    from cloudnoise.simulation.params import LogGOPS

    params = LogGOPS.from_profile(profile)
    noise = noise_from_profile(profile, seed)
    variant = noise.default_variants()[0] if noise.has_os or noise.has_network else "none"
    return replay_round_trips(params, noise if variant != "none" else None, variant, size, count, seed)


def closure_of(profile: SystemProfile, measured: Measured, size: int, experiment: str, seed: int = 0,
               notes: tuple[str, ...] = (), replay: np.ndarray | None = None) -> Closure:
    """Replays `measured.count` ping-pongs of `size` bytes with `profile` (`--noise both`: all
    of its noise; `replay`: that replay, already run, of at least as many round trips: its first
    ones are compared, and all of them give the sums) and compares them with the measurement."""
    count = min(measured.count, MAX_REPLAY)
    if count < measured.count:
        notes = (*notes, f"replayed {count:,} of the {measured.count:,} round trips measured")
    if replay is None:
        replay = replay_of(profile, count, size, seed)
    read = read_through_clock(replay[:count], measured.clock_step_ns, seed)
    # sums of consecutive round trips, from the whole replay (a longer one than measured gives the
    # model's sums more surely), not through the clock: a sum spans readings that follow each
    # other, so the clock's step enters it once, not once per round trip
    sums = segment_sums(replay, SUMS_K, SEGMENT) if measured.sums_excess_ns is not None else None
    return compare(measured, read, experiment, size, seed, notes, sums)
