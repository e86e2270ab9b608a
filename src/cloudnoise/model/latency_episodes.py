"""Latency stalls that come in time ("latency episodes"), per sending host.

A Netgauge latency series can hold interference that is a state in
time, not a per-message draw. Alps' 1-byte ping-pongs (2022_05_06_16_58_37)
hold 2.4 % of samples above 20 us (median 47 us), in stretches of about a
millisecond in which a ~45 us stall recurs every ~57 us (the indicator of a
stall has autocorrelation 0.38 at lag 5), and none in between. Drawn
independently per message, those 2.4 % hit most repetitions of a collective
of a few hundred messages; as a state in time they hit the repetitions that
run while a host is in such a stretch, and those only.

The model, per host (or, with `shared`, one clock for every host):

* **bursty**: episodes start at `rate` per second of quiet time (exponential
  quiet gaps: an alternating renewal process, as bandwidth episodes). An
  episode is a train of stalls: the first starts the episode; each lasts a
  draw of `stall` (ns); the next starts `gap` (ns, a draw) after the previous
  ends, as long as it starts within the episode's `duration` (a draw, ns).
* **periodic**: a stall of `stall` every `period`, always (a periodic daemon,
  a timer): `period=1ms,stall=12us`.
* **recurring**: stalls that never stop coming, each a draw of `stall`, the
  next a draw of `gap` after it: a renewal process, for stalls that come at
  irregular but never close distances (the Daint series of March 2022:
  model/recurring_stalls.py reads them): `stall=DIST,gap=DIST`.

A message a host sends while the host is inside a stall leaves when the
stall ends: the engine adds the stall's remaining time to its latency
(noise/latency_stalls.hpp). Nothing else is charged: the host's CPU is not
held (on Alps the same node's selfish-detour trace shows no such stalls:
the stalls are on the network path, seen only by messages).

Written in a profile as `latency_noise.episodes`:

    rate=180,duration=lognormal(median=400us,p99=5ms),stall=lognormal(median=45us,p99=120us),gap=10us
    period=1ms,stall=12us
    stall=DIST,gap=DIST
    ...,shared=1      (one clock for every host: a system-wide state)
    ...,hosts=0.5     (only this share of the hosts stalls, drawn per host and repetition:
                       a measurement over several pairs saw the stalls on some of them)
    ...,max_bytes=65535 (only messages up to this size wait for a stall: a campaign whose
                       small-message series shows the stalls and whose large transfers do
                       not wait for them, model/stall_choice.py)

The engine draws, for each repetition of a simulation, its own table of
stalls over a period (noise/stall_process.hpp), which each host reads from
its own drawn offset (all from one with `shared`); `StallTable` is such a
table, `table` draws one here (with numpy) for estimates and tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.distributions import Distribution, parse_inline_distribution, split_top_level

# A table holds about this many episodes (as bandwidth episodes): every host
# of a repetition reads the same table, so with a handful the hosts would see
# the same few.
TABLE_EPISODES = 500
# At most this many stalls in one table (a periodic table holds one).
MAX_TABLE_STALLS = 2_000_000
# a host inside bursty episodes at most this share of the time: beyond it the episodes are the
# normal state, which the latency distribution itself describes
MAX_EPISODE_SHARE = 0.9


@dataclass(frozen=True)
class StallTable:
    """Stalls over one period, in ns: sorted, disjoint, within [0, period_ns)."""

    starts_ns: np.ndarray
    ends_ns: np.ndarray
    period_ns: int

    def __len__(self) -> int:
        return int(self.starts_ns.size)

    def time_share(self) -> float:
        """Share of the period a host spends inside stalls."""
        return float((self.ends_ns - self.starts_ns).sum()) / self.period_ns

    def delay_ns(self, at_ns: np.ndarray) -> np.ndarray:
        """The remaining stall at positions `at_ns` >= 0 (wrapped by the period): what a
        message sent there waits (the engine's rule, for tests and estimates)."""
        s = np.asarray(at_ns, dtype=np.int64) % self.period_ns
        k = np.searchsorted(self.starts_ns, s, side="right") - 1
        inside = (k >= 0) & (s < self.ends_ns[np.maximum(k, 0)])
        return np.where(inside, self.ends_ns[np.maximum(k, 0)] - s, 0)


@dataclass(frozen=True)
class LatencyEpisodes:
    """Stalls in time; see the module docstring. Bursty (rate, duration, gap), periodic (period) or
    recurring (gap alone)."""

    stall: Distribution  # ns, each stall's length
    rate_hz: float | None = None  # bursty: episode starts per second of quiet time
    duration: Distribution | None = None  # bursty: ns from an episode's start to its last stall's start at most
    gap: Distribution | None = None  # bursty: ns between a stall's end and the next one's start
    period_ns: float | None = None  # periodic: a stall every period
    shared: bool = False  # one clock for every host instead of one per host
    hosts: float = 1.0  # the share of hosts that stall at all (a measurement saw them on some pairs only)
    max_bytes: int | None = None  # only messages up to this size wait for a stall (None: every message)
    text: str = ""

    def __post_init__(self) -> None:
        lo, _ = self.stall.support()
        if not (lo >= 0 and 0 < self.stall.mean() <= limits.MAX_TIME_NS):
            raise CloudnoiseError(f"latency episodes: stall={self.stall.spec()} must be >= 0 ns with a positive mean")
        bursty = (self.rate_hz, self.duration, self.gap)
        if self.period_ns is not None:
            if any(x is not None for x in bursty):
                raise CloudnoiseError("latency episodes: give period=,stall= (periodic) or rate=,duration=,stall=,gap= "
                                      "(bursty), not both")
            if not (math.isfinite(self.period_ns) and 0 < self.period_ns <= limits.MAX_TIME_NS):
                raise CloudnoiseError(f"latency episodes: period={self.period_ns!r} ns must be in (0, "
                                      f"{limits.MAX_TIME_NS:.3g}]")
            if not self.stall.mean() < 0.5 * self.period_ns:
                raise CloudnoiseError(
                    f"latency episodes: a mean stall of {self.stall.mean():g} ns every {self.period_ns:g} ns stalls "
                    "a host half the time or more; at most half (a slower normal state is L's business)")
            return
        if self.rate_hz is None and self.duration is None and self.gap is not None:
            lo, _ = self.gap.support()
            if not (lo >= 0 and self.gap.mean() <= limits.MAX_TIME_NS):
                raise CloudnoiseError(f"latency episodes: gap={self.gap.spec()} must be >= 0 ns")
            if not self.stall.mean() < self.gap.mean():
                raise CloudnoiseError(
                    f"latency episodes: recurring stalls of {self.stall.mean():g} ns with gaps of {self.gap.mean():g} "
                    "ns stall a host half the time or more; at most half (a slower normal state is L's business)")
            if not self.mean_cycle_ns() <= limits.MAX_TIME_NS:
                raise CloudnoiseError(
                    f"latency episodes: recurring stalls one every {self.mean_cycle_ns() / 1e9:g} s on average (a stall "
                    f"and its gap); at most {limits.MAX_TIME_NS / 1e9:g} s, the longest simulated time")
            return
        if any(x is None for x in bursty):
            raise CloudnoiseError("latency episodes: a bursty model needs rate, duration, stall and gap "
                                  "(or write period=,stall= for periodic stalls, stall=,gap= alone for recurring ones)")
        assert self.rate_hz is not None and self.duration is not None and self.gap is not None
        if not (self.rate_hz > 0 and math.isfinite(self.rate_hz)):
            raise CloudnoiseError(f"latency episodes: rate={self.rate_hz!r} must be a positive number per second")
        for name, dist in (("duration", self.duration), ("gap", self.gap)):
            lo, _ = dist.support()
            if not (lo >= 0 and dist.mean() <= limits.MAX_TIME_NS):
                raise CloudnoiseError(f"latency episodes: {name}={dist.spec()} must be >= 0 ns")
        if not self.gap.mean() + self.stall.mean() > 0:
            raise CloudnoiseError("latency episodes: a stall and the gap after it cannot both be 0")
        if not self.time_share() < MAX_EPISODE_SHARE:
            raise CloudnoiseError(
                f"latency episodes: rate {self.rate_hz:g}/s with episodes of {self.mean_episode_ns() / 1e3:g} us keeps "
                f"a host in episodes {100 * self.time_share():.3g}% of the time; at most {100 * MAX_EPISODE_SHARE:g}%")

    @property
    def periodic(self) -> bool:
        return self.period_ns is not None

    @property
    def recurring(self) -> bool:
        """Stalls that never stop coming, each a stall then a gap (no episodes)."""
        return self.period_ns is None and self.rate_hz is None

    def mean_cycle_ns(self) -> float:
        """Recurring stalls' mean start-to-start time: a stall and a gap."""
        assert self.gap is not None
        return self.stall.mean() + self.gap.mean()

    def mean_quiet_ns(self) -> float:
        """A bursty model's mean quiet time between episodes: what gives `rate_hz` starts per second of it."""
        assert self.rate_hz is not None
        return 1e9 / self.rate_hz

    def stalls_per_episode(self) -> float:
        """Mean stalls in a bursty episode (approximately: mean duration over a stall and a gap, at least 1)."""
        if self.periodic or self.recurring:
            return math.inf
        assert self.duration is not None and self.gap is not None
        return 1.0 + self.duration.mean() / (self.stall.mean() + self.gap.mean())

    def mean_episode_ns(self) -> float:
        """A bursty episode's mean length, first stall's start to last stall's end (approximately)."""
        if self.periodic or self.recurring:
            return math.inf
        assert self.duration is not None
        return self.duration.mean() + self.stall.mean()

    def time_share(self) -> float:
        """Share of time a host spends inside episodes (1 for periodic and recurring stalls)."""
        if self.periodic or self.recurring:
            return 1.0
        assert self.rate_hz is not None
        busy = self.rate_hz * self.mean_episode_ns() * 1e-9
        return busy / (1.0 + busy)

    def stall_share(self) -> float:
        """Share of time a host spends stalled."""
        if self.periodic:
            assert self.period_ns is not None
            return self.stall.mean() / self.period_ns
        if self.recurring:
            return self.stall.mean() / self.mean_cycle_ns()
        assert self.gap is not None
        return self.time_share() * self.stall.mean() / (self.stall.mean() + self.gap.mean())

    def representative_period_ns(self) -> int:
        """A table's period: one period for periodic stalls; about TABLE_EPISODES episodes (recurring:
        cycles), within one simulated time's limit, for bursty and recurring ones."""
        if self.periodic:
            assert self.period_ns is not None
            return max(1, int(round(self.period_ns)))
        if self.recurring:
            return int(max(1.0, min(TABLE_EPISODES * self.mean_cycle_ns(), limits.MAX_TIME_NS)))
        assert self.rate_hz is not None
        wanted = TABLE_EPISODES * (1e9 / self.rate_hz + self.mean_episode_ns())
        return int(min(wanted, limits.MAX_TIME_NS))

    def check_table(self, period_ns: int | None = None) -> int:
        """The period of a table (default: representative_period_ns), refused where a table would
        hold more than limits.MAX_EPISODES episodes or MAX_TABLE_STALLS stalls (expected)."""
        period = int(period_ns if period_ns is not None else self.representative_period_ns())
        if not 0 < period <= limits.MAX_TIME_NS:
            raise CloudnoiseError(f"latency episodes: a period must be in (0, {limits.MAX_TIME_NS:.3g}] ns")
        if self.periodic:
            assert self.period_ns is not None
            count = int(period // max(1, round(self.period_ns)))
            if count > MAX_TABLE_STALLS:
                raise CloudnoiseError(f"latency episodes: {count} stalls in a {period} ns table; at most "
                                      f"{MAX_TABLE_STALLS}")
            return period
        if self.recurring:
            count = period / self.mean_cycle_ns()
            if count > MAX_TABLE_STALLS:
                raise CloudnoiseError(f"latency episodes: about {count:.3g} stalls in a {period} ns table; at most "
                                      f"{MAX_TABLE_STALLS} (longer gaps)")
            return period
        assert self.rate_hz is not None
        expected = self.rate_hz * period * 1e-9
        if expected > limits.MAX_EPISODES:
            raise CloudnoiseError(f"latency episodes: {expected:.3g} episodes in a {period / 1e9:g} s table; at most "
                                  f"{limits.MAX_EPISODES:.0e} (lower the rate)")
        stalls_each = self.stalls_per_episode()
        if expected * stalls_each > MAX_TABLE_STALLS:
            raise CloudnoiseError(f"latency episodes: about {expected * stalls_each:.3g} stalls in a table; at most "
                                  f"{MAX_TABLE_STALLS} (shorter episodes or a lower rate)")
        return period

    def table(self, rng: np.random.Generator, period_ns: int | None = None) -> StallTable:
        """Stalls over a period (default: representative_period_ns), drawn with `rng`.
        (A simulation's repetitions draw theirs in the engine: noise/stall_process.hpp.)"""
        period = self.check_table(period_ns)
        if self.periodic:
            return self._periodic_table(rng, period)
        if self.recurring:
            return self._recurring_table(rng, period)
        return self._bursty_table(rng, period)

    def _periodic_table(self, rng: np.random.Generator, period: int) -> StallTable:
        assert self.period_ns is not None
        count = max(1, int(period // max(1, round(self.period_ns))))
        step = period / count
        starts = np.rint(np.arange(count) * step)
        lengths = np.clip(np.rint(self.stall.sample(rng, count)), 1.0, max(1.0, step - 1.0))
        return _table(starts, starts + lengths, period)

    def _recurring_table(self, rng: np.random.Generator, period: int) -> StallTable:
        """The engine's rule: stall, gap, stall, ... from 0 while a stall starts before `period`;
        the table ends where the next stall would start (lengths at least 1 ns)."""
        assert self.gap is not None
        n = int(math.ceil(period / self.mean_cycle_ns() * 1.5)) + 16
        while True:
            s = np.clip(np.rint(self.stall.sample(rng, n)), 1.0, None)
            g = np.clip(np.rint(self.gap.sample(rng, n)), 1.0, None)
            begin = np.concatenate(([0.0], np.cumsum(s + g)))
            if begin[-1] >= period:
                break
            n *= 2
        count = int(np.searchsorted(begin, period, side="left"))
        return _table(begin[:count], begin[:count] + s[:count], int(begin[count]))

    def _bursty_table(self, rng: np.random.Generator, period: int) -> StallTable:
        assert self.rate_hz is not None and self.duration is not None and self.gap is not None
        starts: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        t = float(rng.exponential(1e9 / self.rate_hz))
        while t < period:
            length = max(0.0, float(self.duration.sample(rng, 1)[0]))
            # the episode's stalls: stall, gap, stall, ... while a stall starts within `length`
            n = max(1, int(math.ceil(length / (self.stall.mean() + self.gap.mean()) * 1.5)) + 4)
            s = np.clip(np.rint(self.stall.sample(rng, n)), 1.0, None)
            g = np.clip(np.rint(self.gap.sample(rng, n)), 1.0, None)
            begin = t + np.concatenate(([0.0], np.cumsum(s + g)[:-1]))
            keep = begin <= t + length
            keep[0] = True
            begin, s = np.rint(begin[keep]), s[keep]
            starts.append(begin)
            ends.append(begin + s)
            t = float(begin[-1] + s[-1]) + 1.0 + float(rng.exponential(1e9 / self.rate_hz))
        if not starts:
            return _table(np.array([0.0]), np.array([1.0]), period)
        st, en = np.concatenate(starts), np.concatenate(ends)
        keep = en <= period
        if not keep.any():
            return _table(np.array([0.0]), np.array([1.0]), period)
        return _table(st[keep], en[keep], period)

    def spec(self) -> str:
        if self.text:
            return self.text
        tail = ((",shared=1" if self.shared else "") + (f",hosts={self.hosts!r}" if self.hosts < 1.0 else "")
                + (f",max_bytes={self.max_bytes}" if self.max_bytes is not None else ""))
        if self.periodic:
            return f"period={self.period_ns!r}ns,stall={_inline(self.stall.spec())}{tail}"
        if self.recurring:
            assert self.gap is not None
            return f"stall={_inline(self.stall.spec())},gap={_inline(self.gap.spec())}{tail}"
        assert self.duration is not None and self.gap is not None
        return (f"rate={self.rate_hz!r},duration={_inline(self.duration.spec())},stall={_inline(self.stall.spec())},"
                f"gap={_inline(self.gap.spec())}{tail}")

    def describe(self) -> str:
        """One line for people: what the stalls are."""
        scope = "one clock for every host" if self.shared else "per host"
        if self.hosts < 1.0:
            scope += f", on {100 * self.hosts:.3g}% of the hosts"
        if self.max_bytes is not None:
            scope += f", messages up to {self.max_bytes} B"
        if self.periodic:
            assert self.period_ns is not None
            return f"periodic: a {_us(self.stall.mean())} stall every {_us(self.period_ns)} ({scope})"
        if self.recurring:
            return (f"recurring: a {_us(self.stall.mean())} stall (mean) every {_us(self.mean_cycle_ns())} (mean, "
                    f"start to start), {100 * self.stall_share():.3g}% of the time ({scope})")
        assert self.gap is not None
        return (f"bursty: episodes of {_us(self.mean_episode_ns())} (mean) at {self.rate_hz:.3g}/s of quiet time, "
                f"{100 * self.time_share():.3g}% of the time, in which a {_us(self.stall.mean())} stall recurs every "
                f"{_us(self.stall.mean() + self.gap.mean())} ({scope})")


def _us(ns: float) -> str:
    return f"{ns / 1e6:.3g} ms" if ns >= 1e6 else f"{ns / 1e3:.3g} us"


def _table(starts: np.ndarray, ends: np.ndarray, period: int) -> StallTable:
    return StallTable(np.ascontiguousarray(starts, np.int64), np.ascontiguousarray(ends, np.int64), int(period))


def _inline(spec: str) -> str:
    """`lognormal:median=1,sigma=2` as written inside an episodes spec: `lognormal(median=1,sigma=2)`."""
    kind, _, params = spec.partition(":")
    return f"{kind}({params})"


def parse_latency_episodes(spec: str) -> LatencyEpisodes:
    """LatencyEpisodes from `rate=PER_S,duration=DIST|TIME,stall=DIST|TIME,gap=DIST|TIME[,shared=1]`,
    `period=TIME,stall=DIST|TIME[,shared=1]` or `stall=DIST|TIME,gap=DIST|TIME[,shared=1]` (recurring)."""
    text = str(spec).strip()
    params: dict[str, str] = {}
    for item in split_top_level(text, ",", text, "NAME=VALUE item"):
        name, eq, value = item.partition("=")
        if not eq:
            raise CloudnoiseError(
                f"bad latency episodes {shown(text)}: write rate=PER_S,duration=TIME,stall=TIME,gap=TIME "
                "or period=TIME,stall=TIME")
        params[name.strip()] = value.strip()
    allowed = {"rate", "duration", "stall", "gap", "period", "shared", "hosts", "max_bytes"}
    unknown = set(params) - allowed
    if unknown:
        raise CloudnoiseError(f"in {shown(text)}: latency episodes take rate, duration, stall, gap, period, shared, "
                              f"hosts, max_bytes; unknown {', '.join(sorted(unknown))}")
    if "stall" not in params:
        raise CloudnoiseError(f"in {shown(text)}: latency episodes need stall=TIME|DIST")
    shared = params.get("shared", "0")
    if shared not in ("0", "1"):
        raise CloudnoiseError(f"in {shown(text)}: shared={shown(shared)} must be 0 or 1")
    try:
        hosts = float(params.get("hosts", "1"))
    except ValueError:
        hosts = math.nan
    if not 0 < hosts <= 1:
        raise CloudnoiseError(f"in {shown(text)}: hosts={shown(params.get('hosts'))} is the share of hosts that stall: "
                              "a number in (0, 1]")
    max_bytes: int | None = None
    if "max_bytes" in params:
        raw = params["max_bytes"]
        if not (raw.isdigit() and 0 < int(raw) <= limits.MAX_SIZE_BYTES):
            raise CloudnoiseError(f"in {shown(text)}: max_bytes={shown(raw)} is the largest message that waits for a "
                                  f"stall: a whole number of bytes in [1, {limits.MAX_SIZE_BYTES}]")
        max_bytes = int(raw)
    stall = parse_inline_distribution(params["stall"], "stall", time=True)
    if "period" in params:
        extra = {"rate", "duration", "gap"} & set(params)
        if extra:
            raise CloudnoiseError(f"in {shown(text)}: periodic stalls (period=) take no {', '.join(sorted(extra))}")
        period = parse_inline_distribution(params["period"], "period", time=True)
        lo, hi = period.support()
        if lo != hi:
            raise CloudnoiseError(f"in {shown(text)}: period= is one time (e.g. 1ms), not a distribution")
        return LatencyEpisodes(stall, period_ns=float(lo), shared=shared == "1", hosts=hosts, max_bytes=max_bytes,
                               text=text)
    if "gap" in params and "rate" not in params and "duration" not in params:
        gap = parse_inline_distribution(params["gap"], "gap", time=True)
        return LatencyEpisodes(stall, gap=gap, shared=shared == "1", hosts=hosts, max_bytes=max_bytes, text=text)
    missing = {"rate", "duration", "gap"} - set(params)
    if missing:
        raise CloudnoiseError(f"in {shown(text)}: bursty latency episodes need rate, duration, stall, gap; missing "
                              f"{', '.join(sorted(missing))} (or write period=TIME,stall=TIME, or stall=,gap= alone "
                              "for recurring stalls)")
    try:
        rate = float(params["rate"].removesuffix("Hz").removesuffix("/s"))
    except ValueError:
        raise CloudnoiseError(f"in {shown(text)}: rate={shown(params['rate'])} is not a number (per second)") from None
    duration = parse_inline_distribution(params["duration"], "duration", time=True)
    gap = parse_inline_distribution(params["gap"], "gap", time=True)
    return LatencyEpisodes(stall, rate, duration, gap, shared=shared == "1", hosts=hosts, max_bytes=max_bytes,
                           text=text)
