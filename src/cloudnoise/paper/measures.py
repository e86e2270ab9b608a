"""How our number for a statement of the paper is computed: the measures.

A `Measure` computes one number from simulations or from the profiles'
models. Measures over simulations read runtimes through a `Runs` (the
calibration's own simulations, or a sweep's results for `cloudnoise
paper`); measures over a profile read its noise models (`ProfileMeasure`).
They also say which simulations they need (`needs`), so a runner simulates
exactly those: nothing more.

Statistics of a set of runtimes: `median`, `mean`, `p99.5` (the 5 largest of
the paper's 1000 repetitions: "a few outliers"), `max`. "The runtime" of a
boxplot figure is its median unless the sentence says average.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

STATS = ("median", "mean", "p99.5", "max")


@dataclass(frozen=True, order=True)
class Config:
    """One simulated configuration: a workload (a key of WORKLOADS) on a system."""

    workload: str
    system: str
    nodes: int
    variant: str


class Runs(Protocol):
    """Simulated runtimes (ns) per configuration, and an application's compute time."""

    def runtimes(self, config: Config) -> np.ndarray: ...

    def compute_ns(self, workload: str, system: str) -> float: ...

    def price(self, system: str) -> float | None: ...


def statistic(values: np.ndarray, stat: str) -> float:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        raise ValueError("no runtimes")
    if stat == "median":
        return float(np.median(v))
    if stat == "mean":
        return float(np.mean(v))
    if stat == "p99.5":
        return float(np.quantile(v, 0.995))
    if stat == "max":
        return float(np.max(v))
    raise ValueError(f"unknown statistic {stat!r}")


class Measure:
    """Computes one number from simulations (or a profile); see subclasses."""

    def needs(self) -> set[Config]:
        return set()

    def value(self, runs: Runs) -> float:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Stat(Measure):
    """A statistic of one configuration's runtimes, ns."""

    workload: str
    system: str
    nodes: int
    variant: str
    stat: str = "median"

    def needs(self) -> set[Config]:
        return {Config(self.workload, self.system, self.nodes, self.variant)}

    def value(self, runs: Runs) -> float:
        return statistic(runs.runtimes(Config(self.workload, self.system, self.nodes, self.variant)), self.stat)

    def describe(self) -> str:
        return f"{self.stat}({self.variant}) {self.system} {self.nodes}n"


@dataclass(frozen=True)
class Ratio(Measure):
    """num / den."""

    num: Measure
    den: Measure

    def needs(self) -> set[Config]:
        return self.num.needs() | self.den.needs()

    def value(self, runs: Runs) -> float:
        return self.num.value(runs) / self.den.value(runs)

    def describe(self) -> str:
        return f"{self.num.describe()} / {self.den.describe()}"


@dataclass(frozen=True)
class Increase(Measure):
    """inner - 1: a ratio as an increase (shown in % with scale 100)."""

    inner: Measure

    def needs(self) -> set[Config]:
        return self.inner.needs()

    def value(self, runs: Runs) -> float:
        return self.inner.value(runs) - 1.0

    def describe(self) -> str:
        return f"{self.inner.describe()} - 1"

    def which(self, runs: Runs) -> str:
        return self.inner.which(runs) if isinstance(self.inner, Extreme) else ""


def noise_ratio(workload: str, system: str, nodes: int, variant: str, stat: str = "median",
                base_stat: str | None = None) -> Ratio:
    """stat(variant) / base_stat(none) on one system and scale (base_stat: the same stat)."""
    return Ratio(Stat(workload, system, nodes, variant, stat), Stat(workload, system, nodes, "none", base_stat or stat))


@dataclass(frozen=True)
class Extreme(Measure):
    """The largest (or smallest) of several measures; `which` names the arg-extreme."""

    parts: tuple[tuple[str, Measure], ...]
    largest: bool = True

    def needs(self) -> set[Config]:
        return set().union(*(m.needs() for _, m in self.parts))

    def values(self, runs: Runs) -> dict[str, float]:
        return {name: m.value(runs) for name, m in self.parts}

    def value(self, runs: Runs) -> float:
        vals = self.values(runs).values()
        return max(vals) if self.largest else min(vals)

    def which(self, runs: Runs) -> str:
        vals = self.values(runs)
        return (max if self.largest else min)(vals, key=vals.__getitem__)

    def describe(self) -> str:
        head = "max" if self.largest else "min"
        return f"{head} over {', '.join(n for n, _ in self.parts)} of {self.parts[0][1].describe()}"


