"""The paper's quantitative statements as data: what is claimed, where, the
band its wording allows, which are calibration targets, and how they print.

Read by `cloudnoise paper` (paper/reproduce.py, paper/table.py), by the
report (through paper/table.py) and by the calibration of the text profiles
(profiles/calibrate/), which fits to TARGETS and never looks at HELD_OUT.

A `Statement` quotes its sentence and says where it is (section, figure or
table cell), gives the paper's value, the interval the paper's wording
allows ("up to 2x", "almost 4x", "more than a factor of 4"), and a `Measure`
(paper/measures.py) that computes our value; `format_value` prints a value
in the statement's unit.

The calibration targets (`role` "calibration"), in three groups:
* TABLE_II: every cell of Table II (both rack distances) that the model must
  reproduce: min latency = 2o + L, mean latency = 2o + L + mean latency
  excess, max bandwidth = 8 / G, mean bandwidth = mean fraction x max. They
  hold by construction (LogGOPS and the body of each noise model are solved
  from them) within the 4 significant digits the parameters are written with.
* PROSE: Sec. III-IV's statements about latency, bandwidth and noise
  (Obs. 1-7, the prose on Fig. 8-12), read off the profiles' models.
* SIMULATED: Sec. V-B's statements on Fig. 14 (16 B dissemination, 16 to 16K
  nodes, Obs. 8), Obs. 9 (512 MiB ring, +50% at 4 nodes), and Sec. V-D's
  two communication shares (which constrain the compute rates), computed
  from simulations.

HELD_OUT (`role` "held-out"): the other statements of Sec. V-C (Fig. 15) and
all of Sec. V-D (Fig. 16, Fig. 17, Obs. 10): nothing in the calibration
looks at them; they test it. SEC_V = SIMULATED + HELD_OUT is what
`cloudnoise paper` checks. A cost increase is the runtime's: the price per
node-hour and the node count do not change with noise (Sec. V-D uses
on-demand prices).

Tolerances follow the wording: "by 50%" -> +/- 10 points (1.4-1.6x); "up to
Nx" -> 0.8N-1.2N; "Nx" -> +/-15%; "almost Nx" -> [0.75N, N]; "more than a
factor of N" -> [N, 1.5N]; a number such as "165ms" -> +/-30%; "an order of
magnitude" -> 5-20x; "small", "no impact", "not significant" -> at most 25%,
2%, 2%; a table cell -> +/-0.5%. "The runtime" of a boxplot is its median,
"the average" its mean, "a few outliers" the 99.5th percentile of the runs
(the 5 largest of the paper's 1000). For the held-out
statements a percentage is +/- a third of itself.
"""

from __future__ import annotations

import math
import statistics as st
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cloudnoise.paper import model_stats as ms
from cloudnoise.paper.measures import (
    Amplification,
    CommShare,
    Config,
    CostRatio,
    Count,
    Extreme,
    Increase,
    Measure,
    ProfileMeasure,
    Ratio,
    Runs,
    Stat,
    noise_ratio,
    over,
)
from cloudnoise.profiles.paper import TABLE_I, TABLE_II
from cloudnoise.schedules.patterns import PAPER_RING_OPTIONS

ROLES = ("calibration", "held-out")


@dataclass(frozen=True)
class Statement:
    """One quantitative statement of the paper and how we check it.

    `low`/`high` bound the value the paper's wording allows (None: unbounded);
    `scale` converts the measure to the unit shown (100 for %, 1e-6 for ms)."""

    id: str
    figure: str  # "Fig. 14", "Table II", "Obs. 9", ...
    where: str  # section and what is cited: "Sec. V-B", "Table II, same rack, Min. Lat., AWS HPC (Metal)"
    quote: str  # the sentence, verbatim
    role: str  # calibration | held-out
    measure: Measure | None  # None: not representable in the model (see `why_not`)
    paper: str  # the paper's value as worded
    low: float | None
    high: float | None
    unit: str = "x"
    scale: float = 1.0
    reading: str = ""  # how the wording becomes [low, high] and which statistic
    why_not: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"{self.id}: role {self.role!r}")

    def needs(self) -> set[Config]:
        return set() if self.measure is None else self.measure.needs()

    def tolerance_text(self) -> str:
        def f(x: float) -> str:
            return f"{x:.4g}"

        if self.low is not None and self.high is not None:
            return f"[{f(self.low)}, {f(self.high)}]"
        if self.low is not None:
            return f">= {f(self.low)}"
        if self.high is not None:
            return f"<= {f(self.high)}"
        return "-"


@dataclass(frozen=True)
class Outcome:
    """A statement checked: our value, whether it is within the allowed interval."""

    statement: Statement
    value: float | None
    agrees: bool
    detail: str = ""
    cause: str = ""

    def to_dict(self) -> dict[str, Any]:
        s = self.statement
        v = None if self.value is None or not math.isfinite(self.value) else self.value
        return {
            "id": s.id, "figure": s.figure, "where": s.where, "quote": s.quote, "role": s.role, "paper": s.paper,
            "low": s.low, "high": s.high, "unit": s.unit, "reading": s.reading,
            "measure": None if s.measure is None else s.measure.describe(),
            "ours": v, "agrees": self.agrees, "detail": self.detail, "cause": self.cause or None,
        }


def check(statement: Statement, runs: Runs, causes: dict[str, str] | None = None) -> Outcome:
    """Evaluates one statement on `runs`."""
    if statement.measure is None:
        return Outcome(statement, None, False, "not represented in the model", statement.why_not)
    value = statement.measure.value(runs) * statement.scale
    ok = math.isfinite(value) and (statement.low is None or value >= statement.low) and (
        statement.high is None or value <= statement.high)
    detail = ""
    m = statement.measure.inner if isinstance(statement.measure, Increase) else statement.measure
    if isinstance(m, Extreme):
        detail = f"{'largest' if m.largest else 'smallest'}: {m.which(runs)}"
    cause = "" if ok else (causes or {}).get(statement.id, "")
    return Outcome(statement, value, bool(ok), detail, cause)


def format_value(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    if unit == "%":
        return f"{value:+.1f}%"
    if unit == "x":
        return f"{value:.3g}x"
    if unit == "count":
        return f"{value:.0f}"
    return f"{value:.4g} {unit}".strip()


def needs_of(statements: Sequence[Statement]) -> set[Config]:
    return set().union(*(s.needs() for s in statements)) if statements else set()


# ----------------------------------------------------------------------------- calibration targets

@dataclass(frozen=True)
class Workload:
    """A workload of Sec. V: what runs, with which ready order (as the sweep presets)."""

    kind: str  # collective | app
    spec: str
    ready_order: str
    preset: str  # the sweep preset that runs it


WORKLOADS = {
    "fig14": Workload("collective", "dissemination:16B", "loggopsim", "fig14-dissemination"),
    "fig15": Workload("collective", f"pipelinedring:512MiB:{PAPER_RING_OPTIONS}", "program", "fig15-allreduce-ring"),
    "fig16": Workload("app", "gemm:128 + dissemination:128KiB", "loggopsim", "fig16-gemm-dissemination"),
    "fig17": Workload("app", f"gemm:8192 + pipelinedring:512MiB:{PAPER_RING_OPTIONS}", "program", "fig17-gemm-allreduce"),
}

HPC = ("aws-hpc-metal", "azure-hpc", "azure-hpc-200", "gcp-hpc", "oracle-hpc-metal", "daint", "alps", "deep-est")
CLOUD_HPC = HPC[:5]
ON_PREMISE = ("daint", "alps", "deep-est")
PRICED = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "oracle-hpc-metal", "daint")
FIG16_NODES = (16, 64, 256, 1024, 4096, 16384)
FIG17_NODES = (4, 16, 64, 256)
K16 = 16384
K1 = 1024

