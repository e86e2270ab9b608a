"""`cloudnoise schedule`: Schedgen's collective patterns as GOAL files.

`cloudnoise schedule generate --pattern dissemination --ranks 16 --size 16B
-o d.goal` writes the same file Schedgen would (`schedgen -p dissemination
-s 16 -d 16 -o d.goal`); `cloudnoise schedule list` shows the patterns.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from cloudnoise.errors import CloudnoiseError
from cloudnoise.console import write_csv
from cloudnoise.options import accepts_aliases, csv_option, json_option, one_of_json_csv, out_option
from cloudnoise.schedules.patterns import (
    DEFAULT_NWAY,
    DEFAULT_SEGMENTSIZE,
    CollectiveSpec,
    list_patterns,
    write_goal,
)
from cloudnoise.units import parse_duration_ns
from cloudnoise.units import parse_size_bytes as parse_size


@click.group("schedule")
def schedule() -> None:
    """Generate collective schedules (Schedgen patterns) as GOAL."""


@schedule.command("generate")
@click.option("--pattern", "-p", required=True, metavar="NAME", help="Schedgen pattern (see `cloudnoise schedule list`).")
@click.option("--ranks", "-s", required=True, type=int, metavar="P", help="Number of ranks (Schedgen's --commsize).")
@click.option("--size", "-d", required=True, metavar="SIZE", help="Bytes per basic step: 16, 16B, 128KiB, 16MiB (Schedgen's --datasize).")
@click.option("--nway", default=DEFAULT_NWAY, show_default=True, type=int, help="Fan-out of nwaydissemination.")
@click.option("--segmentsize", default=str(DEFAULT_SEGMENTSIZE), show_default=True, metavar="SIZE", help="Segment of the pipelined rings (bytes or unit).")
@click.option("--nb", default=None, metavar="T", help="Start every rank with an independent local calc of T (ns, or 5us).")
@out_option(required=True, help="GOAL file to write (.goal; gzip if it ends in .goal.gz).", old=["--output"])
@json_option("Print one JSON object describing the file written.")
@accepts_aliases
def generate(
    pattern: str, ranks: int, size: str, nway: int, segmentsize: str, nb: str | None, out: Path, as_json: bool
) -> None:
    """Write one collective as a GOAL schedule, exactly as Schedgen writes it.

    \b
    Example:
      cloudnoise schedule generate --pattern dissemination --ranks 16 --size 16B -o d.goal
    """
    spec = CollectiveSpec(
        pattern=pattern,
        ranks=ranks,
        size=parse_size(size, "--size"),
        nway=nway,
        segmentsize=parse_size(segmentsize, "--segmentsize"),
        nb=None if nb is None else parse_duration_ns(nb, "--nb"),
    )
    _check_goal_path(out)
    write_goal(spec, out)
    if as_json:
        click.echo(json.dumps({"out": str(out), "pattern": spec.pattern, "ranks": spec.ranks, "size_bytes": spec.size}))
    else:
        click.echo(f"wrote {out}: {spec.pattern}, {spec.ranks} ranks, {spec.size} B", err=True)


def _check_goal_path(out: Path) -> None:
    """A GOAL file name in an existing folder (docs/cli.md: the suffix chooses the format)."""
    if not (out.name.endswith(".goal") or out.name.endswith(".goal.gz")):
        raise CloudnoiseError(f"--out {out}: a GOAL file name ends in .goal or .goal.gz")
    if not out.parent.exists():
        raise CloudnoiseError(f"--out {out}: directory {out.parent} does not exist")


@schedule.command("list")
@json_option("Print the patterns as one JSON object.")
@csv_option("Print the patterns as CSV (name, description).")
def list_(as_json: bool, as_csv: bool) -> None:
    """List the patterns with one-line descriptions."""
    one_of_json_csv(as_json, as_csv)
    infos = list_patterns()
    if as_json:
        click.echo(json.dumps({"patterns": [{"name": i.name, "description": i.description} for i in infos]}))
        return
    if as_csv:
        write_csv(("name", "description"), ((i.name, i.description) for i in infos))
        return
    width = max(len(p.name) for p in infos)
    for info in infos:
        click.echo(f"{info.name:<{width}}  {info.description}")


@schedule.command("app")
@click.argument("app")
@click.option("--ranks", "-s", type=int, metavar="P", help="Number of ranks (or the app file's ranks).")
@click.option("--iterations", type=int, metavar="K", help="Iterations [default: 1, or the app file's].")
@click.option("--gflops", type=float, metavar="R", help="Flop rate for gemm:N phases instead of DGEMM timed here.")
@out_option(required=True, help="GOAL file to write (.goal; gzip if it ends in .goal.gz).", old=["--output"])
@json_option("Print one JSON object describing the file written.")
@accepts_aliases
def app_(app: str, ranks: int | None, iterations: int | None, gflops: float | None, out: Path, as_json: bool) -> None:
    """Write an application (APP: phases such as 'gemm:128 + dissemination:128KiB',
    or a TOML app file; see docs/applications.md) as a GOAL schedule that
    LogGOPSim reads too. Compute times are rounded to whole ns."""
    from cloudnoise.schedules.apps import app_from, resolve

    application = resolve(app_from(app), ranks=ranks, iterations=iterations, gflops=gflops)
    _check_goal_path(out)
    application.write_goal(out)
    if as_json:
        click.echo(json.dumps({"out": str(out), "app": application.label()}))
    else:
        click.echo(f"wrote {out}: {application.label()}", err=True)
