"""What a simulation runs: a GOAL file, a generated collective, an application or an MPI trace.

One place turns the four ways of naming a workload (a file; `pattern`,
`ranks`, `size`; an `app` spec with `ranks`, `iterations`, `gflops`; a
recorded `trace` folder, extrapolated with `ranks`) into an engine schedule, for the Python API and every command alike, with the same
one-line errors when they are mixed up.
"""

from __future__ import annotations

import gzip
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudnoise import _engine
from cloudnoise.errors import EXIT_USAGE, CloudnoiseError
from cloudnoise.units import parse_duration_ns, parse_size_bytes


@dataclass
class ScheduleInput:
    """A schedule ready for the engine, what it is, and how long reading it took."""

    schedule: _engine.Schedule
    source: str = ""
    application: Any = None  # cloudnoise.schedules.apps.Application for an app
    parse_seconds: float = 0.0
    trace_info: dict[str, Any] | None = None  # what converting a trace found (schedules.trace)


def schedule_input(
    schedule: ScheduleInput | _engine.Schedule | str | os.PathLike[str] | None = None,
    *,
    pattern: str | None = None,
    ranks: int | None = None,
    size: int | str | None = None,
    nway: int = 1,
    segmentsize: int | str = 1,
    nb: int | str | None = None,
    schedgen: str | None = None,
    app: str | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    trace: str | os.PathLike[str] | None = None,
    algorithms: str | None = None,
    compute_scale: float | None = None,
    allow_unsupported: bool = False,
    rate: Any = None,
    scaling: str | None = None,
    grid: str | None = None,
) -> ScheduleInput:
    """The schedule one of the four inputs names (exactly one must be given).

    `size`, `segmentsize` take bytes or text with a unit (`16B`, `128KiB`),
    `segmentsize` also "size/ranks" (one segment per rank, the paper's rings);
    `nb` nanoseconds or a time (`5us`); `schedgen` ("public", the default, or
    "paper") whose Schedgen generates the pattern, or an app's phases that do
    not name theirs; `app` phase text or a TOML file;
    `trace` a trace folder, converted with `algorithms` (default "mpich"),
    `compute_scale` and `allow_unsupported` (see `cloudnoise trace convert`).
    `rate` (a ComputeRate, e.g. a profile's) times an app's gemm phases
    unless `gflops` is given. `scaling` ("weak", the default, or "strong")
    says how an app or an extrapolated trace scales: strong divides an
    app's compute phases over its ranks, and scales a trace by its grid
    (cloudnoise.trace.scaling); `grid` ('16x16x4') lays out a trace's grid."""
    if isinstance(schedule, ScheduleInput):  # resolved already (a command that needs the schedule itself)
        return schedule
    given = [name for name, v in (("a schedule or GOAL file", schedule), ("pattern", pattern), ("app", app),
                                  ("trace", trace)) if v is not None]
    if len(given) > 1:
        raise CloudnoiseError(f"give one of a GOAL file, --pattern, --app or --trace, not {' and '.join(given)}")
    if trace is not None:
        return _trace_input(trace, ranks, algorithms, compute_scale, allow_unsupported, scaling, grid,
                            size=size, nb=nb, iterations=iterations, gflops=gflops, schedgen=schedgen)
    if algorithms not in (None, "mpich") or compute_scale not in (None, 1.0) or allow_unsupported:
        raise CloudnoiseError("--algorithms, --compute-scale and --allow-unsupported go with --trace")
    if grid is not None:
        raise CloudnoiseError("--grid lays out an extrapolated trace's grid: it goes with --trace DIR --ranks N")
    if app is not None:
        return _app_input(app, ranks, iterations, gflops, size, nb, rate, schedgen, scaling)
    if scaling is not None:
        raise CloudnoiseError("--scaling goes with --app or --trace --ranks; a collective or a GOAL file has no compute "
                              "to divide")
    for name, value in (("iterations", iterations), ("gflops", gflops)):
        if value is not None:
            raise CloudnoiseError(f"--{name} goes with --app")
    if pattern is not None:
        return _pattern_input(pattern, ranks, size, nway, segmentsize, nb, schedgen)
    if schedule is None:
        raise CloudnoiseError("give a GOAL file, or --pattern NAME --ranks P --size SIZE, or --app SPEC --ranks P")
    for name, given_value in (("ranks", ranks), ("size", size), ("nb", nb), ("schedgen", schedgen)):
        if given_value is not None:
            raise CloudnoiseError(f"--{name} goes with --pattern; a GOAL file brings its own")
    if isinstance(schedule, _engine.Schedule):
        return ScheduleInput(schedule)
    t0 = time.perf_counter()
    loaded = load_schedule(schedule)
    return ScheduleInput(loaded, str(schedule), parse_seconds=time.perf_counter() - t0)