V_B = "Sec. V-B, on Fig. 14 (16 B dissemination)"


def _v(id: str, quote: str, measure, paper: str, low, high, reading: str, unit: str = "x", scale: float = 1.0,
       where: str = V_B, figure: str = "Fig. 14") -> Statement:
    return Statement(id, figure, where, quote, "calibration", measure, paper, low, high, unit, scale, reading)


_Q_AWS_OS = ("AWS systems are those experiencing OS noise with the highest intensity, and this significantly "
             "increases the runtime of the collective operation, up to 2x on 16K nodes.")
_Q_AZURE = ("Something similar occurs on Azure HPC instances, where network noise increases the average runtime by "
            "more than a factor of 4 on 16K nodes, with a few outliers increasing the runtime by 10 times compared "
            "to a noiseless execution.")
_Q_200 = ("On the other hand, 200Gb/s instances are mostly affected by OS noise since, as shown in Sec. IV-A, latency "
          "noise has lower intensity compared to 100Gb/s instances.")
_Q_ORACLE = ("However, a few outliers (not shown in the plot for the sake of readability) experienced a runtime of "
             "165ms on 16K nodes, increasing the average runtime to 10ms.")
_Q_DAINT = ("OS and network noise severely affect on-premise systems as well, with Daint experiencing a 2x increase "
            "in the runtime on 16K nodes due to OS noise, and up to almost 4x due to network noise.")
_Q_OBS8 = ("Observation 8: OS and network noise can increase the median runtime up to 2x on 1K nodes, and up to 10x "
           "on 16K nodes, both on on-premise and cloud systems.")
_Q_OBS9 = ("Observation 9: Bandwidth noise can severely affect both on-premise and cloud systems, increasing the "
           "runtime by 50% even when running at small scale (4 nodes).")
_Q_SHARES = ("While in the previous experiment the communication accounted for more than 90% of the overall "
             "execution time, in this case it accounts for less than 20% of the overall time.")

_OTHERS = ("azure-hpc", "azure-hpc-200", "oracle-hpc-metal", "daint", "alps", "deep-est")


def _none(s: str) -> Stat:
    return Stat("fig14", s, K16, "none")


SIMULATED: tuple[Statement, ...] = (
    _v("fig14-noiseless-order-of-magnitude",
       "We observe that, even without noise, both AWS and GCP are characterized by a lower performance than Azure, "
       "Oracle, and the on-premise systems, up to an order of magnitude lower.",
       Ratio(over(("aws-hpc-metal", "gcp-hpc"), _none), over(_OTHERS, _none, largest=False)),
       "up to an order of magnitude", 5.0, 20.0,
       "noiseless median at 16K nodes: slowest of AWS/GCP over the fastest of the others"),
    _v("fig14-noiseless-aws-gcp-slower",
       "We observe that, even without noise, both AWS and GCP are characterized by a lower performance than Azure, "
       "Oracle, and the on-premise systems, up to an order of magnitude lower.",
       Ratio(over(("aws-hpc-metal", "gcp-hpc"), _none, largest=False), over(_OTHERS, _none)),
       "lower performance", 1.0, None,
       "noiseless median at 16K nodes: the faster of AWS/GCP over the slowest of the others, > 1"),
    _v("fig14-aws-from-1k", "Starting from 1K nodes AWS performance is severely affected by noise.",
       noise_ratio("fig14", "aws-hpc-metal", K1, "both"), "severely affected from 1K", 1.25, None,
       "median(both) / median(none) at 1K nodes >= 1.25"),
    _v("fig14-aws-os-2x", _Q_AWS_OS, noise_ratio("fig14", "aws-hpc-metal", K16, "os"), "up to 2x", 1.6, 2.4,
       "median(os) / median(none) at 16K nodes; 'up to 2x' -> 1.6-2.4x"),
    _v("fig14-aws-network-50", "Even without any OS noise, network noise would still increase the runtime by 50%.",
       noise_ratio("fig14", "aws-hpc-metal", K16, "network"), "+50%", 1.4, 1.6,
       "median(network) / median(none) at 16K nodes; 'by 50%' -> 1.4-1.6x"),
    _v("fig14-aws-no-amplification", "We did not observe amplification effects when adding both types of noise.",
       Amplification("fig14", "aws-hpc-metal", K16), "no amplification", None, 1.1,
       "(both - none) / ((os - none) + (network - none)) of the medians at 16K nodes <= 1.1"),
    _v("fig14-azure-mean-4x", _Q_AZURE, noise_ratio("fig14", "azure-hpc", K16, "network", "mean"),
       "more than 4x (average)", 4.0, 6.0, "mean(network) / mean(none) at 16K nodes; 'more than a factor of 4' -> 4-6x"),
    _v("fig14-azure-outliers-10x", _Q_AZURE,
       Ratio(Stat("fig14", "azure-hpc", K16, "network", "p99.5"), _none("azure-hpc")), "outliers 10x", 7.0, 13.0,
       "99.5th percentile(network) / median(none) at 16K nodes; '10 times' -> 7-13x"),
    _v("fig14-azure200-mostly-os", _Q_200,
       Ratio(Stat("fig14", "azure-hpc-200", K16, "os"), Stat("fig14", "azure-hpc-200", K16, "network")),
       "OS > network", 1.0, None, "median(os) / median(network) of azure-hpc-200 at 16K nodes > 1"),
    _v("fig14-azure200-less-latency-noise", _Q_200,
       Ratio(noise_ratio("fig14", "azure-hpc-200", K16, "network"), noise_ratio("fig14", "azure-hpc", K16, "network")),
       "lower than 100 Gb/s", None, 1.0,
       "network median increase of azure-hpc-200 over that of azure-hpc at 16K nodes < 1"),
    _v("fig14-gcp-lower-increase",
       "GCP is characterized by network noise with lower intensity, reflecting on a lower relative increase in the "
       "runtime.",
       Ratio(noise_ratio("fig14", "gcp-hpc", K16, "network"),
             over(("aws-hpc-metal", "azure-hpc"), lambda s: noise_ratio("fig14", s, K16, "network"), largest=False)),
       "lower than AWS, Azure", None, 1.0,
       "median(network)/median(none) of GCP over the smaller of AWS's and Azure's, at 16K nodes, < 1"),
    _v("fig14-oracle-small-median", "On Oracle, we observe a small increase in the median runtime.",
       noise_ratio("fig14", "oracle-hpc-metal", K16, "both"), "small", 1.0, 1.25,
       "median(both) / median(none) at 16K nodes; 'small' -> at most 1.25x"),
    _v("fig14-oracle-outliers-165ms", _Q_ORACLE, Stat("fig14", "oracle-hpc-metal", K16, "both", "p99.5"), "165 ms",
       115.5, 214.5, "99.5th percentile of the runtime with both noises at 16K nodes; '165ms' -> +/-30%",
       unit="ms", scale=1e-6),
    _v("fig14-oracle-mean-10ms", _Q_ORACLE, Stat("fig14", "oracle-hpc-metal", K16, "both", "mean"), "10 ms", 7.0,
       13.0, "mean runtime with both noises at 16K nodes; '10ms' -> +/-30%", unit="ms", scale=1e-6),
    _v("fig14-daint-os-2x", _Q_DAINT, noise_ratio("fig14", "daint", K16, "os"), "2x", 1.7, 2.3,
       "median(os) / median(none) at 16K nodes; '2x' -> +/-15%"),
    _v("fig14-daint-network-almost-4x", _Q_DAINT, noise_ratio("fig14", "daint", K16, "network"), "almost 4x", 3.0, 4.0,
       "median(network) / median(none) at 16K nodes; 'up to almost 4x' -> 3-4x"),
    _v("obs8-1k-up-to-2x", _Q_OBS8, over(HPC, lambda s: noise_ratio("fig14", s, K1, "both")), "up to 2x at 1K",
       1.6, 2.4, "largest median(both)/median(none) over the Fig. 14 systems at 1K nodes", figure="Obs. 8"),
    _v("obs8-16k-up-to-10x", _Q_OBS8, over(HPC, lambda s: noise_ratio("fig14", s, K16, "both")), "up to 10x at 16K",
       8.0, 12.0, "largest median(both)/median(none) over the Fig. 14 systems at 16K nodes", figure="Obs. 8"),
    _v("obs8-both-kinds", _Q_OBS8,
       Extreme((("cloud", over(CLOUD_HPC, lambda s: noise_ratio("fig14", s, K16, "both"))),
                ("on-premise", over(ON_PREMISE, lambda s: noise_ratio("fig14", s, K16, "both")))), largest=False),
       "on both kinds", 3.0, None,
       "the smaller of (largest cloud, largest on-premise) median(both)/median(none) at 16K nodes >= 3",
       figure="Obs. 8"),
    _v("obs9-cloud-50", _Q_OBS9, over(CLOUD_HPC, lambda s: noise_ratio("fig15", s, 4, "network")), "+50% at 4 nodes",
       1.4, 1.6, "largest median(network)/median(none) of the 512 MiB ring at 4 nodes over the cloud HPC systems",
       where="Sec. V-C, on Fig. 15 (512 MiB ring allreduce)", figure="Obs. 9"),
    _v("obs9-on-premise-50", _Q_OBS9, over(ON_PREMISE, lambda s: noise_ratio("fig15", s, 4, "network")),
       "+50% at 4 nodes", 1.4, 1.6,
       "largest median(network)/median(none) of the 512 MiB ring at 4 nodes over the on-premise systems",
       where="Sec. V-C, on Fig. 15 (512 MiB ring allreduce)", figure="Obs. 9"),
    _v("fig16-communication-over-90", _Q_SHARES,
       Extreme(tuple((f"{s} {n}n", CommShare("fig16", s, n)) for s in PRICED for n in FIG16_NODES), largest=False),
       "> 90%", 90.0, None, "smallest communication share of the noiseless median runtime, every priced system, "
       "16 to 16K nodes", unit="%", scale=100.0, where="Sec. V-D, on Fig. 16 (constrains the compute rates)",
       figure="Fig. 16"),
    _v("fig17-communication-under-20", _Q_SHARES,
       Extreme(tuple((f"{s} {n}n", CommShare("fig17", s, n)) for s in PRICED for n in FIG17_NODES)),
       "< 20%", None, 20.0, "largest communication share of the noiseless median runtime, every priced system, "
       "4 to 256 nodes", unit="%", scale=100.0, where="Sec. V-D, on Fig. 17 (constrains the compute rates)",
       figure="Fig. 17"),
)


