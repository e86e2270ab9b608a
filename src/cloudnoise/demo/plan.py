"""What `cloudnoise demo` runs, in its two sizes.

`--quick` (under a minute on a 2-core machine) measures briefly and
simulates up to 1024 nodes with few repetitions: enough to see every part
of the pipeline and a report with every section. The default (about five
minutes on 2 cores) measures for longer, simulates up to 16384 nodes as the paper
does (Fig. 14 and 16) with more repetitions, so medians and their
confidence intervals mean something.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cloudnoise.measurement.experiments import Options

# The paper's HPC instances and supercomputers (Fig. 14 shows the cloud HPC
# instances and the on-premise systems). Built-in profile names.
SYSTEMS = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "oracle-hpc-metal", "daint", "alps")
QUICK_SYSTEMS = ("aws-hpc-metal", "azure-hpc", "gcp-hpc", "daint")


@dataclass(frozen=True)
class MeasureStep:
    """One `cloudnoise measure` experiment of the demo."""

    experiment: str
    options: Options
    what: str  # shown while it runs


@dataclass(frozen=True)
class SweepStep:
    """One sweep: a preset of `cloudnoise sweep` on the demo's systems."""

    preset: str
    nodes: tuple[int, ...]
    reps: int
    what: str


@dataclass(frozen=True)
class DemoPlan:
    """Everything the demo does, in order."""

    name: str
    measure: list[MeasureStep]
    systems: tuple[str, ...]
    sweeps: list[SweepStep]
    pricing: str = "on-demand"
    notes: list[str] = field(default_factory=list)


LATENCY_SIZES_QUICK = [1, 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20]


def quick_plan() -> DemoPlan:
    """Under a minute: brief measurements, up to 1024 nodes, 30 repetitions."""
    return DemoPlan(
        name="quick",
        measure=[
            MeasureStep("latency", Options(ranks=2, sizes=LATENCY_SIZES_QUICK, iterations=100), "latency and bandwidth vs size"),
            MeasureStep("latency-noise", Options(ranks=2, duration_s=3.0), "latency noise, 3 s"),
            MeasureStep("bandwidth-noise", Options(ranks=2, duration_s=2.0), "bandwidth noise, 2 s"),
            MeasureStep("os-noise", Options(duration_s=2.0), "OS noise (selfish detour), 2 s"),
            MeasureStep("loggp", Options(ranks=2, iterations=200), "LogGP parameters"),
        ],
        systems=QUICK_SYSTEMS,
        sweeps=[
            SweepStep("fig14-dissemination", (16, 64, 256, 1024), 30, "16 B dissemination (Fig. 14)"),
            SweepStep("fig16-gemm-dissemination", (16, 64, 256), 20, "128x128 GEMM + 128 KiB dissemination (Fig. 16)"),
        ],
    )


def full_plan() -> DemoPlan:
    """About five minutes on 2 cores: longer measurements, 16 to 16384 nodes."""
    return DemoPlan(
        name="default",
        measure=[
            MeasureStep("latency", Options(ranks=2, iterations=1000), "latency and bandwidth, 1 B to 16 MiB"),
            MeasureStep("latency-noise", Options(ranks=2, duration_s=30.0), "latency noise, 30 s"),
            MeasureStep("bandwidth-noise", Options(ranks=2, duration_s=30.0), "bandwidth noise, 30 s"),
            MeasureStep("os-noise", Options(duration_s=30.0), "OS noise (selfish detour), 30 s"),
            MeasureStep("loggp", Options(ranks=2), "LogGP parameters"),
        ],
        systems=SYSTEMS,
        sweeps=[
            SweepStep("fig14-dissemination", (16, 64, 256, 1024, 4096, 16384), 100, "16 B dissemination (Fig. 14)"),
            SweepStep("fig16-gemm-dissemination", (16, 64, 256, 1024, 4096), 50, "128x128 GEMM + 128 KiB dissemination (Fig. 16)"),
        ],
    )