def _trace_input(trace: str | os.PathLike[str], ranks: int | None, algorithms: str | None,
                 compute_scale: float | None, allow_unsupported: bool, scaling: str | None, grid: str | None,
                 **others: Any) -> ScheduleInput:
    from cloudnoise.schedules.trace import trace_schedule

    for name, value in others.items():
        if value is not None:
            raise CloudnoiseError(f"--{name} does not go with --trace: the trace brings its own schedule")
    if ranks is None and (scaling is not None or grid is not None):
        raise CloudnoiseError("--scaling and --grid say how to extrapolate a trace: give --ranks N too")
    t0 = time.perf_counter()
    ts = trace_schedule(trace, ranks=ranks, algorithms=algorithms,
                        compute_scale=1.0 if compute_scale is None else compute_scale, allow_unsupported=allow_unsupported,
                        scaling=scaling, grid=grid)
    return ScheduleInput(ts.schedule, ts.source, parse_seconds=time.perf_counter() - t0, trace_info=ts.describe())


def _pattern_input(pattern: str, ranks: int | None, size: int | str | None, nway: int, segmentsize: int | str,
                   nb: int | str | None, schedgen: str | None) -> ScheduleInput:
    from cloudnoise.schedules.patterns import DEFAULT_SCHEDGEN, CollectiveSpec, generate, parse_segmentsize

    if ranks is None or size is None:
        raise CloudnoiseError("--pattern needs --ranks P and --size SIZE")
    spec = CollectiveSpec(
        pattern=pattern,
        ranks=ranks,
        size=parse_size_bytes(size, "--size"),
        nway=nway,
        segmentsize=parse_segmentsize(segmentsize, "--segmentsize"),
        nb=None if nb is None else parse_duration_ns(nb, "--nb"),
        schedgen=schedgen or DEFAULT_SCHEDGEN,
    )
    flavour = ", the paper authors' Schedgen" if spec.schedgen == "paper" else ""
    if spec.mpi_call is not None:  # the algorithm MPICH runs, and why: said wherever the source is shown
        return ScheduleInput(generate(spec), f"{spec.why}{flavour}")
    return ScheduleInput(generate(spec), f"{spec.pattern} ({spec.ranks} ranks, {spec.size} B{flavour})")


def _app_input(app: str, ranks: int | None, iterations: int | None, gflops: float | None,
               size: int | str | None, nb: int | str | None, rate: Any = None,
               schedgen: str | None = None, scaling: str | None = None) -> ScheduleInput:
    from cloudnoise.schedules.apps import app_from, resolve

    for name, value in (("size", size), ("nb", nb)):
        if value is not None:
            raise CloudnoiseError(f"--{name} goes with --pattern; with --app give it on the phase (e.g. dissemination:128KiB)")
    if scaling not in (None, "weak", "strong"):
        raise CloudnoiseError(f"--scaling {scaling!r}: choose weak or strong")
    application = resolve(app_from(app, schedgen=schedgen), ranks=ranks, iterations=iterations, gflops=gflops, rate=rate)
    if scaling == "strong":
        application = application.strong()
    return ScheduleInput(application.generate(), application.label(), application)


def load_schedule(path: str | os.PathLike[str]) -> _engine.Schedule:
    """Reads a GOAL file (gzip recognised by content); errors name FILE:LINE."""
    p = Path(path)
    if not p.exists():
        raise CloudnoiseError(f"{p}: no such file")
    if p.is_dir():
        raise CloudnoiseError(f"{p}: is a directory, expected a GOAL file")
    try:
        if not _engine.reader_has_gzip():
            with open(p, "rb") as f:
                head = f.read(2)
            if head == b"\x1f\x8b":
                try:
                    data = gzip.decompress(p.read_bytes())
                except (OSError, EOFError) as err:
                    raise CloudnoiseError(f"{p}:1: corrupt or truncated gzip data ({err})") from None
                return _engine.parse_goal(data, str(p))
        return _engine.read_goal(str(p))
    except _engine.GoalError as err:
        raise CloudnoiseError(str(err), EXIT_USAGE) from None
    except MemoryError:
        raise CloudnoiseError(f"{p}: not enough memory to load this schedule") from None