# ----------------------------------------------------------------------------- Table II

_COLUMN = {name: f"{row.provider} {row.kind}" for name, row in TABLE_I.items()}
_CELLS = (
    ("Min. Lat. (us)", ms.min_latency_us),
    ("Mean Lat. (us)", ms.mean_latency_us),
    ("Max. Band. (Gb/s)", ms.max_bandwidth_gbit_s),
    ("Mean Band. (Gb/s)", ms.mean_bandwidth_gbit_s),
)
CELL_TOLERANCE = 0.005


def _table2() -> tuple[Statement, ...]:
    out = []
    for name, col in TABLE_II.items():
        for block, values, placement in (("SAME RACK", col.same_rack, "same-rack"),
                                         ("DIFFERENT RACKS", col.different_racks, "different-racks")):
            for (cell, fn), value in zip(_CELLS, values):
                if value is None:
                    continue
                out.append(Statement(
                    f"table2-{name}-{placement}-{cell.split()[0].lower()}{cell.split()[1].lower().rstrip('.')}",
                    "Table II", f"Table II, {block}, {cell}, {_COLUMN[name]}", f"{value:.2f}", "calibration",
                    ProfileMeasure(f"{cell} of the {placement} model",
                                   lambda m, n=name, p=placement, f=fn: f(m.profile(n, p))),
                    f"{value:.2f}", value * (1 - CELL_TOLERANCE), value * (1 + CELL_TOLERANCE), "",
                    reading="a table cell: +/-0.5%", tags=("table2",)))
    return tuple(out)


TABLE_2 = _table2()


# ----------------------------------------------------------------------------- Sec. III-IV prose

def _m(text: str, fn: Callable) -> ProfileMeasure:
    return ProfileMeasure(text, fn)


def _p(id: str, figure: str, where: str, quote: str, measure, paper: str, low, high, reading: str, unit: str = "x",
       why_not: str = "") -> Statement:
    return Statement(id, figure, where, quote, "calibration", measure, paper, low, high, unit, 1.0, reading, why_not,
                     ("prose",))


HOUR = ms.HOUR_QUANTILE
TOP = 1.0 - 1e-4  # inside Fig. 9's plotted top 0.1%, below single-sample spikes
_Q_OBS2 = ("Observation 2: Azure and Oracle achieve network latency and bandwidth comparable to that of on-premise HPC "
           "systems. On the other hand, GCP and AWS achieve 25% lower bandwidth and 10x higher latency.")
_Q_OBS4 = ("Observation 4: On AWS and GCP, HPC instances communicate with the same latency as normal instances, "
           "whereas on Azure and Oracle HPC instances communicate with a latency 10-20x lower than normal instances.")
_Q_FIG8 = ("On the other hand, on AWS and Azure, HPC and normal instances experience noise with high intensity and "
           "high frequency, whereas GCP experience noise with medium frequency and low intensity.")
_Q_OBS5 = ("Observation 5: When available, bare-metal HPC instances are characterized by a lower OS noise than non "
           "bare-metal instances, and are comparable to on-premise HPC systems. Normal instances are characterized by "
           "OS noise with high frequency.")
