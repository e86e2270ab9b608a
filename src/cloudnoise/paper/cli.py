"""`cloudnoise paper`: the paper's Sec. V statements, simulated and checked."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from cloudnoise.console import Progress
from cloudnoise.errors import EXIT_INTERRUPTED, CloudnoiseError
from cloudnoise.paper.table import RESULT


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@click.command("paper")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Repetitions per system, node count and noise variant (the paper: 1000).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the sweeps (each configuration derives its own).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("cloudnoise-paper"),
              show_default=True, help="Folder for the sweeps and paper.json; rerunning continues what is there.")
@click.option("--only", type=click.Choice(["calibration", "held-out"]), help="Check only these statements.")
@click.option("--statement", "ids", metavar="ID,...", help="Check only these statements (ids as in the table's first column).")
@click.option("--workers", type=click.IntRange(min=1), help="Dask worker processes [default: the cores this process may use].")
@click.option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler (tcp://host:8786) instead of a local cluster.")
@click.option("--in-process", is_flag=True, help="Simulate in this process, without Dask.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (no progress bar).")
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--beyond", is_flag=True,
              help="Also run Fig. 15's 512 MiB ring past the paper's 1,024 nodes: at 4,096 and 16,384 nodes, without "
                   "and with network noise, on Fig. 15's systems (the report shows them as beyond the paper).")
@click.option("--beyond-reps", type=click.IntRange(min=1), default=None, metavar="N",
              help="Repetitions of the --beyond points [default: 3; a noisy one at 16,384 nodes is 1-2 CPU minutes].")
def paper(reps: int, seed: int, out: Path, only: str | None, ids: str | None, workers: int | None, scheduler: str | None,
          in_process: bool, as_json: bool, as_csv: bool, quiet: bool, beyond: bool, beyond_reps: int | None) -> None:
    """Reproduce the quantitative statements of the paper's Sec. V (Fig. 14-17,
    Obs. 8-10) with the built-in profiles: each is simulated through `sweep`
    (only the systems, node counts and noise variants it needs) and compared
    with the paper's wording. A row says the statement, the paper's value,
    the interval its wording allows, ours, whether they agree, and whether
    it was a calibration target (the profiles were fitted to it) or held out
    (never looked at by the calibration: a test of it).

    Writes OUT/paper.json and one sweep folder per workload and node count;
    rerunning the same command continues an interrupted run, a larger
    --reps extends it. `cloudnoise report --paper OUT` shows the table.

    The sweeps' tasks run together, the largest first, on every core; a
    noiseless cell is simulated once (its repetitions are alike). --reps
    1000 from an empty folder takes 15 to 18 minutes on a quiet 2-core
    machine (about 2,000 CPU seconds, peak under 0.5 GB; bench/bench_campaign.py,
    docs/explanation/paper.md).

    --beyond adds the paper's ring at 4,096 and 16,384 nodes (a GOAL file of
    the 16,384-node ring would hold 268 million messages): Fig. 15's eight
    systems, no noise and network noise, --beyond-reps repetitions each
    (default 3; about 30-60 CPU minutes more on this 2-core machine).

    \b
    Examples:
      cloudnoise paper --reps 200
      cloudnoise paper --reps 1000 --out paper-1000 --workers 16
      cloudnoise paper --only held-out --json
      cloudnoise paper --statement fig17-gcp-15-at-4,fig15-gcp-outliers-5x --reps 200
      cloudnoise paper --reps 200 --beyond --beyond-reps 5
    """
    from cloudnoise.paper.beyond import BEYOND_REPS, beyond_grids, beyond_points
    from cloudnoise.paper.causes import causes_for
    from cloudnoise.paper.reproduce import reproduce, to_json
    from cloudnoise.paper.statements import SEC_V
    from cloudnoise.paper.table import print_table, to_csv

    if as_json and as_csv:
        raise CloudnoiseError("give --json or --csv, not both")
    if in_process and (workers or scheduler):
        raise CloudnoiseError("--in-process runs without Dask: drop --workers/--scheduler")
    if scheduler and workers:
        raise CloudnoiseError("--workers sizes the local cluster; with --scheduler the cluster has its own workers")
    statements = [s for s in SEC_V if only is None or s.role == only]
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        known = {s.id for s in SEC_V}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise CloudnoiseError(f"--statement: no statement {unknown[0]!r}; the ids are in the first column of "
                                  "`cloudnoise paper --json` (or docs/explanation/paper.md)")
        statements = [s for s in statements if s.id in wanted]
    if not statements:
        raise CloudnoiseError("no statement selected: check --only and --statement")
    if beyond_reps is not None and not beyond:
        raise CloudnoiseError("--beyond-reps goes with --beyond")
    extra = [(g, beyond_reps or BEYOND_REPS) for g in beyond_grids()] if beyond else []
    try:
        with Progress("paper", quiet=as_json or as_csv or quiet) as bar:
            run = reproduce(statements, out, reps=reps, seed=seed, in_process=in_process,
                            workers=workers or _cores(), scheduler=scheduler, progress=bar,
                            causes=causes_for(statements), extra=extra)
    except KeyboardInterrupt:
        from cloudnoise.sweep.sweeper import saved_reps

        saved = sum(saved_reps(d) for d in sorted(out.iterdir()) if d.is_dir()) if out.is_dir() else 0
        if not saved:
            raise CloudnoiseError("interrupted before any repetition was saved", EXIT_INTERRUPTED) from None
        raise CloudnoiseError(f"interrupted; {saved:,} repetitions are saved in {out}: rerun the same command to continue",
                              EXIT_INTERRUPTED) from None
    data = to_json(run, out)
    if run.extra:
        from cloudnoise.paper.reproduce import SweepRuns

        data["beyond"] = {"reps": beyond_reps or BEYOND_REPS, "points": beyond_points(SweepRuns(out, run.extra), run.extra)}
    _write(out / RESULT, data)
    if as_json:
        click.echo(json.dumps(data))
    elif as_csv:
        click.echo(to_csv(data), nl=False)
    else:
        print_table(data)


def _write(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
