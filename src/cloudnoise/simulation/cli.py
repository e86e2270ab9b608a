"""`cloudnoise simulate`: a schedule through the LogGOPS engine, with or
without noise, once or as a reproducible Monte Carlo run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np
from rich.table import Table

from cloudnoise.console import Progress, stdout_console, write_csv
from cloudnoise.errors import CloudnoiseError
from cloudnoise.options import (
    csv_option,
    json_option,
    one_of_json_csv,
    out_option,
    profile_option,
    quiet_option,
    schedgen_option,
    seed_option,
    threads_option,
)
from cloudnoise.simulation import app_cli
from cloudnoise.simulation.api import VARIANTS
from cloudnoise.simulation.setup import parse_variants, resolve_setup  # noqa: F401  (the commands' option dicts)
from cloudnoise.simulation.result import SimulationResult
from cloudnoise.simulation.api import simulate as run_simulation
from cloudnoise.simulation.inputs import ScheduleInput, schedule_input
from cloudnoise.simulation.params import DEFAULTS, LogGOPS
from cloudnoise.simulation.statistics import summarize

if TYPE_CHECKING:
    from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.units import format_time_ps

PARAM_HELP = {
    "L": "latency L (ns, or with a unit: 2.5us)",
    "o": "CPU overhead o per message (ns or unit)",
    "g": "gap g between messages (ns or unit)",
    "G": "gap per byte G (ns/byte, 80ps, or a bandwidth: 100Gbit/s)",
    "O": "CPU overhead per byte O (ns/byte or unit); given here it applies to every size, above S too",
    "S": "eager/rendezvous threshold S in bytes (eager when size <= S)",
}


def loggops_options(func):  # type: ignore[no-untyped-def]
    """Adds --L --o --g --G --O --S (LogGOPSim's names and defaults)."""
    for name in reversed(list(PARAM_HELP)):
        func = click.option(
            f"--{name}",
            f"{name}_",
            default=None,
            metavar="VALUE",
            help=f"{PARAM_HELP[name]}  [default: {DEFAULTS[name]}, or the profile's]",
        )(func)
    return func


def noise_options(func):  # type: ignore[no-untyped-def]
    """Adds the noise sources and the Monte Carlo controls."""
    options = [
        profile_option(help="System profile: LogGOPS parameters and noise models (see `cloudnoise profiles list`)."),
        click.option("--placement", type=click.Choice(["same-rack", "different-racks"]),
                     help="With --profile: its nodes on the same rack or on different racks (Table II's two blocks) "
                     "[default: the profile as written: same rack for the built-ins, as in the paper]."),
        click.option("--os-noise", metavar="FILE|SPEC", help="OS noise: a selfish-detour trace (start<TAB>duration ns) or periodic:frequency=HZ,duration=T / random:rate=PER_S,duration=DIST."),
        click.option("--os-noise-cosched", is_flag=True, help="All ranks read the OS noise trace from one offset (co-scheduled noise)."),
        click.option("--os-noise-phase", metavar="TIME", help="Every rank reads the OS noise trace from this offset (e.g. 0, 2.5ms) instead of a random one."),
        click.option("--latency-noise", metavar="FILE|SPEC", help="Per-message latency excess over L: samples file or spec, e.g. lognormal:median=800ns,sigma=0.7."),
        click.option("--bandwidth-noise", metavar="FILE|SPEC", help="Per-message bandwidth as a fraction of peak: samples file or spec, e.g. uniform:low=0.8,high=1."),
        click.option("--bandwidth-episodes", metavar="SPEC|none", help="Bandwidth drops that persist in time, per sending node, e.g. rate=0.005,duration=uniform(low=0,high=600ms),fraction=0.8 (starts per second, how long, fraction of peak); none: without the profile's."),
        click.option("--noise", "variants", metavar="LIST", help="Variants to run, comma-separated: none,os,network,both [default: none plus all the noise given, so the noiseless baseline is shown beside it; none without noise]."),
        click.option(
            "--ready-order",
            type=click.Choice(["program", "loggopsim"]),
            default="program",
            show_default=True,
            help="Order of ops that become ready together: program order (MPI's posting order; completes every "
            "correct schedule), or LogGOPSim's exactly (its unstable sort posts receives out of program order "
            "past 16 ready ops, and deadlocks Schedgen's allreduce_ring beyond a few ranks).",
        ),
        click.option("--reps", default=1, show_default=True, type=click.IntRange(min=1), help="Repetitions per variant."),
        seed_option("Seed of every random draw; repetition r depends only on (seed, r)."),
        threads_option(),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def output_options(func):  # type: ignore[no-untyped-def]
    """Adds --out, --json, --csv and --quiet (simulate's outputs)."""
    options = [
        out_option(help="Write every repetition's result: a .parquet or .csv file."),
        json_option("Print one JSON object instead of a summary."),
        csv_option("Print the per-variant statistics as CSV."),
        quiet_option(),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def timeline_options(func):  # type: ignore[no-untyped-def]
    """Adds --timeline and what it takes: which repetitions, ranks and time window."""
    options = [
        click.option("--timeline", "timeline", metavar="FILE.json", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write a timeline of the repetitions --timeline-rep names in the Chrome Trace Event format "
                     "(open it in Perfetto, ui.perfetto.dev, or chrome://tracing): each rank a process with CPU and "
                     "NIC threads, every operation with its LogGOPS parts, messages as flows, OS detours and stalls, "
                     "the critical path marked."),
        click.option("--timeline-rep", "timeline_rep", metavar="LIST", default="median", show_default=True,
                     help="With --timeline: the repetitions drawn, a comma list of median, p99 (the repetition at "
                     "that rank among the runtimes) or repetition numbers."),
        click.option("--timeline-ranks", "timeline_ranks", metavar="LIST", default="0-63", show_default=True,
                     help="With --timeline: the ranks drawn, a comma list of ranks and ranges (0-63,1000); "
                     "all: every rank."),
        click.option("--timeline-window", "timeline_window", metavar="START:END",
                     help="With --timeline: only what overlaps this stretch of simulated time (ns, or with a "
                     "unit: 0:50us); an end left out is the end of the run [default: the whole run]."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def pattern_options(func):  # type: ignore[no-untyped-def]
    """Adds --pattern and its arguments (Schedgen's names)."""
    options = [
        click.option("--pattern", metavar="NAME", help="Generate a collective instead of reading a file (see `cloudnoise schedule list`)."),
        click.option("--ranks", type=click.IntRange(min=1), help="Ranks of the generated collective."),
        click.option("--size", metavar="SIZE", help="Bytes per step of the collective: 16B, 128KiB, 16MiB."),
        click.option("--nway", type=click.IntRange(min=1), default=1, show_default=True, help="Fan-out of nwaydissemination."),
        click.option("--segmentsize", metavar="SIZE", default="1", show_default=True,
                     help="Segment of the pipelined rings, or size/ranks for one segment per rank (the paper's rings)."),
        click.option("--nb", metavar="T", help="Non-blocking variant: every rank starts with an independent calc of T."),
        schedgen_option(),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def trace_options(func):  # type: ignore[no-untyped-def]
    """Adds --trace and the conversion options (see `cloudnoise trace convert`)."""
    from cloudnoise.trace.cli import conversion_options

    from cloudnoise.trace.cli import GRID_HELP

    func = conversion_options(func)
    func = click.option("--grid", metavar="AxBxC", help="With --trace --ranks: " + GRID_HELP)(func)
    return click.option(
        "--trace", "trace_dir", metavar="DIR", type=click.Path(path_type=Path),
        help="Simulate a recorded MPI trace (`cloudnoise trace record`, liballprof or OTF2); with --ranks N, "
        "extrapolated to N ranks (a regular SPMD trace; see `cloudnoise trace extrapolate`).",
    )(func)


def run_options(func):  # type: ignore[no-untyped-def]
    """Adds what says what runs (besides GOAL_FILE): pattern, app, trace, LogGOPS and noise options."""
    for options in (noise_options, loggops_options, trace_options, app_cli.app_options, pattern_options):
        func = options(func)
    return func


@click.command("simulate")
@click.argument("goal_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@run_options
@output_options
@timeline_options
def simulate(goal_file: Path | None, **opts: Any) -> None:
    """Simulate GOAL_FILE (LogGOPSim's GOAL text, optionally .gz), or a
    collective generated in the engine (--pattern NAME --ranks P --size SIZE),
    or an application of compute and collective phases (--app SPEC|FILE
    --ranks P --iterations K; see docs/how-to/applications.md), with LogGOPS.

    Without noise, reproduces LogGOPSim exactly (same event order, same
    end-time definition) in picoseconds. With noise (--os-noise,
    --latency-noise, --bandwidth-noise or a --profile), every message draws
    its latency and bandwidth and every CPU activity is charged the OS
    detours it meets; --reps repeats the run and --noise compares variants.

    Exit status 2 for malformed input, 3 for a schedule that cannot complete.

    \b
    Examples:
      cloudnoise simulate examples/dissemination_16.goal --L 2.5us --G 100Gbit/s
      cloudnoise simulate --pattern allreduce_ring --ranks 1024 --size 16MiB
      cloudnoise simulate examples/dissemination_16.goal --profile aws-hpc-metal \\
          --noise none,os,network,both --reps 1000 --threads 2 --out runs.parquet
      cloudnoise simulate --app "gemm:128 + dissemination:128KiB" --iterations 10 --ranks 1024
      cloudnoise simulate --trace jac --ranks 16384 --profile aws-hpc --noise none,both --reps 20
      cloudnoise simulate --trace lammps-melt-4 --ranks 1024 --scaling strong --profile aws-hpc-metal --reps 100
    """
    run_and_report(goal_file, opts)


def run_and_report(goal_file: Path | None, opts: dict[str, Any]) -> None:
    """Resolve the workload, parameters and noise, run every variant, print and save the results."""
    one_of_json_csv(opts["as_json"], opts["as_csv"])
    if opts.get("out") is not None:
        from cloudnoise.simulation.repetitions_file import check_out

        check_out(opts["out"])  # before the simulation, not after it
    params, noise = resolve_setup(opts)
    variants, primary = parse_variants(opts.get("variants"), noise)
    reps = opts["reps"]
    quiet = opts["as_json"] or opts["as_csv"] or opts["quiet"]
    total = reps * len(variants)
    workload = resolve_workload(goal_file, opts)
    timeline = timeline_request(opts, workload.schedule.num_ranks, reps)  # checked before the run
    with Progress("simulate", quiet=quiet or reps == 1) as progress:
        result = run_simulation(
            workload, params=params, noise=noise, variant=[primary] + [v for v in variants if v != primary],
            reps=reps, seed=opts["seed"], threads=opts["threads"], ready_order=opts["ready_order"],
            progress=None if progress.quiet else (lambda done: progress.update(done, total, f"{done:,} of {total:,} repetitions")),
        )
    ran = result.by_variant()
    results = {v: ran[v] for v in variants}  # shown in the order asked (the baseline first)
    if opts.get("out"):
        from cloudnoise.simulation.repetitions_file import write_repetitions  # pyarrow, only when asked

        write_repetitions(opts["out"], results)
    if opts["as_json"]:
        print_json(result.to_dict(), opts)
    elif opts["as_csv"]:
        write_statistics_csv(results)
    else:
        print_summary(results, noise, primary, opts.get("profile"), opts.get("out"))
        used = opts.get("profile_used")
        if used:
            kinds = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in used["provenance"].items())
            stdout_console().print(f"profile {used['name']} ({used['placement']}): {kinds}")
    if timeline is not None:
        write_timeline(opts, timeline, workload, params, noise, primary, ran[primary].runtime_ns)


def print_json(data: dict[str, Any], opts: dict[str, Any]) -> None:
    """--json: the result, and the profile it used (what it brought, with provenance)."""
    if opts.get("profile_used"):
        data["profile"] = opts["profile_used"]
    json.dump(data, sys.stdout)
    sys.stdout.write("\n")


def resolve_workload(goal_file: Path | None, opts: dict[str, Any]) -> ScheduleInput:
    """The schedule the options name (a GOAL file, a pattern, an app or a trace)."""
    return schedule_input(
        goal_file,
        pattern=opts.get("pattern"), ranks=opts.get("ranks"), size=opts.get("size"), nway=opts["nway"],
        segmentsize=opts["segmentsize"], nb=opts.get("nb"), schedgen=opts.get("schedgen"),
        app=opts.get("app"), iterations=opts.get("iterations"), gflops=opts.get("gflops"),
        rate=opts.get("compute_rate") if opts.get("gflops") is None else None,
        trace=opts.get("trace_dir"), algorithms=opts.get("algorithms"), compute_scale=opts.get("compute_scale"),
        allow_unsupported=bool(opts.get("allow_unsupported")), scaling=opts.get("scaling"), grid=opts.get("grid"),
    )


def timeline_request(opts: dict[str, Any], ranks: int, reps: int) -> Any:
    """--timeline's repetitions, ranks and window, checked against the run before it runs (None: no timeline)."""
    if opts.get("timeline") is None:
        for name in ("timeline_window",):
            if opts.get(name):
                raise CloudnoiseError(f"--{name.replace('_', '-')} goes with --timeline FILE.json")
        return None
    if Path(opts["timeline"]).suffix.lower() != ".json":
        raise CloudnoiseError(f"--timeline {opts['timeline']}: the Chrome Trace Event format is a .json file")
    from cloudnoise.explanation.timeline import request

    return request(opts["timeline_rep"], opts["timeline_ranks"], opts.get("timeline_window"), ranks, reps)


def write_timeline(opts: dict[str, Any], wanted: Any, workload: ScheduleInput, params: LogGOPS, noise: NoiseSetup,
                   variant: str, runtime_ns: np.ndarray) -> None:
    """Runs the repetitions --timeline-rep names again and writes their timeline (explanation.timeline)."""
    from cloudnoise.explanation.timeline import record_all
    from cloudnoise.explanation.timeline_chrome import write_chrome_trace

    timelines = record_all(workload.schedule, params, noise, variant, opts["seed"], runtime_ns, wanted,
                           ready_order=opts["ready_order"])
    size = write_chrome_trace(opts["timeline"], timelines, workload.schedule.num_ranks,
                              {"source": workload.source, "params_ns": params.as_ns(), "seed": opts["seed"]})
    if not (opts["as_json"] or opts["quiet"]):
        reps = ", ".join(str(t.repetition) for t in timelines)
        print(f"Timeline of repetition {reps} ({variant}) written to {opts['timeline']} ({size:,} bytes)",
              file=sys.stderr)


STAT_COLUMNS = ("n", "median", "median_ci_low", "median_ci_high", "q1", "q3", "mean", "min", "max")


def write_statistics_csv(results: dict[str, SimulationResult]) -> None:
    """One CSV row per variant: runtime statistics in ns and the median's ratio to `none`."""
    base = summarize(results["none"].runtime_ns).median if "none" in results else None
    rows = []
    for name, r in results.items():
        s = summarize(np.asarray(r.runtime_ns, dtype=float)).to_dict(unit=None)
        rows.append([name, *(s[c] for c in STAT_COLUMNS), s["median"] / base if base else None])
    write_csv(["variant", "reps", *(f"{c}_ns" for c in STAT_COLUMNS[1:]), "median_vs_none"], rows)


def _what_ran(results: dict[str, SimulationResult], noise: NoiseSetup, primary: str, profile: str | None) -> str:
    """One line saying which noise each variant carried."""
    meaning = {
        "none": "no noise",
        "os": "OS noise only",
        "network": "network (latency and bandwidth) noise only",
        "both": "all the noise given" + (" (OS and network)" if noise.has_os and noise.has_network else ""),
    }
    source = f" of {profile}" if profile and primary != "none" else ""
    parts = [f"{v}: {meaning[v]}{source if v != 'none' else ''}" for v in results]
    return "Variants: " + "; ".join(parts) + (f" (primary: {primary})" if len(results) > 1 else "")


def _unit_for(ns: float) -> tuple[str, float]:
    """A display unit for times around `ns` nanoseconds, and its size in ns."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return unit, scale
    return "ns", 1.0


def print_summary(
    results: dict[str, SimulationResult], noise: NoiseSetup, primary: str, profile: str | None, out: Path | None = None
) -> None:
    """A readable summary: the run, what noise each variant carried, then completion time per variant."""
    console = stdout_console()
    first = next(iter(results.values()))
    p = first.params.as_ns()
    console.print(
        f"[bold]{first.source or 'schedule'}[/]: {first.ranks} ranks, {first.events:,} events, "
        f"{first.messages:,} messages"
    )
    console.print("LogGOPS: " + ", ".join(f"{k}={v}" for k, v in p.items()) + " (ns, ns/byte, bytes)")
    for key, value in noise.describe().items():
        if value and key in ("os_noise", "latency_noise", "bandwidth_noise", "bandwidth_episodes"):
            console.print(f"{key.replace('_', ' ')}: {value}" + (" (co-scheduled)" if key == "os_noise" and noise.os_cosched else ""))
    console.print(_what_ran(results, noise, primary, profile))
    if first.reps == 1 and len(results) == 1:
        console.print(f"Completion time: [bold]{format_time_ps(float(first.runtime_ns[0]) * 1000)}[/] ({first.runtime_ns[0]} ns)")
    else:
        all_ns = np.concatenate([np.asarray(r.runtime_ns, dtype=float) for r in results.values()])
        unit, scale = _unit_for(float(np.median(all_ns)))
        table = Table(title=f"Completion time ({unit}), {first.reps} repetitions per variant (seed {first.seed})")
        for col in ("noise", "median", "95% CI", "q1", "q3", "mean", "max", "vs none"):
            table.add_column(col, justify="right", no_wrap=True)
        base = summarize(results["none"].runtime_ns).median if "none" in results else None
        for name, r in results.items():
            s = summarize(np.asarray(r.runtime_ns, dtype=float))
            f = lambda ns: f"{ns / scale:.4g}"  # noqa: E731
            table.add_row(
                name, f(s.median), f"{f(s.median_ci_low)}-{f(s.median_ci_high)}", f(s.q1), f(s.q3),
                f(s.mean), f(s.max), f"{s.median / base:.2f}x" if base else "",
            )
        console.print(table)
    for line in app_cli.summary_lines(results):
        console.print(line)
    info = first.extra.get("trace")
    if info is not None:
        if info.get("extrapolated"):
            console.print(f"[yellow]{info['extrapolated']}[/]")
        elif info.get("recorded_runtime_ns"):
            rec = info["recorded_runtime_ns"]
            sim = float(np.median(np.asarray(first.max_end_ns, dtype=float)))
            console.print(
                f"Recorded runtime {format_time_ps(rec * 1000)} (first MPI_Init exit to last MPI_Finalize entry); "
                f"simulated/recorded = {sim / rec:.3f}"
            )
        for w in info.get("warnings", []):
            console.print(f"[yellow]warning:[/] {w}")
    if first.ranks <= 16 and first.reps == 1 and len(results) == 1:
        table = Table(title="End time per rank")
        table.add_column("rank", justify="right")
        table.add_column("end (ns)", justify="right")
        for r, t in enumerate(first.host_end_ns):
            table.add_row(str(r), f"{t}")
        console.print(table)
    seconds = sum(r.engine_seconds for r in results.values())
    events = sum(r.events * r.reps for r in results.values())
    console.print(
        f"[dim]parse {first.parse_seconds:.3f} s, engine {seconds:.3f} s ({events / max(seconds, 1e-9) / 1e6:.1f} M events/s)[/]"
    )
    if out:
        console.print(f"Every repetition written to {out}")
