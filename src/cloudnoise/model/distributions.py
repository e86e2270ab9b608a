"""Noise distributions: what the simulator draws per message.

Two uses (Sec. IV-V of the paper):

* **latency noise** -- the excess added to L for one message, in nanoseconds
  (support >= 0; 0 means "the minimum latency");
* **bandwidth noise** -- the bandwidth one message gets, as a fraction of the
  peak (support in (0, 1]); the engine scales G by peak / drawn.

Every distribution can be sampled here (numpy Generator) and exported as a
**quantile table** (`to_quantile_table()`): a piecewise-linear inverse CDF the
C++ engine samples with its own counter-based RNG.  The table contract:

* `probabilities`: float64, strictly increasing, first 0.0, last 1.0;
* `values`: float64, same length, non-decreasing, all finite;
* to draw: take u uniform in [0, 1), find i with p[i] <= u < p[i+1], return
  v[i] + (u - p[i]) / (p[i+1] - p[i]) * (v[i+1] - v[i]).
* The grid is 4096 uniform steps plus points at 1 - 10^-x for x from 3 to 9,
  ten per decade, so rare spikes (probability 1e-5 and below) survive and
  steep tails keep their mean, plus a pair of points 1e-12
  either side of every jump of the quantile function (a mixture's atoms and
  gaps between supports), so a spike stays a spike instead of being smeared
  over a grid cell.  Unbounded tails (lognormal, Pareto) are truncated at the
  quantile 1 - 1e-9: the table's last value is that quantile.

Spec strings (`parse_distribution`)::

    constant:value=500ns
    uniform:low=0.5,high=1
    lognormal:median=800ns,sigma=0.7      # or mu=LN_NS,sigma=S   or median=X,p99=Y
    pareto:scale=10us,alpha=2.5           # support [scale, inf); P(X>x) = (scale/x)^alpha
    pareto:scale=10us,alpha=2.5,max=1ms   # the same truncated at max (bounded excursions)
    empirical:file=samples.csv            # also: any spec without ':' is a FILE path
    empirical:file=run.parquet,column=latency_ns,scale=0.001
    empirical:file=bw.csv,column=gbit_s,normalize=max   # bandwidths -> fraction of peak
    mixture:0.999*lognormal(median=800ns,sigma=0.7)+0.001*constant(value=59ms)

* Numbers may carry a time unit (`ps ns us ms s`), converted to nanoseconds;
  plain numbers are taken as they are (ns for latency, fractions for bandwidth).
  `mu` is ln(nanoseconds) and `sigma` is unitless.
* Inside a mixture each component is `WEIGHT*KIND(PARAMS)`; weights must be
  positive and sum to 1 (within 1e-9).  Mixtures do not nest.
* Empirical samples: a Parquet column (`column=`, default: the first numeric
  column), a CSV column (same; header optional) or one number per line (`#`
  comments, blank lines allowed).  `scale=` multiplies every sample (e.g. to
  turn microseconds into nanoseconds); `normalize=max` then divides by the
  largest sample (measured bandwidths -> fractions of the peak).  Sampling is by inverse CDF of the
  sorted samples with linear interpolation (numpy's default quantile), so a
  one-hour trace of millions of samples costs one sort.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Protocol, runtime_checkable

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.input_files import check_file, decode_text, file_beside
from cloudnoise.units import parse_time_ps

# the standard normal's 99th percentile (equal, bit for bit, to scipy.stats.norm.ppf(0.99))
_Z99 = NormalDist().inv_cdf(0.99)

# Quantile-table grid (see module docstring).
TABLE_UNIFORM_STEPS = 4096
TABLE_TAIL_DECADES = (3, 9)  # tail points 1 - 10^-x for x from 3 to 9 ...
TABLE_TAIL_PER_DECADE = 10  # ... ten per decade (log-spaced), so steep tails keep their mean
TAIL_TRUNCATION = 1e-9  # unbounded distributions are cut at quantile 1 - this
JUMP_HALF_WIDTH = 1e-12
# Beyond these a lognormal's quantiles and mean leave float64 (e^700 ~ 1e304).
MAX_SIGMA = 50.0
MAX_ABS_MU = 600.0


@runtime_checkable
class Distribution(Protocol):
    """What every noise distribution offers."""

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray: ...

    def quantile(self, p: np.ndarray) -> np.ndarray: ...

    def cdf(self, x: np.ndarray) -> np.ndarray: ...

    def mean(self) -> float: ...

    def support(self) -> tuple[float, float]: ...

    def jumps(self) -> np.ndarray: ...

    def to_quantile_table(self) -> tuple[np.ndarray, np.ndarray]: ...

    def spec(self) -> str: ...


def quantile_grid() -> np.ndarray:
    """The base probability grid of every quantile table: uniform plus upper-tail points."""
    uniform = np.linspace(0.0, 1.0, TABLE_UNIFORM_STEPS + 1)
    lo, hi = TABLE_TAIL_DECADES
    exponents = np.linspace(lo, hi, (hi - lo) * TABLE_TAIL_PER_DECADE + 1)
    tail = 1.0 - 10.0**-exponents
    return np.unique(np.concatenate([uniform, tail]))


def _table_from(dist: Distribution) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate `dist.quantile` on the grid plus points around its jumps."""
    grid = [quantile_grid()]
    jumps = np.asarray(dist.jumps(), dtype=np.float64)
    jumps = jumps[(jumps > 0.0) & (jumps < 1.0)]
    if jumps.size:
        grid.append(np.clip(jumps - JUMP_HALF_WIDTH, 0.0, 1.0))
        grid.append(np.clip(jumps + JUMP_HALF_WIDTH, 0.0, 1.0))
    p = np.unique(np.concatenate(grid))
    inner = np.clip(p, 0.0, 1.0 - TAIL_TRUNCATION)
    values = np.asarray(dist.quantile(inner), dtype=np.float64)
    low, high = dist.support()
    values[0] = max(values[0], low) if math.isfinite(low) else values[0]
    if math.isfinite(high):
        values[-1] = high
    values = np.maximum.accumulate(values)
    if not np.all(np.isfinite(values)):
        raise CloudnoiseError(f"distribution {dist.spec()} has a non-finite quantile; cannot tabulate it")
    return p.astype(np.float64), values


