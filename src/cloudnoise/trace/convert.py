"""A trace becomes a GOAL schedule, rank by rank: each rank by the engine's
C++ liballprof converter where it can (`liballprof_native`), otherwise by
the Python converter (`rank_converter`, the reference; its docstring says
what a call becomes), the messages and collectives matched across ranks
(`matching`), the ops streamed to the GOAL writer or the schedule builder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace import liballprof_native
from cloudnoise.trace.conversion import Conversion, ConvertOptions
from cloudnoise.trace.matching import Matching
from cloudnoise.trace.rank_converter import RankConverter
from cloudnoise.trace.reader import TraceReader

__all__ = ["Conversion", "ConvertOptions", "convert", "to_goal", "to_schedule"]


def convert(trace: TraceReader, sink: Any, options: ConvertOptions | None = None, *, native: bool = True) -> Conversion:
    """Converts every rank into `sink` (a ScheduleAssembler or GoalAssembler).

    liballprof ranks are converted by the engine's C++ converter where it can
    (`liballprof_native`; the same result, several times faster, memory flat
    in a rank's length); a rank it leaves (damage, warnings, rare calls) and
    every other format go through RankConverter, the reference.
    `native=False` converts every rank in Python (for comparisons)."""
    options = options or ConvertOptions()
    result = Conversion(trace.num_ranks, str(trace.path), trace.format, options.algorithms.describe(), options.compute_scale)
    result.warnings.extend(trace.warnings)
    matching = Matching()
    t0 = time.perf_counter()
    use_native = native and liballprof_native.usable(trace)
    for rank in range(trace.num_ranks):
        if use_native and liballprof_native.convert_rank(trace, rank, options, matching, result, sink):
            continue
        rc = RankConverter(trace, rank, options, matching, result)
        rc.run()
        result.ops += len(rc.ops.kinds)
        result.finalize_ns.append(int(rc.finalize_ns or 0))
        result.compute_ns.append(rc.compute_ns)
        result.mpi_ns.append(rc.mpi_ns)
        try:
            sink.add_rank(rank, *rc.ops.columns())
        except ValueError as err:
            raise CloudnoiseError(f"{trace.path}: rank {rank}: {err}") from None
    matching.check(str(trace.path))
    result.seconds = time.perf_counter() - t0
    return result


def to_schedule(trace: TraceReader, options: ConvertOptions | None = None, *, native: bool = True) -> tuple[Any, Conversion]:
    """The trace as an in-memory Schedule, ready to simulate. Its messages keep
    MPI's non-overtaking order (`Schedule.in_order`): a message of one
    sender, receiver and tag never overtakes one sent before it, whatever
    latency noise draws, so each receive takes the message MPI would give it."""
    assembler = _engine.ScheduleAssembler(trace.num_ranks)
    result = convert(trace, assembler, options, native=native)
    try:
        schedule = assembler.finish()
    except ValueError as err:
        raise CloudnoiseError(f"{trace.path}: {err}") from None
    schedule.in_order = True
    return schedule, result


def to_goal(trace: TraceReader, out: str | Path, options: ConvertOptions | None = None, *, native: bool = True) -> Conversion:
    """Writes the trace as GOAL text (gzip when `out` ends in .gz), streamed
    rank by rank to a temporary name that is renamed when complete."""
    out = Path(out)
    if not (out.name.endswith(".goal") or out.name.endswith(".goal.gz")):
        raise CloudnoiseError(f"-o {out}: the output must end in .goal or .goal.gz")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp" + (".gz" if out.name.endswith(".gz") else ""))
    try:
        assembler = _engine.GoalAssembler(str(tmp), trace.num_ranks)
    except (ValueError, RuntimeError, OSError) as err:
        raise CloudnoiseError(f"-o {out}: cannot write ({err})") from None
    try:
        result = convert(trace, assembler, options, native=native)
        assembler.close()
        os.replace(tmp, out)
    except (ValueError, RuntimeError, OSError) as err:
        tmp.unlink(missing_ok=True)
        raise CloudnoiseError(f"-o {out}: cannot write ({err})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result