_Q_ALPS = ("We observe that, when the two nodes are on the same rack, Alps experiences latency noise with the highest "
           "intensity, with samples experiencing a latency more than 128 times higher than the minimum.")
_Q_OBS6 = ("Observation 6: Latency noise affects both cloud and on-premise HPC systems, and can increase the latency by "
           "more than 100x (in a single case up to 35000x). Except that for GCP, HPC instances are not characterized "
           "by a lower latency noise than normal instances.")
_Q_OBS7 = ("Observation 7: Cloud systems are more affected by bandwidth noise than on-premise systems. When nodes are "
           "on two different racks, the impact of bandwidth noise increases on GCP and Daint. On GCP and Oracle, normal "
           "instances are more affected by bandwidth noise.")
_Q_SR_BW = ("We observe that, when the two nodes are on the same rack, AWS, GCP, and Oracle are the most affected by "
            "bandwidth noise.")
_Q_DR_BW = ("When the two nodes are on different racks, almost all the systems (except for DEEP-EST and Azure) "
            "experience an increase in bandwidth noise, with GCP having a few samples experiencing a severe bandwidth "
            "drop.")
_LOW_OS = ("daint", "alps", "deep-est", "aws-hpc-metal", "oracle-hpc-metal")
_OTHER_OS = tuple(n for n in TABLE_I if n not in _LOW_OS)
_FIG9 = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "oracle-hpc-metal", "alps", "daint", "deep-est")


def _prof(m, n: str, p: str = "same-rack"):
    return m.profile(n, p)