def _as_p(p: np.ndarray | float) -> np.ndarray:
    arr = np.asarray(p, dtype=np.float64)
    if np.any((arr < 0) | (arr > 1)) or np.any(np.isnan(arr)):
        raise CloudnoiseError("quantile probabilities must lie in [0, 1]")
    return arr


def _cdf_on_support(x: np.ndarray, inside: np.ndarray, values: np.ndarray, beyond: np.ndarray) -> np.ndarray:
    """A cdf as scipy.stats gives it: `values` inside the open support, 1 where `beyond` its
    top, 0 below, NaN for NaN x; a scalar for a scalar x."""
    out = np.where(inside, values, np.where(beyond, 1.0, 0.0))
    out = np.where(np.isnan(x), np.nan, out)
    return out if out.ndim else out[()]


def _fmt(x: float) -> str:
    """A number as short as it can be written without visible rounding (12 significant digits)."""
    return f"{float(x):.12g}"


class _Base:
    """Shared behaviour: sampling by inverse CDF unless a subclass does better."""

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return self.quantile(rng.random(int(n)))  # type: ignore[attr-defined]

    def jumps(self) -> np.ndarray:
        return np.empty(0)

    def to_quantile_table(self) -> tuple[np.ndarray, np.ndarray]:
        return _table_from(self)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Constant(_Base):
    """Always the same value (a fixed excess, or a fixed bandwidth fraction)."""

    value: float

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return np.full(int(n), self.value, dtype=np.float64)

    def quantile(self, p: np.ndarray) -> np.ndarray:
        return np.full(np.shape(_as_p(p)), self.value, dtype=np.float64)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, dtype=np.float64) >= self.value).astype(np.float64)

    def mean(self) -> float:
        return float(self.value)

    def support(self) -> tuple[float, float]:
        return (self.value, self.value)

    def spec(self) -> str:
        return f"constant:value={_fmt(self.value)}"


@dataclass(frozen=True)
class Uniform(_Base):
    """Uniform on [low, high]; used for bandwidth-fraction bodies and drops."""

    low: float
    high: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.high > self.low):
            raise CloudnoiseError(f"uniform needs finite low < high, got low={self.low}, high={self.high}")

    def quantile(self, p: np.ndarray) -> np.ndarray:
        return self.low + _as_p(p) * (self.high - self.low)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        return np.clip((np.asarray(x, dtype=np.float64) - self.low) / (self.high - self.low), 0.0, 1.0)

    def mean(self) -> float:
        return 0.5 * (self.low + self.high)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)

    def spec(self) -> str:
        return f"uniform:low={_fmt(self.low)},high={_fmt(self.high)}"


