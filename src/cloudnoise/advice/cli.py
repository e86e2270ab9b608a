"""`cloudnoise advise`: which system, how many nodes, at what cost and what risk."""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import click

from cloudnoise.advice.api import DEFAULT_NODES, DEFAULT_REPS, NOISY_VARIANTS
from cloudnoise.cores import available_cores
from cloudnoise.errors import CloudnoiseError
from cloudnoise.options import (
    csv_option,
    json_option,
    one_of_json_csv,
    profile_names,
    profile_option,
    quiet_option,
    schedgen_option,
    seed_option,
)
from cloudnoise.simulation.api import READY_ORDERS
from cloudnoise.sweep.experiment import SCALINGS

_USD = re.compile(r"^\s*\$?\s*([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*(usd|\$)?\s*$", re.I)


def parse_usd(text: str, what: str = "--budget") -> float:
    """A positive amount of US dollars: 12.5, 12.5USD, $12.5."""
    m = _USD.match(str(text))
    if not m or not float(m.group(1)) > 0:
        raise CloudnoiseError(f"{what} takes a positive amount of US dollars such as 25 or 25USD, got {text!r}")
    return float(m.group(1))


@click.command("advise")
@click.argument("workload", required=False, metavar="[WORKLOAD]")
@click.option("--pattern", metavar="NAME", help="The workload as a collective (a Schedgen pattern) ...")
@click.option("--size", metavar="SIZE", help="... of SIZE bytes per step (16B, 128KiB).")
@click.option("--app", metavar="SPEC|FILE", help="The workload as an application: 'gemm:128 + dissemination:128KiB' or an app file.")
@schedgen_option()
@click.option("--iterations", type=click.IntRange(min=1), help="Iterations of the application [default: 1, or the app file's].")
@click.option("--gflops", type=click.FloatRange(min=0, min_open=True), help="Flop rate of gemm:N phases instead of DGEMM timed on this machine.")
@click.option("--scaling", type=click.Choice(SCALINGS), help="Applications: weak = the phases are each node's work; strong = their compute is the whole job's, divided over the nodes. Traces: weak keeps each rank's compute and messages; strong divides compute by N/P and sizes halos by the grid (docs/how-to/traces.md) [default: weak].")
@profile_option(multiple=True, help="Systems: built-in names or profile files, repeated or a comma list [default: every built-in with a price].")
@click.option("--all", "all_builtin", is_flag=True, help="Every built-in profile, those without a price too (shown without cost).")
@click.option("--nodes", metavar="LIST", help=f"Node counts: 16,64,256 or ranges 16..16384 (doubling) and 16..16384:4 (factor 4) [default: {','.join(map(str, DEFAULT_NODES))}].")
@click.option("--deadline", metavar="TIME", help="The run must end by TIME (simulated time: 2ms, 500us; plain = ns); reports P(late).")
@click.option("--budget", metavar="USD", help="The run must cost at most USD (billed); reports P(over budget).")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.99, show_default=True,
              help="Probability with which the recommendation meets --deadline and --budget.")
@click.option("--pricing", default="on-demand", show_default=True, metavar="on-demand|committed|spot:F|PRICE|FILE",
              help="Table I price kind, spot at a fraction F of on-demand, one USD/node-hour price for all, or a price file (CSV).")
@click.option("--prices", metavar="FILE", type=click.Path(path_type=Path),
              help="A price file (CSV: system, pricing, usd_per_node_hour, date, source) overriding Table I where it lists a system.")
@click.option("--billing", default="provider", show_default=True, metavar="provider|exact|STEP[:MIN]",
              help="How runtime is billed: each provider's rule, pro rata, or e.g. 1s:60s, 1h.")
@click.option("--noise", type=click.Choice(NOISY_VARIANTS), default="both", show_default=True,
              help="The noise advised on; the noiseless run is always simulated as the baseline.")
