"""How a trace is converted (ConvertOptions) and what its conversion found
(Conversion): the inputs and the result every converter shares."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.collectives import Algorithms


@dataclass(frozen=True)
class ConvertOptions:
    """How to convert: collective algorithms, compute scaling, leniency."""

    algorithms: Algorithms = field(default_factory=Algorithms)
    compute_scale: float = 1.0
    allow_unsupported: bool = False

    def __post_init__(self) -> None:
        if not (self.compute_scale > 0 and self.compute_scale < 1e6):
            raise CloudnoiseError(f"--compute-scale must be a positive factor, got {self.compute_scale!r}")


@dataclass
class Conversion:
    """What a conversion found: recorded times per rank, sizes, warnings.

    `compute_ns[r]` is rank r's total calc (scaled), `mpi_ns[r]` the time
    its communicating calls took when recorded, `finalize_ns[r]` when it
    entered MPI_Finalize; unscaled, compute + mpi = finalize.
    """

    ranks: int
    source: str
    format: str
    algorithms: str
    compute_scale: float
    calls: int = 0
    ops: int = 0
    finalize_ns: list[int] = field(default_factory=list)
    compute_ns: list[int] = field(default_factory=list)
    mpi_ns: list[int] = field(default_factory=list)
    calls_by_name: Counter = field(default_factory=Counter)
    unsupported: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    native_ranks: int = 0  # ranks the C++ liballprof converter did (not in to_dict: the output is the same)
    copied_ranks: int = 0  # ranks made from another rank's conversion (rank_copies; the same output)

    @property
    def recorded_runtime_ns(self) -> int:
        """First MPI_Init exit (every rank's time 0) to the last MPI_Finalize entry."""
        return max(self.finalize_ns) if self.finalize_ns else 0

    def to_dict(self) -> dict[str, Any]:
        slowest = int(np.argmax(self.finalize_ns)) if self.finalize_ns else 0
        return {
            "source": self.source,
            "format": self.format,
            "ranks": self.ranks,
            "calls": self.calls,
            "ops": self.ops,
            "algorithms": self.algorithms,
            "compute_scale": self.compute_scale,
            "recorded_runtime_ns": self.recorded_runtime_ns,
            "slowest_rank": slowest,
            "compute_ns": list(self.compute_ns),
            "mpi_ns": list(self.mpi_ns),
            "finalize_ns": list(self.finalize_ns),
            "calls_by_name": dict(self.calls_by_name.most_common()),
            "unsupported": dict(self.unsupported),
            "warnings": list(self.warnings),
            "convert_seconds": round(self.seconds, 6),
            "calls_per_second": round(self.calls / self.seconds) if self.seconds > 0 else None,
        }
