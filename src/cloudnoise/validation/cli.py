"""`cloudnoise validate`: the command only (options parsed, the stage's API
`validation/api.py` called, the result printed).

The work is the stage's: runs on this machine (`local_run.py`, a GOAL file,
--pattern or --app per rank count), the built-in suite (`suite.py`), runs
measured elsewhere (`measured.py`, --measured DIR) and recorded traces
(`trace.py`, --trace DIR); each compares measured and simulated runtimes with
`compare.py` (the paper's Sec. V-A and Fig. 13).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from cloudnoise.options import quiet_option, schedgen_option
from cloudnoise.simulation import app_cli
from cloudnoise.simulation.cli import loggops_options


@click.command("validate")
@click.argument("goal_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--pattern", metavar="NAME", help="Validate a generated collective (see `cloudnoise schedule list`).")
@click.option("--size", metavar="SIZE", help="Bytes per step of the collective: 16B, 16MiB.")
@click.option("--nway", type=click.IntRange(min=1), default=1, show_default=True, help="Fan-out of nwaydissemination.")
@click.option("--segmentsize", metavar="SIZE", default="1", show_default=True, help="Segment of the pipelined rings, or size/ranks for one segment per rank (the paper's rings).")
@click.option("--nb", metavar="T", help="Non-blocking variant: every rank starts with an independent calc of T.")
@schedgen_option()
@app_cli.app_options
@click.option("--ranks", metavar="LIST", help="Rank counts to validate, comma-separated: 2,4,8 (pattern/app).")
@click.option("--measured", "measured_dir", metavar="DIR", type=click.Path(path_type=Path), help="Compare collective runs measured elsewhere (a folder of the paper artifact's PATTERN[_nocompute][_nbsend|_test]_NODES_SIZE.csv files, a run's .tar.xz, or a folder of them) with their simulation; nothing is launched. --reps is then the simulated repetitions.")
@click.option("--suite", is_flag=True, help="Run the built-in suite (9 collectives, 16 B to 16 MiB; `--ranks` default 2) as one table with the median and worst |error|.")
@click.option("--reps", type=click.IntRange(min=1), help="Measured (and simulated) repetitions per configuration.  [default: 1000; 300 with --suite]")
@click.option("--warmup", default=20, show_default=True, type=click.IntRange(min=0), help="Executed repetitions discarded before measuring.")
@click.option("--rep-gap", metavar="TIME", help="Pace the repetitions: start each one TIME after the previous one's usual end (the 90th percentile of the last block's runtimes), as a loop of back-to-back collectives would, instead of from a start broadcast ~60 us ahead. A plain number is ns: 2000, 2us. [default: off]")
@click.option("--profile", metavar="NAME|FILE", help="System profile measured on this cluster (`cloudnoise model build`); required unless --L/--o/... are given.")
@loggops_options
@click.option("--noise", "variants", metavar="LIST", help="Simulated noise variants, comma-separated: none,os,network,both (default: both when the profile has noise). The first is reported at top level.")
@click.option("--ready-order", type=click.Choice(["program", "loggopsim"]), default="program", show_default=True, help="Simulator's order of ops that become ready together; the executor posts in program order.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Seed of the simulated noise.")
@click.option("--mpicc", help="MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel).")
@click.option("--mpiexec", help="MPI launcher binary (default: next to mpicc).")
@click.option("--launcher", default="mpiexec", show_default=True, help="mpiexec, srun, or a template like 'mpirun -np {ranks} {cmd}'.")
@click.option("--hosts", help="Comma-separated hosts.")
@click.option("--hostfile", type=click.Path(dir_okay=False), help="Hostfile for the launcher.")
@click.option("--ppn", type=int, help="Processes per node.")
@click.option("--timeout", metavar="DURATION", help="Stop a launch after this long: seconds, or 30m, 2h (default: from the simulated runtime).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), help="Directory for measured.parquet, simulated.parquet, summary.json, figures and raw files.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (`results`: one row per configuration).")
@quiet_option("No progress bar on stderr (it shows the configuration running and the time left; errors still print).")
@click.option("--trace", "trace_dir", metavar="DIR", type=click.Path(path_type=Path), help="Compare a recorded trace's runtime (first MPI_Init exit to last MPI_Finalize entry) with its simulation; nothing is launched.")
@click.option("--algorithms", metavar="SPEC", default="mpich", show_default=True, help="With --trace: collective algorithms (see `cloudnoise trace convert --help`).")
@click.option("--compute-scale", type=float, default=1.0, show_default=True, metavar="FACTOR", help="With --trace: multiply the compute between MPI calls by FACTOR.")
@click.option("--extrapolate-from", "extrapolate_from", metavar="DIR", type=click.Path(path_type=Path), help="With --trace: simulate DIR, the same application traced on fewer ranks, extrapolated to --trace's rank count (--scaling, --grid), against --trace's recorded runtime and its messages, peers and bytes per rank.")
@click.option("--grid", metavar="AxBxC", help="With --extrapolate-from: the extrapolated grid's layout (its product must be --trace's rank count).")
@click.option("--inject-crash", type=int, hidden=True, help="Tests: this rank aborts in the first measured repetition.")
def validate(goal_file: Path | None, **opts: Any) -> None:
    """Run GOAL_FILE (or a generated --pattern, or an --app) on real MPI
    ranks and compare the measured runtimes with the LogGOPS simulation of
    the same schedule under --profile (noise included).

    Every configuration is first simulated: a schedule that cannot complete
    is reported (exit 3) before anything runs. Ranks that die or hang end
    the run with a one-line error (exit 4). With --measured DIR nothing is
    launched: collective runs measured elsewhere (the paper artifact's
    per-rank CSVs) are compared with the simulation of the schedule each ran.

    \b
    Examples:
      cloudnoise validate --pattern dissemination --size 16B --ranks 2,4,8 --profile here.json
      cloudnoise validate --pattern allreduce_ring --size 16MiB --ranks 2 --reps 200 --profile here.json
      cloudnoise validate examples/dissemination_16.goal --profile here.json --json --out val/
      cloudnoise validate --trace jac --profile here.json --reps 20
      cloudnoise validate --suite --profile here.json
      cloudnoise validate --suite --profile here.json --rep-gap 1us
      cloudnoise validate --measured daint__collectives/2022_03_30_00_54_29.tar.xz --profile daint --noise none
    """
    from cloudnoise.validation import api

    result = api.run(goal_file, opts)
    if opts["as_json"]:
        json.dump(result.summary, sys.stdout, default=str)
        sys.stdout.write("\n")
    elif result.kind == "measured":
        from cloudnoise.validation import measured

        measured.print_table(result.summary)
    elif result.kind == "suite":
        from cloudnoise.validation import suite

        suite.print_suite(result.summary)
    elif result.kind == "trace":
        print_trace_table(result.summary)
    else:
        print_table(result.summary)


def print_trace_table(result: dict[str, Any]) -> None:
    from cloudnoise.console import stdout_console
    from rich.table import Table

    from cloudnoise.units import format_time_ps

    f = lambda ns: format_time_ps(float(ns) * 1000)  # noqa: E731
    console = stdout_console()
    table = Table(title=f"{result['source']}: recorded vs simulated runtime, {result['reps']} simulated repetitions")
    for col in ("noise", "recorded", "simulated median", "error"):
        table.add_column(col, justify="right", no_wrap=True)
    for name, row in result["variants"].items():
        err = row["signed_error_median"]
        table.add_row(name, f(result["recorded_runtime_ns"]), f(row["simulated_median_ns"]),
                      "" if err is None else f"{err:+.1%}")
    console.print(table)
    sp = result.get("split")
    if sp is not None:
        console.print(
            f"rank {sp['rank']} (last to finish): compute {f(sp['compute_ns'])} replayed as recorded; "
            f"time in MPI recorded {f(sp['recorded_mpi_ns'])}, simulated communication {f(sp['simulated_communication_ns'])}"
        )
    if result.get("extrapolated_from"):
        console.print(f"simulated: {result['extrapolated_from']} {result['extrapolation']}")
        st = Table(title="per rank: recorded vs extrapolated (median over the ranks, their range in brackets)")
        for col in ("", "recorded", "extrapolated", "error"):
            st.add_column(col, justify="right", no_wrap=True)
        for name, c in result["structure"].items():
            st.add_row(name, f"{c['recorded']:,.0f} [{c['recorded_range'][0]:,.0f}-{c['recorded_range'][1]:,.0f}]",
                       f"{c['extrapolated']:,.0f} [{c['extrapolated_range'][0]:,.0f}-{c['extrapolated_range'][1]:,.0f}]",
                       f"{c['error']:+.1%}")
        console.print(st)
    for w in result["conversion"]["warnings"]:
        console.print(f"[yellow]warning:[/] {w}")


def print_table(result: dict[str, Any]) -> None:
    """The comparison as a rich table, warnings below it."""
    from cloudnoise.console import stdout_console
    from rich.table import Table

    console = stdout_console()
    table = Table(title=f"{result['source']}: measured vs simulated ({result['noise']} noise), "
                        f"{result['reps']} repetitions, times in us")
    for col in ("ranks", "meas. median", "95% CI", "sim. median", "95% CI", "error",
                "meas. mean", "sim. mean", "error"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in result["results"]:
        ci = lambda pair: f"{pair[0]:.4g}-{pair[1]:.4g}"  # noqa: E731
        bad = r["relative_error_median"] > result["paper_bound"]
        table.add_row(
            str(r["ranks"]) + (" (oversubscribed)" if r["oversubscribed"] else ""),
            f"{r['measured_median_us']:.4g}", ci(r["measured_median_ci_us"]),
            f"{r['simulated_median_us']:.4g}", ci(r["simulated_median_ci_us"]),
            f"[{'red' if bad else 'green'}]{r['signed_error_median']:+.1%}[/]",
            f"{r['measured_mean_us']:.4g}", f"{r['simulated_mean_us']:.4g}", f"{r['signed_error_mean']:+.1%}",
        )
    console.print(table)
    for w in result["warnings"]:
        console.print(f"[yellow]warning:[/] {w}")
    for r in result["results"]:
        for n in r["notes"]:
            if "oversubscribed" not in n and "more ranks than cores" not in n:
                console.print(f"[dim]{r['ranks']} ranks: {n}[/]")
    if result.get("out"):
        console.print(f"Measured and simulated repetitions, summary and figures in {result['out']}")
