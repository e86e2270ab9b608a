"""Per-message latency noise from round trips, counting the OS noise once.

A ping-pong's round trip holds two messages and the two hosts' OS noise. The
engine charges a round trip T0 + e1 + e2 + n: T0 the noiseless round trip of
the profile's LogGOPS parameters, e1 and e2 two draws of the per-message
latency noise (one per message, each added to L), n what the profile's OS
noise costs the round trip (the detours its CPU activities meet). The
measured round trips R already hold the real hosts' detours, so the
per-message noise is the distribution F with

    R - T0  ~  e1 + e2 + n,    e1, e2 ~ F independent, n ~ the OS part,

read through the measuring clock: a deconvolution, not a subtraction of
medians (which draws a round trip's excess, halved, for every message, and
adds the OS detours a second time on top of the round trips that hold them).

How (the non-parametric maximum-likelihood estimate of F, by EM):

* Everything lives on one uniform grid of DELTA ns. The measured excesses
  x = R - T0 are counted on it; on a clock that ticks in r ns (Netgauge's
  timer on some systems: r = 238 ns), DELTA divides r and the model is read
  through the clock as the replay is (a continuous value split between its
  two neighbouring ticks in proportion to where it lies: the reading is
  exact on average).
* The OS part n is the engine's own: round trips of the back-to-back replay
  with the OS noise alone (model/closure.py), minus T0. Its distribution is
  known; only F is estimated.
* EM for a sum of two draws of F and one of n: with m = clock(F * F * n) the
  model's distribution of x and h the measured one, each iteration sets
  F[j] <- F[j] * sum_x h[x] / m[x] * (F * n)[x - j] / N, where N counts the
  samples. The likelihood never decreases, F stays a distribution. Round
  trips beyond the grid (the far tail) are one censored bin.
* The far tail, beyond the grid: a round trip far above every typical sum is
  one message's rare excess (two rare excesses in one round trip are rarer
  still), so per message P(e > y) = (P(x > y) - P(n > y)) / 2.
* A message arrives no earlier than its send starts: e >= -(L + o_s)
  (`floor_ns`: the least L of the profile's size classes and the send
  overhead; a one-way time shorter than the fitted o_s + L says the
  overheads were smaller then). Round trips faster than that allows are
  counted at the floor, and the share is reported.

The estimate is tested against synthetic round trips made from a known F and
a known OS part (tests/model/test_latency_deconvolution.py); its closure, the
engine's replay of the measured series with the profile, is model/closure.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import fft as sfft

from cloudnoise.model.distributions import quantile_grid

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile

MAX_BINS = 1 << 14  # grid points over the measured excesses
MIN_GRID_NS = 1.0
BODY_POINTS = 48  # grid points over the body's spread (p10 to p90 of the excesses), at least
MAX_ITERATIONS = 400
TOLERANCE = 1e-7  # stop when the log-likelihood gains less than this per sample and round


@dataclass(frozen=True)
class PerMessage:
    """The per-message latency noise (ns over L) the round trips give, and how well it explains them."""

    probabilities: np.ndarray  # the engine's grid (and a point either side of the far tail's start)
    values_ns: np.ndarray  # quantiles (ns), non-decreasing, >= floor_ns
    grid_ns: float
    clock_step_ns: float
    iterations: int
    below_floor: float  # share of round trips faster than the floor allows (counted at it)
    tail_share: float  # share of round trips beyond the grid (the far tail's rule)
    distance: float  # largest gap between the model's and the measured distribution of x
    os_share: float  # share of replayed round trips the OS part delays by more than a grid step

    def mean_ns(self) -> float:
        p, v = self.probabilities, self.values_ns
        return float(np.sum(np.diff(p) * 0.5 * (v[:-1] + v[1:])))


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.size + b.size - 1
    size = sfft.next_fast_len(n, real=True)
    return sfft.irfft(sfft.rfft(a, size) * sfft.rfft(b, size), size)[:n]


def _grid(x: np.ndarray, w: np.ndarray, clock_ns: float) -> float:
    """DELTA: BODY_POINTS over the body's spread (the grid's MAX_BINS points then reach a few hundred
    spreads up; the far tail beyond them follows the far tail's rule); a divisor of the clock's
    tick where the clock is coarse."""
    cum = np.cumsum(w) / w.sum()
    p10, p90 = x[np.searchsorted(cum, 0.10)], x[min(np.searchsorted(cum, 0.90), x.size - 1)]
    spread = max(float(p90 - p10), clock_ns, 1.0)
    delta = max(MIN_GRID_NS, spread / BODY_POINTS)  # a longer span is cut: the far tail's rule beyond
    if clock_ns > 1.0:
        delta = clock_ns / max(1, math.ceil(clock_ns / delta - 1e-9))
    return delta


def _spread(values: np.ndarray, weights: np.ndarray, origin: float, delta: float, n: int) -> tuple[np.ndarray, float]:
    """Counts of `values` on the grid origin + k * delta (k < n), each split between its two
    neighbours in proportion (so the grid keeps the mean); the weight beyond the last point."""
    pos = np.maximum((np.asarray(values, np.float64) - origin) / delta, 0.0)
    weights = np.asarray(weights, np.float64)
    inside = pos < n - 1
    k = np.floor(pos[inside]).astype(np.int64)
    frac = pos[inside] - k
    out = np.bincount(k, weights=weights[inside] * (1.0 - frac), minlength=n)[:n]
    out += np.bincount(k + 1, weights=weights[inside] * frac, minlength=n)[:n]
    return out, float(weights[~inside].sum())


def deconvolve(values_ns: np.ndarray, counts: np.ndarray, os_effect_ns: np.ndarray, floor_ns: float,
               clock_step_ns: float = 1.0, survival: tuple[np.ndarray, np.ndarray] | None = None) -> PerMessage:
    """The per-message latency noise F such that two draws of it and one of the OS part give the
    measured excesses back.

    `values_ns`, `counts`: the measured round trips' excess over the noiseless round trip T0
    (distinct values and how often each was seen); `os_effect_ns`: the OS part n of replayed
    round trips (one per replayed round trip, 0 for most); `floor_ns`: the least per-message
    excess (-L); `clock_step_ns`: the measuring clock's tick; `survival`: (x, P(excess > x)) of
    the measured round trips over their whole range, for the far tail beyond the grid (default:
    from `values_ns`)."""
    order = np.argsort(values_ns)
    x = np.asarray(values_ns, np.float64)[order]
    w = np.asarray(counts, np.float64)[order]
    keep = w > 0
    x, w = x[keep], w[keep]
    total = float(w.sum())
    if total <= 0 or x.size == 0:
        raise ValueError("no round trips to deconvolve")
    n_os = np.asarray(os_effect_ns, np.float64)
    if n_os.size == 0:
        n_os = np.zeros(1)
    clock = float(clock_step_ns) if clock_step_ns > 1.0 else 1.0
    delta = _grid(x, w, clock)
    m_per_tick = max(1, int(round(clock / delta))) if clock > 1.0 else 1
    # the per-message grid: from the floor (or half the least excess) in steps of delta
    lowest = 2.0 * floor_ns
    below = float(w[x < lowest].sum()) / total
    if below:  # counted at the floor (on a coarse clock: the first tick above it)
        at = lowest if clock <= 1.0 else x[0] + math.ceil((lowest - x[0]) / clock - 1e-9) * clock
        x = np.maximum(x, at)
    # the x grid holds x[0] (a tick of the clock) on a point, and reaches down to twice the
    # per-message grid's least point, at the floor or somewhat below half the least excess
    wanted = max(2.0 * floor_ns, x[0] - clock)
    x_origin = x[0] - math.ceil((x[0] - wanted) / delta - 1e-9) * delta
    e_lo = x_origin / 2.0
    nx = min(MAX_BINS, int(math.ceil((x[-1] - x_origin) / delta)) + 2 * m_per_tick + 2)
    if m_per_tick > 1:
        # a coarse clock's readings sit on ticks: each counted on the tick nearest it, counted from
        # x[0] (a tick read a little off, 100 ns read as 99.94, moves a value a grid step off its
        # tick within a few us, and a value off the ticks would count nowhere)
        k = (int(round((x[0] - x_origin) / delta))
             + np.rint((x - x[0]) / clock).astype(np.int64) * m_per_tick)
        inside = k < nx
        h = np.bincount(k[inside], weights=w[inside], minlength=nx).astype(np.float64)
        h_tail = float(w[~inside].sum())
    else:
        h, h_tail = _spread(x, w, x_origin, delta, nx)
    nf = nx  # e from e_lo: one rare excess with a typical partner reaches the top of the grid
    g, g_tail = _spread(n_os, np.ones(n_os.size), 0.0, delta, nx)
    g /= n_os.size
    g_tail /= n_os.size
    g = g[: int(np.nonzero(g)[0].max()) + 1] if g.any() else np.zeros(1)
    # one FFT size for every product: the model's support, the clock's kernel either side
    size = sfft.next_fast_len(2 * nf + g.size + 2 * m_per_tick + 2, real=True)
    G = sfft.rfft(g, size)
    # the clock's reading as a kernel over the fine grid (triangular, M points either side),
    # centred on index 0
    ker = np.zeros(size)
    taps = np.arange(-m_per_tick + 1, m_per_tick)
    ker[taps % size] = 1.0 - np.abs(taps) / m_per_tick
    K = sfft.rfft(ker)
    GK = G * K
    # data points: on a coarse clock only the ticks the measured values sit on (every M-th point)
    first_tick = int(round((x[0] - x_origin) / delta)) % m_per_tick  # x[0] is a tick
    on_tick = np.zeros(size, bool)
    on_tick[first_tick::m_per_tick] = True
    ticks = on_tick[:nx]
    beyond = on_tick.copy()
    beyond[:nx] = False
    h = np.where(ticks, h, 0.0)
    seen = h > 0
    # start: the excesses halved, smoothed, every point possible
    half_x, _ = _spread(x / 2.0, w, e_lo, delta, nf)
    f = _conv(half_x, np.ones(2 * m_per_tick + 1))[m_per_tick:m_per_tick + nf]
    f = f / f.sum() * 0.99 + 0.01 / nf
    eps = 1e-300

    def forward(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The spectrum of f, and the model's distribution of x read through the clock."""
        F = sfft.rfft(f, size)
        return F, sfft.irfft(F * F * GK, size)

    def step(f: np.ndarray) -> tuple[np.ndarray, float]:
        """One EM step from f: the next f, and the log-likelihood of f."""
        F, model = forward(f)
        inside = model[:nx]
        tail_mass = float(model[beyond].sum()) + g_tail  # beyond the grid
        ratio = np.zeros(size)
        ratio[:nx][seen] = h[seen] / np.maximum(inside[seen], eps)
        if h_tail:
            ratio[beyond] = h_tail / max(tail_mass, eps)
        # back-projection: corr[j] = sum_i ratio[i] * clock(f * g)[i - j]
        corr = sfft.irfft(sfft.rfft(ratio) * np.conj(F * GK), size)[:nf]
        nxt = f * np.maximum(corr, 0.0)
        s = nxt.sum()
        if not s > 0:
            raise ValueError("the deconvolution lost every point (no model reaches the measured round trips)")
        ll = float(np.sum(h[seen] * np.log(np.maximum(inside[seen], eps))))
        if h_tail:
            ll += h_tail * math.log(max(tail_mass, eps))
        return nxt / s, ll

    def loglik(f: np.ndarray) -> float:
        _, model = forward(f)
        ll = float(np.sum(h[seen] * np.log(np.maximum(model[:nx][seen], eps))))
        if h_tail:
            ll += h_tail * math.log(max(float(model[beyond].sum()) + g_tail, eps))
        return ll

    # EM, accelerated by SQUAREM (Varadhan and Roland, 2008): two steps give a direction and a
    # step length; the extrapolated point, stepped once more, is kept when it does not lower
    # the likelihood below the plain two steps'
    last_ll = -math.inf
    it = 0
    while it < MAX_ITERATIONS:
        f1, ll = step(f)
        f2, _ = step(f1)
        it += 2
        r = f1 - f
        v = f2 - f1 - r
        vv = float(np.dot(v, v))
        alpha = min(-math.sqrt(float(np.dot(r, r)) / vv), -1.0) if vv > 0 else -1.0
        nxt = f2
        # a step that would make a point negative is shortened towards the plain steps (a point
        # set to 0 could never come back: EM only scales the points)
        cand = f - 2.0 * alpha * r + alpha * alpha * v
        while alpha < -1.0 and not cand.min() > 0:
            alpha = (alpha - 1.0) / 2.0 if alpha < -1.01 else -1.0
            cand = f - 2.0 * alpha * r + alpha * alpha * v
        if alpha < -1.0:
            stepped, cand_ll = step(cand / cand.sum())
            it += 1
            if cand_ll >= loglik(f2):
                nxt = stepped
        f = nxt
        if ll - last_ll < TOLERANCE * total:
            break
        last_ll = ll
    # the model's distribution of x against the measured one
    _, model = forward(f)
    m_cdf = np.cumsum(np.where(ticks, np.maximum(model[:nx], 0.0), 0.0))
    h_cdf = np.cumsum(h) / total
    distance = float(np.max(np.abs(m_cdf[ticks] - h_cdf[ticks])))
    tail_e = max(0.0, h_tail / total - g_tail) / 2.0
    probabilities = quantile_grid()
    if tail_e > 0:  # the far tail's start is a jump of the quantile function: a point either side of it
        probabilities = np.unique(np.concatenate((probabilities, 1.0 - tail_e + np.array([-1e-12, 1e-12]))))
    values = _quantiles(probabilities, f, e_lo, delta, tail_e, survival if survival is not None else (x, w), n_os,
                        floor_ns, x_origin + (nx - 1) * delta)
    os_share = float(np.mean(n_os > delta))
    return PerMessage(probabilities, values, delta, clock, it, below, h_tail / total, distance, os_share)


