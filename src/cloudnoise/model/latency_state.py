"""A latency noise state per host that persists in time: what sums of consecutive round trips show.

A measured ping-pong series often varies more over a stretch of round trips
than its round trips would if each were drawn on its own: the sums of 20
consecutive round trips of an AWS c5n, Oracle or GCP run vary 2-5 times as
much as 20 independent draws allow. Per-message draws cannot do that,
however they are fitted; and the persistence is seldom a level that moves
every round trip alike (the round trips' floor mostly stays where it is
while their upper part comes and goes).

The model, per sending host: a state Z(t), standard normal, constant for a
time drawn exponential (mean `hold`), then drawn anew. A message the host
sends at t draws its per-message excess at the quantile
Phi(sqrt(w) Z(t) + sqrt(1 - w) Phi^-1(u)), u its own uniform draw: the
state decides which part of the per-message distribution the host's
messages draw from while it holds (a Gaussian copula in time). Every
message's excess keeps the per-message distribution exactly, so a profile's
closure on its round trips' distribution is unchanged, and two hosts'
states are independent, so a round trip's two messages are too; what
changes is how consecutive round trips add up.

How it is estimated (`fit_state`, streamed a batch at a time):

1. Each round trip's normal score: Phi^-1 of its mid-rank among the series'
   round trips at or below the stall threshold (a stall, modelled on its
   own, scores 0: a train of stalls would read as a state).
2. The variance of sums of k consecutive scores within the series'
   stretches, k from 1 to 500, fitted by an independent part (variance s2)
   and a persistent part (variance c) whose correlation falls as rho^j over
   j round trips: Var(S_k) = k (s2 + c) + 2 c sum_{j<k} (k - j) rho^j.
3. The weight w = c / (s2 + c) (capped at MAX_WEIGHT); the hold
   -(mean round trip) / ln rho. Approximate in one place: the score of a
   round trip (two messages) stands in for a message's.

No state where the sums of 20 scores (of the largest k below 20 with
MIN_BLOCKS sums, in a short series) vary less than MIN_RATIO_20 times
independent ones, where the fitted state changes within MIN_HOLD_ROUND_TRIPS
round trips (per-message noise then), or where the series is too short.

4. Judged by its replay (model/state_choice.py, in `model build` once the
   per-message distribution is deconvolved): the series replayed with the
   state and without it, at least 2^20 round trips each; the
   state stays where its sums of 20 consecutive round trips reach above
   their median (p90 - p50, p99 - p50) as far as the series' do, at least
   as closely as without it. The copula moves a message's whole
   distribution with the state: where a series' persistence lies in its
   body and its long round trips come alone (DEEP-EST), a state fitted to
   the variance groups the long ones, and the per-message draws alone give
   the sums back better.

What it cannot tell: a 2-node series cannot tell one host's state from the
path's, nor a state that follows the measurement's launches (Netgauge's calls
of 1,000 ping-pongs) from one of the system in time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.distributions import named_items, one_time_ns
from cloudnoise.model.series_order import Batch, stretches

KS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500)
MIN_BLOCKS = 50  # a k is fitted only with at least this many sums
MIN_RATIO_20 = 1.1
MIN_HOLD_ROUND_TRIPS = 2.0
MAX_WEIGHT = 0.95
MAX_HOLD_NS = 1e14  # 10^5 s, the engine's longest time


PARTS = ("all", "body", "tail", "both")
DEFAULT_SPLIT = 0.9


@dataclass(frozen=True)
class LatencyState:
    """A state per sending host that holds `hold_ns` on average and weighs `weight` in each draw;
    it moves the whole per-message distribution (`part` "all"), its body below the quantile
    `split` (the tail drawn on its own), or how often a message lands in the tail above it."""

    hold_ns: float
    weight: float
    text: str
    part: str = "all"
    split: float = DEFAULT_SPLIT
    # with part "both": the tail's own state (the body's is hold_ns, weight)
    tail_hold_ns: float = 0.0
    tail_weight: float = 0.0

    def spec(self) -> str:
        return self.text

    def describe(self) -> str:
        moves = {"all": "which part of the per-message distribution the host's messages draw from while it holds",
                 "body": (f"where in the body of the per-message distribution (below its {100 * self.split:g}th "
                          "percentile) the host's messages draw from while it holds; the tail is drawn on its own"),
                 "tail": (f"how often the host's messages land in the tail of the per-message distribution (above "
                          f"its {100 * self.split:g}th percentile) while it holds"),
                 "both": (f"where in the body of the per-message distribution (below its {100 * self.split:g}th "
                          f"percentile) the host's messages draw from while it holds; and a second state that holds "
                          f"{_time(self.tail_hold_ns)} and decides {100 * self.tail_weight:.3g}% of how often they land "
                          "in the tail")}[self.part]
        return (f"a state per sending host that holds {_time(self.hold_ns)} on average (exponential) and decides "
                f"{100 * self.weight:.3g}% of each draw's normal score: {moves}")


def _time(ns: float) -> str:
    return f"{ns / 1e6:.4g} ms" if ns >= 1e6 else f"{ns / 1e3:.4g} us" if ns >= 1e3 else f"{ns:.4g} ns"


def _open_unit(text: str, params: dict[str, str], name: str, what: str, default: float | None = None) -> float:
    """The spec's item `name` as a number in (0, 1) (`default` where it is optional and absent):
    one line naming what it is otherwise."""
    try:
        value = float(params[name]) if name in params or default is None else default
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise CloudnoiseError(f"in {shown(text)}: {name}={shown(params.get(name, ''))} is {what}: a number in (0, 1)")
    return value


def parse_latency_state(spec: str) -> LatencyState:
    """LatencyState from `hold=TIME,weight=W[,part=all|body|tail][,split=Q]` (0 < W < 1, 0 < Q < 1), or
    with `part=both` also `tail_hold=TIME,tail_weight=W` (the tail's own state)."""
    text = str(spec).strip()
    usage = "hold=TIME,weight=W[,part=all|body|tail][,split=Q] or ...,part=both,tail_hold=TIME,tail_weight=W"
    params = named_items(text, "latency state", usage, ("hold", "weight"), ("part", "split", "tail_hold", "tail_weight"))
    hold = one_time_ns(params["hold"], "hold", text, MAX_HOLD_NS)
    weight = _open_unit(text, params, "weight", "the state's share of a draw's normal score")
    part = params.get("part", "all")
    if part not in PARTS:
        raise CloudnoiseError(f"in {shown(text)}: part={shown(part)} is the part of the per-message distribution the "
                              "state moves: all, body, tail or both")
    split = _open_unit(text, params, "split", "the quantile between the body and the tail", DEFAULT_SPLIT)
    tail = ("tail_hold" in params, "tail_weight" in params)
    if (part == "both") != all(tail) or (part != "both" and any(tail)):
        raise CloudnoiseError(f"in {shown(text)}: part=both takes tail_hold= and tail_weight= (the tail's own state), "
                              "and no other part takes them")
    if part != "both":
        return LatencyState(hold, weight, text, part, split)
    tail_hold = one_time_ns(params["tail_hold"], "tail_hold", text, MAX_HOLD_NS)
    tail_weight = _open_unit(text, params, "tail_weight", "the tail state's share of a draw's normal score")
    return LatencyState(hold, weight, text, part, split, tail_hold, tail_weight)


@dataclass(frozen=True)
class StateFit:
    """What the series' sums of consecutive round trips say, and the state made of it (or why none)."""

    ks: tuple[int, ...]
    measured_ratio: tuple[float, ...]  # Var(S_k) / (k Var(z)) of the normal scores: 1 for independent ones
    model_ratio: tuple[float, ...]
    independent_var: float  # s2, of the scores
    persistent_var: float  # c
    rho: float  # the persistent part's correlation from one round trip to the next
    round_trip_ns: float  # the series' mean round trip (its time per round trip)
    state: LatencyState | None
    why: str
    # the replay's sums of consecutive round trips with each candidate state and without one,
    # against the series' (model/state_choice.py); None before it is judged
    sums_check: dict[str, object] | None = None
    # states of a part of the distribution (its body, its tail), fitted beside `state`
    alternatives: tuple[LatencyState, ...] = ()

    def hold_round_trips(self) -> float:
        return 1.0 / (1.0 - self.rho) if self.rho < 1.0 else math.inf

    def ratio_at(self, k: int) -> float:
        return self.measured_ratio[self.ks.index(k)] if k in self.ks else math.nan

    def to_json(self) -> dict[str, object]:
        return {"used": self.state is not None, "why": self.why, "state": self.state.spec() if self.state else None,
                "ks": list(self.ks), "measured_ratio": list(self.measured_ratio),
                "model_ratio": list(self.model_ratio), "independent_var": self.independent_var,
                "persistent_var": self.persistent_var, "rho": self.rho,
                "hold_round_trips": self.hold_round_trips(), "round_trip_ns": self.round_trip_ns,
                "alternatives": [a.spec() for a in self.alternatives], "sums_check": self.sums_check}


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


def mid_ranks(values_ns: np.ndarray, counts: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The mid-rank of a round trip among these (distinct values and their counts), as a share in
    (0, 1); NaN for a value not among them (a stall above them)."""
    order = np.argsort(values_ns)
    v = np.asarray(values_ns, np.float64)[order]
    c = np.asarray(counts, np.float64)[order]
    n = float(c.sum())
    mid = np.clip((np.cumsum(c) - c / 2.0) / n, 0.5 / n, 1.0 - 0.5 / n)

    def of(x: np.ndarray) -> np.ndarray:
        i = np.minimum(np.searchsorted(v, x), v.size - 1)
        return np.where(v[i] == x, mid[i], np.nan)

    return of


def _curve(sums: list[_BlockSums]) -> tuple[np.ndarray, np.ndarray] | None:
    """The ks and variances of sums with enough blocks, or None where too few to fit."""
    usable = [(b.k, b.variance()) for b in sums if b.n >= MIN_BLOCKS and b.variance() > 0]
    if len(usable) < 4 or usable[0][0] != 1:
        return None
    return np.array([k for k, _ in usable], np.float64), np.array([v for _, v in usable])


def _tail_weight(c_indicator: float, split: float) -> float:
    """The latent weight w of a state of the tail (per message, above the quantile `split`) whose
    round trips land in their tail (a message of either host in its own: above the round trips'
    quantile split^2) together as often as the round trips' indicators' persistent covariance
    `c_indicator` says. Two round trips under the same two states both stay out of the tail with
    probability B(w)^2, B(w) = P(a host's two messages both in the body) the bivariate normal's
    orthant probability at correlation w, so the covariance is B(w)^2 - split^4 (increasing in w)."""
    from scipy.stats import multivariate_normal, norm

    t = float(norm.ppf(split))

    def cov(w: float) -> float:
        body_both = float(multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, w], [w, 1.0]]).cdf([t, t]))
        return body_both**2 - split**4

    lo, hi = 0.0, MAX_WEIGHT
    if cov(hi) <= c_indicator:
        return MAX_WEIGHT
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if cov(mid) < c_indicator else (lo, mid)
    return 0.5 * (lo + hi)


def fit_state(batches: Callable[[], Iterable[Batch]], values_ns: np.ndarray, counts: np.ndarray) -> StateFit:
    """A state from a ping-pong series read a batch at a time: `values_ns`, `counts` the round
    trips the per-message noise is made of (at or below the stall threshold); any other round
    trip of the series (a stall) scores 0. Besides the state of the whole distribution, the
    alternatives of the same series (`alternatives`), split at the messages' DEFAULT_SPLIT
    quantile q: a state of its body (the scores within the round trips whose two messages both
    lie in their body, the round trips below their quantile q^2; the others score 0) and one of
    its tail (how a round trip's landing above q^2 persists: its indicator's sums, the weight
    from the bivariate normal, `_tail_weight`), each where its own sums persist;
    model/state_choice.py picks among them by replay."""
    from scipy.stats import norm

    rank = mid_ranks(values_ns, counts)
    q = DEFAULT_SPLIT
    # a round trip holds two messages: both in their body (below q) for a share q^2 of round trips
    q_rt = q * q
    sums = [_BlockSums(k) for k in KS]
    body_sums = [_BlockSums(k) for k in KS]
    tail_sums = [_BlockSums(k) for k in KS]
    count, total_ns = 0, 0.0
    for x, new in stretches(batches()):
        count += x.size
        total_ns += float(x.sum())
        r = rank(x)
        known = ~np.isnan(r)
        z = np.where(known, norm.ppf(np.where(known, r, 0.5)), 0.0)
        body = known & (r <= q_rt)
        zb = np.where(body, norm.ppf(np.where(body, r / q_rt, 0.5)), 0.0)
        tail = (known & (r > q_rt)).astype(np.float64)
        for b, bb, tb in zip(sums, body_sums, tail_sums):
            b.add(z, new)
            bb.add(zb, new)
            tb.add(tail, new)
    mean_rt = total_ns / count if count else math.nan

    def none(why: str, ks: tuple[int, ...] = (), measured: tuple[float, ...] = (), model: tuple[float, ...] = (),
             s2: float = math.nan, c: float = 0.0, rho: float = 0.0) -> StateFit:
        return StateFit(ks, measured, model, s2, c, rho, mean_rt, None, why)

    curve = _curve(sums)
    if curve is None:
        return none(f"too few round trips ({count}) for sums of consecutive ones to say whether a state persists")
    ks, var = curve
    v1 = var[0]
    measured = tuple(float(v / (k * v1)) for k, v in zip(ks, var))
    s2, c, rho = _fit(ks, var, v1)
    model = tuple(float(v / (k * v1)) for k, v in zip(ks, _model(s2, c, rho, ks)))
    kk = tuple(int(k) for k in ks)
    # judged at 20, or where the series holds too few sums of 20 at its largest k below: a state
    # that persists makes the ratio grow with k, so a smaller k's ratio is the stricter test
    k_judged = max(k for k in kk if k <= 20)
    r20 = measured[kk.index(k_judged)]
    if not r20 >= MIN_RATIO_20:
        return none(f"sums of {k_judged} consecutive round trips' normal scores vary {r20:.3g}x what independent "
                    f"ones would (below {MIN_RATIO_20}): no state that persists", kk, measured, model, s2, c, rho)
    hold_rt = 1.0 / (1.0 - rho)
    if not (c > 0 and hold_rt >= MIN_HOLD_ROUND_TRIPS):
        return none(f"the fitted state changes every {hold_rt:.3g} round trips: per-message noise, no state",
                    kk, measured, model, s2, c, rho)

    def state_of(weight: float, r: float, part: str = "all") -> LatencyState:
        hold_ns = min(-mean_rt / math.log(r), MAX_HOLD_NS)
        extra = "" if part == "all" else f",part={part},split={q:g}"
        return parse_latency_state(f"hold={hold_ns:.6g}ns,weight={min(weight, MAX_WEIGHT):.4g}{extra}")

    state = state_of(c / (s2 + c), rho)
    alternatives: list[LatencyState] = []
    for part, part_sums in (("body", body_sums), ("tail", tail_sums)):
        got = _curve(part_sums)
        if got is None:
            continue
        pk, pv = got
        ps2, pc, prho = _fit(pk, pv, pv[0])
        if not (pc > 0 and 1.0 / (1.0 - prho) >= MIN_HOLD_ROUND_TRIPS):
            continue
        # the body's scores: a pair of round trips both in the body (a share q_rt^2 of pairs) carries the
        # state's covariance, and every round trip in the body (q_rt) its variance: w q_rt of the scores'
        w = pc / (ps2 + pc) / q_rt if part == "body" else _tail_weight(pc, q)
        if w > 0.001:
            alternatives.append(state_of(w, prho, part))
    parts = {a.part: a for a in alternatives}
    if "body" in parts and "tail" in parts:  # both at once, each with its own state
        body, tail = parts["body"], parts["tail"]
        alternatives.append(parse_latency_state(
            f"hold={body.hold_ns:.6g}ns,weight={body.weight:.4g},part=both,split={q:g},"
            f"tail_hold={tail.hold_ns:.6g}ns,tail_weight={tail.weight:.4g}"))
    why = (f"sums of {k_judged} consecutive round trips' normal scores vary {r20:.3g}x what independent ones would; a "
           f"state of weight {state.weight:.3g} that holds {hold_rt:.3g} round trips ({_time(state.hold_ns)}) on "
           f"average gives back sums of 1-{kk[-1]} within "
           f"{100 * max(abs(math.log(a / b)) for a, b in zip(model, measured)):.2g} %")
    return StateFit(kk, measured, model, s2, c, rho, mean_rt, state, why, alternatives=tuple(alternatives))


def state_clause(fit: StateFit) -> str:
    """The clause the latency noise's provenance ends with: the state, or why there is none."""
    if fit.state is not None:
        return f"; and a state per host that persists in time (`state`, model/latency_state.py): {fit.why}"
    return f"; no state in time (model/latency_state.py): {fit.why}"
