"""`cloudnoise sweep`: the command line of scalability sweeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from cloudnoise.cores import available_cores
from cloudnoise.errors import EXIT_INTERRUPTED, CloudnoiseError
from cloudnoise.options import (
    accepts_aliases,
    csv_option,
    json_option,
    one_of_json_csv,
    out_option,
    profile_option,
    quiet_option,
    schedgen_option,
)
from cloudnoise.simulation.api import READY_ORDERS
from cloudnoise.sweep.presets import PRESETS
from cloudnoise.console import Progress
from cloudnoise.sweep.request import build_request

def _presets_text() -> str:
    lines = ["\b", "Presets (the paper's Sec. V experiments):"]
    for p in PRESETS.values():
        lines.append(f"  {p.name:<26} {p.figure}: {p.spec}")
    return "\n".join(lines)


@click.group("sweep", invoke_without_command=True, epilog=_presets_text())
@click.option("--preset", metavar="NAME", help="One of the paper's experiments (see below); brings its systems and node counts.")
@click.option("--pattern", metavar="NAME", help="Sweep a collective (Schedgen pattern, see `cloudnoise schedule list`) ...")
@click.option("--size", metavar="SIZE", help="... of SIZE bytes per step: 16B, 128KiB, 512MiB.")
@click.option("--segmentsize", metavar="SIZE", help="Segment of the pipelined rings (bytes or unit), or size/ranks for one segment per rank (the paper's rings) [default: 1].")
@schedgen_option()
@click.option("--app", metavar="SPEC|FILE", help="Sweep an application, e.g. 'gemm:128 + dissemination:128KiB' (see docs/how-to/applications.md).")
@click.option("--iterations", type=click.IntRange(min=1), help="Iterations of the application [default: 1, or the app file's].")
@click.option("--gflops", type=click.FloatRange(min=0, min_open=True), help="Flop rate (GFLOP/s) for gemm:N phases on every system, instead of each system's own rate (its profile's compute).")
@profile_option(multiple=True, old=["--systems"], help="Systems: built-in profile names or profile files, repeated or a comma list [default: the preset's].")
@click.option("--nodes", metavar="N,N,...", help="Node counts, e.g. 16,64,256 [default: the preset's].")
@click.option("--placement", type=click.Choice(["same-rack", "different-racks"]),
              help="Nodes on the same rack or on different racks (Table II's two blocks; AWS, GCP, Alps, Daint and "
              "DEEP-EST have both) [default: each profile as written: same rack for the built-ins, as in the paper].")
@click.option("--noise", "variants", metavar="LIST", help="Noise variants [default: none,os,network,both].")
@click.option("--reps", type=click.IntRange(min=1), help="Repetitions per system, node count and variant [default: 1000].")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Sweep seed; each (system, nodes) derives its own from it [default: 0].")
@click.option("--ready-order", type=click.Choice(READY_ORDERS), help="Order of ops ready together [default: program; loggopsim reproduces LogGOPSim's unstable order exactly].")
@out_option(dir_okay=True, file_okay=False, help="Output folder (sweep.json, results.parquet).")
@click.option("--resume", is_flag=True, help="Continue the sweep in --out as it was started (rerunning the same command does too).")
@click.option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler (tcp://host:8786) instead of a local cluster.")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes of the local cluster [default: the cores this process may use].")
@click.option("--threads-per-worker", type=click.IntRange(min=1), default=1, show_default=True, help="Threads per local worker.")
@click.option("--in-process", is_flag=True, help="Run the tasks in this process, without Dask.")
@click.option("--chunk", type=click.IntRange(min=1), help="Repetitions per task [default: sized so a task simulates ~5M ops].")
@click.option("--connect-timeout", type=click.FloatRange(min=0, min_open=True), default=20.0, show_default=True, help="Seconds to reach --scheduler.")
@json_option("Print one JSON object (no progress bar).")
@csv_option("Print the summary table as CSV.")
@quiet_option()
@click.pass_context
@accepts_aliases
def sweep(ctx: click.Context, **opts: Any) -> None:
    """Scalability experiments: systems x node counts x noise variants x
    repetitions of a collective (--pattern NAME --size SIZE), an application
    (--app SPEC) or one of the paper's experiments (--preset NAME), run on
    Dask (a local cluster, or --scheduler ADDRESS), saved to Parquet as tasks
    finish. An interrupted sweep resumes where it stopped (--resume, or the
    same command again); results do not depend on workers or chunking.

    \b
    Examples:
      cloudnoise sweep --preset fig14-dissemination --reps 100 --out fig14
      cloudnoise sweep --pattern dissemination --size 16B --profile azure-hpc,daint \\
          --nodes 16,64,256 --reps 1000 --out diss --workers 8
      cloudnoise sweep --resume --out fig14
      cloudnoise sweep list-presets
    """
    if ctx.invoked_subcommand is not None:
        return
    run_command(opts)


@sweep.command("list-presets")
@json_option("Print one JSON object: {\"presets\": [...]}.")
def list_presets(as_json: bool) -> None:
    """The paper's experiments, with their figure, systems and node counts."""
    rows = [
        {"name": p.name, "figure": p.figure, "kind": p.kind, "spec": p.spec, "systems": list(p.systems),
         "nodes": list(p.nodes), "ready_order": p.ready_order, "description": p.description}
        for p in PRESETS.values()
    ]
    if as_json:
        click.echo(json.dumps({"presets": rows}, indent=2))
        return
    for r in rows:
        click.echo(f"{r['name']}  ({r['figure']}, {r['kind']}: {r['spec']})")
        click.echo(f"    {r['description']}")
        click.echo(f"    systems: {', '.join(r['systems'])}")
        click.echo(f"    nodes:   {', '.join(map(str, r['nodes']))}   ready order: {r['ready_order']}")


