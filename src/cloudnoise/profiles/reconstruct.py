"""The paper's systems as profiles: what is published, and the LogGOPS reconstruction.

The paper publishes Table I (hardware, prices), Table II (min/mean latency,
max/mean bandwidth at two rack distances) and prose about the noise
(Sec. III-IV). It does not publish the LogGOPS parameters it fitted, its
noise samples or its OS noise traces. This module builds what does not need
the calibration: the published parts (hardware, prices, Table II, the node's
CPU for its compute rate) and the LogGOPS parameters, reconstructed from
Table II under stated assumptions:

* o = 10% of the minimum latency (the paper does not publish o), L = min
  latency - 2o (LogGP: T(1 B) = 2o + L), g = o, G = 8 / max bandwidth [Gb/s]
  ns per byte, O = 0, S = 65535 bytes (LogGOPSim's default); for each rack
  distance Table II has.

A system the authors simulated but whose network run the stored artifact
lacks (authors_parameters.WITHOUT_STORED_RUN: Oracle HPC) takes the authors'
own rows instead (published, their loggp_params.py), at both rack distances:
its built-in profile simulates with them, so its text-based noise is
calibrated around them. (The other systems' rows come with their runs, in
`profiles build`.)

The noise models of the systems without data are the calibration's
(cloudnoise.profiles.calibrate: `cloudnoise profiles calibrate`); the data
files are `cloudnoise profiles build`'s (profiles/artifact/build.py).
"""

from __future__ import annotations

import re

from cloudnoise.model.profile import (
    Hardware,
    LinkFigures,
    LogGOPS,
    Prices,
    SystemProfile,
    Table2,
)
from cloudnoise.model.provenance import Provenance
from cloudnoise.profiles.authors_parameters import WITHOUT_STORED_RUN, authors_parameters, loggops_of
from cloudnoise.profiles.cpus import compute_of
from cloudnoise.profiles.paper import OS, PAPER, PRICE_DATE, PRICE_REGION, TABLE_I, TABLE_II

O_FRACTION = 0.10
S_BYTES = 65535  # LogGOPSim's default eager limit (messages <= S go eagerly)


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


def figures_of(name: str) -> tuple[tuple[float, float, float, float], tuple | None, str]:
    """(same-rack figures, different-racks figures or None, where they come from) of a system."""
    if name in TABLE_II:
        col = TABLE_II[name]
        row = TABLE_I[name]
        dr = col.different_racks if col.different_racks[0] is not None else None
        return col.same_rack, dr, f"Table II ({row.provider} {row.kind})"
    src, why = FIGURES_FROM[name]
    col = TABLE_II[src]
    dr = col.different_racks if col.different_racks[0] is not None else None
    return col.same_rack, dr, why


def loggops_from(min_us: float, max_bw: float, where: str) -> LogGOPS:
    """The reconstructed LogGOPS parameters from a min latency and a max bandwidth."""
    o = O_FRACTION * min_us * 1000.0
    return LogGOPS(
        provenance=Provenance(
            "reconstructed",
            f"From {where}: o = {O_FRACTION:g} x min latency (assumed, o is not published), "
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


def text_loggops(name: str, placement: str = "same-rack") -> LogGOPS | None:
    """The LogGOPS block of the text-based profile at `placement`: the authors'
    row for a system without a stored run, else reconstructed from Table II
    (None across racks where Table II has no different-racks figures)."""
    if name in WITHOUT_STORED_RUN:
        p = authors_parameters(name, placement)
        assert p is not None, f"{name}: WITHOUT_STORED_RUN names a system without the authors' rows"
        return loggops_of(p)
    same, dr, where = figures_of(name)
    if placement == "same-rack":
        return loggops_from(same[0], same[2], f"{where}, same rack")
    return None if dr is None else loggops_from(dr[0], dr[2], f"{where}, different racks")


def base_profile(name: str) -> SystemProfile:
    """Built-in profile `name` without noise: published parts, compute and LogGOPS (same rack)."""
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
            provenance=Provenance(
                "published", f"{PAPER}, Table II (cells as printed; measured with Netgauge by the paper's authors)"),
            same_rack=LinkFigures(*col.same_rack),
            different_racks=LinkFigures(*col.different_racks),
        )
    loggops = text_loggops(name)
    assert loggops is not None
    return SystemProfile(
        name=name,
        description=DESCRIPTIONS[name],
        labels=_labels(name),
        hardware=hardware,
        compute=compute_of(name),
        prices=prices,
        table2=table2,
        loggops=loggops,
    )
