"""`cloudnoise simulate`: a schedule through the LogGOPS engine, with or
without noise, once or as a reproducible Monte Carlo run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulate import app_cli
from cloudnoise.simulate.api import VARIANTS, SimulationResult, simulate_variants
from cloudnoise.simulate.params import DEFAULTS, LogGOPS
from cloudnoise.simulate.progress import RepetitionProgress
from cloudnoise.simulate.statistics import summarize

if TYPE_CHECKING:
    from cloudnoise.simulate.noise import NoiseSetup
from cloudnoise.units import format_time_ps, parse_duration_ns, parse_size_bytes, parse_time_ps

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
        click.option("--profile", metavar="NAME|FILE", help="System profile: LogGOPS parameters and noise models (see `cloudnoise profiles list`)."),
        click.option("--os-noise", metavar="FILE|SPEC", help="OS noise: a selfish-detour trace (start<TAB>duration ns) or periodic:frequency=HZ,duration=T / random:rate=PER_S,duration=DIST."),
        click.option("--os-noise-cosched", is_flag=True, help="All ranks read the OS noise trace from one offset (co-scheduled noise)."),
        click.option("--os-noise-phase", metavar="TIME", help="Every rank reads the OS noise trace from this offset (e.g. 0, 2.5ms) instead of a random one."),
        click.option("--latency-noise", metavar="FILE|SPEC", help="Per-message latency excess over L: samples file or spec, e.g. lognormal:median=800ns,sigma=0.7."),
        click.option("--bandwidth-noise", metavar="FILE|SPEC", help="Per-message bandwidth as a fraction of peak: samples file or spec, e.g. uniform:low=0.8,high=1."),
        click.option("--noise", "variants", metavar="LIST", help="Variants to run, comma-separated: none,os,network,both (default: all noise given)."),
        click.option(
            "--ready-order",
            type=click.Choice(["loggopsim", "program"]),
            default="loggopsim",
            show_default=True,
            help="Order of ops that become ready together: LogGOPSim's exactly (its unstable sort posts receives "
            "out of program order past 16 ready ops), or program order (MPI's posting order).",
        ),
        click.option("--reps", default=1, show_default=True, type=click.IntRange(min=1), help="Repetitions per variant."),
        click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Seed of every random draw; repetition r depends only on (seed, r)."),
        click.option("--threads", default=1, show_default=True, type=click.IntRange(min=1), help="Threads running repetitions (results do not depend on it)."),
        click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write every repetition's result: FILE.parquet or FILE.csv (the suffix chooses; another is an error)."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a summary."),
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
        click.option("--segmentsize", metavar="SIZE", default="1", show_default=True, help="Segment of the pipelined rings."),
        click.option("--nb", metavar="T", help="Non-blocking variant: every rank starts with an independent calc of T."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("simulate")
@click.argument("goal_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@pattern_options
@app_cli.app_options
@loggops_options
@noise_options
def simulate(goal_file: Path | None, **opts: Any) -> None:
    """Simulate GOAL_FILE (LogGOPSim's GOAL text, optionally .gz), or a
    collective generated in the engine (--pattern NAME --ranks P --size SIZE),
    or an application of compute and collective phases (--app SPEC|FILE
    --ranks P --iterations K; see docs/applications.md), with LogGOPS.

    Without noise, reproduces LogGOPSim exactly (same event order, same
    end-time definition) in picoseconds. With noise (--os-noise,
    --latency-noise, --bandwidth-noise or a --profile), every message draws
    its latency and bandwidth and every CPU activity is charged the OS
    detours it meets; --reps repeats the run and --noise compares variants.

    Exit status 2 for malformed input, 3 for a schedule that cannot complete.

    \b
    Examples:
      cloudnoise simulate examples/dissemination_16.goal --L 2.5us --G 100Gbit/s
      cloudnoise simulate --pattern allreduce_ring --ranks 1024 --size 16MiB --ready-order program
      cloudnoise simulate examples/dissemination_16.goal --profile aws-hpc-metal \\
          --noise none,os,network,both --reps 1000 --threads 2 --out runs.parquet
      cloudnoise simulate --app "gemm:128 + dissemination:128KiB" --iterations 10 --ranks 1024
    """
    run_and_report(schedule_from(goal_file, opts), opts)


def schedule_from(goal_file: Path | None, opts: dict[str, Any]) -> Any:
    """The file to read, or the generated collective the options describe."""
    if opts.get("app") is not None:
        return app_cli.app_schedule(goal_file, opts)
    app_cli.check_no_app_options(opts)
    if opts.get("pattern") is None:
        if goal_file is None:
            raise CloudnoiseError("give a GOAL file, or --pattern NAME --ranks P --size SIZE")
        for name in ("ranks", "size", "nb"):
            if opts.get(name) is not None:
                raise CloudnoiseError(f"--{name} goes with --pattern; a GOAL file brings its own")
        return goal_file
    if goal_file is not None:
        raise CloudnoiseError("give either a GOAL file or --pattern, not both")
    if opts.get("ranks") is None or opts.get("size") is None:
        raise CloudnoiseError("--pattern needs --ranks P and --size SIZE")
    from cloudnoise.schedules.patterns import CollectiveSpec, generate

    spec = CollectiveSpec(
        pattern=opts["pattern"],
        ranks=opts["ranks"],
        size=parse_size_bytes(opts["size"], "--size"),
        nway=opts["nway"],
        segmentsize=parse_size_bytes(opts["segmentsize"], "--segmentsize"),
        nb=None if opts.get("nb") is None else parse_duration_ns(opts["nb"], "--nb"),
    )
    opts["source"] = f"{spec.pattern} ({spec.ranks} ranks, {spec.size} B)"
    return generate(spec)


def run_and_report(schedule: Any, opts: dict[str, Any]) -> None:
    """Shared by file and generated schedules: resolve parameters and noise,
    run every variant, print and save the results."""
    if opts.get("out"):
        from cloudnoise.simulate.results import check_out  # before any work: a bad --out fails at once

        check_out(opts["out"])
    params, noise = resolve_setup(opts)
    variants = parse_variants(opts.get("variants"), noise)
    reps = opts["reps"]
    with RepetitionProgress(reps * len(variants), enabled=not opts["as_json"] and reps > 1) as progress:
        results = simulate_variants(
            schedule,
            params=params,
            noise=noise,
            variants=variants,
            reps=reps,
            seed=opts["seed"],
            threads=opts["threads"],
            ready_order=opts["ready_order"],
            progress=progress.callback,
        )
    if opts.get("source"):
        for r in results.values():
            r.source = opts["source"]
    app_cli.attach(results, opts)
    if opts.get("out"):
        from cloudnoise.simulate.results import write_repetitions  # pyarrow, only when asked

        write_repetitions(opts["out"], results)
    if opts["as_json"]:
        json.dump(to_json(results, noise), sys.stdout)
        sys.stdout.write("\n")
    else:
        print_summary(results, noise, opts.get("out"))


def resolve_setup(opts: dict[str, Any]) -> tuple[LogGOPS, NoiseSetup]:
    """Parameters: the profile's (or LogGOPSim's defaults), then explicit
    flags. Noise: the profile's, then explicit flags replace its parts."""
    # Imported here: the noise models need scipy, which a plain run does without.
    from cloudnoise.simulate.noise import NoiseSetup, load_distribution, load_os_noise, noise_from_profile

    overrides = {k: opts.get(f"{k}_") for k in PARAM_HELP}
    seed = opts["seed"]
    if opts.get("profile"):
        from cloudnoise.profiles.registry import resolve_profile

        profile = resolve_profile(opts["profile"])
        params = LogGOPS.from_profile(profile).with_overrides(**overrides)
        noise = noise_from_profile(profile, seed)
    else:
        params = LogGOPS.parse(**{k: v if v is not None else DEFAULTS[k] for k, v in overrides.items()})
        noise = NoiseSetup()
    if opts.get("os_noise"):
        noise.os_trace = load_os_noise(opts["os_noise"], seed)
        noise.os_source = opts["os_noise"]
    noise.os_cosched = bool(opts.get("os_noise_cosched"))
    if opts.get("os_noise_phase") is not None:
        noise.os_phase_ns = parse_time_ps(opts["os_noise_phase"], "--os-noise-phase") // 1000
    if opts.get("latency_noise"):
        noise.latency = load_distribution(opts["latency_noise"], "--latency-noise")
        noise.latency_source = opts["latency_noise"]
    if opts.get("bandwidth_noise"):
        noise.bandwidth = load_distribution(opts["bandwidth_noise"], "--bandwidth-noise")
        noise.bandwidth_source = opts["bandwidth_noise"]
    return params, noise