@dataclass(frozen=True)
class LogNormal(_Base):
    """Log-normal: ln(X) ~ Normal(mu, sigma); median = exp(mu) (in ns for latency)."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not 0 < self.sigma <= MAX_SIGMA:
            raise CloudnoiseError(f"lognormal needs 0 < sigma <= {MAX_SIGMA:g}, got {shown(self.sigma)}")
        if not abs(self.mu) <= MAX_ABS_MU:
            raise CloudnoiseError(
                f"lognormal needs a median between e^-{MAX_ABS_MU:g} and e^{MAX_ABS_MU:g}, got mu={shown(self.mu)}"
            )

    @classmethod
    def from_median(cls, median: float, sigma: float) -> LogNormal:
        if not median > 0:
            raise CloudnoiseError(f"lognormal needs median > 0, got {median}")
        return cls(math.log(median), sigma)

    @classmethod
    def from_median_p99(cls, median: float, p99: float) -> LogNormal:
        if not (median > 0 and p99 > median):
            raise CloudnoiseError(f"lognormal needs 0 < median < p99, got median={median}, p99={p99}")
        return cls(math.log(median), math.log(p99 / median) / _Z99)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.lognormal(self.mu, self.sigma, int(n))

    def quantile(self, p: np.ndarray) -> np.ndarray:
        # scipy.stats.lognorm(s, scale).ppf, the same operations in the same order (bit for
        # bit), from scipy.special, which a report or a simulation loads in half the memory
        from scipy.special import ndtri

        return np.exp(self.sigma * ndtri(_as_p(p))) * math.exp(self.mu) + 0.0

    def cdf(self, x: np.ndarray) -> np.ndarray:
        # scipy.stats.lognorm(s, scale).cdf, bit for bit: Phi(log(x / scale) / s) inside the
        # support (0, inf), 0 below it, 1 at infinity, NaN for NaN
        from scipy.special import ndtr

        x = np.asarray(x, dtype=np.float64)
        inside = (x > 0) & (x < math.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = ndtr(np.log(np.where(inside, x, 1.0) / math.exp(self.mu)) / self.sigma)
        return _cdf_on_support(x, inside, phi, x >= math.inf)

    def mean(self) -> float:
        exponent = self.mu + 0.5 * self.sigma**2
        return math.exp(exponent) if exponent < 709 else math.inf

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    def spec(self) -> str:
        return f"lognormal:median={_fmt(math.exp(self.mu))},sigma={_fmt(self.sigma)}"


@dataclass(frozen=True)
class Pareto(_Base):
    """Pareto tail: P(X > x) = (scale / x)^alpha for x >= scale; with `max`,
    truncated there: P(X > x) = ((scale/x)^alpha - t) / (1 - t), t = (scale/max)^alpha
    (a heavy tail whose excursions are bounded, e.g. by a retransmission timeout)."""

    scale: float
    alpha: float
    max: float = math.inf

    def __post_init__(self) -> None:
        if not (0 < self.scale < math.inf and 0 < self.alpha < math.inf):
            raise CloudnoiseError(f"pareto needs scale > 0 and alpha > 0, got scale={self.scale}, alpha={self.alpha}")
        if not self.max > self.scale:
            raise CloudnoiseError(f"pareto needs max > scale, got scale={self.scale}, max={self.max}")

    @property
    def _t(self) -> float:
        return 0.0 if math.isinf(self.max) else (self.scale / self.max) ** self.alpha

    def quantile(self, p: np.ndarray) -> np.ndarray:
        q = _as_p(p)
        if math.isinf(self.max):
            # scipy.stats.pareto(b, scale=scale).ppf, the same operations in the same order
            # (bit for bit; q = 1 gives inf as it does), without importing scipy.stats: that
            # took ~1.4 s, longer than a small `simulate` runs. An extreme scale overflows to
            # inf, which the callers refuse in one line: no RuntimeWarning on stderr before it.
            with np.errstate(over="ignore", divide="ignore"):
                return np.power(1.0 - q, -1.0 / self.alpha) * self.scale + 0.0
        return self.scale * (1.0 - q * (1.0 - self._t)) ** (-1.0 / self.alpha)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if math.isinf(self.max):
            # scipy.stats.pareto(b, scale=scale).cdf, bit for bit: 1 - y^-b for y = x / scale
            # inside the support (1, inf), 0 below it, 1 at infinity, NaN for NaN
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                y = x / self.scale
                inside_support = (y > 1.0) & (y < math.inf)
                tail = 1.0 - np.power(np.where(inside_support, y, 2.0), -self.alpha)
            return _cdf_on_support(x, inside_support, tail, y >= math.inf)
        inside = (1.0 - (self.scale / np.clip(x, self.scale, self.max)) ** self.alpha) / (1.0 - self._t)
        return np.where(x < self.scale, 0.0, np.where(x >= self.max, 1.0, inside))

    def mean(self) -> float:
        a, s, t = self.alpha, self.scale, self._t
        if math.isinf(self.max):
            return s * a / (a - 1.0) if a > 1 else math.inf
        if a == 1.0:
            return s * math.log(self.max / s) / (1.0 - t)
        return s * a / (a - 1.0) * (1.0 - (s / self.max) ** (a - 1.0)) / (1.0 - t)

    def support(self) -> tuple[float, float]:
        return (self.scale, self.max)

    def spec(self) -> str:
        cap = "" if math.isinf(self.max) else f",max={_fmt(self.max)}"
        return f"pareto:scale={_fmt(self.scale)},alpha={_fmt(self.alpha)}{cap}"


@dataclass(frozen=True, eq=False)
class Empirical(_Base):
    """Measured samples, drawn by inverse CDF of the sorted samples (linear interpolation)."""

    sorted_samples: np.ndarray
    source: str = "<samples>"  # the spec's parameters that produced the samples, e.g. "file=x.csv,scale=1000"

    @classmethod
    def from_samples(cls, samples: np.ndarray, source: str = "<samples>") -> Empirical:
        arr = np.asarray(samples, dtype=np.float64).ravel()
        if arr.size == 0:
            raise CloudnoiseError(f"{source}: no samples; an empirical distribution needs at least one")
        if not np.all(np.isfinite(arr)):
            raise CloudnoiseError(f"{source}: samples contain NaN or infinity; clean the file first")
        return cls(np.sort(arr), source)

    def quantile(self, p: np.ndarray) -> np.ndarray:
        # numpy's default ("linear") quantile, written out so no re-sort happens per call.
        s = self.sorted_samples
        pos = _as_p(p) * (s.size - 1)
        i = np.minimum(np.floor(pos).astype(np.int64), s.size - 1)
        j = np.minimum(i + 1, s.size - 1)
        return s[i] + (pos - i) * (s[j] - s[i])

    def cdf(self, x: np.ndarray) -> np.ndarray:
        s = self.sorted_samples
        if s.size == 1:
            return (np.asarray(x, dtype=np.float64) >= s[0]).astype(np.float64)
        ranks = np.linspace(0.0, 1.0, s.size)
        return np.interp(np.asarray(x, dtype=np.float64), s, ranks, left=0.0, right=1.0)

    def mean(self) -> float:
        # The mean of the piecewise-linear inverse CDF (what sampling reproduces).
        s = self.sorted_samples
        if s.size == 1:
            return float(s[0])
        return float(0.5 * (s[:-1] + s[1:]).mean())

    def support(self) -> tuple[float, float]:
        return (float(self.sorted_samples[0]), float(self.sorted_samples[-1]))

    def spec(self) -> str:
        return f"empirical:{self.source}" if self.source.startswith("file=") else f"empirical:file={self.source}"


@dataclass(frozen=True, eq=False)
class Mixture(_Base):
    """With probability weights[i], a draw from components[i] (e.g. body + rare spikes)."""

    weights: tuple[float, ...]
    components: tuple[Distribution, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.components) or not self.components:
            raise CloudnoiseError("mixture needs one weight per component and at least one component")
        if any(not (w > 0) for w in self.weights):
            raise CloudnoiseError(f"mixture weights must be positive, got {list(self.weights)}")
        total = sum(self.weights)
        if abs(total - 1.0) > 1e-9:
            raise CloudnoiseError(f"mixture weights must sum to 1, they sum to {total!r}")
        if any(isinstance(c, Mixture) for c in self.components):
            raise CloudnoiseError("mixtures do not nest: list every component in one mixture")

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        n = int(n)
        which = rng.choice(len(self.components), size=n, p=np.asarray(self.weights) / sum(self.weights))
        out = np.empty(n, dtype=np.float64)
        for i, comp in enumerate(self.components):
            mask = which == i
            k = int(mask.sum())
            if k:
                out[mask] = comp.sample(rng, k)
        return out

    def cdf(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return sum(w * c.cdf(x) for w, c in zip(self.weights, self.components))

    def quantile(self, p: np.ndarray) -> np.ndarray:
        p = _as_p(p)
        flat = p.ravel()
        lows, highs = zip(*(c.support() for c in self.components))
        lo = np.full(flat.shape, min(lows), dtype=np.float64)
        # Bracket from above: every component's quantile at the largest probability asked for
        # (capped below 1 so unbounded tails stay finite) is >= the mixture's quantile.
        top = min(float(np.max(flat)) if flat.size else 0.0, 1.0 - 1e-15)
        hi_val = max(
            h if math.isfinite(h) else float(c.quantile(np.array([top]))[0])
            for c, h in zip(self.components, highs)
        )
        hi = np.full(flat.shape, hi_val, dtype=np.float64)
        # Bisection on the CDF: smallest x with F(x) >= p.
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            go_up = self.cdf(mid) < flat
            lo = np.where(go_up, mid, lo)
            hi = np.where(go_up, hi, mid)
            if np.all(hi - lo <= 1e-12 * np.maximum(1.0, np.abs(hi))):
                break
        result = hi
        result = np.where(flat <= 0.0, min(lows), result)
        return result.reshape(p.shape)

    def mean(self) -> float:
        return float(sum(w * c.mean() for w, c in zip(self.weights, self.components)))

    def support(self) -> tuple[float, float]:
        lows, highs = zip(*(c.support() for c in self.components))
        return (min(lows), max(highs))

    def jumps(self) -> np.ndarray:
        """Probabilities where the quantile function jumps: around atoms and between supports."""
        edges: list[float] = []
        for c in self.components:
            lo, hi = c.support()
            edges.extend(x for x in (lo, hi) if math.isfinite(x))
        if not edges:
            return np.empty(0)
        x = np.unique(np.asarray(edges, dtype=np.float64))
        below = self.cdf(np.nextafter(x, -np.inf))
        at = self.cdf(x)
        return np.unique(np.concatenate([below, at]))

    def spec(self) -> str:
        parts = []
        for w, c in zip(self.weights, self.components):
            kind, _, params = c.spec().partition(":")
            parts.append(f"{_fmt(w)}*{kind}({params})")
        return "mixture:" + "+".join(parts)


def mixture_of(parts: Sequence[tuple[float, Distribution]]) -> Mixture:
    """The mixture drawing from each (weight, distribution) of `parts` with that weight.
    Mixtures do not nest: a part that is a mixture joins with its own components, their
    weights multiplied by the part's."""
    weights: list[float] = []
    components: list[Distribution] = []
    for w, d in parts:
        inner = zip(d.weights, d.components) if isinstance(d, Mixture) else ((1.0, d),)
        for x, c in inner:
            weights.append(w * x)
            components.append(c)
    return Mixture(tuple(weights), tuple(components))


