"""Build the paper's systems as profiles: published figures plus labelled reconstructions.

The paper publishes Table I (hardware, prices), Table II (min/mean latency,
max/mean bandwidth) and prose about the noise (Sec. IV).  It does not publish
the raw samples, the LogGOPS parameters it fitted, or the OS noise traces.
This module turns what is published into complete profiles; everything that
is not copied from the paper is marked `reconstructed` with the sentence or
assumption it rests on.

Rules (also in docs/profile-format.md):

* LogGOPS: o = 10% of the same-rack minimum latency (assumed; the paper does
  not publish o), L = min latency - 2o (LogGP: T(1 B) = 2o + L), g = o,
  G = 8 / max bandwidth [Gb/s] ns per byte, O = 0, S = 65535 bytes (LogGOPSim's default).
* Latency noise (excess over L, ns): a mixture of a lognormal body (sigma 1)
  and a Pareto tail (alpha 2.5, weight 1e-3, starting at the body's 99.9th
  percentile) plus system-specific spikes from Sec. IV-B; the body median is
  solved so the mixture's mean equals Table II's mean minus min latency.
* Bandwidth noise (fraction of the max bandwidth): a mixture of a uniform body
  [b, 1] and drops uniform in [lo, hi] with a weight from Sec. IV-C's prose;
  b is solved so the mean equals Table II's mean / max bandwidth.
* OS noise: Poisson detours whose rate and duration follow Fig. 8's
  qualitative classes (low / medium / high frequency and intensity); the
  numeric levels are assumptions, not read from the figure.

Run `python -m cloudnoise.profiles.reconstruct` to rewrite the data files.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.distributions import parse_distribution
from cloudnoise.model.profile import (
    Hardware,
    LinkFigures,
    LogGOPS,
    NoiseModel,
    OSNoiseModel,
    Prices,
    Provenance,
    SystemProfile,
    Table2,
    save_profile,
)
from cloudnoise.profiles.cpus import compute_of
from cloudnoise.profiles.paper import OS, PAPER, PRICE_DATE, PRICE_REGION, TABLE_I, TABLE_II, TableIIColumn

DATA_DIR = Path(__file__).parent / "data"

O_FRACTION = 0.10
S_BYTES = 65535  # LogGOPSim's default eager limit (messages <= S go eagerly)
BODY_SIGMA = 1.0
TAIL_WEIGHT = 1e-3
TAIL_ALPHA = 2.5


@dataclass(frozen=True)
class Spike:
    """An extra latency-noise component from the paper's prose."""

    weight: float
    component: str  # e.g. "constant(value=59ms)" or "pareto(scale=..., alpha=...)"
    source: str


@dataclass(frozen=True)
class Drops:
    """Bandwidth drops: with `weight`, a fraction uniform in [low, high]."""

    weight: float
    low: float
    high: float
    source: str


@dataclass(frozen=True)
class OSClass:
    """Fig. 8's qualitative OS noise class of a system."""

    frequency: str  # low | medium | high | very-high
    intensity: str  # low | medium | high
    source: str


# Numeric levels for Fig. 8's words (assumed: the figure's axes are not in the text).
FREQUENCY_HZ = {"low": 10.0, "medium": 100.0, "high": 1000.0, "very-high": 3000.0}
INTENSITY = {  # detour duration distribution
    "low": "lognormal(median=1us,sigma=0.5)",
    "medium": "lognormal(median=2us,sigma=0.75)",
    "high": "lognormal(median=5us,sigma=1)",
}

_S4A = "Sec. IV-A: "
_OS_ONPREM = OSClass("low", "low", _S4A + "We observe that on-premise systems have the lowest OS noise, as well as HPC "
                     "bare-metal instances on AWS and Oracle.")
_OS_HIGH = OSClass("high", "high", _S4A + "on AWS and Azure, HPC and normal instances experience noise with high "
                   "intensity and high frequency")
_OS_AZ_HIGHER = OSClass("very-high", "high", _S4A + "On Azure, normal and 200 Gb/s instances experience noise with "
                        "higher frequency than the 100 Gb/s HPC instances.")