def parse_variants(text: str | None, noise: NoiseSetup) -> list[str]:
    if not text:
        return noise.default_variants()
    variants = [v.strip() for v in text.split(",") if v.strip()]
    if not variants:
        raise CloudnoiseError(f"--noise: no variant in {text!r} (choose from {', '.join(VARIANTS)})")
    noise.check_variants(variants)
    return list(dict.fromkeys(variants))


def to_json(results: dict[str, SimulationResult], noise: NoiseSetup) -> dict[str, Any]:
    """The first variant's result at top level (the single-run contract),
    every variant under `variants` with its statistics."""
    first = next(iter(results.values()))
    out = first.to_dict()
    out["statistics"] = summarize(first.max_end_ns).to_dict()
    out["noise_sources"] = noise.describe()
    out["variants"] = {
        name: {
            "max_end_ns": r.to_dict()["max_end_ns"],
            "statistics": summarize(r.max_end_ns).to_dict(),
            **app_cli.variant_keys(r),
        }
        for name, r in results.items()
    }
    return out


def _unit_for(ns: float) -> tuple[str, float]:
    """A display unit for times around `ns` nanoseconds, and its size in ns."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return unit, scale
    return "ns", 1.0


def print_summary(results: dict[str, SimulationResult], noise: NoiseSetup, out: Path | None) -> None:
    """A readable summary: the run, then completion time per variant."""
    console = Console()
    first = next(iter(results.values()))
    p = first.params.as_ns()
    console.print(
        f"[bold]{first.source or 'schedule'}[/]: {first.ranks} ranks, {first.events:,} events, "
        f"{first.messages:,} messages"
    )
    console.print("LogGOPS: " + ", ".join(f"{k}={v}" for k, v in p.items()) + " (ns, ns/byte, bytes)")
    for key, value in noise.describe().items():
        if value and key in ("os_noise", "latency_noise", "bandwidth_noise"):
            console.print(f"{key.replace('_', ' ')}: {value}" + (" (co-scheduled)" if key == "os_noise" and noise.os_cosched else ""))
    if first.reps == 1 and len(results) == 1:
        console.print(f"Completion time: [bold]{format_time_ps(float(first.max_end_ns[0]) * 1000)}[/] ({first.max_end_ns[0]} ns)")
    else:
        all_ns = np.concatenate([np.asarray(r.max_end_ns, dtype=float) for r in results.values()])
        unit, scale = _unit_for(float(np.median(all_ns)))
        table = Table(title=f"Completion time ({unit}), {first.reps} repetitions per variant (seed {first.seed})")
        for col in ("noise", "median", "95% CI", "q1", "q3", "mean", "max", "vs none"):
            table.add_column(col, justify="right", no_wrap=True)
        base = summarize(results["none"].max_end_ns).median if "none" in results else None
        for name, r in results.items():
            s = summarize(np.asarray(r.max_end_ns, dtype=float))
            f = lambda ns: f"{ns / scale:.4g}"  # noqa: E731
            table.add_row(
                name, f(s.median), f"{f(s.median_ci_low)}-{f(s.median_ci_high)}", f(s.q1), f(s.q3),
                f(s.mean), f(s.max), f"{s.median / base:.2f}x" if base else "",
            )
        console.print(table)
    for line in app_cli.summary_lines(results):
        console.print(line)
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
