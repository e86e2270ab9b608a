"""`cloudnoise simulate`: a GOAL schedule through the LogGOPS engine."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from cloudnoise.simulate.api import SimulationResult, simulate as run_simulation
from cloudnoise.simulate.params import DEFAULTS, LogGOPS
from cloudnoise.simulate.progress import RepetitionProgress
from cloudnoise.units import format_time_ps

PARAM_HELP = {
    "L": "latency L (ns, or with a unit: 2.5us)",
    "o": "CPU overhead o per message (ns or unit)",
    "g": "gap g between messages (ns or unit)",
    "G": "gap per byte G (ns/byte, 80ps, or a bandwidth: 100Gbit/s)",
    "O": "CPU overhead per byte O (ns/byte or unit)",
    "S": "eager/rendezvous threshold S in bytes (eager when size <= S)",
}


def loggops_options(func):  # type: ignore[no-untyped-def]
    """Adds --L --o --g --G --O --S (LogGOPSim's names and defaults)."""
    for name in reversed(list(PARAM_HELP)):
        func = click.option(
            f"--{name}",
            f"{name}_",
            default=DEFAULTS[name],
            show_default=True,
            metavar="VALUE",
            help=PARAM_HELP[name],
        )(func)
    return func


@click.command("simulate")
@click.argument("goal_file", type=click.Path(dir_okay=False, path_type=Path))
@loggops_options
@click.option("--reps", default=1, show_default=True, type=click.IntRange(min=1), help="Repetitions.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Seed of every random draw.")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(min=1), help="Threads running repetitions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary.")
def simulate(
    goal_file: Path,
    L_: str,
    o_: str,
    g_: str,
    G_: str,
    O_: str,
    S_: str,
    reps: int,
    seed: int,
    threads: int,
    as_json: bool,
) -> None:
    """Simulate GOAL_FILE (LogGOPSim's GOAL text, optionally .gz) with LogGOPS.

    Reproduces LogGOPSim's results exactly (same event order, same end-time
    definition) with picosecond time. Exit status 2 for malformed input,
    3 for a schedule that cannot complete.

    Example: cloudnoise simulate examples/dissemination_16.goal --L 2.5us --G 100Gbit/s
    """
    params = LogGOPS.parse(L=L_, o=o_, g=g_, G=G_, O=O_, S=S_)
    with RepetitionProgress(reps, enabled=not as_json and reps > 1) as progress:
        result = run_simulation(goal_file, params=params, reps=reps, seed=seed, threads=threads, progress=progress.callback)
    if as_json:
        json.dump(result.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print_summary(result)


def print_summary(result: SimulationResult) -> None:
    """A readable summary: the parameters, the run, and its end times."""
    console = Console()
    p = result.params.as_ns()
    console.print(
        f"[bold]{result.source or 'schedule'}[/]: {result.ranks} ranks, {result.events:,} events, "
        f"{result.messages:,} messages"
    )
    console.print("LogGOPS: " + ", ".join(f"{k}={v}" for k, v in p.items()) + " (ns, ns/byte, bytes)")
    ends = np.asarray(result.max_end_ns, dtype=float) * 1000
    if result.reps == 1:
        console.print(f"Completion time: [bold]{format_time_ps(ends[0])}[/] ({result.max_end_ns[0]} ns)")
    else:
        table = Table(title=f"Completion time over {result.reps} repetitions (seed {result.seed})")
        for col in ("min", "median", "mean", "p99", "max"):
            table.add_column(col, justify="right")
        table.add_row(
            *(format_time_ps(v) for v in (ends.min(), np.median(ends), ends.mean(), np.percentile(ends, 99), ends.max()))
        )
        console.print(table)
    if result.ranks <= 16:
        table = Table(title="End time per rank (first repetition)")
        table.add_column("rank", justify="right")
        table.add_column("end (ns)", justify="right")
        for r, t in enumerate(result.host_end_ns):
            table.add_row(str(r), f"{t}")
        console.print(table)
    rate = result.events * result.reps / result.engine_seconds if result.engine_seconds > 0 else float("nan")
    console.print(
        f"[dim]parse {result.parse_seconds:.3f} s, engine {result.engine_seconds:.3f} s ({rate / 1e6:.1f} M events/s)[/]"
    )
