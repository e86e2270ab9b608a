"""The paper's systems' compute: Table I's CPUs, their peak, and a stated efficiency.

Sec. V-D of the paper times DGEMM "on the different CPUs deployed in the
analyzed systems by running a benchmark [70] using MKL on Intel processors,
and BLIS on AMD processors", one rank per node, but does not print the
rates. Each system's rate is therefore

    sockets x cores per socket x base clock x DP flop/cycle/core x efficiency

* sockets, cores and clock: Table I (published). Azure's normal instance
  lists three CPU models and no clock; the lowest base clock of the three
  (Xeon Platinum 8272CL, 2.6 GHz) is used (reconstructed).
* flop per cycle: the vendor's description of the core (published): the Xeon
  Scalable parts (Skylake, Cascade Lake, Ice Lake; Platinum and Gold 61xx/63xx)
  have two 512-bit FMA units, 2 x 8 x 2 = 32 DP flop per cycle; Broadwell
  (E5-2695 v4) and AMD Zen 2 (EPYC 7742, 7V12) have two 256-bit FMA units, 16.
* efficiency (reconstructed, one value per instruction set and BLAS):
  - AVX-512 with MKL: 0.65. Heavy AVX-512 code runs below the base clock on
    these parts (Intel's AVX-512 all-core frequencies are roughly 70-80% of
    base), and MKL's DGEMM reaches about 90% of the peak at that clock.
  - AVX2 (Broadwell) with MKL: 0.75. The AVX2 frequency offset is smaller
    (about 85% of base); MKL about 90%.
  - AVX2 (Zen 2) with BLIS: 0.80. Zen 2 has no AVX frequency offset; BLIS
    reaches about 80-85% of peak on EPYC Rome.
  One efficiency serves every matrix size: the paper gives one benchmark per
  CPU, and its Sec. V-D shares (communication > 90% of the 128x128 DGEMM +
  128 KiB dissemination workload, < 20% of the 8192x8192 DGEMM + 512 MiB ring
  workload) hold with it on every priced system (tests/profiles/test_compute.py
  checks both).
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.model.compute import PeakFlops, peak_times_efficiency
from cloudnoise.model.profile import Compute, ComputeEfficiency, ComputePeak
from cloudnoise.model.provenance import Provenance
from cloudnoise.profiles.paper import PAPER, TABLE_I

_AVX512 = "AVX-512, two 512-bit FMA units per core: 2 x 8 x 2 = 32 DP flop/cycle"
_BROADWELL = "AVX2, two 256-bit FMA units per core (Broadwell): 2 x 4 x 2 = 16 DP flop/cycle"
_ZEN2 = "AVX2, two 256-bit FMA units per core (Zen 2): 2 x 4 x 2 = 16 DP flop/cycle"


@dataclass(frozen=True)
class Efficiency:
    """A stated DGEMM efficiency for one instruction set and BLAS."""

    value: float
    blas: str
    why: str


EFFICIENCY = {
    "avx512-mkl": Efficiency(
        0.65, "MKL",
        "assumed: AVX-512 DGEMM runs at the AVX-512 all-core clock, about 70-80% of base on these Xeon "
        "Scalable parts, and MKL reaches about 90% of the peak at that clock",
    ),
    "avx2-broadwell-mkl": Efficiency(
        0.75, "MKL",
        "assumed: the AVX2 all-core clock of Broadwell is about 85% of base and MKL reaches about 90% of "
        "the peak at that clock",
    ),
    "avx2-zen2-blis": Efficiency(
        0.80, "BLIS",
        "assumed: Zen 2 has no AVX frequency offset and BLIS reaches about 80-85% of the peak on EPYC Rome",
    ),
}


@dataclass(frozen=True)
class NodeCpu:
    """What the rate of one system is computed from."""

    sockets: int
    cores_per_socket: int
    clock_ghz: float
    flops_per_cycle: int
    isa: str
    efficiency: str  # key of EFFICIENCY
    clock_note: str = ""  # where the clock does not come from Table I


CPUS: dict[str, NodeCpu] = {
    "aws-normal": NodeCpu(2, 18, 3.0, 32, _AVX512, "avx512-mkl"),
    "aws-hpc-metal": NodeCpu(2, 18, 3.0, 32, _AVX512, "avx512-mkl"),
    "aws-hpc": NodeCpu(2, 18, 3.0, 32, _AVX512, "avx512-mkl"),
    "azure-normal": NodeCpu(
        1, 36, 2.6, 32, _AVX512, "avx512-mkl",
        "Table I gives no clock for the three CPU models of F72s_v2; the lowest base clock of the three "
        "(Xeon Platinum 8272CL, 2.6 GHz) is assumed",
    ),
    "azure-hpc": NodeCpu(2, 22, 2.7, 32, _AVX512, "avx512-mkl"),
    "azure-hpc-200": NodeCpu(2, 60, 2.45, 16, _ZEN2, "avx2-zen2-blis"),
    "gcp-normal": NodeCpu(2, 15, 3.1, 32, _AVX512, "avx512-mkl"),
    "gcp-hpc": NodeCpu(2, 15, 3.1, 32, _AVX512, "avx512-mkl"),
    "oracle-normal": NodeCpu(1, 18, 3.0, 32, _AVX512, "avx512-mkl"),
    "oracle-hpc-metal": NodeCpu(2, 18, 3.0, 32, _AVX512, "avx512-mkl"),
    "daint": NodeCpu(2, 18, 2.1, 16, _BROADWELL, "avx2-broadwell-mkl"),
    "alps": NodeCpu(2, 64, 2.25, 16, _ZEN2, "avx2-zen2-blis"),
    "deep-est": NodeCpu(2, 12, 3.2, 32, _AVX512, "avx512-mkl"),
}


def compute_of(name: str) -> Compute:
    """The compute section of built-in profile `name`."""
    cpu = CPUS[name]
    row = TABLE_I[name]
    eff = EFFICIENCY[cpu.efficiency]
    table1 = f"{PAPER}, Table I ({row.provider} {row.kind}: {row.cpu})"
    peak_source = f"{table1}: sockets, cores and base clock; vendor ISA: {cpu.isa}"
    if cpu.clock_note:
        peak_source += f"; {cpu.clock_note}"
    peak = ComputePeak(
        provenance=Provenance("reconstructed" if cpu.clock_note else "published", peak_source),
        sockets=cpu.sockets,
        cores_per_socket=cpu.cores_per_socket,
        clock_ghz=cpu.clock_ghz,
        flops_per_cycle=cpu.flops_per_cycle,
        isa=cpu.isa.split(":")[0],
    )
    efficiency = ComputeEfficiency(
        provenance=Provenance(
            "reconstructed",
            f"{eff.why}; the BLAS is the paper's (Sec. V-D: MKL on Intel processors, BLIS on AMD processors)",
        ),
        value=eff.value,
        blas=eff.blas,
    )
    pk = PeakFlops(cpu.sockets, cpu.cores_per_socket, cpu.clock_ghz, cpu.flops_per_cycle, peak.isa)
    return Compute(
        provenance=Provenance(
            "reconstructed",
            "DGEMM rate of one node (one rank per node, all cores): peak x efficiency; the paper times DGEMM "
            "on these CPUs (Sec. V-D) but does not publish the rates",
        ),
        gflops=peak_times_efficiency(pk, eff.value),
        peak=peak,
        efficiency=efficiency,
    )