PROSE: tuple[Statement, ...] = (
    _p("obs1-single-connection", "Obs. 1", "Sec. III-A",
       "Observation 1: On AWS and GCP, the peak bandwidth on a single connection is 50Gb/s and 30Gb/s respectively. A "
       "bandwidth of 80Gb/s can only be reached by forcing messages to be concurrently sent/received by/from multiple "
       "processes on different connections.", None, "50 and 30 Gb/s per connection", None, None, "",
       why_not="a profile has one G per system, Table II's max bandwidth (the optimal number of connections, as the "
       "paper's simulations); the per-connection limit of AWS and GCP is not modelled"),
    _p("sec3b-hpc-latency-1-2us", "Fig. 2", "Sec. III-B",
       "Regarding the latency (i.e., the RTT/2 for 1 byte messages), we observe that Azure, Oracle, and the on-premise "
       "systems exhibit a 1-2 microseconds latency for HPC instances.",
       _m("largest min latency (us) of Azure, Oracle and on-premise HPC models",
          lambda m: max(ms.min_latency_us(_prof(m, n)) for n in
                        ("azure-hpc", "azure-hpc-200", "oracle-hpc-metal", "daint", "alps", "deep-est"))),
       "1-2 us", 0.9, 2.2, "'1-2 microseconds' -> at most 2.2 us", "us"),
    _p("sec3b-aws-20us", "Fig. 2", "Sec. III-B",
       "On the other hand, both AWS and GCP are characterized by much higher latencies (20 and 10 microseconds "
       "respectively).", _m("min latency (us) of aws-hpc-metal", lambda m: ms.min_latency_us(_prof(m, "aws-hpc-metal"))),
       "20 us", 14.0, 26.0, "'20 microseconds' (a rounded figure) -> +/-30%", "us"),
    _p("sec3b-gcp-10us", "Fig. 2", "Sec. III-B",
       "On the other hand, both AWS and GCP are characterized by much higher latencies (20 and 10 microseconds "
       "respectively).", _m("min latency (us) of gcp-hpc", lambda m: ms.min_latency_us(_prof(m, "gcp-hpc"))),
       "10 us", 7.0, 13.0, "'10 microseconds' (a rounded figure) -> +/-30%", "us"),
    _p("obs2-10x-latency", "Obs. 2", "Sec. III-B", _Q_OBS2,
       _m("mean min latency of AWS and GCP HPC over the mean of the on-premise systems",
          lambda m: st.mean(ms.min_latency_us(_prof(m, n)) for n in ("aws-hpc-metal", "gcp-hpc"))
          / st.mean(ms.min_latency_us(_prof(m, n)) for n in ON_PREMISE)), "10x higher latency", 5.0, 20.0,
       "'10x' read as an order of magnitude: 5-20x"),
    _p("obs2-25pct-bandwidth", "Obs. 2", "Sec. III-B", _Q_OBS2,
       _m("1 - mean max bandwidth of AWS and GCP HPC over the mean of Azure, Oracle, Alps, DEEP-EST (%)",
          lambda m: 100 * (1 - st.mean(ms.max_bandwidth_gbit_s(_prof(m, n)) for n in ("aws-hpc-metal", "gcp-hpc"))
                           / st.mean(ms.max_bandwidth_gbit_s(_prof(m, n)) for n in
                                     ("azure-hpc", "oracle-hpc-metal", "alps", "deep-est")))),
       "25% lower bandwidth", 15.0, 35.0, "'25% lower' -> 15-35%", "%"),
    _p("obs2-azure-oracle-comparable", "Obs. 2", "Sec. III-B", _Q_OBS2,
       _m("largest min latency of Azure HPC and Oracle HPC over the largest on-premise",
          lambda m: max(ms.min_latency_us(_prof(m, n)) for n in ("azure-hpc", "oracle-hpc-metal"))
          / max(ms.min_latency_us(_prof(m, n)) for n in ON_PREMISE)), "comparable", 0.5, 1.5,
       "'comparable' -> within a factor 1.5"),
    _p("obs3-gcp-burstiness", "Obs. 3", "Sec. III-D",
       "Observation 3: On GCP, large delays between messages can increase the RTT/2 up to 3x compared to the case "
       "where messages are sent back to back.", None, "up to 3x", None, None, "",
       why_not="LogGOPS charges a message the same whatever the interval since the previous one; GCP's "
       "inter-message-interval effect is not modelled"),
    _p("sec3e-oracle-normal-40gbps", "Fig. 5", "Sec. III-E",
       "Also, we observe that normal compute instances on Azure are characterized by the lowest bandwidth, whereas AWS "
       "normal instances can achieve a 25Gb/s bandwidth, Oracle normal instances achieve a bandwidth of 40Gb/s, and "
       "GCP achieve even higher bandwidth than that declared (40Gb/s versus 32Gb/s).",
       _m("max bandwidth (Gb/s) of oracle-normal", lambda m: ms.max_bandwidth_gbit_s(_prof(m, "oracle-normal"))),
       "40 Gb/s", 34.0, 46.0, "'40Gb/s' -> +/-15%", "Gb/s"),
    _p("sec3e-gcp-normal-above-declared", "Fig. 5", "Sec. III-E",
       "Also, we observe that normal compute instances on Azure are characterized by the lowest bandwidth, whereas AWS "
       "normal instances can achieve a 25Gb/s bandwidth, Oracle normal instances achieve a bandwidth of 40Gb/s, and "
       "GCP achieve even higher bandwidth than that declared (40Gb/s versus 32Gb/s).",
       _m("max bandwidth (Gb/s) of gcp-normal", lambda m: ms.max_bandwidth_gbit_s(_prof(m, "gcp-normal"))),
       "> 32 Gb/s", 32.0, None, "higher than the declared 32 Gb/s", "Gb/s"),
    _p("sec3e-azure-normal-lowest", "Fig. 5", "Sec. III-E",
       "Also, we observe that normal compute instances on Azure are characterized by the lowest bandwidth, whereas AWS "
       "normal instances can achieve a 25Gb/s bandwidth, Oracle normal instances achieve a bandwidth of 40Gb/s, and "
       "GCP achieve even higher bandwidth than that declared (40Gb/s versus 32Gb/s).",
       _m("max bandwidth of azure-normal over the smallest other",
          lambda m: ms.max_bandwidth_gbit_s(_prof(m, "azure-normal"))
          / min(ms.max_bandwidth_gbit_s(_prof(m, n)) for n in TABLE_I if n != "azure-normal")),
       "the lowest", None, 1.0, "below every other system"),
    _p("obs4-aws-same-latency", "Obs. 4", "Sec. III-E", _Q_OBS4,
       _m("min latency of aws-normal over aws-hpc-metal",
          lambda m: ms.min_latency_us(_prof(m, "aws-normal")) / ms.min_latency_us(_prof(m, "aws-hpc-metal"))),
       "same latency", 0.8, 1.25, "'the same' -> within 25%"),
    _p("obs4-gcp-same-latency", "Obs. 4", "Sec. III-E", _Q_OBS4,
       _m("min latency of gcp-normal over gcp-hpc",
          lambda m: ms.min_latency_us(_prof(m, "gcp-normal")) / ms.min_latency_us(_prof(m, "gcp-hpc"))),
       "same latency", 0.8, 1.25, "'the same' -> within 25%"),
    _p("obs4-azure-10-20x", "Obs. 4", "Sec. III-E", _Q_OBS4,
       _m("min latency of azure-normal over azure-hpc",
          lambda m: ms.min_latency_us(_prof(m, "azure-normal")) / ms.min_latency_us(_prof(m, "azure-hpc"))),
       "10-20x lower", 10.0, 20.0, "10-20x"),
    _p("obs4-oracle-10-20x", "Obs. 4", "Sec. III-E", _Q_OBS4,
       _m("min latency of oracle-normal over oracle-hpc-metal",
          lambda m: ms.min_latency_us(_prof(m, "oracle-normal")) / ms.min_latency_us(_prof(m, "oracle-hpc-metal"))),
       "10-20x lower", 10.0, 20.0, "10-20x"),
    # Sec. IV-A, Fig. 8
    _p("fig8-lowest-os-noise", "Fig. 8", "Sec. IV-A",
       "We observe that on-premise systems have the lowest OS noise, as well as HPC bare-metal instances on AWS and "
       "Oracle.",
       _m("largest detour rate of the on-premise and bare-metal HPC models over the smallest of the others",
          lambda m: max(ms.os_rate(_prof(m, n)) for n in _LOW_OS) / min(ms.os_rate(_prof(m, n)) for n in _OTHER_OS)),
       "lowest", None, 1.0, "detour rate (Fig. 8's frequency) below every other system's"),
    _p("fig8-aws-azure-high-frequency", "Fig. 8", "Sec. IV-A", _Q_FIG8,
       _m("smallest detour rate of AWS and Azure HPC and normal over GCP HPC's",
          lambda m: min(ms.os_rate(_prof(m, n)) for n in ("aws-hpc", "aws-normal", "azure-hpc", "azure-normal"))
          / ms.os_rate(_prof(m, "gcp-hpc"))), "high vs medium frequency", 3.0, None,
       "a frequency class above GCP's: at least 3x its detour rate"),
    _p("fig8-aws-azure-high-intensity", "Fig. 8", "Sec. IV-A", _Q_FIG8,
       _m("smallest 99.9th percentile detour of AWS and Azure HPC and normal over GCP HPC's",
          lambda m: min(ms.os_duration_us(_prof(m, n), 0.999) for n in
                        ("aws-hpc", "aws-normal", "azure-hpc", "azure-normal"))
          / ms.os_duration_us(_prof(m, "gcp-hpc"), 0.999)), "high vs low intensity", 1.5, None,
       "the tallest of the top 1% of detours Fig. 8 plots (99.9th percentile) at least 1.5x longer than GCP's"),
    _p("fig8-azure-frequency-order", "Fig. 8", "Sec. IV-A",
       "On Azure, normal and 200 Gb/s instances experience noise with higher frequency than the 100 Gb/s HPC "
       "instances.",
       _m("smaller of the detour rates of azure-normal and azure-hpc-200 over azure-hpc's",
          lambda m: min(ms.os_rate(_prof(m, n)) for n in ("azure-normal", "azure-hpc-200"))
          / ms.os_rate(_prof(m, "azure-hpc"))), "higher frequency", 1.0, None, "> 1"),
    _p("obs5-metal-lower", "Obs. 5", "Sec. IV-A", _Q_OBS5,
       _m("OS noise share of aws-hpc-metal over aws-hpc (the one system with both)",
          lambda m: ms.os_fraction(_prof(m, "aws-hpc-metal")) / ms.os_fraction(_prof(m, "aws-hpc"))),
       "lower", None, 1.0, "share of time in detours, bare metal over virtualised, < 1"),
    _p("obs5-metal-like-on-premise", "Obs. 5", "Sec. IV-A", _Q_OBS5,
       _m("detour rate of the bare-metal HPC models over the on-premise mean",
          lambda m: st.mean(ms.os_rate(_prof(m, n)) for n in ("aws-hpc-metal", "oracle-hpc-metal"))
          / st.mean(ms.os_rate(_prof(m, n)) for n in ON_PREMISE)), "comparable", 0.5, 2.0,
       "'comparable' -> within a factor 2 (Fig. 8's frequency)"),
    _p("obs5-normal-high-frequency", "Obs. 5", "Sec. IV-A", _Q_OBS5,
       _m("smallest detour rate of the normal instances over GCP HPC's (medium)",
          lambda m: min(ms.os_rate(_prof(m, n)) for n in TABLE_I if TABLE_I[n].kind == "Normal")
          / ms.os_rate(_prof(m, "gcp-hpc"))), "high frequency", 3.0, None,
       "every normal instance in a frequency class above GCP HPC's medium one (>= 3x)"),
    # Sec. IV-B, Fig. 9-10
    _p("fig9-alps-128x", "Fig. 9", "Sec. IV-B", _Q_ALPS,
       _m("the latency of Alps at quantile 1 - 1e-6 (the top of an hour of ping-pongs) over the minimum",
          lambda m: ms.latency_ratio(_prof(m, "alps"), HOUR)), "> 128x", 128.0, None, "more than 128x"),
    _p("fig9-alps-highest", "Fig. 9", "Sec. IV-B", _Q_ALPS,
       _m("Alps's latency at quantile 1 - 1e-6 (the samples of an hour) over the minimum, divided by the largest other "
          "same-rack HPC system's",
          lambda m: ms.latency_ratio(_prof(m, "alps"), HOUR) / max(ms.latency_ratio(_prof(m, n), HOUR) for n in _FIG9
                                                                    if n != "alps")),
       "highest intensity", 1.0, None, "the sentence's 'samples ... more than 128 times': the top of an hour, Alps "
       "above every other system"),
    _p("fig9-oracle-59ms", "Fig. 9", "Sec. IV-B",
       "Also, on Oracle we observed one measurement equal to 59 milliseconds, 35000 times larger than the minimum "
       "latency.",
       _m("expected count of samples above 30 ms in an hour (1e6 ping-pongs) of the Oracle HPC model",
          lambda m: 1e6 * ms.latency_above(_prof(m, "oracle-hpc-metal"), 30e6)), "one measurement", 0.3, 3.0,
       "about one sample near 59 ms (> 30 ms) in an hour"),
    _p("fig9-oracle-35000x", "Fig. 9", "Sec. IV-B",
       "Also, on Oracle we observed one measurement equal to 59 milliseconds, 35000 times larger than the minimum "
       "latency.",
       _m("the median latency of Oracle HPC's samples above 1 ms, over the minimum",
          lambda m: ms.median_ratio_above(_prof(m, "oracle-hpc-metal"), 1e6)),
       "35000x", 30000.0, 40000.0, "'35000 times' -> +/-15%"),
    _p("fig9-daint-different-racks", "Fig. 9", "Sec. IV-B",
       "When the two nodes are on different racks, the noise significantly increases on Daint.",
       _m("Daint's latency at quantile 1 - 1e-4 over the minimum, different racks over same rack",
          lambda m: ms.latency_ratio(_prof(m, "daint", "different-racks"), TOP)
          / ms.latency_ratio(_prof(m, "daint"), TOP)), "significantly increases", 1.5, None, "at least 1.5x"),
    _p("fig9-on-premise-relative", "Fig. 9", "Sec. IV-B",
       "On-premise HPC systems are characterized by latency noise with higher intensity, due to the generally lower "
       "latency (cf. Sec. III).",
       _m("median over on-premise of the latency at 1 - 1e-4 over the minimum, over the median of the cloud HPC systems",
          lambda m: st.median(ms.latency_ratio(_prof(m, n), TOP) for n in ON_PREMISE)
          / st.median(ms.latency_ratio(_prof(m, n), TOP) for n in CLOUD_HPC)), "higher intensity", 1.0, None, "> 1"),
    _p("fig10-gcp-normal-noisier", "Fig. 10", "Sec. IV-B",
       "We observe that on GCP normal instances are characterized by higher noise compared to HPC instances, whereas, "
       "on Azure, HPC instances experience a few high-intensity noise events.",
       _m("gcp-normal's latency at 1 - 1e-4 over the minimum, over gcp-hpc's",
          lambda m: ms.latency_ratio(_prof(m, "gcp-normal"), TOP) / ms.latency_ratio(_prof(m, "gcp-hpc"), TOP)),
       "higher", 1.0, None, "> 1"),
    _p("fig10-azure-hpc-events", "Fig. 10", "Sec. IV-B",
       "We observe that on GCP normal instances are characterized by higher noise compared to HPC instances, whereas, "
       "on Azure, HPC instances experience a few high-intensity noise events.",
       _m("azure-hpc's latency at 1 - 1e-6 over the minimum, over azure-normal's",
          lambda m: ms.latency_ratio(_prof(m, "azure-hpc"), HOUR) / ms.latency_ratio(_prof(m, "azure-normal"), HOUR)),
       "high-intensity events on HPC", 2.0, None, "the top of an hour at least 2x higher on HPC"),
    _p("fig10-aws-no-difference", "Fig. 10", "Sec. IV-B",
       "We did not observe significant differences between the different instance types on AWS, whereas on Oracle we "
       "observe a higher noise on HPC instances compared to normal instances.",
       _m("aws-normal's latency at 1 - 1e-4 over the minimum, over aws-hpc-metal's",
          lambda m: ms.latency_ratio(_prof(m, "aws-normal"), TOP) / ms.latency_ratio(_prof(m, "aws-hpc-metal"), TOP)),
       "no significant difference", 0.8, 1.25, "within 25%"),
    _p("fig10-oracle-hpc-noisier", "Fig. 10", "Sec. IV-B",
       "We did not observe significant differences between the different instance types on AWS, whereas on Oracle we "
       "observe a higher noise on HPC instances compared to normal instances.",
       _m("oracle-hpc-metal's latency at 1 - 1e-6 over the minimum, over oracle-normal's",
          lambda m: ms.latency_ratio(_prof(m, "oracle-hpc-metal"), HOUR)
          / ms.latency_ratio(_prof(m, "oracle-normal"), HOUR)), "higher on HPC", 1.0, None, "> 1"),
    _p("obs6-over-100x", "Obs. 6", "Sec. IV-B", _Q_OBS6,
       _m("largest latency at 1 - 1e-6 over the minimum, systems other than Oracle HPC (its 35000x is the single case)",
          lambda m: max(ms.latency_ratio(_prof(m, n), HOUR) for n in TABLE_I if n != "oracle-hpc-metal")),
       "> 100x", 100.0, None, "more than 100x"),
    _p("obs6-hpc-not-lower", "Obs. 6", "Sec. IV-B", _Q_OBS6,
       _m("smallest HPC over normal latency at 1 - 1e-4 (relative to the minimum) on AWS, Azure, Oracle",
          lambda m: min(ms.latency_ratio(_prof(m, h), TOP) / ms.latency_ratio(_prof(m, n), TOP) for h, n in
                        (("aws-hpc-metal", "aws-normal"), ("azure-hpc", "azure-normal"),
                         ("oracle-hpc-metal", "oracle-normal")))), "not lower", 0.9, None,
       "HPC at least 0.9x of normal"),
    # Sec. IV-C, Fig. 11-12
    _p("fig11-most-affected", "Fig. 11", "Sec. IV-C", _Q_SR_BW,
       _m("largest bottom-0.1% bandwidth fraction of AWS, GCP, Oracle HPC over the smallest of Azure, Alps, Daint, "
          "DEEP-EST",
          lambda m: max(ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ("aws-hpc-metal", "gcp-hpc", "oracle-hpc-metal"))
          / min(ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ("azure-hpc", "alps", "daint", "deep-est"))),
       "most affected", None, 1.0, "Fig. 11 plots the bottom 0.1%: lower than every other system's"),
    _p("fig11-oracle-clustered", "Fig. 11", "Sec. IV-C",
       "On Oracle, bandwidth noise is clustered in time, causing persistent drops that last for up to 0.6 seconds.",
       _m("oracle-hpc-metal's longest bandwidth drop (episode duration), s",
          lambda m: ms.longest_drop_s(_prof(m, "oracle-hpc-metal"))),
       "drops up to 0.6 s", 0.48, 0.72, "'up to 0.6 s': 0.8-1.2 x 0.6 s", "s"),
    _p("fig11-daint-deep-unaffected", "Fig. 11", "Sec. IV-C",
       "Daint and DEEP-EST are almost unaffected by bandwidth noise, whereas Azure and Alps experiences some bandwidth "
       "drops.",
       _m("smaller bottom-0.1% bandwidth fraction of Daint and DEEP-EST",
          lambda m: min(ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ("daint", "deep-est"))),
       "almost unaffected", 0.95, None, "bottom 0.1% at >= 95% of the maximum", "fraction"),
    _p("fig11-azure-alps-drops", "Fig. 11", "Sec. IV-C",
       "Daint and DEEP-EST are almost unaffected by bandwidth noise, whereas Azure and Alps experiences some bandwidth "
       "drops.",
       _m("larger bandwidth fraction at quantile 1e-4 of Azure HPC and Alps",
          lambda m: max(ms.bandwidth_quantile(_prof(m, n), 1e-4) for n in ("azure-hpc", "alps"))),
       "some drops", None, 0.9, "the bottom 0.01% below 90% of the maximum", "fraction"),
    _p("fig11-different-racks-more", "Fig. 11", "Sec. IV-C", _Q_DR_BW,
       _m("count of AWS, GCP, Alps, Daint whose bottom-0.1% bandwidth is lower on different racks",
          lambda m: sum(ms.bandwidth_quantile(_prof(m, n, "different-racks"), 1e-3)
                        < ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ("aws-hpc-metal", "gcp-hpc", "alps", "daint"))),
       "almost all", 3.0, None, "at least 3 of the 4", "count"),
    _p("fig11-gcp-severe-drop", "Fig. 11", "Sec. IV-C", _Q_DR_BW,
       _m("gcp-hpc's bandwidth fraction at quantile 1e-4, different racks",
          lambda m: ms.bandwidth_quantile(_prof(m, "gcp-hpc", "different-racks"), 1e-4)),
       "severe drop", None, 0.3, "a few samples (1e-4) below 30% of the maximum", "fraction"),
    _p("fig12-aws-types-alike", "Fig. 12", "Sec. IV-C",
       "We do not observe significant differences between the different instance types on AWS and GCP.",
       _m("aws-normal's bottom-0.1% bandwidth fraction over aws-hpc-metal's",
          lambda m: ms.bandwidth_quantile(_prof(m, "aws-normal"), 1e-3)
          / ms.bandwidth_quantile(_prof(m, "aws-hpc-metal"), 1e-3)), "no difference", 0.8, 1.25, "within 25%"),
    _p("fig12-gcp-types-alike", "Fig. 12", "Sec. IV-C",
       "We do not observe significant differences between the different instance types on AWS and GCP.",
       _m("gcp-normal's bottom-0.1% bandwidth fraction over gcp-hpc's",
          lambda m: ms.bandwidth_quantile(_prof(m, "gcp-normal"), 1e-3)
          / ms.bandwidth_quantile(_prof(m, "gcp-hpc"), 1e-3)), "no difference", 0.8, 1.25, "within 25%"),
    _p("fig12-azure-200-more", "Fig. 12", "Sec. IV-C",
       "On Azure, we observe a slightly higher bandwidth noise on 200 Gb/s instances, for the same reason discussed "
       "for the latency noise (small congestion events have a larger relative effect at higher bandwidth).",
       _m("azure-hpc-200's bottom-0.1% bandwidth fraction over azure-hpc's",
          lambda m: ms.bandwidth_quantile(_prof(m, "azure-hpc-200"), 1e-3)
          / ms.bandwidth_quantile(_prof(m, "azure-hpc"), 1e-3)), "slightly higher noise", None, 1.0, "< 1"),
    _p("fig12-oracle-normal-40pct", "Fig. 12", "Sec. IV-C",
       "On Oracle, normal instances are severely affected by bandwidth noise, with many samples characterized by a "
       "bandwidth equal to 40% of the maximum achievable bandwidth.",
       _m("share of oracle-normal's messages at 35-45% of the maximum bandwidth",
          lambda m: ms.bandwidth_share(_prof(m, "oracle-normal"), 0.35, 0.45)), "many samples at 40%", 0.05, None,
       "'many' -> at least 5% of the messages", "fraction"),
    _p("obs7-cloud-more", "Obs. 7", "Sec. IV-C", _Q_OBS7,
       _m("median bottom-0.1% bandwidth fraction of the cloud HPC systems over the smallest on-premise one",
          lambda m: st.median(ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in CLOUD_HPC)
          / min(ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ON_PREMISE)), "more affected", None, 1.0, "< 1"),
    _p("obs7-gcp-daint-racks", "Obs. 7", "Sec. IV-C", _Q_OBS7,
       _m("larger of GCP's and Daint's bottom-0.1% bandwidth, different over same racks",
          lambda m: max(ms.bandwidth_quantile(_prof(m, n, "different-racks"), 1e-3)
                        / ms.bandwidth_quantile(_prof(m, n), 1e-3) for n in ("gcp-hpc", "daint"))),
       "increases on different racks", None, 1.0, "< 1 for both"),
    _p("obs7-normal-more", "Obs. 7", "Sec. IV-C", _Q_OBS7,
       _m("larger of GCP's and Oracle's normal over HPC mean bandwidth fraction (Table II's mean / max)",
          lambda m: max((ms.mean_bandwidth_gbit_s(_prof(m, a)) / ms.max_bandwidth_gbit_s(_prof(m, a)))
                        / (ms.mean_bandwidth_gbit_s(_prof(m, b)) / ms.max_bandwidth_gbit_s(_prof(m, b)))
                        for a, b in (("gcp-normal", "gcp-hpc"), ("oracle-normal", "oracle-hpc-metal")))),
       "normal more affected", None, 1.0, "< 1 for both (mean fraction: Fig. 12's bottom 0.1% is held alike on GCP)"),
)