@dataclass(frozen=True)
class QuantileTable(_Base):
    """A distribution given directly by its quantile table (e.g. embedded in a profile)."""

    probabilities: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        p = np.asarray(self.probabilities, dtype=np.float64)
        v = np.asarray(self.values, dtype=np.float64)
        problems = []
        if p.ndim != 1 or p.shape != v.shape or p.size < 2:
            problems.append("probabilities and values must be 1-D, of equal length >= 2")
        elif p[0] != 0.0 or p[-1] != 1.0:
            problems.append("probabilities must start at 0 and end at 1")
        elif np.any(np.diff(p) <= 0):
            problems.append("probabilities must be strictly increasing")
        elif np.any(np.diff(v) < 0) or not np.all(np.isfinite(v)):
            problems.append("values must be finite and non-decreasing")
        if problems:
            raise CloudnoiseError(f"bad quantile table: {problems[0]}")
        object.__setattr__(self, "probabilities", p)
        object.__setattr__(self, "values", v)

    def quantile(self, p: np.ndarray) -> np.ndarray:
        return np.interp(_as_p(p), self.probabilities, self.values)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        # Flat stretches (atoms) collapse to their right end so interp sees increasing xp.
        v = np.unique(self.values)
        last = np.searchsorted(self.values, v, side="right") - 1
        return np.interp(x, v, self.probabilities[last], left=0.0, right=1.0)

    def mean(self) -> float:
        p, v = self.probabilities, self.values
        return float(np.sum(np.diff(p) * 0.5 * (v[:-1] + v[1:])))

    def support(self) -> tuple[float, float]:
        return (float(self.values[0]), float(self.values[-1]))

    def to_quantile_table(self) -> tuple[np.ndarray, np.ndarray]:
        return self.probabilities.copy(), self.values.copy()

    def spec(self) -> str:
        return f"quantile-table:{self.probabilities.size} points"


