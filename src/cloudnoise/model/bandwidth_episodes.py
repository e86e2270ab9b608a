"""Bandwidth drops that persist in time ("episodes"), per sending node.

Sec. IV-C of the paper: "On Oracle, bandwidth noise is clustered in time,
causing persistent drops that last for up to 0.6 seconds." A per-message
bandwidth draw cannot show this: over the hundreds of messages of a long
collective independent drops average out, while a drop that persists slows
every message its node sends for as long as it lasts.

The model: on each node, episodes alternate with quiet gaps. Episodes start at
`rate` per second on average (an alternating renewal process: exponential
gaps, so the starts are Poisson-like); each lasts a duration drawn from
`duration` (ns) and holds the node's bandwidth at a fraction of the peak drawn
from `fraction`. A message sent inside an episode moves at the lower of its own
per-message draw and the episode's fraction.

Written in a profile as `bandwidth_noise.episodes`:

    rate=0.005,duration=uniform(low=0,high=600ms),fraction=uniform(low=0.75,high=0.85)

How it relates to what a measurement sees: a one-hour stream of back-to-back
large pings (Fig. 11) sends messages at a rate proportional to the bandwidth,
so the share of samples taken inside episodes (`message_share`) is below the
share of time spent in them (`time_share`). Table II's mean bandwidth and
Fig. 11's bottom 0.1% are statistics of samples: `marginal` gives the
per-sample distribution they describe.

The engine draws, for each repetition of a simulation, its own table of
episodes over a period (noise/episode_process.hpp), which every node reads
from its own drawn offset; `EpisodeTable` is such a table, `table` draws one
here (with numpy) for estimates and tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.distributions import (
    Constant, Distribution, Mixture, mixture_of, parse_inline_distribution, split_top_level,
)

# A table holds about this many episodes (as the OS-noise traces hold about
# 500 of their rarest detours): every node of a repetition reads the same
# table, so with a handful of episodes the nodes would see the same few.
TABLE_EPISODES = 500


@dataclass(frozen=True)
class EpisodeTable:
    """Episodes over one period, in ns: sorted, disjoint, within [0, period_ns)."""

    starts_ns: np.ndarray
    ends_ns: np.ndarray
    fractions: np.ndarray
    period_ns: int

    def __len__(self) -> int:
        return int(self.starts_ns.size)

    def time_share(self) -> float:
        """Share of the period spent inside episodes."""
        return float((self.ends_ns - self.starts_ns).sum()) / self.period_ns


@dataclass(frozen=True)
class BandwidthEpisodes:
    """Persistent bandwidth drops; see the module docstring."""

    rate_hz: float  # episodes per second on one node
    duration: Distribution  # ns
    fraction: Distribution  # of the peak bandwidth, in [limits.MIN_EPISODE_FRACTION, 1]
    text: str = ""

    def __post_init__(self) -> None:
        if not (self.rate_hz > 0 and math.isfinite(self.rate_hz)):
            raise CloudnoiseError(f"bandwidth episodes: rate={self.rate_hz!r} must be a positive number per second")
        lo, _ = self.duration.support()
        mean = self.duration.mean()
        if not (lo >= 0 and 0 < mean <= limits.MAX_TIME_NS):
            raise CloudnoiseError(
                f"bandwidth episodes: durations must be >= 0 with a mean in (0, {limits.MAX_TIME_NS:.3g}] ns; "
                f"{self.duration.spec()} starts at {lo:g} ns with mean {mean:g} ns"
            )
        flo, fhi = self.fraction.support()
        if not (flo >= limits.MIN_EPISODE_FRACTION and fhi <= 1.0):
            raise CloudnoiseError(
                f"bandwidth episodes: the fraction of the peak must lie in [{limits.MIN_EPISODE_FRACTION:g}, 1], "
                f"{self.fraction.spec()} spans [{flo:g}, {fhi:g}]"
            )
        if not self.time_share() < 0.5:
            raise CloudnoiseError(
                f"bandwidth episodes: rate {self.rate_hz:g}/s x mean duration {self.duration.mean() / 1e9:g} s puts a "
                f"node in a drop {100 * self.time_share():.3g}% of the time; at most 50% (drops are the exception: "
                "a slower normal state is the peak bandwidth's business)"
            )

    def time_share(self) -> float:
        """Share of time a node spends inside episodes (rate x mean duration)."""
        return self.rate_hz * self.duration.mean() * 1e-9

    def message_share(self, body_mean: float = 1.0) -> float:
        """Share of the samples of a back-to-back bandwidth measurement taken inside
        episodes, when outside them the mean fraction is `body_mean`: samples come
        at a rate proportional to the bandwidth."""
        q = self.time_share()
        inside = q * self.fraction.mean()
        return inside / (inside + (1.0 - q) * body_mean)

    @staticmethod
    def rate_for_share(share: float, duration: Distribution, fraction: Distribution, body_mean: float = 1.0) -> float:
        """The rate (per second) at which `share` of the samples fall inside episodes
        (the inverse of `message_share`)."""
        if not 0.0 < share < 1.0:
            raise CloudnoiseError(f"bandwidth episodes: a share of samples must be in (0, 1), got {share!r}")
        inside = share * body_mean
        q = inside / (inside + (1.0 - share) * fraction.mean())
        return q / (duration.mean() * 1e-9)

    def marginal(self, body: Distribution | None) -> Distribution:
        """The per-sample bandwidth fraction a measurement sees: the per-message
        draws (`body`, None for none: the peak) outside episodes, the episodes'
        fractions inside (approximately: inside, a message takes the lower of the two)."""
        base = body if body is not None else Constant(1.0)
        w = self.message_share(base.mean())
        flat = mixture_of([(1.0 - w, base), (w, self.fraction)])  # a mixture body or hosts' levels join flat
        total = sum(flat.weights)
        return Mixture(tuple(x / total for x in flat.weights), flat.components)

    def representative_period_ns(self) -> int:
        """A table's period: about TABLE_EPISODES episodes, within one simulated time's limit."""
        wanted = TABLE_EPISODES / self.rate_hz * 1e9
        return int(min(wanted, limits.MAX_TIME_NS))

    def mean_quiet_ns(self) -> float:
        """The mean quiet time between two episodes: what gives `rate_hz` starts per second."""
        return 1e9 / self.rate_hz - self.duration.mean()

    def check_table(self, period_ns: int | None = None) -> int:
        """The period of a table (default: representative_period_ns), refused where a table would
        hold more than limits.MAX_EPISODES episodes."""
        period = int(period_ns if period_ns is not None else self.representative_period_ns())
        if not 0 < period <= limits.MAX_TIME_NS:
            raise CloudnoiseError(f"bandwidth episodes: a period must be in (0, {limits.MAX_TIME_NS:.3g}] ns")
        expected = self.rate_hz * period * 1e-9
        if expected > limits.MAX_EPISODES:
            raise CloudnoiseError(
                f"bandwidth episodes: {expected:.3g} episodes in a {period / 1e9:g} s period; at most "
                f"{limits.MAX_EPISODES:.0e} (lower the rate)"
            )
        return period

    def table(self, rng: np.random.Generator, period_ns: int | None = None) -> EpisodeTable:
        """Episodes over a period (default: representative_period_ns), drawn with `rng`:
        gaps exponential with the mean that gives `rate_hz`, durations and fractions drawn.
        (A simulation's repetitions draw theirs in the engine: noise/episode_process.hpp.)"""
        period = self.check_table(period_ns)
        expected = self.rate_hz * period * 1e-9
        mean_gap = self.mean_quiet_ns()
        count = max(1, int(math.ceil(expected * 1.5)) + 10)
        gaps = rng.exponential(mean_gap, count)
        # A heavy-tailed duration may draw beyond the period: an episode lasts at most that.
        durations = np.clip(np.rint(self.duration.sample(rng, count)), 1.0, float(period))
        fractions = np.clip(self.fraction.sample(rng, count), limits.MIN_EPISODE_FRACTION, 1.0)
        starts = np.cumsum(gaps) + np.concatenate(([0.0], np.cumsum(durations)[:-1]))
        starts = np.rint(starts)
        ends = starts + durations
        keep = ends <= period
        starts, ends, fractions = starts[keep], ends[keep], fractions[keep]
        if starts.size == 0:
            # No episode within the period (a rate far below one per period): the
            # engine wants one, so one that drops nothing.
            starts, ends, fractions = np.array([0.0]), np.array([1.0]), np.array([1.0])
        return EpisodeTable(starts.astype(np.int64), ends.astype(np.int64), np.ascontiguousarray(fractions, np.float64),
                            period)

    def spec(self) -> str:
        return self.text or (f"rate={self.rate_hz!r},duration={_inline(self.duration.spec())},"
                             f"fraction={_inline(self.fraction.spec())}")


def _inline(spec: str) -> str:
    """`uniform:low=0,high=1` as written inside an episodes spec: `uniform(low=0,high=1)`."""
    kind, _, params = spec.partition(":")
    return f"{kind}({params})"


def parse_bandwidth_episodes(spec: str) -> BandwidthEpisodes:
    """BandwidthEpisodes from `rate=PER_S,duration=DIST|TIME,fraction=DIST|NUMBER`."""
    text = str(spec).strip()
    params: dict[str, str] = {}
    for item in split_top_level(text, ",", text, "NAME=VALUE item"):
        name, eq, value = item.partition("=")
        if not eq:
            raise CloudnoiseError(
                f"bad bandwidth episodes {shown(text)}: write rate=PER_S,duration=uniform(low=0,high=600ms),"
                "fraction=uniform(low=0.75,high=0.85)"
            )
        params[name.strip()] = value.strip()
    allowed = {"rate", "duration", "fraction"}
    if set(params) != allowed:
        unknown, missing = set(params) - allowed, allowed - set(params)
        raise CloudnoiseError(
            f"in {shown(text)}: bandwidth episodes take rate, duration, fraction"
            + (f"; unknown {', '.join(sorted(unknown))}" if unknown else "")
            + (f"; missing {', '.join(sorted(missing))}" if missing else "")
        )
    try:
        rate = float(params["rate"].removesuffix("Hz").removesuffix("/s"))
    except ValueError:
        raise CloudnoiseError(f"in {shown(text)}: rate={shown(params['rate'])} is not a number (per second)") from None
    duration = parse_inline_distribution(params["duration"], "duration", time=True)
    fraction = parse_inline_distribution(params["fraction"], "fraction", time=False)
    return BandwidthEpisodes(rate, duration, fraction, text)
