"""A node's compute rate: the DGEMM flop rate a profile gives `gemm:N` phases.

The paper (Sec. V-D) runs one rank per node and times double-precision
matrix multiplications "on the different CPUs deployed in the analyzed
systems ... using MKL on Intel processors, and BLIS on AMD processors". It
does not publish the rates it measured, so a built-in profile derives its
rate from what Table I publishes about the CPU:

    peak  = sockets x cores per socket x clock [GHz] x DP flop per cycle per core
    rate  = peak x efficiency

where the flop per cycle come from the vendor's description of the core (two
512-bit FMA units on the Xeon Scalable parts: 32; two 256-bit FMA units on
Broadwell and Zen 2: 16) and the efficiency is a stated assumption per
instruction set and BLAS (a large DGEMM runs below the base clock with
AVX-512, MKL and BLIS reach about 90% of what the clock allows). A profile
built from a measurement campaign carries the DGEMM rate measured on that
machine instead (`measured`).

Every part has its provenance, so a user sees which numbers are the paper's
(published), which are vendor facts (published), which are assumptions
(reconstructed) and which were measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cloudnoise.errors import CloudnoiseError

# A rate is kept to 4 significant digits in the files: that is all the
# efficiency assumption is worth, and it keeps the files stable.
RATE_DIGITS = 4


def round_sig(x: float, digits: int = RATE_DIGITS) -> float:
    """`x` rounded to `digits` significant digits (0 stays 0)."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


@dataclass(frozen=True)
class PeakFlops:
    """The node's peak double-precision flop rate, from its published CPU."""

    sockets: int
    cores_per_socket: int
    clock_ghz: float
    flops_per_cycle: int  # double-precision flop per cycle per core
    isa: str  # e.g. "AVX-512, 2 FMA units"

    def __post_init__(self) -> None:
        for name in ("sockets", "cores_per_socket", "flops_per_cycle"):
            v = getattr(self, name)
            if not (isinstance(v, int) and not isinstance(v, bool) and v >= 1):
                raise CloudnoiseError(f"compute peak: {name} must be a positive integer, got {v!r}")
        if not (isinstance(self.clock_ghz, (int, float)) and math.isfinite(self.clock_ghz) and self.clock_ghz > 0):
            raise CloudnoiseError(f"compute peak: clock_ghz must be a positive number, got {self.clock_ghz!r}")

    @property
    def cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @property
    def gflops(self) -> float:
        """sockets x cores x clock x flop per cycle, GFLOP/s."""
        return self.cores * self.clock_ghz * self.flops_per_cycle


@dataclass(frozen=True)
class ComputeRate:
    """The flop rate a `gemm:N` phase runs at, and where it comes from.

    `kind` is a provenance kind (published, reconstructed, calibrated,
    measured) or `given` (the user's --gflops); `source` is one line."""

    gflops: float
    kind: str
    source: str

    def __post_init__(self) -> None:
        if not (isinstance(self.gflops, (int, float)) and math.isfinite(self.gflops) and self.gflops > 0):
            raise CloudnoiseError(f"a compute rate must be a positive number of GFLOP/s, got {self.gflops!r}")

    def describe(self) -> dict[str, Any]:
        """The rate for JSON outputs."""
        return {"gflops": self.gflops, "kind": self.kind, "source": self.source}


def peak_times_efficiency(peak: PeakFlops, efficiency: float) -> float:
    """The node's DGEMM rate in GFLOP/s: peak x efficiency, to 4 significant digits."""
    if not (isinstance(efficiency, (int, float)) and 0 < efficiency <= 1):
        raise CloudnoiseError(f"compute efficiency must be in (0, 1], got {efficiency!r}")
    return round_sig(peak.gflops * efficiency)