# ---------------------------------------------------------------------------
# Spec strings
# ---------------------------------------------------------------------------

_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_VALUE = re.compile(rf"^\s*({_NUMBER})\s*([a-zA-Zµμ]*)\s*$")
_COMPONENT = re.compile(r"^\s*(" + _NUMBER + r")\s*\*\s*([a-z]+)\s*\((.*)\)\s*$")

_PARAMS: dict[str, set[str]] = {
    "constant": {"value"},
    "uniform": {"low", "high"},
    "lognormal": {"mu", "sigma", "median", "p99"},
    "pareto": {"scale", "alpha", "max"},
    "empirical": {"file", "column", "scale", "normalize"},
}


def _number(text: str, name: str, spec: str) -> float:
    match = _VALUE.match(text)
    if not match:
        raise CloudnoiseError(f"in {shown(spec)}: {name}={shown(text)} is not a number (units allowed: ps ns us ms s)")
    value, unit = float(match.group(1)), match.group(2)
    if unit:
        if name in ("mu", "sigma", "alpha"):
            raise CloudnoiseError(f"in {spec!r}: {name} is unitless, drop the unit in {name}={text}")
        try:
            value = parse_time_ps(text.strip(), what=name) / 1000.0
        except CloudnoiseError as err:
            raise CloudnoiseError(f"in {shown(spec)}: {err}") from None
    if not math.isfinite(value):
        raise CloudnoiseError(f"in {spec!r}: {name}={text} is not finite")
    return value