_OS_GCP = OSClass("medium", "low", _S4A + "GCP experience noise with medium frequency and low intensity.")
_OS_ORACLE_NORMAL = OSClass("high", "medium", "Observation 5: Normal instances are characterized by OS noise with "
                            "high frequency. (intensity not stated; medium assumed)")

OS_CLASS: dict[str, OSClass] = {
    "aws-normal": _OS_HIGH,
    "aws-hpc": _OS_HIGH,
    "aws-hpc-metal": _OS_ONPREM,
    "azure-normal": _OS_AZ_HIGHER,
    "azure-hpc": _OS_HIGH,
    "azure-hpc-200": _OS_AZ_HIGHER,
    "gcp-normal": _OS_GCP,
    "gcp-hpc": _OS_GCP,
    "oracle-normal": _OS_ORACLE_NORMAL,
    "oracle-hpc-metal": _OS_ONPREM,
    "daint": _OS_ONPREM,
    "alps": _OS_ONPREM,
    "deep-est": _OS_ONPREM,
}

# Latency spikes beyond the default body + tail, from Sec. IV-B and V-B.
LATENCY_SPIKES: dict[str, list[Spike]] = {
    "oracle-hpc-metal": [
        Spike(3e-7, "constant(value=59ms)",
              "Sec. IV-B: on Oracle we observed one measurement equal to 59 milliseconds, 35000 times larger than "
              "the minimum latency (weight 3e-7 assumed; Sec. V-B: a few outliers of 165ms at 16K nodes raise the "
              "average dissemination runtime to 10ms)"),
    ],
    "alps": [
        Spike(1e-4, "pareto(scale={x},alpha=2.5)",
              "Sec. IV-B: Alps experiences latency noise with the highest intensity, with samples experiencing a "
              "latency more than 128 times higher than the minimum (weight 1e-4 and alpha assumed)"),
    ],
    "azure-hpc": [
        Spike(1e-5, "pareto(scale={x},alpha=2.5)",
              "Sec. IV-B: on Azure, HPC instances experience a few high-intensity noise events; Observation 6: "
              "latency noise can increase the latency by more than 100x (tail from 100x min, weight 1e-5 assumed)"),
    ],
}
SPIKE_FACTOR = {"alps": 128.0, "azure-hpc": 100.0}  # x = (factor - 1) * min latency, as an excess

_S4C = "Sec. IV-C: "
_DROPS_MOST = Drops(1e-3, 0.3, 0.8, _S4C + "when the two nodes are on the same rack, AWS, GCP, and Oracle are the most "
                    "affected by bandwidth noise (weight and depth assumed)")
_DROPS_SOME = Drops(1e-4, 0.5, 0.9, _S4C + "Azure and Alps experiences some bandwidth drops (weight and depth assumed)")
BANDWIDTH_DROPS: dict[str, Drops | None] = {
    "aws-normal": Drops(1e-3, 0.3, 0.8, _S4C + "We do not observe significant differences between the different "
                        "instance types on AWS and GCP (same drops as HPC assumed)"),
    "aws-hpc": _DROPS_MOST,
    "aws-hpc-metal": _DROPS_MOST,
    "azure-normal": _DROPS_SOME,
    "azure-hpc": _DROPS_SOME,
    "azure-hpc-200": Drops(2e-4, 0.5, 0.9, _S4C + "On Azure, we observe a slightly higher bandwidth noise on 200 Gb/s "
                           "instances (twice the 100 Gb/s drop weight assumed)"),
    "gcp-normal": Drops(1e-3, 0.3, 0.8, _S4C + "We do not observe significant differences between the different "
                        "instance types on AWS and GCP (same drops as HPC assumed)"),
    "gcp-hpc": _DROPS_MOST,
    "oracle-normal": Drops(0.2, 0.35, 0.45, _S4C + "On Oracle, normal instances are severely affected by bandwidth "
                           "noise, with many samples characterized by a bandwidth equal to 40% of the maximum "
                           "achievable bandwidth (weight 0.2 assumed)"),
    "oracle-hpc-metal": Drops(3e-4, 0.3, 0.8, _S4C + "On Oracle, bandwidth noise is clustered in time, causing "
                              "persistent drops that last for up to 0.6 seconds (modelled as independent per-message "
                              "drops of weight 3e-4, the most Table II's mean of 97.50 vs max 97.53 Gb/s allows; the "
                              "clustering in time is not represented)"),
    "daint": None,
    "alps": _DROPS_SOME,
    "deep-est": None,
}
NO_DROPS_SOURCE = _S4C + "Daint and DEEP-EST are almost unaffected by bandwidth noise"

