"""A recorded MPI trace as a schedule: what `simulate --trace` and
`validate --trace` run. The reading and conversion live in
`cloudnoise.trace`; this is the schedule stage's door to them, so the
simulator only ever receives a Schedule.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.collectives import parse_algorithms
from cloudnoise.trace.convert import Conversion, ConvertOptions, to_schedule
from cloudnoise.trace.reader import TraceReader, open_trace


@dataclass
class TraceSchedule:
    """The schedule of a trace, what conversion found, and how it was made."""

    schedule: Any
    conversion: Conversion
    source: str
    extrapolated: bool
    label: str = ""

    def describe(self) -> dict[str, Any]:
        out = {"trace": self.source, **self.conversion.to_dict()}
        if self.extrapolated:
            out["extrapolated"] = self.label
            out["recorded_runtime_ns"] = None  # the trace's runtime is for its own rank count
        return out


def open_for(path: str | Path, ranks: int | None, *, scaling: str | None = None,
             grid: str | None = None) -> TraceReader:
    """The trace, or its extrapolation to `ranks` when that differs from the
    traced count (`scaling` weak or strong, `grid` the Cartesian grid's
    layout, e.g. '16x16x4': see cloudnoise.trace.extrapolate)."""
    trace = open_trace(path)
    if ranks is not None and ranks != trace.num_ranks:
        from cloudnoise.trace.extrapolate import extrapolated

        ext: TraceReader = extrapolated(trace, ranks, scaling=scaling, grid=grid)
        return ext
    if grid is not None:
        raise CloudnoiseError(f"--grid lays out the grid of an extrapolated trace: give --ranks other than the "
                              f"trace's {trace.num_ranks}")
    if scaling is not None:
        from cloudnoise.trace.scaling import parse_scaling

        parse_scaling(scaling)  # at the traced count weak and strong are the trace itself
    return trace


def trace_schedule(path: str | os.PathLike[str], *, ranks: int | None = None, algorithms: str | None = None,
                   compute_scale: float = 1.0, allow_unsupported: bool = False, scaling: str | None = None,
                   grid: str | None = None) -> TraceSchedule:
    """Converts the trace at `path` (extrapolated to `ranks` if given) into a Schedule."""
    trace = open_for(Path(path), ranks, scaling=scaling, grid=grid)
    options = ConvertOptions(parse_algorithms(algorithms), compute_scale, allow_unsupported)
    schedule, conversion = to_schedule(trace, options)
    label = f"trace {path} ({trace.num_ranks} ranks{', extrapolated' if trace.format == 'extrapolated' else ''})"
    return TraceSchedule(schedule, conversion, label, trace.format == "extrapolated", getattr(trace, "label", ""))