def _params(text: str, kind: str, spec: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text.strip():
        return out
    for item in text.split(","):
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise CloudnoiseError(f"in {spec!r}: expected NAME=VALUE, got {item.strip()!r}")
        if name not in _PARAMS[kind]:
            allowed = ", ".join(sorted(_PARAMS[kind]))
            raise CloudnoiseError(f"in {spec!r}: {kind} has no parameter {name!r} (it takes {allowed})")
        if name in out:
            raise CloudnoiseError(f"in {spec!r}: parameter {name!r} given twice")
        out[name] = value.strip()
    return out


def _need(params: dict[str, str], names: list[str], kind: str, spec: str) -> None:
    missing = [n for n in names if n not in params]
    if missing:
        raise CloudnoiseError(f"in {spec!r}: {kind} needs {', '.join(missing)}")


def _build(kind: str, param_text: str, spec: str, base_dir: Path | None, confine: bool = False,
           use: NoiseUse | None = None) -> Distribution:
    if kind not in _PARAMS:
        kinds = ", ".join(list(_PARAMS) + ["mixture"])
        raise CloudnoiseError(f"unknown distribution kind {kind!r} in {spec!r}: use one of {kinds}, or a file path")
    params = _params(param_text, kind, spec)
    num = {k: _number(v, k, spec) for k, v in params.items() if k not in ("file", "column", "normalize")}
    if kind == "constant":
        _need(params, ["value"], kind, spec)
        return Constant(num["value"])
    if kind == "uniform":
        _need(params, ["low", "high"], kind, spec)
        return Uniform(num["low"], num["high"])
    if kind == "pareto":
        _need(params, ["scale", "alpha"], kind, spec)
        return Pareto(num["scale"], num["alpha"], num.get("max", math.inf))
    if kind == "lognormal":
        keys = set(params)
        if keys == {"mu", "sigma"}:
            return LogNormal(num["mu"], num["sigma"])
        if keys == {"median", "sigma"}:
            return LogNormal.from_median(num["median"], num["sigma"])
        if keys == {"median", "p99"}:
            return LogNormal.from_median_p99(num["median"], num["p99"])
        raise CloudnoiseError(
            f"in {spec!r}: lognormal takes exactly one of (mu, sigma), (median, sigma) or (median, p99)"
        )
    # empirical
    _need(params, ["file"], kind, spec)
    normalize = params.get("normalize")
    if normalize not in (None, "max"):
        raise CloudnoiseError(f"in {spec!r}: normalize takes only 'max' (divide every sample by the largest)")
    return load_empirical(
        params["file"],
        column=params.get("column"),
        scale=num.get("scale", 1.0),
        base_dir=base_dir,
        normalize_to_max=normalize == "max",
        use=use,
        confine=confine,
    )


def parse_distribution(
    spec: str, base_dir: str | Path | None = None, confine: bool = False, use: NoiseUse | None = None
) -> Distribution:
    """A Distribution from a spec string (see module docstring) or a samples FILE path.

    Relative file paths are resolved against `base_dir` (a profile's folder)
    if given; with `confine` every file must lie inside it. With `use`, the
    distribution must draw within its range (latency or bandwidth noise):
    the offending sample of a file, or the offending value of a spec, is named.
    """
    dist = _parse_distribution(spec, base_dir, confine, use)
    return dist if use is None else check_noise(dist, use)


def _parse_distribution(
    spec: str, base_dir: str | Path | None, confine: bool, use: NoiseUse | None
) -> Distribution:
    text = str(spec).strip()
    base = Path(base_dir) if base_dir is not None else None
    if not text:
        raise CloudnoiseError("empty distribution spec: write e.g. lognormal:median=800ns,sigma=0.7 or a file path")
    kind, colon, rest = text.partition(":")
    kind = kind.strip().lower()
    if not colon or kind not in set(_PARAMS) | {"mixture"}:
        if colon and re.fullmatch(r"[a-z]+", kind) and not Path(text).exists():
            kinds = ", ".join(list(_PARAMS) + ["mixture"])
            raise CloudnoiseError(f"unknown distribution kind {kind!r} in {text!r}: use one of {kinds}, or a file path")
        return load_empirical(text, base_dir=base, use=use, confine=confine)
    if kind != "mixture":
        return _build(kind, rest, text, base, confine, use)
    components: list[Distribution] = []
    weights: list[float] = []
    for part in split_top_level(rest, "+", text):
        match = _COMPONENT.match(part)
        if not match:
            raise CloudnoiseError(f"in {text!r}: mixture component {part.strip()!r} is not WEIGHT*KIND(PARAMS)")
        weight, sub_kind, params = float(match.group(1)), match.group(2), match.group(3)
        if sub_kind == "mixture":
            raise CloudnoiseError(f"in {text!r}: mixtures do not nest")
        weights.append(weight)
        components.append(_build(sub_kind, params, text, base, confine, use))
    return Mixture(tuple(weights), tuple(components))


def spec_files(spec: str) -> list[str]:
    """The files a distribution spec names, as written: a spec that is a path, the `file=`
    of an `empirical:` spec, and those of a mixture's empirical components. What a copy
    of a profile must take along (model/profile.py); the spec is parsed the way
    `parse_distribution` reads it, without opening anything."""
    text = str(spec).strip()
    kind, colon, rest = text.partition(":")
    kind = kind.strip().lower()
    if not colon or kind not in set(_PARAMS) | {"mixture"}:
        return [text] if text else []
    parts = [(kind, rest)]
    if kind == "mixture":
        parts = []
        for part in split_top_level(rest, "+", text):
            match = _COMPONENT.match(part)
            if match:
                parts.append((match.group(2), match.group(3)))
    files = []
    for sub_kind, params in parts:
        if sub_kind == "empirical":
            for item in params.split(","):
                name, eq, value = item.partition("=")
                if eq and name.strip() == "file" and value.strip():
                    files.append(value.strip())
    return files


def split_top_level(text: str, sep: str, spec: str, part: str = "mixture component") -> list[str]:
    """Split on `sep` outside parentheses (a '+' inside 1e+3 stays put: it follows 'e');
    also for the NAME=VALUE lists of OS-noise and episode specs (`part` names an item)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise CloudnoiseError(f"in {spec!r}: unbalanced parentheses")
        elif ch == sep and depth == 0 and not (i > 0 and text[i - 1] in "eE" and i > 1 and text[i - 2].isdigit()):
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise CloudnoiseError(f"in {spec!r}: unbalanced parentheses")
    parts.append(text[start:])
    if any(not p.strip() for p in parts):
        raise CloudnoiseError(f"in {spec!r}: empty {part}")
    return parts


def named_items(text: str, what: str, usage: str, names: tuple[str, ...],
                optional: tuple[str, ...] = ()) -> dict[str, str]:
    """The NAME=VALUE items of a spec that takes exactly `names` and may take `optional`, each
    once (a latency state's or levels' `hold=...,weight=...`): one line naming `what` and how to
    write it (`usage`) otherwise."""
    params: dict[str, str] = {}
    for item in split_top_level(text, ",", text, "NAME=VALUE item"):
        name, eq, value = item.partition("=")
        if not eq:
            raise CloudnoiseError(f"bad {what} {shown(text)}: write {usage}")
        if name.strip() in params:
            raise CloudnoiseError(f"in {shown(text)}: {name.strip()}= given twice")
        params[name.strip()] = value.strip()
    unknown = set(params) - set(names) - set(optional)
    if unknown:
        takes = " and ".join(names) + (f" (and may take {' and '.join(optional)})" if optional else "")
        raise CloudnoiseError(f"in {shown(text)}: {what} takes {takes}; unknown {', '.join(sorted(unknown))}")
    missing = [n for n in names if n not in params]
    if missing:
        raise CloudnoiseError(f"in {shown(text)}: {what} needs {usage}; missing {', '.join(missing)}")
    return params


def one_time_ns(value: str, name: str, text: str, most_ns: float) -> float:
    """A spec's item that is one time above 0 and at most `most_ns` (e.g. `hold=40us`), in ns."""
    dist = parse_inline_distribution(value, name, time=True)
    lo, hi = dist.support()
    if lo != hi or not (0 < lo <= most_ns):
        raise CloudnoiseError(f"in {shown(text)}: {name}= is one time above 0 and at most {most_ns / 1e9:.6g} s "
                              "(e.g. 40us)")
    return float(lo)


def parse_inline_distribution(text: str, what: str, *, time: bool, use: NoiseUse | None = None) -> Distribution:
    """A distribution written as a value inside another spec (an OS-noise or an
    episodes spec): KIND(PARAMS) or KIND:PARAMS, or a plain value as a constant,
    a time (`25us`, in ns) when `time`, else a number."""
    text = str(text).strip()
    if "(" in text:
        kind, _, inner = text.partition("(")
        return parse_distribution(f"{kind.strip()}:{inner.rstrip().removesuffix(')')}", use=use)
    if ":" in text:
        return parse_distribution(text, use=use)
    if time:
        return parse_distribution(f"constant:value={parse_time_ps(text, what) / 1000.0!r}")
    try:
        return parse_distribution(f"constant:value={float(text)!r}")
    except ValueError:
        raise CloudnoiseError(f"{what}={shown(text)} is not a number or KIND(PARAMS)") from None


# ---------------------------------------------------------------------------
# Empirical samples from files
# ---------------------------------------------------------------------------


def read_samples(path: str | Path, column: str | None = None) -> np.ndarray:
    """Numbers from a Parquet column, a CSV column, or a text file with one number per line."""
    p = check_file(path, "samples file (Parquet, CSV or one number per line)")
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            rows = pq.ParquetFile(p).metadata.num_rows
            if rows > limits.MAX_SAMPLES:
                raise CloudnoiseError(f"{p}: {rows} samples, more than the {limits.MAX_SAMPLES} cloudnoise reads")
            table = pq.read_table(p)
        except CloudnoiseError:
            raise
        except Exception as err:  # pyarrow raises several types
            raise CloudnoiseError(f"{p}: cannot read Parquet file: {shown(str(err), 200)}") from None
        return _column(table, column, p)
    _check_text_size(p)
    if suffix == ".csv":
        import pyarrow.csv as pacsv

        with open(p, "rb") as fh:
            head = fh.read(4096)
        decode_text(head[: head.rfind(b"\n") + 1] or head, p, "samples file")
        first = head.split(b"\n", 1)[0].decode("utf-8", "replace").split(",")[0].strip()
        has_header = _VALUE.match(first) is None
        try:
            opts = pacsv.ReadOptions(autogenerate_column_names=not has_header)
            table = pacsv.read_csv(p, read_options=opts)
        except Exception as err:
            raise CloudnoiseError(f"{p}: cannot read CSV file: {shown(str(err), 200)}") from None
        return _column(table, column, p)
    if column is not None:
        raise CloudnoiseError(f"{p}: column= applies to Parquet or CSV files, not to one-number-per-line text")
    return _read_number_lines(p)


def _check_text_size(path: Path) -> None:
    # A text sample is at least 2 bytes ("1\n"): a file larger than this holds more samples than we keep.
    size = path.stat().st_size
    if size > 32 * limits.MAX_SAMPLES:
        raise CloudnoiseError(f"{path}: {size} bytes, more samples than the {limits.MAX_SAMPLES} cloudnoise reads")


def _column(table, column: str | None, path: Path) -> np.ndarray:
    import pyarrow as pa

    if column is None:
        numeric = [f.name for f in table.schema if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]
        if not numeric:
            raise CloudnoiseError(f"{path}: no numeric column; name one with column=NAME")
        column = numeric[0]
    if column not in table.column_names:
        raise CloudnoiseError(
            f"{path}: no column {shown(column)} (columns: {shown(', '.join(table.column_names), 200)})"
        )
    col = table.column(column)
    if table.num_rows > limits.MAX_SAMPLES:
        raise CloudnoiseError(f"{path}: {table.num_rows} samples, more than the {limits.MAX_SAMPLES} cloudnoise reads")
    if col.null_count:
        raise CloudnoiseError(f"{path}: column {shown(column)} has {col.null_count} empty values")
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise CloudnoiseError(f"{path}: column {shown(column)} is not numeric ({col.type})")
    return col.to_numpy().astype(np.float64)


def _read_number_lines(path: Path) -> np.ndarray:
    text = decode_text(path.read_bytes(), path, "samples file")
    lines = text.splitlines()
    keep = []
    for raw in lines:
        s = raw.split("#", 1)[0].strip()
        if s:
            keep.append(s)
    try:
        return np.array(keep, dtype=np.float64)
    except (ValueError, OverflowError):
        pass
    for lineno, raw in enumerate(lines, 1):  # slow path only to name the bad line
        s = raw.split("#", 1)[0].strip()
        if s:
            try:
                float(s)
            except (ValueError, OverflowError):
                raise CloudnoiseError(
                    f"{path}:{lineno}: {shown(s)} is not a number (expected one number per line)"
                ) from None
    raise CloudnoiseError(f"{path}: cannot read numbers")  # pragma: no cover


def sample_location(path: Path, index: int) -> str:
    """Where sample `index` (0-based, in file order) of a samples file is: `FILE:LINE` for
    text and CSV, `FILE, row N` for Parquet. Only for error messages: text is read again."""
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return f"{path}, row {index + 1}"
    try:
        lines = path.read_text(encoding="utf-8-sig", errors="replace").splitlines()
    except OSError:
        return f"{path}, sample {index + 1}"
    seen = -1
    for lineno, raw in enumerate(lines, 1):
        s = raw.split("#", 1)[0].strip() if suffix != ".csv" else raw.strip()
        if not s:
            continue
        if suffix == ".csv" and seen == -1 and _VALUE.match(s.split(",")[0].strip()) is None:
            seen = -1  # the header row
            suffix = ".csv-data"
            continue
        seen += 1
        if seen == index:
            return f"{path}:{lineno}"
    return f"{path}, sample {index + 1}"


@dataclass(frozen=True)
class NoiseUse:
    """What a noise distribution's draws mean, and the range they must lie in:
    [low, high] with `low` itself excluded when `positive`, plus the least
    value a draw may take (`floor`, for bandwidth fractions)."""

    name: str  # what the draws are, for messages
    unit: str  # their unit, for messages
    high: float
    positive: bool = False  # (low, high] instead of [low, high]
    floor: float = 0.0  # and at least this
    low: float = 0.0  # the least value; below 0 only where a profile allows it (down_to)

    def down_to(self, low: float) -> NoiseUse:
        """The same use with draws allowed down to `low` (<= 0): latency noise that runs below
        the noiseless L, at most L below it (a measured profile's, model/latency_deconvolution.py)."""
        from dataclasses import replace

        least = min(0.0, float(low))
        return replace(self, low=least, floor=min(self.floor, least))

    def allows(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        low_ok = x > self.low if self.positive else x >= self.low
        return low_ok & (x >= self.floor) & (x <= self.high)

    def problem(self, x: float) -> str:
        """Why `x` is not a valid draw (x is one allows() refuses)."""
        u = f" {self.unit}" if self.unit else ""
        span = f"{'(' if self.positive else '['}{self.low:g}, {self.high:g}]{u}"
        if not math.isfinite(x):
            return f"is not a finite number; {self.name} lies in {span}"
        if x < self.low:
            return (f"is negative; {self.name} lies in {span}" if self.low == 0 else
                    f"is below {self.low:g}{u}; {self.name} lies in {span} (a message cannot arrive before it is sent)")
        if x > self.high or (self.positive and x == 0):
            return f"is not in {span}, where {self.name} lies"
        return f"is below {self.floor:g}{u}, the least {self.name} may be"


# Latency noise: an excess over L in ns; bandwidth noise: a fraction of the peak.
LATENCY_NOISE = NoiseUse("latency noise (an excess over L)", "ns", float(limits.MAX_TIME_NS))
OS_DETOUR = NoiseUse("an OS detour's duration", "ns", float(limits.MAX_TIME_NS))
BANDWIDTH_NOISE = NoiseUse(
    "bandwidth noise (a fraction of the peak bandwidth)", "", 1.0, positive=True, floor=limits.MIN_BANDWIDTH_FRACTION
)


def load_empirical(
    path: str | Path,
    column: str | None = None,
    scale: float = 1.0,
    base_dir: Path | None = None,
    normalize_to_max: bool = False,
    use: NoiseUse | None = None,
    confine: bool = False,
) -> Empirical:
    """An Empirical distribution from a samples file (see read_samples).

    `normalize_to_max` divides by the largest sample: measured bandwidths
    (e.g. Gb/s) become fractions of the peak, as bandwidth noise expects.
    With `use`, every sample must lie in its range; the first that does not
    is named with its file and line. With `confine`, the file must lie in
    `base_dir` (a profile's folder).
    """
    p = Path(path)
    if base_dir is not None:
        p = file_beside(base_dir, str(path), "samples") if confine else (p if p.is_absolute() else base_dir / p)
    raw = read_samples(p, column)
    samples = raw * scale
    source = f"file={path}"
    bad = ~np.isfinite(samples)
    if bad.any():
        i = int(np.argmax(bad))
        raise CloudnoiseError(
            f"{sample_location(p, i)}: sample {shown(raw[i])}"
            + (f" x scale {_fmt(scale)}" if scale != 1.0 else "")
            + " is not a finite number; clean the file first"
        )
    if normalize_to_max:
        peak = float(samples.max()) if samples.size else 0.0
        if not peak > 0:
            raise CloudnoiseError(f"{p}: cannot normalize to the maximum: the largest sample is {peak}")
        samples = samples / peak
    if use is not None and samples.size:
        ok = use.allows(samples)
        if not ok.all():
            i = int(np.argmin(ok))
            gives = "" if samples[i] == raw[i] else f" (x scale, normalized: {_fmt(samples[i])})"
            raise CloudnoiseError(f"{sample_location(p, i)}: sample {_fmt(raw[i])}{gives} {use.problem(samples[i])}")
    params = [source]
    if column is not None:
        params.append(f"column={column}")
    if scale != 1.0:
        params.append(f"scale={_fmt(scale)}")
    if normalize_to_max:
        params.append("normalize=max")
    return Empirical.from_samples(samples, ",".join(params))


# ---------------------------------------------------------------------------
# Range checks for the two uses
# ---------------------------------------------------------------------------


def drawn_range(dist: Distribution) -> tuple[float, float]:
    """The least and largest value the engine can draw from `dist`: its support,
    with an unbounded tail cut where the quantile table cuts it."""
    low, high = dist.support()
    if not math.isfinite(high):
        high = float(np.asarray(dist.quantile(np.array([1.0 - TAIL_TRUNCATION])))[0])
    if not math.isfinite(low):
        low = float(np.asarray(dist.quantile(np.array([0.0])))[0])
    return low, high


def check_noise(dist: Distribution, use: NoiseUse, where: str = "") -> Distribution:
    """`dist` when every value it can draw lies in `use`'s range; else an error
    naming the source, the distribution and the offending value."""
    low, high = drawn_range(dist)
    for value in (low, high):
        if not (math.isfinite(value) and bool(use.allows(np.array([value]))[0])):
            unit = f" {use.unit}" if use.unit else ""
            raise CloudnoiseError(
                f"{where + ': ' if where else ''}{shown(dist.spec(), 120).strip(chr(39))} draws {_fmt(value)}{unit}, "
                f"which {use.problem(value)}"
            )
    return dist


def check_latency_noise(dist: Distribution, what: str = "latency noise", least: float = 0.0) -> Distribution:
    """Latency noise is an excess over L in ns: within [least, limits.MAX_TIME_NS], `least` 0
    unless the caller knows L (a profile: minus its least L, so that no message arrives before
    it is sent)."""
    return check_noise(dist, LATENCY_NOISE.down_to(least), what)


def check_bandwidth_noise(dist: Distribution, what: str = "bandwidth noise") -> Distribution:
    """Bandwidth noise is a fraction of the peak: within [limits.MIN_BANDWIDTH_FRACTION, 1]."""
    return check_noise(dist, BANDWIDTH_NOISE, what)