def _quantiles(p: np.ndarray, f: np.ndarray, e_lo: float, delta: float, tail_e: float,
               survival: tuple[np.ndarray, np.ndarray], n_os: np.ndarray, floor_ns: float, x_top: float) -> np.ndarray:
    """F's quantiles at probabilities `p`: the grid's distribution (each point's mass spread over
    its cell), and beyond the grid (the top `tail_e` of F) the far tail's rule."""
    edges = e_lo + (np.arange(f.size + 1) - 0.5) * delta
    cdf = np.concatenate(([0.0], np.cumsum(f)))
    cdf /= cdf[-1]
    values = np.interp(p, cdf, edges)
    if tail_e > 0:
        sx = np.asarray(survival[0], np.float64)
        order = np.argsort(sx)
        sx, sw = sx[order], np.asarray(survival[1], np.float64)[order]
        surv_x = 1.0 - np.cumsum(sw) / sw.sum()  # P(x > sx)
        far = sx > x_top
        ys = sx[far]
        beyond = p > 1.0 - tail_e
        if ys.size:
            os_sorted = np.sort(n_os)
            s_os = 1.0 - np.searchsorted(os_sorted, ys, side="right") / os_sorted.size
            s_e = np.minimum.accumulate(np.maximum((surv_x[far] - s_os) / 2.0, 0.0))
            # the least y with P(e > y) <= 1 - p
            idx = np.searchsorted(-s_e, -(1.0 - p[beyond]), side="left")
            values[beyond] = np.maximum(values[beyond], ys[np.minimum(idx, ys.size - 1)])
    return np.maximum.accumulate(np.maximum(values, floor_ns))


