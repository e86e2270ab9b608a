"""Which stall model a profile keeps: stalls in time, unless the campaign's series refute them.

A latency series whose stalls come in trains that recur in time (model/latency_split.py) can be
modelled two ways that give the same back-to-back 1 B ping-pongs and different everything else:

* stalls in time (`stalls`, model/latency_episodes.py) block the host's sends while they last. A
  message meets one as often as the host spends time in them: a 75 us stall delays one round
  trip of a 1 B series and every 16 MiB transfer that starts inside it, so a run that spends
  35 % of its time in stalls slows about a third of its large transfers.
* per-message draws delay the message they hit, as often as the 1 B series shows them per round
  trip (3 % of messages on the same run), whatever the message's length.

`model build` keeps the stalls in time the series' order shows, unless:

1. their profile does not give back its own latency series (its closure misses,
   model/closure.py) where per-message draws do: a profile must close first;
2. the campaign's bandwidth series refutes them: replayed with the profile's OS and latency
   noise alone (no bandwidth noise, which can only slow a transfer), the large round trips are
   slower than the series holds (`refutation`). A shortfall proves nothing, since the bandwidth
   noise makes it up; an excess cannot be taken back. Then the stalls hold messages up to the
   eager limit S only (`max_bytes` of the stalls, SMALL): the small messages keep the time
   structure the 1 B series shows, and the large transfers, which the bandwidth series shows do
   not wait for them, do not. (Where the bandwidth series' messages are not above S, per-message
   draws instead, where they close.)

Each alternative is a second build of the whole profile (`model build` builds it again with that
stall model), and `choose_stall_model` says which is kept and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cloudnoise.model.bandwidth_closure import SLOWER
from cloudnoise.model.closure import SHARE_SLACK, SHARE_TOLERANCE

if TYPE_CHECKING:
    from cloudnoise.model.round_trips import RoundTrips

IN_TIME, SMALL, PER_MESSAGE = "time", "small", "message"
PARTS = 20  # the replay is cut into this many parts, each a series of its own


@dataclass(frozen=True)
class Refutation:
    """The bandwidth series against the replay of its size with the OS and latency noise alone:
    at the slowdown where the replay exceeds it most, the series' share of round trips slower than
    its median by that much, the replay's (the median of its PARTS parts) and its parts' least."""

    slower_by: float  # a fraction of the median (SLOWER)
    series_share: float
    replay_share: float
    least_share: float
    size_bytes: int

    def describe(self) -> str:
        return (f"replayed with stalls in time and the OS noise alone, {100 * self.replay_share:.3g}% of the "
                f"{self.size_bytes} B round trips are more than {100 * self.slower_by:g} % slower than the median "
                f"(each of {PARTS} parts of the replay at least {100 * self.least_share:.3g}%), where the bandwidth "
                f"series holds {100 * self.series_share:.3g}%: the stalls do not block its long transfers as long "
                "as they last")

    def as_dict(self) -> dict[str, Any]:
        return {"slower_by": self.slower_by, "series_share": self.series_share, "replay_share": self.replay_share,
                "least_share": self.least_share, "parts": PARTS, "size_bytes": self.size_bytes}


def refutation(others_ns: np.ndarray, trips: RoundTrips, median_ns: float, size: int) -> Refutation | None:
    """Whether the bandwidth series (`trips`, its median `median_ns`) refutes the other noises
    (`others_ns`: what the OS and latency noise add to each replayed round trip of `size` bytes,
    in replay order): at some slowdown of SLOWER, every one of PARTS consecutive parts of the
    replay holds a larger share of round trips that slow than the series (a part is a shorter
    series than the measured one, so its share varies more: the test is conservative), and
    their median exceeds the series' share by more than the closure's share tolerance. Round
    trips faster than the median by up to what the series shows (its p50 - p1) are allowed for,
    as the bandwidth noise's fast draws can take that off. None where it does not refute."""
    delays = np.asarray(others_ns, np.float64)
    if delays.size < PARTS or trips.count == 0:
        return None
    p1, p50 = trips.quantiles([1.0, 50.0])
    slack = float(p50 - p1)
    parts = np.array_split(delays, PARTS)
    worst: Refutation | None = None
    for f in SLOWER:
        y = f * median_ns
        shares = np.array([float(np.mean(p > y + slack)) for p in parts])
        series = trips.share_above(median_ns + y)
        middle = float(np.median(shares))
        if (series < shares.min() and middle - series > max(SHARE_TOLERANCE * series, SHARE_SLACK)
                and (worst is None or middle - series > worst.replay_share - worst.series_share)):
            worst = Refutation(f, series, middle, float(shares.min()), size)
    return worst


