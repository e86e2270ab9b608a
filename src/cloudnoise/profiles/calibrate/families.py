"""The parametric noise models the calibration fits, and their closed forms.

Three families, one per kind of noise, each with few parameters and a
physical reading:

* Latency excess over L, ns, per message (Sec. IV-B, Fig. 9-10):
      (1 - w_t - w_s) * lognormal(median=m, sigma=s_b)     the body
    + w_t * pareto(scale=x_t, alpha=a)                        the top 0.1%
    + w_s * lognormal(median=M_s, sigma=s_s)                  rare spikes
  w_t = 1e-3: the tail is exactly the "largest 0.1% measurements" Fig. 9
  plots; its scale x_t is where it starts (the 99.9th percentile) and a
  its heaviness. Spikes are the very rare, very long events of the prose
  (Oracle's 59 ms sample). The body median m is solved so that the mean
  excess equals Table II's mean minus min latency (`solve_body_median`).
  What a 16K-node dissemination sees: 14 rounds, each gated by the slowest
  of 16K messages, i.e. the quantile near 1 - 1/16K = 1 - 6e-5, deep in the
  tail; its median runtime lies between the single largest of the
  14 x 16K draws, x_t (w_t N R)^(1/a), and the sum of the per-round maxima,
  R x_t (w_t N)^(1/a) (`dissemination_bounds`). The mean of the
  distribution (Table II) barely matters there.
* Bandwidth, as a fraction of the peak, per message (Sec. IV-C, Fig. 11-12):
      (1 - w_d) * uniform(b, 1) + w_d * uniform(d_lo, d_hi)
  a body of small fluctuations and drops of weight w_d to depth [d_lo,
  d_hi]; b is solved so the mean fraction equals Table II's mean / max
  bandwidth (`solve_body_low`).
  Where the paper says the drops persist (Oracle, Sec. IV-C: "clustered in
  time ... up to 0.6 seconds"), the same share of samples w_d sits in
  episodes of each node (model/bandwidth_episodes.py) instead of in
  independent draws: durations uniform on (0, e] with e the longest the
  prose names, the rate solved so that w_d of a back-to-back measurement's
  samples fall inside them (`bandwidth_episodes_spec`).
* OS noise (Sec. IV-A, Fig. 8): Poisson detours of two kinds,
      rate r_s of short detours, lognormal(median d_s, sigma 0.5)  (Fig. 8's
      frequency and intensity classes), plus
      rate r_l of long detours, lognormal(median d_l, sigma 0.5)   (daemons)
  written as one `random:` spec (a Poisson stream with a mixture of
  durations is two independent streams). In LogGOPSim's rule a detour delays
  a rank when one of its CPU activities starts inside it, so a P-rank
  collective lasting T meets about P x r x (T + d) detours; at 16K ranks
  the long ones decide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import round_sig

TAIL_WEIGHT = 1e-3  # Fig. 9 plots the largest 0.1% of the samples
DIGITS = 4  # parameters are written with 4 significant digits


def fmt(x: float) -> str:
    """A number as written into spec strings: 4 significant digits, no exponent noise."""
    return f"{round_sig(float(x), DIGITS):.10g}"


def complement(*weights: float) -> str:
    """1 minus the (already rounded) weights, written exactly, so a mixture's
    weights sum to 1 as written."""
    return f"{round(1.0 - sum(weights), 12):.12g}"


@dataclass(frozen=True)
class LatencyParams:
    """Latency excess model (ns); see the module docstring."""

    body_sigma: float
    tail_scale_ns: float  # x_t: where the top 0.1% starts (excess over L)
    tail_alpha: float
    spike_weight: float = 0.0
    spike_median_ns: float = 0.0
    spike_sigma: float = 0.0

    def rounded(self) -> LatencyParams:
        return LatencyParams(*(round_sig(float(v), DIGITS) for v in (
            self.body_sigma, self.tail_scale_ns, self.tail_alpha, self.spike_weight, self.spike_median_ns,
            self.spike_sigma)))


def tail_mean(p: LatencyParams) -> float:
    """Mean contribution of the Pareto tail, w_t x_t a / (a - 1) (a > 1)."""
    from cloudnoise.model.distributions import Pareto

    if p.tail_alpha <= 1:
        raise CloudnoiseError(f"latency tail alpha must exceed 1 (a finite mean), got {p.tail_alpha}")
    return TAIL_WEIGHT * Pareto(p.tail_scale_ns, p.tail_alpha).mean()


def spike_mean(p: LatencyParams) -> float:
    return p.spike_weight * p.spike_median_ns * math.exp(0.5 * p.spike_sigma**2) if p.spike_weight else 0.0


def solve_body_median(p: LatencyParams, mean_excess_ns: float) -> float:
    """The body median m such that the mixture's mean is `mean_excess_ns`."""
    body_weight = 1.0 - TAIL_WEIGHT - p.spike_weight
    rest = mean_excess_ns - tail_mean(p) - spike_mean(p)
    if not rest > 0:
        raise CloudnoiseError(
            f"the latency tail and spikes alone ({tail_mean(p) + spike_mean(p):.4g} ns) exceed Table II's mean excess "
            f"({mean_excess_ns:.4g} ns)"
        )
    return rest / (body_weight * math.exp(0.5 * p.body_sigma**2))


