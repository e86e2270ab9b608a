"""`cloudnoise measure <experiment>`: measure a system with MPI probes.

Each experiment of the paper (Sec. III-IV) is a subcommand; every sample is
kept in a campaign directory (``--out``), and the summary is printed as an
OSU-like table or, with ``--json``, as one JSON object whose ``results`` has
one row per message size (``size_bytes``, ``min_us``, ``median_us``,
``mean_us``, ``max_us`` of RTT/2, ``bandwidth_gbps`` = size / min RTT/2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.arguments import MAX_ITERATIONS
from cloudnoise.measurement.experiments import LOGGP_ROUNDS, LOGGP_TRAIN
from cloudnoise.options import csv_option, quiet_option

def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--ranks", type=click.IntRange(1, limits.MAX_RANKS), help="MPI ranks (ping-pongs: 2 per pair)."),
        click.option("--sizes", help="Message sizes, comma separated (1,1K,16M)."),
        click.option("--iterations", type=click.IntRange(1, MAX_ITERATIONS), help="Timed ping-pongs per size."),
        click.option("--warmup", type=click.IntRange(0, MAX_ITERATIONS), help="Untimed ping-pongs before each size."),
        click.option("--duration", help="How long to measure (noise experiments): seconds, or 10m, 1h, 24h."),
        click.option("--out", "-o", "out", type=click.Path(file_okay=False, path_type=Path),
                     help="Campaign directory (default: ./cloudnoise-campaign-<time>)."),
        click.option("--label", "labels", multiple=True,
                     help="KEY=VALUE recorded with the run: system=, instance=, "
                          "distance=same-rack|different-racks|unknown."),
        click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object."),
        csv_option("Print the results table as CSV on stdout (loggp: the per-size table)."),
        quiet_option("No progress bar on stderr (errors and the note on what an interrupted run kept still print)."),
        click.option("--resume", is_flag=True, help="Continue an interrupted measurement in --out."),
        click.option("--mpicc", help="MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel)."),
        click.option("--mpiexec", help="MPI launcher binary (default: next to mpicc)."),
        click.option("--launcher", default="mpiexec", show_default=True,
                     help="mpiexec, srun, or a template like 'mpirun -np {ranks} {cmd}'."),
        click.option("--hosts", help="Comma-separated hosts (two nodes: ranks split evenly)."),
        click.option("--hostfile", type=click.Path(dir_okay=False), help="Hostfile for the launcher."),
        click.option("--ppn", type=click.IntRange(1, 2**20), help="Processes per node."),
        click.option("--timeout", help="Stop a launch after this long (seconds, or 30m, 2h)."),
        click.option("--min-free", default="1GiB", show_default=True,
                     help="Stop cleanly (resumable) before the disk has less than this free."),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def _run(experiment: str, kw: dict[str, Any]) -> None:
    """The command line's text to `cloudnoise.measure(...)`, and its summary printed."""
    from cloudnoise.measurement.api import measure
    from cloudnoise.measurement.report import emit

    inject = None
    if kw.get("inject_detour"):
        try:
            period, dur = (float(x) for x in kw["inject_detour"].split(":"))
        except ValueError as err:
            raise CloudnoiseError("--inject-detour takes PERIOD_US:DURATION_US") from err
        inject = (period, dur)
    result = measure(
        experiment,
        out=kw.get("out"),
        ranks=kw.get("ranks"),
        sizes=kw.get("sizes"),
        iterations=kw.get("iterations"),
        warmup=kw.get("warmup"),
        duration=kw.get("duration"),
        connections=kw.get("connections"),
        intervals=kw.get("intervals"),
        detours=kw.get("detours"),
        per_core=bool(kw.get("per_core")),
        slice=kw.get("slice"),
        train=kw.get("train") or LOGGP_TRAIN,
        rounds=kw.get("rounds") or LOGGP_ROUNDS,
        labels=kw.get("labels") or (),
        resume=bool(kw.get("resume")),
        mpicc=kw.get("mpicc"),
        mpiexec=kw.get("mpiexec"),
        launcher=kw.get("launcher") or "mpiexec",
        hosts=kw.get("hosts"),
        hostfile=kw.get("hostfile"),
        ppn=kw.get("ppn"),
        timeout=kw.get("timeout"),
        min_free=kw.get("min_free") or "1GiB",
        quiet=bool(kw.get("quiet") or kw.get("as_json")),
        inject_detour=inject,
    )
    emit(result.document, as_json=bool(kw.get("as_json")), as_csv=bool(kw.get("as_csv")))