def run_command(opts: dict[str, Any]) -> None:
    """Plans, runs, saves and summarises one sweep."""
    from cloudnoise.sweep.store import SweepStore
    from cloudnoise.sweep.sweeper import interrupted_note, run_sweep

    out = opts.get("out")
    if out is None:
        raise CloudnoiseError("--out DIR: where to write the sweep (sweep.json, results.parquet)")
    old = SweepStore(out).read_meta()
    if opts["resume"] and old is None:
        raise CloudnoiseError(f"--resume: {out} holds no sweep (no sweep.json); start one with --preset, --pattern or --app")
    if opts["in_process"] and (opts.get("scheduler") or opts.get("workers")):
        raise CloudnoiseError("--in-process runs without Dask: drop --scheduler/--workers")
    if opts.get("scheduler") and opts.get("workers"):
        raise CloudnoiseError("--workers sizes the local cluster; with --scheduler the cluster has its own workers")
    one_of_json_csv(opts["as_json"], opts["as_csv"])
    request = build_request(opts, old)
    bar = Progress("sweep", quiet=opts["as_json"] or opts["as_csv"] or opts["quiet"])
    try:
        with bar:
            outcome = run_sweep(
                request,
                out,
                in_process=opts["in_process"],
                scheduler=opts.get("scheduler"),
                workers=opts.get("workers") or available_cores(),
                threads_per_worker=opts["threads_per_worker"],
                connect_timeout=opts["connect_timeout"],
                chunk=opts.get("chunk"),
                progress=bar,
            )
    except KeyboardInterrupt:
        raise CloudnoiseError(interrupted_note(out), EXIT_INTERRUPTED) from None
    from cloudnoise.sweep.summary import summary_rows

    rows = summary_rows(out)
    if opts["as_json"]:
        click.echo(json.dumps({
            "out": str(out),
            "sweep": outcome.meta,
            "tasks_run": outcome.tasks_run,
            "reps_run": outcome.reps_run,
            "reps_resumed": outcome.resumed_reps,
            "reps_total": outcome.reps_total,
            "seconds": round(outcome.seconds, 3),
            "summary": rows,
            "failed": [f.to_dict() for f in outcome.failed],
        }))
        outcome.raise_failures()
        return
    from cloudnoise.sweep.summary import print_summary, write_summary_csv

    if opts["as_csv"]:
        write_summary_csv(rows)
    elif rows:
        print_summary(rows, outcome, out)
    outcome.raise_failures()