# Profiles whose network figures come from another system's Table II column.
FIGURES_FROM = {
    "aws-hpc": ("aws-hpc-metal", "Sec. V-B: For AWS, we do not report the results for HPC non bare-metal instances, "
                "because we did not observe any difference from HPC bare-metal. (Table II has no column for "
                "c5n.18xlarge; the c5n.metal figures are used.)"),
}

DESCRIPTIONS = {
    "aws-normal": "AWS normal compute instance c5.18xlarge (25 Gb/s, SRD over ECMP fat tree)",
    "aws-hpc": "AWS HPC instance c5n.18xlarge with EFA (100 Gb/s, SRD over ECMP fat tree), virtualised",
    "aws-hpc-metal": "AWS HPC bare-metal instance c5n.metal with EFA (100 Gb/s, SRD over ECMP fat tree)",
    "azure-normal": "Azure normal compute instance F72s_v2 (30 Gb/s, ECMP fat tree, TCP)",
    "azure-hpc": "Azure HPC instance HC44rs (100 Gb/s InfiniBand, non-blocking fat tree)",
    "azure-hpc-200": "Azure HPC instance HB120rs_v2 (200 Gb/s InfiniBand, non-blocking fat tree, AMD EPYC)",
    "gcp-normal": "GCP normal instance c2-standard-60 (32 Gb/s, TCP/IP on Jupiter 3:1 fat tree)",
    "gcp-hpc": "GCP c2-standard-60 with Tier 1 networking (100 Gb/s, TCP/IP on Jupiter 3:1 fat tree)",
    "oracle-normal": "Oracle normal instance VM.Optimized3.Flex (40 Gb/s, non-blocking fat tree)",
    "oracle-hpc-metal": "Oracle HPC bare-metal instance BM.Optimized3.36 (100 Gb/s RoCEv2, non-blocking fat tree)",
    "daint": "Piz Daint (CSCS), Cray Aries dragonfly, per-packet adaptive routing",
    "alps": "Alps (CSCS), HPE Cray Slingshot dragonfly, per-packet adaptive routing, RoCEv2",
    "deep-est": "DEEP-EST (JSC), Mellanox InfiniBand EDR fat tree",
}


def _cores(cpu: str) -> int | None:
    match = re.match(r"^(?:(\d+)x)?(\d+)C\b", cpu)
    if not match:
        return None
    return int(match.group(1) or 1) * int(match.group(2))


def _topology(network: str) -> str:
    low = network.lower()
    if "dragonfly" in low:
        return "dragonfly"
    if "fat tree" in low:
        return "fat-tree"
    return network


def _labels(name: str) -> tuple[str, ...]:
    row = TABLE_I[name]
    cloud = row.provider in ("AWS", "Azure", "GCP", "Oracle")
    labels = ["cloud" if cloud else "on-premise", row.provider.lower()]
    labels.append("hpc" if row.kind.startswith("HPC") else "normal")
    if "Metal" in row.kind or not cloud:
        labels.append("bare-metal")
    if name in TABLE_II:
        labels.append("table2")
    return tuple(labels)


def _fmt(x: float) -> str:
    return f"{x:.10g}"