#: The calibration targets: what `cloudnoise profiles calibrate` fits the text profiles to.
TARGETS: tuple[Statement, ...] = SIMULATED + PROSE + TABLE_2


# ----------------------------------------------------------------------------- held out: Sec. V-C and V-D

V_C = "Sec. V-C, on Fig. 15 (512 MiB ring allreduce)"
V_D16 = "Sec. V-D, on Fig. 16 (128x128 DGEMM + 128 KiB dissemination)"
V_D17 = "Sec. V-D, on Fig. 17 (8192x8192 DGEMM + 512 MiB ring allreduce)"

# A provider's best showing: its HPC instances (Fig. 15 shows HPC instances only).
PROVIDERS = {"AWS": ("aws-hpc-metal",), "Azure": ("azure-hpc", "azure-hpc-200"), "GCP": ("gcp-hpc",),
             "Oracle": ("oracle-hpc-metal",)}


def _h(id: str, figure: str, where: str, quote: str, measure, paper: str, low, high, reading: str,
       unit: str = "x", scale: float = 1.0) -> Statement:
    return Statement(id, figure, where, quote, "held-out", measure, paper, low, high, unit, scale, reading)


def _increase(workload: str, system: str, nodes: int, variant: str, stat: str = "median") -> Ratio:
    return noise_ratio(workload, system, nodes, variant, stat)


