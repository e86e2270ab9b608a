"""Which latency state a profile keeps: the one whose replay gives back the series' sums.

model/latency_state.py fits, from how a ping-pong series' sums of
consecutive round trips persist, a state of the whole per-message
distribution and its alternatives (a state of the body, one of the tail).
Each is fitted to one part of the series; this module replays the series
with each of them and without a state, through the engine as `model build`'s
closure does (model/closure.py), and keeps the one whose sums of SUMS_K
consecutive round trips reach above their median as far as the series' do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cloudnoise.model.chain_sums import segment_sums
from cloudnoise.model.closure import (MAX_REPLAY, SEGMENT, SUMS_K, Measured, compare, read_through_clock, replay_of,
                                      sums_distance, sums_excess, sums_spreads)
from cloudnoise.model.latency_state import LatencyState, StateFit

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile

JUDGE_ROUND_TRIPS = 1 << 20  # the replays that judge a state run at least this many round trips
MARGIN = 0.1  # tolerances by which a state must come closer than the best before it


@dataclass(frozen=True)
class Tried:
    """One candidate's replay: its sums of SUMS_K (percentiles less SUMS_K medians, ns), their
    distance in tolerances from the series', whether it closes on the round trips."""

    state: LatencyState | None
    sums_ns: tuple[float, ...]
    distance: float
    closes: bool


def judge_state(fit: StateFit, measured: Measured, load: Callable[[LatencyState | None], SystemProfile],
                size: int, seed: int = 0) -> tuple[StateFit, np.ndarray]:
    """The latency state a profile keeps, among none, the fitted state of the whole distribution
    and its alternatives (of the body, of the tail), by the replay of the series with each
    (`load(state)`: the profile with that state, None without one):

    1. only those whose replay still gives back the series' round trips (the closure's judged
       rows, model/closure.py; every candidate where none does): a state keeps each message's
       distribution, but back to back a strong one shifts which states the round trips sample
       (a host in a slow state sends fewer of them), and a profile must give back its own
       measurement before anything else;
    2. of those, the one whose sums of SUMS_K consecutive round trips reach above their median
       (p90 - p50, p99 - p50, by sample) most closely as the series' do (`sums_distance`, in the
       closure's tolerances), starting from no state and taking a state only where it comes
       closer by more than MARGIN tolerances than the best before it (in the order none, the
       whole distribution, the body, the tail): a replay's sums vary a little from seed to seed,
       and a state that does no better than per-message draws is left out.

    Returns the fit with the state chosen (its why, and `sums_check`) and that profile's
    replay, at least JUDGE_ROUND_TRIPS long (the closure compares its first round trips, as
    many as measured).

    Why a check and not the fits alone: each is fitted to how a part of the series persists,
    and the copula moves the part it acts on as a whole; where the series' persistence lies in
    its body and its long round trips come alone (DEEP-EST), a state of the whole distribution
    that gives back the variance groups the long ones too, and its sums of 20 reach further than
    the series' ever do."""
    from dataclasses import replace

    # the model's sums from at least JUDGE_ROUND_TRIPS round trips: a state that holds a thousand
    # round trips changes a few hundred times in a series of 10^5, too few for its sums' p99
    count = min(max(measured.count, JUDGE_ROUND_TRIPS), MAX_REPLAY)
    if fit.state is None:
        return fit, replay_of(load(None), count, size, seed)
    if measured.sums_excess_ns is None:  # values in sorted order, no start times: no consecutive round trips
        why = (f"{fit.why}; left out: the series has no order to read sums of consecutive round trips from "
               "(model/chain_sums.py `streamed_sums`), so what looked like persistence may be its order")
        return replace(fit, state=None, why=why), replay_of(load(None), count, size, seed)
    want = measured.sums_excess_ns
    compared = min(measured.count, MAX_REPLAY)
    tried: list[Tried] = []
    # the rule below, applied as the replays come: the best of those that close and the best of
    # all, each with its replay, so that at most two replays are held beside the one being judged
    best_closing: tuple[Tried, np.ndarray] | None = None
    best_any: tuple[Tried, np.ndarray] | None = None
    for candidate in (None, fit.state, *fit.alternatives):
        replay = replay_of(load(candidate), count, size, seed)
        got = sums_excess(segment_sums(replay, SUMS_K, SEGMENT), measured.median_ns)
        closes = compare(measured, read_through_clock(replay[:compared], measured.clock_step_ns, seed), "", size,
                         seed).closes
        t = Tried(candidate, got, sums_distance(want, got), closes)
        tried.append(t)
        if closes and (best_closing is None or t.distance < best_closing[0].distance - MARGIN):
            best_closing = (t, replay)
        if best_any is None or t.distance < best_any[0].distance - MARGIN:
            best_any = (t, replay)
        del replay
    chosen = best_closing or best_any
    assert chosen is not None
    best, best_replay = chosen

    def us(q: tuple[float, ...]) -> str:
        return "/".join(f"{x / 1e3:.3g}" for x in sums_spreads(q))

    def name(st: LatencyState | None) -> str:
        if st is None:
            return "no state"
        part = {"all": "the whole distribution", "body": "its body", "tail": "its tail",
                "both": "its body and one of its tail"}[st.part]
        return f"a state of {part} ({st.spec()})"

    check: dict[str, object] = {
        "k": SUMS_K, "measured_ns": list(want), "margin": MARGIN,
        "candidates": [{"state": None if t.state is None else t.state.spec(), "sums_ns": list(t.sums_ns),
                        "distance": t.distance, "replay_closes": t.closes} for t in tried],
        "chosen": None if best.state is None else best.state.spec()}
    others = "; ".join(f"{name(t.state)} {us(t.sums_ns)} us" + ("" if t.closes else " (its replay misses the round "
                                                                                    "trips' closure)")
                       for t in tried if t is not best)
    why = (f"{fit.why}; {name(best.state)} chosen by the replay: its sums of {SUMS_K} consecutive round trips reach "
           f"{us(best.sums_ns)} us above their median (p90 - p50 / p99 - p50), {us(want)} us measured, "
           f"{best.distance:.2g} tolerances off; {others}")
    if best.state is None:
        why += " (no state gives back the series' persistence better than per-message draws alone)"
    return replace(fit, state=best.state, why=why, sums_check=check), best_replay