def latency_noise_spec(name: str, figures: TableIIColumn) -> str:
    """The reconstructed latency-noise mixture of a system (see module docstring)."""
    min_us, mean_us = figures.same_rack[0], figures.same_rack[1]
    mean_excess = (mean_us - min_us) * 1000.0
    spikes = LATENCY_SPIKES.get(name, [])
    spike_parts: list[tuple[float, str]] = []
    spike_mean = 0.0
    for s in spikes:
        component = s.component
        if "{x}" in component:
            x_ns = (SPIKE_FACTOR[name] - 1.0) * min_us * 1000.0
            component = component.replace("{x}", _fmt(x_ns))
        kind, _, params = component.partition("(")
        dist = parse_distribution(f"{kind}:{params.rstrip(')')}")
        spike_mean += s.weight * dist.mean()
        spike_parts.append((s.weight, component))
    body_weight = 1.0 - TAIL_WEIGHT - sum(w for w, _ in spike_parts)
    # Tail starts at the body's 99.9th percentile: tail mean = m * exp(sigma z) * alpha / (alpha - 1).
    z = stats.norm.ppf(0.999)
    per_median = body_weight * math.exp(0.5 * BODY_SIGMA**2) + TAIL_WEIGHT * math.exp(BODY_SIGMA * z) * (
        TAIL_ALPHA / (TAIL_ALPHA - 1.0)
    )
    median = (mean_excess - spike_mean) / per_median
    if not median > 0:
        raise CloudnoiseError(f"{name}: latency spikes alone exceed Table II's mean excess; revisit their weights")
    tail_scale = median * math.exp(BODY_SIGMA * z)
    parts = [
        f"{_fmt(body_weight)}*lognormal(median={_fmt(median)},sigma={_fmt(BODY_SIGMA)})",
        f"{_fmt(TAIL_WEIGHT)}*pareto(scale={_fmt(tail_scale)},alpha={_fmt(TAIL_ALPHA)})",
    ] + [f"{_fmt(w)}*{c}" for w, c in spike_parts]
    return "mixture:" + "+".join(parts)


def bandwidth_noise_spec(name: str, figures: TableIIColumn) -> str:
    """The reconstructed bandwidth-noise mixture (fraction of max bandwidth) of a system."""
    max_bw, mean_bw = figures.same_rack[2], figures.same_rack[3]
    ratio = mean_bw / max_bw
    drops = BANDWIDTH_DROPS[name]
    if drops is None:
        low = 2.0 * ratio - 1.0
        return f"uniform:low={_fmt(low)},high=1"
    mid = 0.5 * (drops.low + drops.high)
    low = 2.0 * (ratio - drops.weight * mid) / (1.0 - drops.weight) - 1.0
    if not 0.0 < low < 1.0:
        raise CloudnoiseError(f"{name}: cannot fit the bandwidth body (low={low}); revisit the drop parameters")
    return (
        f"mixture:{_fmt(1.0 - drops.weight)}*uniform(low={_fmt(low)},high=1)"
        f"+{_fmt(drops.weight)}*uniform(low={_fmt(drops.low)},high={_fmt(drops.high)})"
    )


def os_noise_spec(name: str) -> str:
    cls = OS_CLASS[name]
    return f"random:rate={_fmt(FREQUENCY_HZ[cls.frequency])},duration={INTENSITY[cls.intensity]}"