def over(systems: Iterable[str], make: Callable[[str], Measure], largest: bool = True) -> Extreme:
    return Extreme(tuple((s, make(s)) for s in systems), largest)


@dataclass(frozen=True)
class Count(Measure):
    """How many of the measures fall in [low, high]."""

    parts: tuple[tuple[str, Measure], ...]
    low: float
    high: float

    def needs(self) -> set[Config]:
        return set().union(*(m.needs() for _, m in self.parts))

    def value(self, runs: Runs) -> float:
        return float(sum(self.low <= m.value(runs) <= self.high for _, m in self.parts))

    def describe(self) -> str:
        return f"count of {', '.join(n for n, _ in self.parts)} with {self.parts[0][1].describe()} in [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Amplification(Measure):
    """(both - none) / ((os - none) + (network - none)) of the medians: 1 when the
    two noises add, > 1 when together they do more than the sum of each."""

    workload: str
    system: str
    nodes: int

    def needs(self) -> set[Config]:
        return {Config(self.workload, self.system, self.nodes, v) for v in ("none", "os", "network", "both")}

    def value(self, runs: Runs) -> float:
        m = {v: statistic(runs.runtimes(Config(self.workload, self.system, self.nodes, v)), "median")
             for v in ("none", "os", "network", "both")}
        alone = (m["os"] - m["none"]) + (m["network"] - m["none"])
        return (m["both"] - m["none"]) / alone if alone > 0 else math.inf

    def describe(self) -> str:
        return f"(both-none)/((os-none)+(network-none)) of medians, {self.system} {self.nodes}n"


@dataclass(frozen=True)
class CommShare(Measure):
    """Communication's share of an application's median runtime: (T - compute) / T."""

    workload: str
    system: str
    nodes: int
    variant: str = "none"

    def needs(self) -> set[Config]:
        return {Config(self.workload, self.system, self.nodes, self.variant)}

    def value(self, runs: Runs) -> float:
        t = statistic(runs.runtimes(Config(self.workload, self.system, self.nodes, self.variant)), "median")
        return (t - runs.compute_ns(self.workload, self.system)) / t

    def describe(self) -> str:
        return f"communication share of median({self.variant}) {self.system} {self.nodes}n"


@dataclass(frozen=True)
class CostRatio(Measure):
    """Worst case over node counts of max(cost of A) / min(cost of B), cost =
    median runtime x nodes x price: < 1 when every A is cheaper than every B."""

    workload: str
    cheaper: tuple[str, ...]
    dearer: tuple[str, ...]
    nodes: tuple[int, ...]
    variant: str = "both"

    def needs(self) -> set[Config]:
        return {Config(self.workload, s, n, self.variant) for s in self.cheaper + self.dearer for n in self.nodes}

    def value(self, runs: Runs) -> float:
        worst = 0.0
        for n in self.nodes:
            def cost(s: str) -> float:
                price = runs.price(s)
                if price is None:
                    raise ValueError(f"{s} has no price")
                return statistic(runs.runtimes(Config(self.workload, s, n, self.variant)), "median") * n * price

            worst = max(worst, max(cost(s) for s in self.cheaper) / min(cost(s) for s in self.dearer))
        return worst

    def describe(self) -> str:
        return f"max over nodes of cost({'/'.join(self.cheaper)}) / cost({'/'.join(self.dearer)}), {self.variant} noise"


class Models(Protocol):
    """The calibrated profiles, for statements about the noise models themselves."""

    def profile(self, system: str, placement: str = "same-rack") -> Any: ...


@dataclass(frozen=True)
class ProfileMeasure(Measure):
    """A number computed from the profiles' models (no simulation): Table II
    cells, quantiles of the noise distributions, OS detour rates."""

    text: str
    fn: Callable[[Any], float] = field(compare=False)

    def value(self, runs: Any) -> float:
        return float(self.fn(runs))

    def describe(self) -> str:
        return self.text