def latency_spec(p: LatencyParams, mean_excess_ns: float) -> str:
    """The latency excess model as a distribution spec (4 significant digits)."""
    p = p.rounded()
    m = solve_body_median(p, mean_excess_ns)
    parts = [
        f"{complement(TAIL_WEIGHT, p.spike_weight)}*lognormal(median={fmt(m)},sigma={fmt(p.body_sigma)})",
        f"{fmt(TAIL_WEIGHT)}*pareto(scale={fmt(p.tail_scale_ns)},alpha={fmt(p.tail_alpha)})",
    ]
    if p.spike_weight > 0:
        parts.append(
            f"{fmt(p.spike_weight)}*lognormal(median={fmt(p.spike_median_ns)},sigma={fmt(p.spike_sigma)})")
    return "mixture:" + "+".join(parts)


def pareto_quantile(p: LatencyParams, u: float) -> float:
    """The tail's quantile at upper probability u < w_t (excess, ns): x_t (w_t / u)^(1/a)."""
    return p.tail_scale_ns * (TAIL_WEIGHT / u) ** (1.0 / p.tail_alpha)


def dissemination_bounds(p: LatencyParams, ranks: int) -> tuple[float, float]:
    """Extreme-value bounds (ns) on what the latency tail adds to a dissemination
    of `ranks` ranks: the largest single draw of the N x R messages (lower) and
    the sum over the R rounds of each round's largest of N (upper)."""
    rounds = max(1, math.ceil(math.log2(ranks)))
    lower = pareto_quantile(p, math.log(2) / (ranks * rounds))
    upper = rounds * pareto_quantile(p, math.log(2) / ranks)
    return lower, upper


@dataclass(frozen=True)
class BandwidthParams:
    """Bandwidth fraction model; see the module docstring."""

    drop_weight: float = 0.0
    drop_low: float = 0.0
    drop_high: float = 0.0
    # > 0: the drops persist in time, in episodes lasting up to this many
    # seconds (0: independent per-message draws)
    episode_max_s: float = 0.0

    def rounded(self) -> BandwidthParams:
        return BandwidthParams(*(round_sig(float(v), DIGITS) for v in (
            self.drop_weight, self.drop_low, self.drop_high, self.episode_max_s)))


def solve_body_low(p: BandwidthParams, mean_fraction: float) -> float:
    """b such that (1 - w_d) (1 + b) / 2 + w_d (d_lo + d_hi) / 2 = mean fraction."""
    mid = 0.5 * (p.drop_low + p.drop_high)
    low = 2.0 * (mean_fraction - p.drop_weight * mid) / (1.0 - p.drop_weight) - 1.0
    if not 0.0 < low < 1.0:
        raise CloudnoiseError(
            f"bandwidth drops of weight {p.drop_weight:g} at {p.drop_low:g}-{p.drop_high:g} cannot have Table II's mean "
            f"fraction {mean_fraction:.5g} (body low end {low:.4g})"
        )
    return low


def bandwidth_spec(p: BandwidthParams, mean_fraction: float) -> str:
    """The per-message draws: the body, and the drops unless they persist in episodes."""
    p = p.rounded()
    low = solve_body_low(p, mean_fraction)
    if p.drop_weight <= 0 or p.episode_max_s > 0:
        return f"uniform:low={fmt(low)},high=1"
    return (
        f"mixture:{complement(p.drop_weight)}*uniform(low={fmt(low)},high=1)"
        f"+{fmt(p.drop_weight)}*uniform(low={fmt(p.drop_low)},high={fmt(p.drop_high)})"
    )


def bandwidth_episodes_spec(p: BandwidthParams, mean_fraction: float) -> str | None:
    """The drops as episodes in time (None when they are per-message draws): the
    rate at which the drops' share of samples falls inside them."""
    from cloudnoise.model.bandwidth_episodes import BandwidthEpisodes
    from cloudnoise.model.distributions import Uniform

    p = p.rounded()
    if p.drop_weight <= 0 or p.episode_max_s <= 0:
        return None
    body_mean = 0.5 * (1.0 + float(fmt(solve_body_low(p, mean_fraction))))
    duration = Uniform(0.0, p.episode_max_s * 1e9)
    rate = BandwidthEpisodes.rate_for_share(p.drop_weight, duration, Uniform(p.drop_low, p.drop_high), body_mean)
    return (f"rate={fmt(rate)},duration=uniform(low=0,high={fmt(p.episode_max_s * 1e3)}ms),"
            f"fraction=uniform(low={fmt(p.drop_low)},high={fmt(p.drop_high)})")


@dataclass(frozen=True)
class OSParams:
    """OS detour model; see the module docstring. Rates per second, durations ns."""

    short_rate: float
    short_median_ns: float
    long_rate: float
    long_median_ns: float
    sigma: float = 0.5

    def rounded(self) -> OSParams:
        return OSParams(*(round_sig(float(v), DIGITS) for v in (
            self.short_rate, self.short_median_ns, self.long_rate, self.long_median_ns, self.sigma)))


def os_spec(p: OSParams) -> str:
    p = p.rounded()
    total = p.short_rate + p.long_rate
    w_long = round_sig(p.long_rate / total, DIGITS)
    return (
        f"random:rate={fmt(total)},duration=mixture({complement(w_long)}*lognormal(median={fmt(p.short_median_ns)},"
        f"sigma={fmt(p.sigma)})+{fmt(w_long)}*lognormal(median={fmt(p.long_median_ns)},sigma={fmt(p.sigma)}))"
    )


def os_noise_fraction(p: OSParams) -> float:
    """Share of CPU time lost to detours (mean duration x rate)."""
    k = math.exp(0.5 * p.sigma**2)
    return (p.short_rate * p.short_median_ns + p.long_rate * p.long_median_ns) * k * 1e-9
