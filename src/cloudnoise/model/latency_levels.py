"""Latency levels that persist in time: what sums of consecutive round trips show.

A measured ping-pong series often varies more over a stretch of round trips
than its round trips would if each were drawn on its own: the sums of 20
consecutive round trips of an AWS c5n or a GCP run vary 3-5 times as much as
20 independent draws allow. A level that holds for a while (the path's or the
hosts' state, which a stream of messages meets for many round trips) does
that; per-message draws cannot, however they are fitted.

The model, per sending host: its latency level is constant for a time drawn
exponential (mean `hold`), then a new level is drawn independently from the
`level` distribution; each message the host sends carries the level of the
moment it is sent (the engine's noise/level_process.hpp). A round trip holds
one message of each host, so its level part is the sum of two hosts' levels,
and consecutive round trips share it with a correlation that falls as
exp(-time apart / hold).

How it is estimated (`fit_levels`, streamed a batch at a time):

1. The variance of sums of k consecutive round trips, within the series'
   stretches, for k from 1 to 500 (round trips above `clip_ns`, the stalls,
   counted at the median: they are modelled on their own, and a train of
   stalls in time would read as a level).
2. A remainder that is independent from round trip to round trip (variance
   s2) plus a level part of variance c whose correlation at a lag of j round
   trips is rho^j gives Var(S_k) = k (s2 + c) + 2 c sum_{j<k} (k - j) rho^j.
   s2, c and rho are fitted to the measured variances (least squares in
   logarithms); hold = -(mean round trip) / ln(rho).
3. The level itself: medians of blocks of about a quarter of a hold (a
   block's median follows the level, not the round trips' tail, which sums
   of round trips also weigh: stalls that cluster in time are no level of the
   body), their variance less what the round trips' own spread leaves in a
   median, halved in variance for one host of two, written as a mixture of
   PIECES uniform pieces between its quantiles, with median 0. Where nothing
   is left, the persistence is the tail's, and there are no levels.

No levels where sums of 20 vary less than MIN_RATIO_20 times independent
ones, where the fitted level changes within MIN_HOLD_ROUND_TRIPS round trips
(per-message noise then), or where the series is too short to say.

What it cannot tell: a 2-node series cannot tell one host's level from the
path's, nor a level that follows the measurement's launches (Netgauge's calls
of 1,000 ping-pongs) from one of the system in time; the profile says which
question it answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.distributions import Distribution, parse_inline_distribution, split_top_level

KS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500)
MIN_BLOCKS = 50  # a k is fitted only with at least this many sums
MIN_RATIO_20 = 1.1
MIN_HOLD_ROUND_TRIPS = 2.0
PIECES = 20
MAX_BLOCK_MEANS = 1 << 20
TRIM = 0.001  # the level's shape between these quantiles of the block medians (outliers left out)

Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class LatencyLevels:
    """Levels per sending host: a new one every `hold_ns` on average, drawn from `level` (ns)."""

    hold_ns: float
    level: Distribution
    text: str

    def spec(self) -> str:
        return self.text

    def describe(self) -> str:
        lo, hi = (float(v) for v in self.level.quantile(np.array([0.05, 0.95])))
        return (f"a level per sending host that holds {_time(self.hold_ns)} on average (exponential), then a new one "
                f"is drawn: {lo:+.4g} to {hi:+.4g} ns (5-95 %) around the per-message noise")


def _time(ns: float) -> str:
    return f"{ns / 1e6:.4g} ms" if ns >= 1e6 else f"{ns / 1e3:.4g} us" if ns >= 1e3 else f"{ns:.4g} ns"


def parse_latency_levels(spec: str) -> LatencyLevels:
    """LatencyLevels from `hold=TIME,level=DIST` (DIST in ns, e.g. `uniform(low=-200,high=200)`)."""
    text = str(spec).strip()
    params: dict[str, str] = {}
    for item in split_top_level(text, ",", text, "NAME=VALUE item"):
        name, eq, value = item.partition("=")
        if not eq:
            raise CloudnoiseError(f"bad latency levels {shown(text)}: write hold=TIME,level=DIST")
        params[name.strip()] = value.strip()
    unknown = set(params) - {"hold", "level"}
    if unknown:
        raise CloudnoiseError(f"in {shown(text)}: latency levels take hold and level; unknown "
                              f"{', '.join(sorted(unknown))}")
    missing = {"hold", "level"} - set(params)
    if missing:
        raise CloudnoiseError(f"in {shown(text)}: latency levels need hold=TIME and level=DIST; missing "
                              f"{', '.join(sorted(missing))}")
    hold = parse_inline_distribution(params["hold"], "hold", time=True)
    lo, hi = hold.support()
    if lo != hi or not (0 < lo <= 1e14):
        raise CloudnoiseError(f"in {shown(text)}: hold= is one time above 0 and at most 10^5 s (e.g. 40us)")
    level = parse_inline_distribution(params["level"], "level", time=True)
    a, b = level.support()
    if not (math.isfinite(a) and math.isfinite(b) and -1e9 <= a <= b <= 1e9):
        raise CloudnoiseError(f"in {shown(text)}: level= must lie within +-1 ms (finite bounds), got {a:.4g} to "
                              f"{b:.4g} ns")
    return LatencyLevels(float(lo), level, text)


@dataclass(frozen=True)
class LevelFit:
    """What the series' sums of consecutive round trips say, and the levels made of it (or why none)."""

    ks: tuple[int, ...]
    measured_ratio: tuple[float, ...]  # Var(S_k) / (k Var(x)): 1 for independent round trips
    model_ratio: tuple[float, ...]
    remainder_var_ns2: float
    level_var_ns2: float  # of the round trip's level part (two hosts' levels): the block medians' with levels
    rho: float  # correlation of the level part from one round trip to the next
    round_trip_ns: float  # the series' mean round trip (its time per round trip)
    levels: LatencyLevels | None
    why: str

    def hold_round_trips(self) -> float:
        return 1.0 / (1.0 - self.rho) if self.rho < 1.0 else math.inf

    def ratio_at(self, k: int) -> float:
        return self.measured_ratio[self.ks.index(k)] if k in self.ks else math.nan

    def to_json(self) -> dict[str, object]:
        return {"used": self.levels is not None, "why": self.why, "levels": self.levels.spec() if self.levels else None,
                "ks": list(self.ks), "measured_ratio": list(self.measured_ratio),
                "model_ratio": list(self.model_ratio), "remainder_var_ns2": self.remainder_var_ns2,
                "level_var_ns2": self.level_var_ns2, "rho": self.rho,
                "hold_round_trips": self.hold_round_trips(), "round_trip_ns": self.round_trip_ns}


