"""`cloudnoise demo`: measure this machine, model it, simulate it beside the
paper's systems at scale, price it, and write the report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from cloudnoise.console import Progress, stderr_console, stdout_console
from cloudnoise.cores import available_cores
from cloudnoise.errors import EXIT_INTERRUPTED, CloudnoiseError
from cloudnoise.measurement.placement import ONE_HOST, TWO_NODES_HINT
from cloudnoise.options import json_option, out_option, quiet_option, seed_option


# The console gets the headline; the report has every observation.
MAX_OBSERVATIONS_SHOWN = 8


@click.command("demo")
@click.option("--quick", is_flag=True, help="Under a minute: brief measurements, up to 1024 nodes, few repetitions.")
@out_option(dir_okay=True, file_okay=False, default=Path("cloudnoise-demo"), show_default=True,
            help="Folder for everything (report.html, figures/, campaign/, profile/, sweeps/).")
@click.option("--no-measure", is_flag=True, help="Skip measuring this machine (no MPI needed): built-in systems only.")
@click.option("--workers", type=click.IntRange(min=1), help="Dask worker processes for the sweeps [default: CPU count].")
@click.option("--in-process", is_flag=True, help="Run the sweeps in this process instead of a local Dask cluster.")
@click.option("--mpicc", help="MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel).")
@click.option("--mpiexec", help="MPI launcher binary (default: next to mpicc).")
@click.option("--launcher", default="mpiexec", show_default=True, help="mpiexec, srun, or a template like 'mpirun -np {ranks} {cmd}'.")
@seed_option("Seed of the simulations' random draws: the same seed gives the same report bit for bit.")
@json_option("Print one JSON object (paths, this machine's figures, observations).")
@quiet_option("No stage lines or progress bars; only the outcome (errors still print).")
def demo(quick: bool, out: Path, no_measure: bool, workers: int | None, in_process: bool, mpicc: str | None,
         mpiexec: str | None, launcher: str, seed: int, as_json: bool, quiet: bool) -> None:
    """The whole pipeline on this machine, end to end:

    \b
    1. measure this machine with MPI probes (2 ranks): latency and bandwidth
       versus size, latency and bandwidth noise, OS noise, LogGP parameters;
    2. model it: a system profile like the built-in ones;
    3. simulate it beside the paper's cloud HPC instances and supercomputers
       at scale (16 B dissemination, Fig. 14; 128x128 GEMM + 128 KiB
       dissemination, Fig. 16), without noise and with OS, network and both;
    4. price every run (on-demand, billed as each provider bills, the rule
       of `advise` and `cost`) and the cost of noise;
    5. write OUT/report.html (figures also as PNG and PDF) and say where.

    The default takes about five minutes on a 2-core machine and simulates up
    to 16384 nodes; --quick takes under a minute. Running it again with the
    same --out keeps what was measured and simulated, and finishes what an
    interrupted run left.
    """
    from cloudnoise.demo.pipeline import DemoResult, MpiChoice, measure_and_model, simulate_at_scale, write_report
    from cloudnoise.demo.plan import full_plan, quick_plan

    plan = quick_plan() if quick else full_plan()
    console = stderr_console() if as_json else stdout_console()
    say = console.print if not as_json else (lambda text: console.print(text, style="dim"))
    if quiet:
        say = lambda text: None  # noqa: E731 - the outcome still prints
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CloudnoiseError(f"--out {out}: cannot create it ({err.strerror or err}); choose another folder") from None
    result = DemoResult(out=out)
    t0 = time.perf_counter()
    try:
        if not no_measure:
            measure_and_model(plan, out, MpiChoice(mpicc, mpiexec, launcher), say, result)
        simulate_at_scale(plan, out, result, say, workers or available_cores(), in_process,
                          lambda what: Progress(f"  {what}", quiet=as_json or quiet), seed=seed)
        write_report(plan, out, result, say)
    except KeyboardInterrupt:
        from cloudnoise.demo.pipeline import kept_after_interrupt

        kept = kept_after_interrupt(out)
        if kept is None:
            raise CloudnoiseError("interrupted before anything was measured or simulated", EXIT_INTERRUPTED) from None
        raise CloudnoiseError(f"interrupted; kept in {out}: {kept}; run the same command again to finish it",
                              EXIT_INTERRUPTED) from None
    result.seconds["total"] = time.perf_counter() - t0
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    print_outcome(console, result)


def print_outcome(console: Console, result: Any) -> None:
    """What was measured, what the report says, and where it is."""
    m = result.machine
    if m:
        parts = []
        if "min_latency_us" in m:
            parts.append(f"latency min {m['min_latency_us']:.3g} us, mean {m.get('mean_latency_us', float('nan')):.3g} us")
        if "max_bandwidth_gbps" in m:
            parts.append(f"bandwidth max {m['max_bandwidth_gbps']:.4g} Gb/s")
        console.print("[bold]this machine[/]: " + "; ".join(parts))
        if m.get("placement") == ONE_HOST:
            console.print(f"  [yellow]measured on {ONE_HOST}[/]: its noise is this machine's, not a cloud's; {TWO_NODES_HINT}")
    shown = result.observations[:MAX_OBSERVATIONS_SHOWN]
    for text in shown:
        console.print(f"  - {text}")
    if len(result.observations) > len(shown):
        console.print(f"  ({len(result.observations) - len(shown)} more observations in the report)")
    console.print(f"[bold]report[/]: {result.report.resolve()}  ({result.figures} figures, also as PNG and PDF in "
                  f"{(result.out / 'figures').resolve()})")
    console.print(f"[dim]done in {result.seconds['total']:.0f} s[/]")