def build_profile(name: str) -> SystemProfile:
    """The built-in profile `name` from the paper's tables and the reconstruction rules."""
    row = TABLE_I[name]
    table1 = Provenance("published", f"{PAPER}, Table I ({row.provider} {row.kind}) and Sec. II")
    hardware = Hardware(
        provenance=table1,
        instance_type=row.instance_type,
        cpu=row.cpu,
        cores=_cores(row.cpu),
        memory_gb=row.memory_gb,
        nominal_bandwidth_gbit_s=row.bandwidth_gbit_s,
        network=row.network,
        topology=_topology(row.network),
        routing=row.routing,
        transport=row.transport,
        os=OS[row.provider],
    )
    price_note = None
    if row.provider == "Daint":
        price_note = "minimum usage of 10,000 compute hours (committed) and on-demand, non-academic partners"
    elif row.provider in ("Alps", "DEEP-EST"):
        price_note = "no publicly available per-hour cost"
    elif row.committed_usd is None:
        price_note = "no committed price published (N.A. in Table I)"
    else:
        price_note = "committed = 3-year commitment with upfront payment"
    prices = Prices(
        provenance=Provenance("published", f"{PAPER}, Table I (prices as of July 18, 2022) and Sec. II-C"),
        committed_per_node_hour=row.committed_usd,
        on_demand_per_node_hour=row.on_demand_usd,
        as_of=PRICE_DATE,
        region=PRICE_REGION if row.provider in ("AWS", "Azure", "GCP", "Oracle") else None,
        note=price_note,
    )
    table2: Table2 | None = None
    if name in TABLE_II:
        col = TABLE_II[name]
        table2 = Table2(
            provenance=Provenance("measured", f"{PAPER}, Table II (measured with Netgauge by the paper's authors)"),
            same_rack=LinkFigures(*col.same_rack),
            different_racks=LinkFigures(*col.different_racks),
        )
        figures, figures_note = col, f"Table II ({row.provider} {row.kind}, same rack)"
    else:
        src, why = FIGURES_FROM[name]
        figures, figures_note = TABLE_II[src], why
    min_us, _, max_bw, _ = figures.same_rack
    o = O_FRACTION * min_us * 1000.0
    loggops = LogGOPS(
        provenance=Provenance(
            "reconstructed",
            f"From {figures_note}: o = {O_FRACTION:g} x min latency (assumed, o is not published), "
            "L = min latency - 2o (LogGP T(1 B) = 2o + L), g = o (assumed), G = 8 / max bandwidth [Gb/s] ns/B, "
            f"O = 0 (assumed), S = {S_BYTES} B (assumed: LogGOPSim's default)",
        ),
        L=round(min_us * 1000.0 - 2 * o, 3),
        o=round(o, 3),
        g=round(o, 3),
        G=round(8.0 / max_bw, 9),
        O=0.0,
        S=S_BYTES,
    )
    spike_sources = " ".join(s.source for s in LATENCY_SPIKES.get(name, []))
    latency = NoiseModel(
        provenance=Provenance(
            "reconstructed",
            f"Mean excess = mean - min latency of {figures_note}; lognormal body (sigma {BODY_SIGMA:g}) + Pareto "
            f"tail (alpha {TAIL_ALPHA:g}, weight {TAIL_WEIGHT:g}) assumed. " + spike_sources,
        ),
        spec=latency_noise_spec(name, figures),
        note="excess over L per message, ns",
    )
    drops = BANDWIDTH_DROPS[name]
    bandwidth = NoiseModel(
        provenance=Provenance(
            "reconstructed",
            f"Mean fraction = mean / max bandwidth of {figures_note}; uniform body assumed. "
            + (drops.source if drops else NO_DROPS_SOURCE),
        ),
        spec=bandwidth_noise_spec(name, figures),
        note="fraction of the max bandwidth per message; G is scaled by 1 / fraction",
    )
    cls = OS_CLASS[name]
    os_noise = OSNoiseModel(
        provenance=Provenance(
            "reconstructed",
            f"Fig. 8 class: {cls.frequency} frequency, {cls.intensity} intensity. {cls.source} "
            f"Numeric levels assumed: frequency low/medium/high/very-high = 10/100/1000/3000 detours/s; "
            "intensity low/medium/high = lognormal detours of median 1/2/5 us.",
        ),
        synthetic=os_noise_spec(name),
    )
    return SystemProfile(
        name=name,
        description=DESCRIPTIONS[name],
        labels=_labels(name),
        hardware=hardware,
        compute=compute_of(name),
        prices=prices,
        table2=table2,
        loggops=loggops,
        latency_noise=latency,
        bandwidth_noise=bandwidth,
        os_noise=os_noise,
    )


def write_all(directory: Path = DATA_DIR) -> list[Path]:
    """Regenerate every built-in profile file; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in TABLE_I:
        path = directory / f"{name}.json"
        save_profile(build_profile(name), path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR):
        print(written)
