"""`cloudnoise trace`: record an MPI application, look at the trace, turn it
into a GOAL schedule, scale it out. Thin: parse, call the stage's API, print."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.collectives import CHOICES
from cloudnoise.units import format_time_ps, parse_wall_seconds

ALGO_HELP = (
    "Collective algorithms: 'mpich' (MPICH's default selection by size and ranks, the default) or "
    "COLL=ALGO pairs, e.g. 'allreduce=allreduce_ring,bcast=binarytreebcast'. Choices: "
    + "; ".join(f"{k}: {'|'.join(v)}" for k, v in CHOICES.items())
)


def conversion_options(func):  # type: ignore[no-untyped-def]
    """Adds --algorithms, --compute-scale and --allow-unsupported."""
    options = [
        click.option("--algorithms", metavar="SPEC", default="mpich", show_default=True, help=ALGO_HELP),
        click.option(
            "--compute-scale", type=float, default=1.0, show_default=True, metavar="FACTOR",
            help="Multiply the time between MPI calls (compute) by FACTOR: the traced machine's compute "
            "time over the target's (0.5 = the target computes twice as fast).",
        ),
        click.option(
            "--allow-unsupported", is_flag=True,
            help="Count the time of calls recorded by name only (RMA, neighbourhood collectives, ...) as "
            "compute instead of refusing the trace.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


SCALING_HELP = ("How an extrapolated trace scales: weak (each rank keeps its compute and message sizes) or strong "
                "(the same problem on more ranks: compute / (N/P), halo messages by the face per rank of each grid "
                "dimension, collectives by their rule; needs the application's Cartesian grid). See docs/how-to/traces.md. "
                "[default: weak]")
GRID_HELP = ("Lay the extrapolated trace's Cartesian grid out as AxBxC (its product must be --ranks) instead of "
             "MPI_Dims_create's choice.")


def extrapolation_options(func):  # type: ignore[no-untyped-def]
    """Adds --scaling and --grid."""
    func = click.option("--grid", metavar="AxBxC", help=GRID_HELP)(func)
    return click.option("--scaling", type=click.Choice(["weak", "strong"]), help=SCALING_HELP)(func)


def _time(ns: float) -> str:
    return format_time_ps(float(ns) * 1000)


def _emit(doc: dict[str, Any], as_json: bool, lines: list[str]) -> None:
    if as_json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
    else:
        for line in lines:
            click.echo(line)


def _summary_lines(doc: dict[str, Any]) -> list[str]:
    lines = []
    if doc.get("recorded_runtime_ns") is not None:
        lines.append(
            f"recorded runtime: {_time(doc['recorded_runtime_ns'])} (first MPI_Init exit to last MPI_Finalize entry, "
            f"rank {doc['slowest_rank']} last)"
        )
        r = doc["slowest_rank"]
        lines.append(f"  rank {r}: compute {_time(doc['compute_ns'][r])}, in MPI {_time(doc['mpi_ns'][r])}")
    lines.append(f"{doc['calls']:,} calls on {doc['ranks']} ranks -> {doc['ops']:,} GOAL ops "
                 f"(algorithms {doc['algorithms']}, compute x{doc['compute_scale']:g})")
    top = ", ".join(f"{k} {v:,}" for k, v in list(doc["calls_by_name"].items())[:8])
    lines.append(f"calls: {top}")
    clock = doc.get("clock") or {}
    if clock.get("note") and clock.get("reading") != "own MPI_Init exits":  # (that one is a warning, below)
        lines.append(f"clocks: {clock['note']}")
    if doc.get("extrapolated"):
        lines.append(f"note: {doc['extrapolated']}")
    if doc.get("why_replicated"):
        lines.append(f"  (not extrapolated as a regular SPMD program: {doc['why_replicated']})")
    if doc.get("unsupported"):
        lines.append("counted as compute, not understood: "
                     + ", ".join(f"{k} x{v:,}" for k, v in sorted(doc["unsupported"].items())))
    for w in doc["warnings"] + ([doc["recorded_unreadable"]] if doc.get("recorded_unreadable") else []):
        lines.append(f"warning: {w}")
    return lines


@click.group("trace")
def trace() -> None:
    """Record an MPI application's calls, and simulate the application on
    any system: record -> convert (GOAL) -> simulate / validate, or scale
    out a regular trace with extrapolate. See docs/how-to/traces.md.
    """


@trace.command("record", context_settings={"ignore_unknown_options": True})
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the trace (one rank-NNNNNN.cntr per rank, and trace.json); must not hold a trace already.")
@click.option("--mpicc", help="MPI compiler wrapper the recorder is built with: the application's MPI (default: mpicc on PATH, else the mpich wheel).")
@click.option("--no-preload", "no_preload", is_flag=True, help="Do not set LD_PRELOAD: the application was linked with the object `cloudnoise trace lib --static` prints.")
@click.option("--timeout", metavar="DURATION", help="Stop the application after this long (wall clock): seconds, or 30m, 2h.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: where the trace is, the command, its wall time.")
@click.option("--quiet", "-q", is_flag=True, help="Hide the application's output.")
@click.option("--every-poll", is_flag=True, help="Record each unsuccessful MPI_Test*/MPI_Iprobe call as its own record instead of one record per polling run (the same conversion; many times the bytes of a polling code). Open MPI on several nodes: add -x CN_TRACE_POLLING.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def record_cmd(out: Path, mpicc: str | None, no_preload: bool, timeout: str | None, as_json: bool,
               quiet: bool, every_poll: bool, command: tuple[str, ...]) -> None:
    """Run COMMAND (your launcher line) with the PMPI recorder and write a
    trace to --out: every MPI call of every rank with entry and exit times
    (ns), peers, tags, sizes in bytes, communicators and request completion;
    a run of unsuccessful MPI_Test*/MPI_Iprobe calls (a polling loop) is one
    record with its count, first entry and last exit.

    The recorder is compiled with --mpicc (cached) and loaded with
    LD_PRELOAD; MPICH's mpiexec passes it to the ranks (Open MPI: add
    `-x LD_PRELOAD -x CN_TRACE_DIR`). Exit status 4 when the application
    fails; whatever the ranks wrote stays in --out.

    \b
    Examples:
      cloudnoise trace record --out jac -- mpiexec -n 4 ./jacobi2d 512 512 200 10
      cloudnoise trace record --out jac --no-preload -- srun ./app_linked_with_recorder
    """
    from cloudnoise.trace.record import record

    cmd = list(command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    seconds = parse_wall_seconds(timeout, "--timeout") if timeout is not None else None
    rec = record(cmd, out, mpicc=mpicc, preload=not no_preload, timeout=seconds, quiet=quiet or as_json,
                 every_poll=every_poll)
    _emit(rec.to_dict(), as_json, [f"wrote {rec.ranks} rank files to {rec.out} ({rec.seconds:.2f} s); "
                                   f"next: cloudnoise trace show {rec.out}"])


@trace.command("lib")
@click.option("--static", is_flag=True, help="An object file to link into the application (for systems without LD_PRELOAD) instead of the shared library.")
@click.option("--mpicc", help="MPI compiler wrapper to build with (default: mpicc on PATH, else the mpich wheel).")
def lib_cmd(static: bool, mpicc: str | None) -> None:
    """Print the path of the recorder built for this MPI (compiled on first use).

    \b
    Examples:
      LD_PRELOAD=$(cloudnoise trace lib) CN_TRACE_DIR=tr mpiexec -n 4 ./app
      mpicc -o app app.o $(cloudnoise trace lib --static)   # then: trace record --no-preload
    """
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.trace.record import recorder_library

    click.echo(str(recorder_library(find_mpi(mpicc), static=static)))


@trace.command("show")
@click.argument("trace_dir", type=click.Path(path_type=Path))
@conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (times in ns, per-rank lists).")
def show_cmd(trace_dir: Path, algorithms: str, compute_scale: float, allow_unsupported: bool, as_json: bool) -> None:
    """What a trace holds: format, ranks, the recorded runtime (first
    MPI_Init exit to last MPI_Finalize entry), compute and MPI time per
    rank, calls by name, and what cannot be converted. Reads every rank
    once, checking it converts (messages matched, communicators known).

    \b
    Examples:
      cloudnoise trace show jac
      cloudnoise trace show liballprof-run/ --json
    """
    from cloudnoise.trace.collectives import parse_algorithms
    from cloudnoise.trace.convert import ConvertOptions, convert
    from cloudnoise.trace.reader import open_trace
    from cloudnoise.trace.topology import recorded_grid

    trace_ = open_trace(trace_dir)

    class _Discard:
        def add_rank(self, *args: Any) -> None:
            pass

    # calls not understood are listed with their counts here, not stopped at (convert stops at the first)
    result = convert(trace_, _Discard(), ConvertOptions(parse_algorithms(algorithms), compute_scale, True))
    doc = {**trace_.describe(), **result.to_dict()}
    grid = recorded_grid(trace_.calls(0), trace_.num_ranks)
    doc["grid"] = grid.to_dict() if grid is not None else None
    lines = [f"{trace_dir}: {trace_.format} trace, {trace_.num_ranks} ranks"] + _summary_lines(doc)
    lines.append(f"grid: {grid.text()}" if grid is not None else
                 "grid: none spanning every rank (extrapolation moves each message by its rank offset where "
                 "the program is regular, else replicates the ranks)")
    if result.unsupported and not allow_unsupported:
        lines.append("  (convert and simulate refuse these unless --allow-unsupported counts their time as compute)")
    _emit(doc, as_json, lines)


@trace.command("convert")
@click.argument("trace_dir", type=click.Path(path_type=Path))
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path), help="GOAL file to write: .goal, or .goal.gz for gzip.")
@click.option("--ranks", type=click.IntRange(min=1), help="Extrapolate to this many ranks first (see `cloudnoise trace extrapolate`).")
@extrapolation_options
@conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object describing the conversion.")
def convert_cmd(trace_dir: Path, out: Path, ranks: int | None, scaling: str | None, grid: str | None, algorithms: str,
                compute_scale: float, allow_unsupported: bool, as_json: bool) -> None:
    """Turn a trace (native, liballprof or OTF2) into a GOAL schedule:
    sends and receives with their dependencies (non-blocking ones complete
    at their Wait), collectives expanded by --algorithms, the time between
    MPI calls as calc (ns, times --compute-scale). Streams rank by rank.

    Bad input (truncated or corrupt files, missing ranks, a send without
    its receive, an unknown communicator) is one line naming the rank and
    call index, exit status 2.

    \b
    Examples:
      cloudnoise trace convert jac -o jac.goal.gz
      cloudnoise trace convert jac -o jac.goal --algorithms allreduce=allreduce_ring --compute-scale 0.5
    """
    from cloudnoise.schedules.trace import open_for
    from cloudnoise.trace.collectives import parse_algorithms
    from cloudnoise.trace.convert import ConvertOptions, to_goal

    if ranks is None and (scaling is not None or grid is not None):
        raise CloudnoiseError("--scaling and --grid say how to extrapolate: give --ranks N too")
    trace_ = open_for(trace_dir, ranks, scaling=scaling, grid=grid)
    result = to_goal(trace_, out, ConvertOptions(parse_algorithms(algorithms), compute_scale, allow_unsupported))
    doc = {"out": str(out), **result.to_dict()}
    if trace_.format == "extrapolated":
        doc["extrapolated"] = getattr(trace_, "label", "")
        doc["recorded_runtime_ns"] = None
    _emit(doc, as_json, [f"wrote {out}"] + _summary_lines(doc))


@trace.command("extrapolate")
@click.argument("trace_dir", type=click.Path(path_type=Path))
@click.option("--ranks", required=True, type=click.IntRange(min=1), help="Ranks of the extrapolated program.")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path), help="GOAL file to write: .goal or .goal.gz.")
@extrapolation_options
@conversion_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object describing the result.")
def extrapolate_cmd(trace_dir: Path, ranks: int, out: Path, scaling: str | None, grid: str | None, algorithms: str,
                    compute_scale: float, allow_unsupported: bool, as_json: bool) -> None:
    """Scale a regular SPMD trace to --ranks ranks and write it as GOAL. An
    approximation, labelled so: every rank repeats the traced call sequence
    (median compute between calls), each message placed by its displacement
    on the application's Cartesian grid (MPI_Cart_create, whatever
    communicator carries it; the new grid MPI_Dims_create's or --grid) or by
    a fixed rank offset, sub-communicators by the rule the trace shows,
    collectives on all ranks. --scaling weak keeps sizes and compute;
    strong divides compute by N/P and sizes halos by the grid's faces. A
    trace that is not such a program (ranks making different calls, as a
    wavefront code) is replicated instead (weak only): --ranks / P copies of
    the traced ranks, collectives on all (Schedgen's --traces-extr),
    labelled so. A sub-communicator whose rule the trace does not show is
    refused, naming the call that made it.

    \b
    Examples:
      cloudnoise trace extrapolate jac --ranks 16384 -o jac16k.goal.gz
      cloudnoise trace extrapolate lammps-melt-4 --ranks 1024 --scaling strong --grid 16x8x8 -o melt1k.goal.gz
      cloudnoise simulate --trace jac --ranks 16384 --profile aws-hpc   # the same, simulated
    """
    from cloudnoise.trace.collectives import parse_algorithms
    from cloudnoise.trace.convert import ConvertOptions, to_goal
    from cloudnoise.trace.extrapolate import extrapolated
    from cloudnoise.trace.reader import open_trace

    base = open_trace(trace_dir)
    if ranks == base.num_ranks:
        raise CloudnoiseError(f"{trace_dir} already has {ranks} ranks; use `cloudnoise trace convert`")
    ext = extrapolated(base, ranks, scaling=scaling, grid=grid)
    result = to_goal(ext, out, ConvertOptions(parse_algorithms(algorithms), compute_scale, allow_unsupported))
    doc = {"out": str(out), **result.to_dict(), "extrapolated": ext.label, "traced_ranks": base.num_ranks,
           "grid": list(ext.grid_dims) or None, "scaling": scaling or "weak"}
    if getattr(ext, "why", None):
        doc["why_replicated"] = ext.why
    doc["recorded_runtime_ns"] = None
    _emit(doc, as_json, [f"wrote {out}: {ranks} ranks from {base.num_ranks} traced"] + _summary_lines(doc))
