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
  1.6 billion events, about 70 s on one core, so the default grid stops at
  1024: add --nodes 4096,16384 to go further).
* Fig. 16 -- 128x128 DGEMM + 128 KiB dissemination on the 100 Gb/s systems
  with a published price (AWS, Azure, GCP, Oracle, Daint), 16 to 16Ki nodes.
* Fig. 17 -- 8192x8192 DGEMM + 512 MiB ring allreduce on the same priced
  systems, 4 to 256 nodes (the text names 4 and 256).

Rings run with program ready order: LogGOPSim's unstable ordering deadlocks
on Schedgen's allreduce_ring beyond a few ranks (see README, --ready-order).
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError
from cloudnoise.suggest import did_you_mean

HPC_SYSTEMS = ("aws-hpc-metal", "azure-hpc", "azure-hpc-200", "gcp-hpc", "oracle-hpc-metal", "daint", "alps", "deep-est")
PRICED_100G_SYSTEMS = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "oracle-hpc-metal", "daint")
POWERS_OF_4_TO_16K = (16, 64, 256, 1024, 4096, 16384)


@dataclass(frozen=True)
class Preset:
    """A named experiment: what runs, on which systems and scales by default."""

    name: str
    figure: str
    kind: str  # "collective" or "app"
    spec: str  # "pattern:size" for a collective, the app phase syntax for an app
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
            "allreduce_ring:512MiB",
            HPC_SYSTEMS,
            (4, 16, 64, 256, 1024),
            "program",
            "512 MiB ring allreduce: bandwidth-bound scalability",
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
            "gemm:8192 + allreduce_ring:512MiB",
            PRICED_100G_SYSTEMS,
            (4, 16, 64, 256),
            "program",
            "8192x8192 DGEMM + 512 MiB ring allreduce: cost of noise, compute-dominated",
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
