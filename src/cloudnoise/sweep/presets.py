"""The paper's scalability experiments (Sec. V) as named sweep presets.

Each preset fixes the workload (a collective or an application) and carries
the systems and node counts of the paper's figure, read from the text of
Sec. V (the figures' axes are not in the text; where the text names scales,
those are included): users override systems and nodes freely.

* Fig. 14 -- 16 B dissemination on the HPC instances and the on-premise
  systems (AWS: bare metal only, "no difference from HPC non bare-metal"),
  16 to 16Ki nodes ("starting from 1K nodes", "up to 2x on 16K nodes").
* Fig. 15 -- 512 MiB ring allreduce on the same systems, 4 to 1024 nodes
  (the text names 4, 16 and 1024 nodes; at 16Ki nodes one repetition is
  805 million events, about a minute on one core, so the default grid stops
  at 1024: add --nodes 4096,16384 to go further).
* Fig. 16 -- 128x128 DGEMM + 128 KiB dissemination on the 100 Gb/s systems
  with a published price (AWS, Azure, GCP, Oracle, Daint), 16 to 16Ki nodes.
* Fig. 17 -- 8192x8192 DGEMM + 512 MiB ring allreduce on the same priced
  systems, 4 to 256 nodes (the text names 4 and 256).

The collectives are the ones the paper ran: the authors' scripts generated
them with their modified Schedgen, so the rings are its `pipelinedring`
(`schedgen=paper`: a closed ring, one segment per rank, `segmentsize=size/ranks`,
as their simulate.py runs it), not public Schedgen's chain; the 16 B
dissemination is the same in both Schedgens (their `nwaydissemination` with
its reduction calcs set to 0, as they ran it, is this schedule with zero-length
calcs; bench/bench_vs_authors.py checks both sides end to end).
Rings run with program ready order (see README, --ready-order).
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import PAPER_RING_OPTIONS
from cloudnoise.suggest import did_you_mean

HPC_SYSTEMS = ("aws-hpc-metal", "azure-hpc", "azure-hpc-200", "gcp-hpc", "oracle-hpc-metal", "daint", "alps", "deep-est")
PRICED_100G_SYSTEMS = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "oracle-hpc-metal", "daint")
POWERS_OF_4_TO_16K = (16, 64, 256, 1024, 4096, 16384)
# The paper's ring: the authors' Schedgen's pipelinedring with one segment per rank.
PAPER_RING_512MIB = f"pipelinedring:512MiB:{PAPER_RING_OPTIONS}"


@dataclass(frozen=True)
class Preset:
    """A named experiment: what runs, on which systems and scales by default."""

    name: str
    figure: str
    kind: str  # "collective" or "app"
    spec: str  # "PATTERN:SIZE[:OPTS]" for a collective, the app phase syntax for an app
    systems: tuple[str, ...]
    nodes: tuple[int, ...]
    ready_order: str
    description: str


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "fig14-dissemination",
            "Fig. 14",
            "collective",
            "dissemination:16B",
            HPC_SYSTEMS,
            POWERS_OF_4_TO_16K,
            "loggopsim",
            "16 B dissemination: latency-bound scalability with and without OS and network noise",
        ),
        Preset(
            "fig15-allreduce-ring",
            "Fig. 15",
            "collective",
            PAPER_RING_512MIB,
            HPC_SYSTEMS,
            (4, 16, 64, 256, 1024),
            "program",
            "512 MiB ring allreduce (the authors' pipelinedring): bandwidth-bound scalability",
        ),
        Preset(
            "fig16-gemm-dissemination",
            "Fig. 16",
            "app",
            "gemm:128 + dissemination:128KiB",
            PRICED_100G_SYSTEMS,
            POWERS_OF_4_TO_16K,
            "loggopsim",
            "128x128 DGEMM + 128 KiB dissemination: cost of noise, communication-dominated",
        ),
        Preset(
            "fig17-gemm-allreduce",
            "Fig. 17",
            "app",
            f"gemm:8192 + {PAPER_RING_512MIB}",
            PRICED_100G_SYSTEMS,
            (4, 16, 64, 256),
            "program",
            "8192x8192 DGEMM + 512 MiB ring allreduce (the authors' pipelinedring): cost of noise, compute-dominated",
        ),
    )
}


def get_preset(name: str) -> Preset:
    """The preset called `name`; an unknown name gets a did-you-mean error."""
    if name in PRESETS:
        return PRESETS[name]
    raise CloudnoiseError(
        f"no sweep preset {name!r}{did_you_mean(name, PRESETS)} (see `cloudnoise sweep list-presets`: {', '.join(PRESETS)})"
    )