def _pct(measure) -> Increase:
    return Increase(measure)


_Q_GCP_ORACLE = ("On GCP, a few outliers increase the runtime up to 5 times on 16 nodes, whereas on Oracle the noise "
                 "increases the average runtime by 4x on 1024 nodes.")
_Q_16_64 = ("First, we observe that even when running on 64 nodes, the increase in the cost due to noise ranges from 10 "
            "to 50%.")
_Q_GCP17 = "On GCP, it causes an additional 15% cost on 4 nodes, and up to 30% on 256 nodes."

HELD_OUT: tuple[Statement, ...] = (
    _h("fig15-no-os-impact", "Fig. 15", V_C, "First, for all the systems we observe no impact of OS noise on the runtime.",
       _pct(over(HPC, lambda s: _increase("fig15", s, 4, "os"))), "no impact", None, 2.0,
       "largest median(os)/median(none) - 1 of the Fig. 15 systems at 4 nodes, at most 2%", "%", 100.0),
    _h("fig15-almost-all-50", "Fig. 15", V_C,
       "On almost all the providers we observe network noise increasing the runtime by almost 50% on 4 nodes.",
       Count(tuple((p, over(ss, lambda s: _increase("fig15", s, 4, "network"))) for p, ss in PROVIDERS.items()),
             1.35, 1.5),
       "almost all providers", 3.0, None,
       "cloud providers (their best HPC instance) whose median(network)/median(none) at 4 nodes is 'almost 50%' "
       "(1.35-1.5x): at least 3 of 4", "count"),
    _h("fig15-gcp-outliers-5x", "Fig. 15", V_C, _Q_GCP_ORACLE,
       Ratio(Stat("fig15", "gcp-hpc", 16, "both", "p99.5"), Stat("fig15", "gcp-hpc", 16, "none")), "up to 5x", 4.0, 6.0,
       "99.5th percentile(both)/median(none) on GCP at 16 nodes; 'up to 5 times' -> 4-6x"),
    _h("fig15-oracle-mean-4x", "Fig. 15", V_C, _Q_GCP_ORACLE,
       _increase("fig15", "oracle-hpc-metal", 1024, "both", "mean"), "4x (average)", 3.4, 4.6,
       "mean(both)/mean(none) on Oracle at 1024 nodes; '4x' -> +/-15%"),
    _h("fig16-64-lowest-10", "Fig. 16", V_D16, _Q_16_64,
       _pct(over(PRICED, lambda s: _increase("fig16", s, 64, "both"), largest=False)), "from 10%", 6.67, 13.33,
       "smallest median(both)/median(none) - 1 over the priced systems at 64 nodes: 10% +/- a third", "%", 100.0),
    _h("fig16-64-highest-50", "Fig. 16", V_D16, _Q_16_64,
       _pct(over(PRICED, lambda s: _increase("fig16", s, 64, "both"))), "to 50%", 33.3, 66.7,
       "largest median(both)/median(none) - 1 over the priced systems at 64 nodes: 50% +/- a third", "%", 100.0),
    _h("fig16-16k-up-to-2x", "Fig. 16", V_D16,
       "This is exacerbated when increasing the number of nodes, and we observe up to a 2x increase in the cost at 16K "
       "nodes.",
       over(PRICED, lambda s: _increase("fig16", s, 16384, "both")), "up to 2x", 1.6, 2.4,
       "largest median(both)/median(none) over the priced systems at 16K nodes"),
    _h("fig16-network-dominates", "Fig. 16", V_D16,
       "We observe that OS noise only contributes for a fraction of the cost increase, and that much of the increase is "
       "caused by network noise.",
       Count(tuple((s, Ratio(Stat("fig16", s, 64, "network"), Stat("fig16", s, 64, "os"))) for s in PRICED),
             1.0, 1e9),
       "network > OS", 3.0, None,
       "priced systems whose median(network) exceeds median(os) at 64 nodes: a majority (>= 3 of 5)", "count"),
    _h("fig16-oracle-highest-network", "Fig. 16", V_D16,
       "On Oracle, we observe the highest cost increase due to network noise, due to some outliers with very high "
       "latency, as discussed in Sec. IV-B and Sec. V-B.",
       Ratio(_increase("fig16", "oracle-hpc-metal", 16384, "network", "mean"),
             over([s for s in PRICED if s != "oracle-hpc-metal"],
                  lambda s: _increase("fig16", s, 16384, "network", "mean"))),
       "Oracle highest", 1.0, None,
       "Oracle's mean(network)/mean(none) at 16K nodes over the largest other priced system's (outliers: the mean)"),
    _h("fig16-azure-daint-cheaper", "Fig. 16", V_D16,
       "Also, it is worth remarking that, a larger cost increase does not necessarily mean a larger cost and that, "
       "despite the noise, Azure and Daint are still more cost effective than AWS and GCP for this type of workload.",
       CostRatio("fig16", ("azure-hpc", "daint"), ("aws-hpc-metal", "gcp-hpc"), (64, 16384)),
       "cheaper", None, 1.0,
       "largest cost (median runtime x nodes x on-demand price, both noises) of Azure/Daint over the smallest of "
       "AWS/GCP, at 64 and 16K nodes: < 1"),
    _h("fig17-no-os-impact", "Fig. 17", V_D17,
       "For this workload, OS noise does not play a significant role, since the application is not latency sensitive.",
       _pct(Extreme(tuple((f"{s} {n}n", _increase("fig17", s, n, "os")) for s in PRICED for n in (4, 256)))),
       "not significant", None, 2.0, "largest median(os)/median(none) - 1 over the priced systems at 4 and 256 nodes",
       "%", 100.0),
    _h("fig17-network-at-least-5", "Fig. 17", V_D17,
       "On the other hand, network noise increases the monetary cost of at least 5% on all the systems.",
       _pct(Extreme(tuple((f"{s} {n}n", _increase("fig17", s, n, "network")) for s in PRICED for n in (4, 256)),
                    largest=False)),
       "at least 5%", 5.0, None,
       "smallest median(network)/median(none) - 1 over the priced systems at 4 and 256 nodes: >= 5%", "%", 100.0),
    _h("fig17-gcp-15-at-4", "Fig. 17", V_D17, _Q_GCP17, _pct(_increase("fig17", "gcp-hpc", 4, "network")), "+15%",
       10.0, 20.0, "median(network)/median(none) - 1 on GCP at 4 nodes: 15% +/- a third", "%", 100.0),
    _h("fig17-gcp-30-at-256", "Fig. 17", V_D17, _Q_GCP17, _pct(_increase("fig17", "gcp-hpc", 256, "network")),
       "up to 30%", 24.0, 36.0, "median(network)/median(none) - 1 on GCP at 256 nodes: 'up to 30%' -> 24-36%", "%",
       100.0),
    _h("obs10-small-scale", "Obs. 10", V_D17,
       "Observation 10: Network noise can have a significant impact on the monetary cost of running a distributed "
       "application. This is even true at small scale, and for applications that are not dominated by communication.",
       _pct(over(PRICED, lambda s: _increase("fig17", s, 4, "network"))), "significant at 4 nodes", 5.0, None,
       "largest median(network)/median(none) - 1 over the priced systems at 4 nodes of the compute-dominated "
       "workload: >= 5%", "%", 100.0),
)

#: Sec. V's statements, what `cloudnoise paper` checks: its calibration targets and the held-out ones.
SEC_V: tuple[Statement, ...] = SIMULATED + HELD_OUT