def _closes(profile: dict[str, Any] | None) -> bool:
    return bool(((profile or {}).get("closure") or {}).get("closes"))


def needs_per_message(in_time: dict[str, Any], small_possible: bool) -> bool:
    """Whether the profile built with stalls in time leaves a reason to build it with per-message
    draws: its latency closure misses, or the bandwidth series refutes it and stalls of small
    messages only cannot be tried (`small_possible`: the bandwidth series' messages are larger
    than the eager limit)."""
    return not _closes(in_time) or (in_time.get("stall_refutation") is not None and not small_possible)


def needs_small(in_time: dict[str, Any], per_message: dict[str, Any] | None, small_possible: bool) -> bool:
    """Whether to build the profile with stalls in time that hold small messages only: the
    bandwidth series refutes stalls that hold every message, and per-message draws are not
    kept on their own closure."""
    refuted = in_time.get("stall_refutation") is not None
    return refuted and small_possible and not (not _closes(in_time) and _closes(per_message))


@dataclass(frozen=True)
class StallChoice:
    """The stall model kept (IN_TIME, SMALL or PER_MESSAGE) and why."""

    chosen: str
    why: str
    in_time_closes: bool
    per_message_closes: bool | None  # None where it was not built
    refutation: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        return {"chosen": self.chosen, "why": self.why, "in_time_closes": self.in_time_closes,
                "per_message_closes": self.per_message_closes, "refutation": self.refutation}


def _misses(profile: dict[str, Any]) -> str:
    rows = [r for r in (profile.get("closure") or {}).get("rows", []) if r.get("judged") and not r.get("within")]
    return ", ".join(r["statistic"] for r in rows) or "too few round trips to judge"


def choose_stall_model(in_time: dict[str, Any], per_message: dict[str, Any] | None = None,
                       small: dict[str, Any] | None = None, max_bytes: int | None = None) -> StallChoice:
    """The stall model kept, from the profile built with stalls in time and those built after it
    (`needs_per_message`, `needs_small`; None where not built): per-message draws where only they
    give the latency series back; else, where the bandwidth series refutes stalls that hold every
    message, stalls that hold messages up to `max_bytes` only (`small`), or per-message draws
    where those could not be tried and they close; else the stalls in time."""
    refuted = in_time.get("stall_refutation")
    a = _closes(in_time)
    b = None if per_message is None else _closes(per_message)
    said = Refutation(**{k: v for k, v in refuted.items() if k != "parts"}).describe() if refuted else ""
    if not a and b:
        why = (f"stalls in time miss the latency series' own closure ({_misses(in_time)}) where per-message draws "
               "give it back, and a profile must close first"
               + (f"; the bandwidth series also refutes stalls that hold every message: {said}" if refuted else ""))
        return StallChoice(PER_MESSAGE, why, a, b, refuted)
    if refuted and small is not None:
        why = (f"the bandwidth series refutes stalls that hold every message: {said}; the stalls hold messages up to "
               f"{max_bytes} B (the eager limit S) only, so the small messages keep the stalls' time structure the "
               "series' order shows and the large transfers do not wait (the campaign measured 1 B and the "
               "bandwidth series' size: where between them the stalls stop is not measured)"
               + ("" if a else f"; neither model gives the latency series back (stalls in time miss {_misses(in_time)})"))
        return StallChoice(SMALL, why, a, b, refuted)
    if refuted and b:
        why = f"the bandwidth series refutes stalls in time that hold every message: {said}"
        return StallChoice(PER_MESSAGE, why, a, b, refuted)
    if per_message is None:
        why = ("the series' order shows them, their replay gives the series back"
               + (", and the bandwidth series does not refute them (no fewer of its large round trips are slow than "
                  "the stalls and the OS noise alone make slow)" if in_time.get("bandwidth_closure") else ""))
    else:
        why = (f"neither gives the latency series back (stalls in time miss {_misses(in_time)}, per-message draws "
               f"{_misses(per_message)}), and "
               + (f"the bandwidth series refutes them, but no other model closes: {said}" if refuted else
                  "the bandwidth series does not refute the stalls in time, which the series' order shows"))
    return StallChoice(IN_TIME, why, a, b, refuted)
