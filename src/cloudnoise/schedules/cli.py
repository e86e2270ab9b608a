"""`cloudnoise schedule`: Schedgen's collective patterns as GOAL files.

`cloudnoise schedule generate --pattern dissemination --ranks 16 --size 16B
-o d.goal` writes the same file Schedgen would (`schedgen -p dissemination
-s 16 -d 16 -o d.goal`); `--schedgen paper` writes what the paper authors'
modified Schedgen writes; `cloudnoise schedule list` shows the patterns and
which of them the two Schedgens generate differently.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from cloudnoise.errors import CloudnoiseError
from cloudnoise.console import write_csv
from cloudnoise.options import (
    accepts_aliases,
    csv_option,
    json_option,
    one_of_json_csv,
    out_option,
    schedgen_option,
)
from cloudnoise.schedules.patterns import (
    DEFAULT_NWAY,
    DEFAULT_SEGMENTSIZE,
    DEFAULT_SCHEDGEN,
    SEGMENTSIZE_PER_RANK,
    CollectiveSpec,
    check_schedgen,
    list_patterns,
    parse_segmentsize,
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
@click.option("--segmentsize", default=str(DEFAULT_SEGMENTSIZE), show_default=True, metavar="SIZE",
              help=f"Segment of the pipelined rings (bytes or unit), or {SEGMENTSIZE_PER_RANK} for one segment per "
              "rank (the paper's runs).")
@click.option("--nb", default=None, metavar="T", help="Start every rank with an independent local calc of T (ns, or 5us).")
@schedgen_option("Whose Schedgen's pattern to write: public (spcl's, the default) or paper (the paper authors' "
                 "modified one; `cloudnoise schedule list` shows which patterns differ).")
@out_option(required=True, help="GOAL file to write (.goal; gzip if it ends in .goal.gz).", old=["--output"])
@json_option("Print one JSON object describing the file written.")
@accepts_aliases
def generate(
    pattern: str, ranks: int, size: str, nway: int, segmentsize: str, nb: str | None, schedgen: str | None, out: Path,
    as_json: bool,
) -> None:
    """Write one collective as a GOAL schedule, exactly as Schedgen writes it
    (--schedgen paper: as the paper authors' modified Schedgen writes it).

    \b
    Examples:
      cloudnoise schedule generate --pattern dissemination --ranks 16 --size 16B -o d.goal
      cloudnoise schedule generate --schedgen paper --pattern pipelinedring --ranks 16 --size 512MiB \\
          --segmentsize size/ranks -o ring.goal
    """
    spec = CollectiveSpec(
        pattern=pattern,
        ranks=ranks,
        size=parse_size(size, "--size"),
        nway=nway,
        segmentsize=parse_segmentsize(segmentsize, "--segmentsize"),
        nb=None if nb is None else parse_duration_ns(nb, "--nb"),
        schedgen=check_schedgen(schedgen) if schedgen is not None else DEFAULT_SCHEDGEN,
    )
    _check_goal_path(out)
    write_goal(spec, out)
    if as_json:
        click.echo(json.dumps({"out": str(out), "pattern": spec.pattern, "ranks": spec.ranks, "size_bytes": spec.size,
                               "segmentsize_bytes": spec.segment_bytes(), "schedgen": spec.schedgen,
                               **({"mpi_call": spec.mpi_call, "why": spec.why} if spec.mpi_call else {})}))
    else:
        flavour = " (the paper authors' Schedgen)" if spec.schedgen == "paper" else ""
        click.echo(f"wrote {out}: {spec.pattern}{flavour}, {spec.ranks} ranks, {spec.size} B", err=True)
        if spec.mpi_call is not None:
            click.echo(spec.why, err=True)


def _check_goal_path(out: Path) -> None:
    """A GOAL file name in an existing folder (docs/reference/conventions.md: the suffix chooses the format)."""
    if not (out.name.endswith(".goal") or out.name.endswith(".goal.gz")):
        raise CloudnoiseError(f"--out {out}: a GOAL file name ends in .goal or .goal.gz")
    if not out.parent.exists():
        raise CloudnoiseError(f"--out {out}: directory {out.parent} does not exist")


_PAPER_COLUMN = {"same": "same", "differs": "differs", "absent": "-"}


@schedule.command("list")
@json_option("Print the patterns as one JSON object.")
@csv_option("Print the patterns as CSV (name, description, paper, paper_description).")
def list_(as_json: bool, as_csv: bool) -> None:
    """List the patterns with one-line descriptions, and how the paper authors'
    Schedgen (--schedgen paper) has each: the same as public Schedgen's, a
    variant that differs (and how), or none (-)."""
    one_of_json_csv(as_json, as_csv)
    infos = list_patterns()
    if as_json:
        click.echo(json.dumps({"patterns": [
            {"name": i.name, "description": i.description, "paper": i.paper, "paper_description": i.paper_description}
            for i in infos]}))
        return
    if as_csv:
        write_csv(("name", "description", "paper", "paper_description"),
                  ((i.name, i.description, i.paper, i.paper_description) for i in infos))
        return
    width = max(len(p.name) for p in infos)
    click.echo(f"{'pattern':<{width}}  {'paper':<7}  description")
    for info in infos:
        click.echo(f"{info.name:<{width}}  {_PAPER_COLUMN[info.paper]:<7}  {info.description}")
        if info.paper == "differs":
            click.echo(f"{'':<{width}}  {'':<7}  --schedgen paper: {info.paper_description}")


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
    or a TOML app file; see docs/how-to/applications.md) as a GOAL schedule that
    LogGOPSim reads too. Compute times are rounded to whole ns."""
    from cloudnoise.schedules.apps import app_from, resolve

    application = resolve(app_from(app), ranks=ranks, iterations=iterations, gflops=gflops)
    _check_goal_path(out)
    application.write_goal(out)
    if as_json:
        click.echo(json.dumps({"out": str(out), "app": application.label()}))
    else:
        click.echo(f"wrote {out}: {application.label()}", err=True)