@click.option("--reps", type=click.IntRange(min=1), help=f"Repetitions per system and node count [default: {DEFAULT_REPS}, or the --sweep folder's].")
@seed_option("Seed of every random draw; the same seed gives the same results bit for bit [default: 0, or the --sweep folder's].", default=None)
@click.option("--ready-order", type=click.Choice(READY_ORDERS), help="Order of ops ready together [default: program, or the --sweep folder's].")
@click.option("--sweep", "sweep_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the simulations in DIR, and reuse what DIR already holds (a `cloudnoise sweep` folder too).")
@click.option("--workers", type=click.IntRange(min=1), help="Dask worker processes [default: the cores this process may use].")
@click.option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler (tcp://host:8786) instead of a local cluster.")
@click.option("--in-process", is_flag=True, help="Simulate in this process, without Dask.")
@click.option("--points", "which", type=click.Choice(("front", "all")), default="front", show_default=True,
              help="What the table and --csv list: the Pareto front, or every point.")
@json_option("Print one JSON object with every point (nothing else on stdout).")
@csv_option("Print the table as CSV (every column of the JSON rows).")
@quiet_option()
def advise(**opts: Any) -> None:
    """Which system, how many nodes, at what cost and what risk, for WORKLOAD:
    simulates it on every system and node count with and without noise
    (OS + network by default), prices each run as the provider bills it,
    and prints the Pareto front of median runtime vs cost, with p95/p99
    runtime and cost, the cost of noise, the probability of missing
    --deadline or --budget, and the recommendation with one line of why.

    \b
    WORKLOAD is one of:
      PATTERN:SIZE        a collective, e.g. dissemination:16B (also --pattern/--size)
      'PHASE + PHASE'     an application, e.g. 'gemm:128 + dissemination:128KiB' (also --app)
      FILE.toml           an app file (docs/how-to/applications.md)
      FILE.goal[.gz]      a GOAL schedule: advised at its own rank count
      TRACE_DIR           a recorded MPI trace: at its own rank count as
                          recorded, at other --nodes extrapolated
    Strong scaling (--scaling strong) divides an application's compute
    phases over the nodes: at P nodes each compute phase lasts its written
    length / P; collective phases are unchanged. A trace strongly scaled
    divides its compute by N/P and sizes its halo messages by its grid. Prices are the paper's
    Table I (July 2022) unless a price file (--pricing FILE or --prices
    FILE) lists the system; the output gives every price's date. Times:
    a plain number is ns; money: USD. See docs/how-to/advise.md.

    \b
    Examples:
      cloudnoise advise dissemination:16B --nodes 16..1024:4 --reps 100
      cloudnoise advise 'gemm:2048 + allreduce_recdoub:1MiB' --scaling strong --gflops 1000 \\
          --profile azure-hpc,gcp-hpc,daint --nodes 16..1024 --deadline 100ms --json
      cloudnoise advise dissemination:16B --pricing prices.csv --billing exact --sweep adv/
      cloudnoise advise lammps-melt-4/ --scaling strong --nodes 4..1024 --profile aws-hpc-metal,azure-hpc,gcp-hpc
      cloudnoise advise --sweep fig14/     # advice from a finished `cloudnoise sweep`
    """
    run_command(opts)


def run_command(opts: dict[str, Any]) -> None:
    """Parses the options into an AdviseRequest, runs it and prints the Advice."""
    from cloudnoise.costs.price_book import price_book
    from cloudnoise.sweep.store import SweepStore

    one_of_json_csv(opts["as_json"], opts["as_csv"])
    if opts["in_process"] and (opts["workers"] or opts["scheduler"]):
        raise CloudnoiseError("--in-process runs without Dask: drop --workers/--scheduler")
    if opts["scheduler"] and opts["workers"]:
        raise CloudnoiseError("--workers sizes the local cluster; with --scheduler the cluster has its own workers")
    if opts["all_builtin"] and opts["profile"]:
        raise CloudnoiseError("give --profile A,B or --all, not both")
    book = price_book(opts["pricing"], opts["prices"], opts["billing"])
    old = SweepStore(opts["sweep_dir"]).read_meta() if opts["sweep_dir"] is not None else None

    # A trace's converted schedule goes into the --sweep folder (a resumed advice
    # runs the same file), else into a temporary folder that lives as long as the run.
    scratch_dir = tempfile.TemporaryDirectory(prefix="cloudnoise-advise-") if opts["sweep_dir"] is None else None
    scratch = Path(scratch_dir.name) if scratch_dir is not None else opts["sweep_dir"] / "workload"
    with scratch_dir if scratch_dir is not None else contextlib.nullcontext():
        _advise(opts, book, old, scratch)


def _advise(opts: dict[str, Any], book: Any, old: dict[str, Any] | None, scratch: Path) -> None:
    from cloudnoise.advice.api import AdviseRequest, priced_builtin_systems, run_advice
    from cloudnoise.advice.workload import WorkloadOptions, resolve_workload, with_stored_compute, workload_of_sweep
    from cloudnoise.comma_lists import parse_scales
    from cloudnoise.console import Progress
    from cloudnoise.sweep.request import system_from
    from cloudnoise.units import parse_time_ps

    wopts = WorkloadOptions(opts["pattern"], opts["size"], opts["app"], opts["iterations"], opts["gflops"],
                            opts["scaling"], scratch=scratch, schedgen=opts["schedgen"])
    if not (opts["workload"] or opts["pattern"] or opts["app"]) and old is not None:
        workload = workload_of_sweep(old, wopts)
    else:
        workload = resolve_workload(opts["workload"], with_stored_compute(opts["workload"], wopts, old))

    if opts["profile"]:
        systems = tuple(system_from(n) for n in profile_names(opts["profile"]))
    elif opts["all_builtin"]:
        from cloudnoise.profiles.registry import builtin_names

        systems = tuple(system_from(n) for n in builtin_names())
    elif old is not None:
        systems = tuple(system_from((old.get("profiles", {}).get(n) or {}).get("source", n)) for n in old["systems"])
    else:
        systems = priced_builtin_systems(book)

    if opts["nodes"]:
        nodes = tuple(parse_scales(opts["nodes"], "--nodes"))
    elif workload.fixed_nodes is not None:
        nodes = (workload.fixed_nodes,)
    elif old is not None:
        nodes = tuple(int(n) for n in old["nodes"])
    elif workload.default_nodes is not None:
        nodes = (workload.default_nodes,)
    else:
        nodes = DEFAULT_NODES

    deadline_ns = None
    if opts["deadline"] is not None:
        deadline_ns = parse_time_ps(opts["deadline"], "--deadline", default_unit="ns") / 1000
    request = AdviseRequest(
        workload=workload,
        systems=systems,
        nodes=nodes,
        reps=opts["reps"] or (int(old["reps"]) if old is not None else DEFAULT_REPS),
        seed=opts["seed"] if opts["seed"] is not None else (int(old["seed"]) if old is not None else 0),
        noise=opts["noise"],
        ready_order=opts["ready_order"] or (old["ready_order"] if old is not None else "program"),
        prices=book,
        deadline_ns=deadline_ns,
        budget_usd=None if opts["budget"] is None else parse_usd(opts["budget"]),
        confidence=opts["confidence"],
        gflops=opts["gflops"] if old is None or opts["gflops"] is not None else (old.get("experiment") or {}).get("gflops"),
    )
    quiet = opts["quiet"] or opts["as_json"] or opts["as_csv"]
    with Progress("advise: simulating", quiet=quiet) as bar:
        advice = run_advice(request, opts["sweep_dir"], in_process=opts["in_process"], scheduler=opts["scheduler"],
                            workers=opts["workers"] or available_cores(), progress=bar)
    if opts["as_json"]:
        click.echo(json.dumps(advice.to_dict(), allow_nan=False))
        return
    from cloudnoise.advice.table import print_advice, print_csv

    if opts["as_csv"]:
        print_csv(advice, opts["which"])
        return
    print_advice(advice, opts["which"])