OS_REPLAY_ROUND_TRIPS = 1 << 20  # the OS part is read from this many replayed round trips at most


@dataclass(frozen=True)
class CountedOnce:
    """The per-message noise of a profile's latency series, with what it was counted against."""

    noise: PerMessage
    noiseless_ns: float  # T0: the profile's noiseless round trip
    os_measured: bool  # whether the profile has OS noise to count once
    floor_ns: float  # how far a message's latency noise may go below 0: the least L and the send overhead

    def describe(self) -> str:
        """One line for the profile's provenance: how the per-message noise was made."""
        n = self.noise
        os_part = (f"minus the OS part the profile's own OS noise gives the replayed round trips "
                   f"({100 * n.os_share:.2g}% of them delayed)" if self.os_measured else
                   "with no OS-noise run to count against (the real hosts' detours stay in it: with OS noise "
                   "added, they would count twice)")
        clock = f", read through the measuring clock's {n.clock_step_ns:.4g} ns step" if n.clock_step_ns > 1 else ""
        below = (f"; {100 * n.below_floor:.2g}% of the round trips are faster than the model allows (2 x (least L + "
                 f"send overhead) = {2 * self.floor_ns:.4g} ns under the noiseless {self.noiseless_ns:.5g} ns), "
                 "counted at that floor" if n.below_floor > 0 else "")
        tail = (f"; the {100 * n.tail_share:.2g}% beyond the grid by the far tail's rule (per message, half the "
                f"round trips' share above each value, less the OS part's)" if n.tail_share > 0 else "")
        return (f"per message, deconvolved (model/latency_deconvolution.py): the distribution of which two draws "
                f"(one per message of a round trip), {os_part}, give back the measured round trips' excess over the "
                f"noiseless round trip {self.noiseless_ns:.5g} ns{clock}; may run below L (a round trip faster than "
                f"the noiseless one), at most L and the send overhead below it; grid {n.grid_ns:.3g} ns, {n.iterations} EM iterations, "
                f"largest gap between the two distributions {n.distance:.2g}{below}{tail}")