def _stretches(batches: Iterable[Batch]) -> Iterable[tuple[np.ndarray, bool]]:
    """The series' values in order, cut where a stretch begins: (values, whether they start a stretch)."""
    last_key: int | None = None
    last_start: int | None = None
    for starts, values, key in batches:
        starts = np.asarray(starts, np.int64)
        key = np.asarray(key, np.int64)
        if values.size == 0:
            continue
        new = np.zeros(values.size, bool)
        new[1:] = (key[1:] != key[:-1]) | (starts[1:] < starts[:-1])
        new[0] = last_key is None or int(key[0]) != last_key or (last_start is not None and int(starts[0]) < last_start)
        cuts = np.flatnonzero(new).tolist()
        bounds = ([0] if not cuts or cuts[0] != 0 else []) + cuts + [values.size]
        for a, b in zip(bounds[:-1], bounds[1:]):
            if b > a:
                yield np.asarray(values[a:b], np.float64), bool(new[a])
        last_key, last_start = int(key[-1]), int(starts[-1])


class _BlockSums:
    """Sums of k consecutive values within stretches, streamed: their count, sum and sum of squares."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.carry = np.empty(0)
        self.n = 0
        self.s = 0.0
        self.ss = 0.0

    def add(self, x: np.ndarray, new_stretch: bool) -> None:
        if new_stretch:
            self.carry = np.empty(0)
        v = np.concatenate((self.carry, x)) if self.carry.size else x
        full = v.size // self.k
        if full:
            sums = v[:full * self.k].reshape(full, self.k).sum(axis=1)
            self.n += full
            self.s += float(sums.sum())
            self.ss += float(np.dot(sums, sums))
        self.carry = v[full * self.k:].copy()

    def variance(self) -> float:
        return self.ss / self.n - (self.s / self.n) ** 2 if self.n > 1 else math.nan


def _body(x: np.ndarray, median_ns: float, clip_ns: float) -> np.ndarray:
    """Round trips over the median, a stall (above `clip_ns`) counted at the median: stalls are
    modelled on their own (per message or in time), and their trains would read as a level."""
    return np.where(x > clip_ns, 0.0, x - median_ns)


def _model(s2: float, c: float, rho: float, ks: np.ndarray) -> np.ndarray:
    out = np.empty(ks.size)
    for i, k in enumerate(ks):
        j = np.arange(1, int(k))
        out[i] = k * (s2 + c) + 2.0 * c * float(np.sum((k - j) * rho ** j))
    return out


def _fit(ks: np.ndarray, var: np.ndarray, total: float) -> tuple[float, float, float]:
    from scipy.optimize import least_squares

    def residual(p: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(_model(p[0], p[1], p[2], ks), 1e-300)) - np.log(var)

    best = None
    for rho0 in (0.5, 0.9, 0.99, 0.999):
        got = least_squares(residual, [0.8 * total, 0.2 * total, rho0],
                            bounds=([total * 1e-9, 0.0, 0.0], [np.inf, np.inf, 0.99999]))
        if best is None or got.cost < best.cost:
            best = got
    assert best is not None
    return float(best.x[0]), float(best.x[1]), float(best.x[2])


def fit_levels(batches: Callable[[], Iterable[Batch]], median_ns: float, clip_ns: float) -> LevelFit:
    """Levels from a ping-pong series read a batch at a time (twice): `median_ns` its median,
    `clip_ns` the stall threshold (round trips above it counted at the median)."""
    sums = [_BlockSums(k) for k in KS]
    count, total_ns = 0, 0.0
    for x, new in _stretches(batches()):
        count += x.size
        total_ns += float(x.sum())
        clipped = _body(x, median_ns, clip_ns)
        for b in sums:
            b.add(clipped, new)
    mean_rt = total_ns / count if count else math.nan
    usable = [(b.k, b.variance()) for b in sums if b.n >= MIN_BLOCKS and b.variance() > 0]

    def none(why: str, ks: tuple[int, ...] = (), measured: tuple[float, ...] = (), model: tuple[float, ...] = (),
             s2: float = math.nan, c: float = 0.0, rho: float = 0.0) -> LevelFit:
        return LevelFit(ks, measured, model, s2, c, rho, mean_rt, None, why)

    if len(usable) < 4 or usable[0][0] != 1:
        return none(f"too few round trips ({count}) for sums of consecutive ones to say whether levels persist")
    ks = np.array([k for k, _ in usable], np.float64)
    var = np.array([v for _, v in usable])
    v1 = var[0]
    measured = tuple(float(v / (k * v1)) for k, v in zip(ks, var))
    s2, c, rho = _fit(ks, var, v1)
    model = tuple(float(v / (k * v1)) for k, v in zip(ks, _model(s2, c, rho, ks)))
    kk = tuple(int(k) for k in ks)
    r20 = measured[kk.index(20)] if 20 in kk else math.nan
    if not r20 >= MIN_RATIO_20:
        return none(f"sums of 20 consecutive round trips vary {r20:.3g}x what independent ones would (below "
                    f"{MIN_RATIO_20}): no level that persists", kk, measured, model, s2, c, rho)
    hold_rt = 1.0 / (1.0 - rho)
    if not (c > 0 and hold_rt >= MIN_HOLD_ROUND_TRIPS):
        return none(f"the fitted level changes every {hold_rt:.3g} round trips: per-message noise, no level",
                    kk, measured, model, s2, c, rho)
    hold_ns = -mean_rt / math.log(rho)
    w = max(1, int(round(hold_rt / 4.0)))
    shape = _level_shape(batches, median_ns, clip_ns, w)
    fitted = (f"sums of 20 consecutive round trips vary {r20:.3g}x what independent ones would; a level of "
              f"variance {c:.4g} ns^2 that holds {hold_rt:.3g} round trips ({_time(hold_ns)}) on average, beside "
              f"an independent remainder of variance {s2:.4g} ns^2, gives back sums of 1-{kk[-1]} within "
              f"{100 * max(abs(math.log(a / b)) for a, b in zip(model, measured)):.2g} %")
    if shape is None:
        return none(f"{fitted}; but the medians of blocks of {w} round trips vary no more than the round trips' "
                    "own spread leaves in them: the persistence is in the tail, not a level", kk, measured, model,
                    s2, c, rho)
    spec, body_var = shape
    levels = parse_latency_levels(f"hold={hold_ns:.6g}ns,level={spec}")
    why = (f"{fitted}; the level itself from the medians of blocks of {w} round trips: variance {body_var:.4g} "
           f"ns^2 (two hosts'), the rest of the persistence in the tail")
    return LevelFit(kk, measured, model, s2, body_var, rho, mean_rt, levels, why)


def _level_shape(batches: Callable[[], Iterable[Batch]], median_ns: float, clip_ns: float,
                 w: int) -> tuple[str, float] | None:
    """One host's level as a mixture of uniform pieces (ns), and the round trip's level variance
    (two hosts'): from the medians of blocks of `w` round trips (a block's median follows the
    level and not the round trips' tail, which sums of round trips also weigh), less what the
    round trips' own spread leaves in a median of `w` (pi/2 sigma^2 / w), its median at 0."""
    medians: list[np.ndarray] = []
    spreads: list[np.ndarray] = []
    held = 0
    carry = np.empty(0)
    for x, new in _stretches(batches()):
        if new:
            carry = np.empty(0)
        body = _body(x, median_ns, clip_ns)
        v = np.concatenate((carry, body)) if carry.size else body
        full = v.size // w
        if full and held < MAX_BLOCK_MEANS:
            blocks = v[:full * w].reshape(full, w)[:MAX_BLOCK_MEANS - held]
            m = np.median(blocks, axis=1)
            medians.append(m)
            spreads.append(1.4826 * np.median(np.abs(blocks - m[:, None]), axis=1))
            held += m.size
        carry = v[full * w:].copy()
    if held < MIN_BLOCKS:
        return None
    b = np.concatenate(medians)
    b = b - np.median(b)
    sigma = float(np.median(np.concatenate(spreads)))
    level_var = float(b.var()) - (math.pi / 2.0) * sigma * sigma / w
    if not level_var > 0:
        return None
    b = b * math.sqrt(level_var / float(b.var()))
    q = np.quantile(b, np.linspace(TRIM, 1.0 - TRIM, PIECES + 1))
    # median 0: most of the time a host sits at its usual level, and the rarer high (or low) ones
    # move it; a mean of 0 would put the bulk of a skewed level below the round trips' floor
    q = q - q[PIECES // 2]
    lo, hi = q[:-1], q[1:]
    mean = float(np.mean((lo + hi) / 2.0))
    pieces_var = float(np.mean((lo * lo + lo * hi + hi * hi) / 3.0)) - mean * mean  # the mixture's
    if pieces_var > 0:  # one host's level: half the level part's variance, exactly
        q = q * math.sqrt(level_var / 2.0 / pieces_var)
    return mixture_of_pieces(q), level_var


def mixture_of_pieces(edges: np.ndarray) -> str:
    """The distribution with equal mass between consecutive `edges` (ns), uniform within each, as
    a spec: a piece of one value (block medians on a coarse clock's ticks) becomes a uniform 1 ps
    wide, written in enough digits that its ends stay apart."""
    pieces = []
    weight = 1.0 / (len(edges) - 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        hi = max(float(hi), float(lo) + 1e-3)
        pieces.append(f"{weight:.15g}*uniform(low={lo:.12g},high={hi:.12g})")
    return "mixture(" + "+".join(pieces) + ")"


def level_sum_samples(levels: LatencyLevels, count: int, seed: int = 0) -> np.ndarray:
    """`count` draws of a round trip's level part (two hosts' independent levels), ns: the known
    part the per-message deconvolution counts against."""
    rng = np.random.default_rng([seed, 0x1E7E1])
    return (np.asarray(levels.level.sample(rng, count), np.float64)
            + np.asarray(levels.level.sample(rng, count), np.float64))