@click.group()
def measure() -> None:
    """Measure latency, bandwidth, connections, burstiness, network noise and
    OS noise with MPI probes, keeping every sample in a campaign directory."""


def _command(name: str, help_text: str, extra: list[Callable[..., Any]] | None = None) -> None:
    def run(**kw: Any) -> None:
        _run(name, kw)

    run.__doc__ = help_text
    cmd = _common(run)
    for opt in reversed(extra or []):
        cmd = opt(cmd)
    measure.command(name)(cmd)


_connections = click.option("--connections", help="Concurrent pairs to use, comma separated (1,2,4,8,16).")
_command("latency", "Ping-pong RTT/2 per message size (default 1 B .. 16 MiB, 1000 iterations).")
_command("bandwidth", "Ping-pong bandwidth (size / RTT/2) per message size.")
_command("connections", "N pairs each ping-ponging size/N concurrently (paper Fig. 1).", [_connections])
_command("bidirectional", "Two simultaneous ping-pongs, one started from each side (Fig. 3).")
_command("burst", "1 MiB ping-pongs with inter-message intervals from 0 to 1 s (Fig. 4).",
         [click.option("--intervals", help="Inter-message intervals in seconds, comma separated.")])
_slice = click.option("--slice", help="Also summarise each slice of this length (e.g. 1h with --duration 24h): "
                                    "does the hour of the day matter?")
_command("latency-noise", "1-byte ping-pong for --duration (default 60 s; the paper: 1h), every sample "
         "timestamped, converted to Parquet as it goes (Fig. 9-10).", [_slice])
_command("bandwidth-noise", "Saturating-size ping-pong for --duration (Fig. 11-12).", [_connections, _slice])
_command("os-noise", "Selfish detour: iterations above 9 x t_min, written as an OS-noise trace (Fig. 8).", [
    click.option("--detours", type=click.IntRange(0, 2**62),
                 help="Stop after this many detours (default 100000; 0: no limit)."),
    click.option("--per-core", is_flag=True, help="One rank per core."),
    click.option("--inject-detour", hidden=True, help="Tests: PERIOD_US:DURATION_US of injected noise."),
])
_command("loggp", "Estimate LogGP(S) parameters (L, o_s, o_r, g, S and L, G, O per size class) from "
                  "Netgauge-style parametrised round trips: ping-pongs, exchanges, send trains with and without "
                  "delays, receives posted before and after their message arrived; 1 B .. 16 MiB, repeated in "
                  "rounds. Prints the parameters with their spread over rounds and every operation's residual "
                  "per size.", [
    click.option("--train", type=click.IntRange(2, 64), help=f"Messages per send train, 2-64 (default {LOGGP_TRAIN})."),
    click.option("--rounds", type=click.IntRange(1, 1000), help=f"Repetitions of the whole size sweep, each a short estimate "
                                            f"(default {LOGGP_ROUNDS})."),
])


@measure.group("import")
def import_() -> None:
    """Turn measurements made with other tools into a campaign (`model build`, `report` read it as one
    measured here)."""


@import_.command("netgauge")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--out", "-o", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The campaign folder to create (must not exist).")
@click.option("--label", "labels", multiple=True,
              help="KEY=VALUE recorded with the campaign: system=, instance=, "
                   "distance=same-rack|different-racks|unknown.")
@click.option("--salvage", is_flag=True,
              help="Import what is whole instead of refusing damaged input: a file cut short is read as the "
                   "authors' scripts read it, a file holding nothing usable is left out; both listed under "
                   "import.salvaged in metadata.json.")
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as one JSON object.")
def import_netgauge_command(source: Path, out: Path, labels: tuple[str, ...], salvage: bool, as_json: bool) -> None:
    """A Netgauge run folder, or its .tar.xz (read without unpacking), as a campaign: latency and
    bandwidth noise, connections, bidirectional, striping, OS noise, the LogGP table and DGEMM
    rates (docs/how-to/measure.md, "Importing Netgauge runs")."""
    import json

    from cloudnoise.measurement.arguments import parse_labels
    from cloudnoise.measurement.imports.netgauge import import_netgauge
    from cloudnoise.measurement.imports.report import print_import

    result = import_netgauge(source, out, parse_labels(labels), salvage=salvage)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        print_import(result)