@dataclass(frozen=True)
class OSPart:
    """What a profile's OS noise does to back-to-back ping-pongs, as the engine replays them: each
    replayed round trip's delay over the noiseless one (0 for most)."""

    noiseless_ns: float
    delays_ns: np.ndarray
    measured: bool  # the profile has OS noise (else every delay is 0)

    def stall_floor_ns(self) -> float:
        """The least round trip a stall is: later than the detours make 99 % of the round trips
        they delay (0 without OS noise: no floor)."""
        delayed = self.delays_ns[self.delays_ns > 0]
        return self.noiseless_ns + float(np.percentile(delayed, 99.0)) if delayed.size else 0.0


def os_part_of(profile: SystemProfile, size: int, count: int, seed: int = 0) -> OSPart:
    """The OS part of `size`-byte ping-pongs with `profile` (its parameters and OS noise): `count`
    round trips replayed back to back, OS noise alone (at most OS_REPLAY_ROUND_TRIPS)."""
    from cloudnoise.model.closure import replay_round_trips
    from cloudnoise.simulation.noise import noise_from_profile
    from cloudnoise.simulation.params import LogGOPS

    params = LogGOPS.from_profile(profile)
    t0 = float(replay_round_trips(params, None, "none", size, 1, seed)[0])
    noise = noise_from_profile(profile, seed)
    if not noise.has_os:
        return OSPart(t0, np.zeros(1), False)
    trips = replay_round_trips(params, noise, "os", size, max(1, min(count, OS_REPLAY_ROUND_TRIPS)), seed)
    return OSPart(t0, np.maximum(trips - t0, 0.0), True)


def count_once(profile: SystemProfile, values_ns: np.ndarray, counts: np.ndarray, size: int, clock_step_ns: float,
               os_part: OSPart | None = None, seed: int = 0) -> CountedOnce:
    """The per-message latency noise for `profile` (its LogGOPS parameters and OS noise, without
    latency noise yet) from measured round trips of `size` bytes (`values_ns`, `counts`): T0 and
    the OS part (`os_part`, else replayed here) come from the engine's replay of the same
    back-to-back ping-pongs (model/closure.py), so the noise is counted against what the
    simulation will add."""
    from cloudnoise.model.closure import replay_round_trips
    from cloudnoise.simulation.params import LogGOPS

    t0 = float(replay_round_trips(LogGOPS.from_profile(profile), None, "none", size, 1, seed)[0])
    if os_part is None:
        os_part = os_part_of(profile, size, int(np.sum(counts)), seed)
    floor = profile.loggops.latency_noise_floor()
    x = np.asarray(values_ns, np.float64) - t0
    per_message = deconvolve(x, np.asarray(counts, np.float64), os_part.delays_ns, floor, clock_step_ns)
    return CountedOnce(per_message, t0, os_part.measured, -floor)
