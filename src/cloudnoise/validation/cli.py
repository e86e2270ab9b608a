"""`cloudnoise validate`: run a schedule on real MPI ranks, simulate the same
schedule with a profile, and compare the two runtime distributions (the
paper's Sec. V-A and Fig. 13).

For every configuration (a rank count of a generated pattern or application,
or the one GOAL file): simulate once to reject schedules that cannot
complete (exit 3, before anything is launched), execute it ``--reps`` times
with the ``cn_goal_exec`` probe, simulate ``--reps`` repetitions with the
profile's LogGOPS parameters and noise, and report medians and means with
their 95 % confidence intervals and relative errors.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

from cloudnoise.comma_lists import parse_counts
from cloudnoise.cores import available_cores
from cloudnoise.errors import CloudnoiseError
from cloudnoise.options import quiet_option
from cloudnoise.simulation import app_cli
from cloudnoise.simulation.cli import PARAM_HELP, loggops_options, parse_variants, resolve_setup
from cloudnoise.units import parse_duration_ns, parse_wall_seconds
from cloudnoise.validation.machine_state import machine_state
from cloudnoise.validation.machine_state import probes as state_probes
from cloudnoise.validation.work_folder import work_folder


@dataclass
class Config:
    """One configuration to validate: its label, rank count and schedule."""

    ranks: int
    label: str
    schedule: Any


def configuration_progress(opts: dict[str, Any]) -> Any:
    """A progress bar over the configurations (stderr, on a terminal, not with --quiet or --json)."""
    from cloudnoise.sweep.progress import SweepProgress

    return SweepProgress(enabled=not (opts.get("quiet") or opts.get("as_json")) and sys.stderr.isatty(),
                         description="validating")


def load_average() -> float | None:
    """The 1-minute load average (None where the OS does not say)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def parse_ranks(text: str | None) -> list[int]:
    """'2,4,8' -> [2, 4, 8]."""
    if not text:
        return []
    return list(dict.fromkeys(parse_counts(text, "--ranks")))


def configurations(goal_file: Path | None, opts: dict[str, Any]) -> list[Config]:
    """The schedules to validate: one GOAL file, or a pattern/app per rank count."""
    from cloudnoise.simulation.inputs import schedule_input

    ranks = parse_ranks(opts.get("ranks"))
    sources = sum(x is not None for x in (goal_file, opts.get("pattern"), opts.get("app")))
    if sources != 1:
        raise CloudnoiseError("give one of a GOAL file, --pattern NAME --size SIZE, or --app SPEC")
    workload = {k: opts.get(k) for k in ("pattern", "size", "nb", "app", "iterations", "gflops")}
    workload.update(nway=opts["nway"], segmentsize=opts["segmentsize"])
    if goal_file is not None:
        for name in ("size", "nb", "iterations", "gflops"):
            if opts.get(name) is not None:
                raise CloudnoiseError(f"--{name} goes with --pattern or --app; a GOAL file brings its own")
        schedule = schedule_input(goal_file).schedule
        if ranks and ranks != [schedule.num_ranks]:
            raise CloudnoiseError(f"{goal_file} has {schedule.num_ranks} ranks; --ranks cannot change that")
        return [Config(schedule.num_ranks, str(goal_file), schedule)]
    if not ranks:
        raise CloudnoiseError("--pattern and --app need --ranks, e.g. --ranks 2,4,8")
    if opts.get("pattern") is not None and opts.get("size") is None:
        raise CloudnoiseError("--pattern needs --size SIZE (e.g. 16B, 16MiB)")
    configs = []
    for p in ranks:
        made = schedule_input(ranks=p, **workload)
        label = f"{opts['pattern']} {opts['size']}" if opts.get("pattern") is not None else made.source
        configs.append(Config(p, label, made.schedule))
    return configs


def _simulate(config: Config, params: Any, noise: Any, variants: list[str], reps: int, seed: int,
              ready_order: str) -> dict[str, np.ndarray]:
    from cloudnoise.simulation.api import simulate

    return {
        v: np.asarray(
            simulate(config.schedule, params=params, noise=noise, variant=v, reps=reps, seed=seed,
                     ready_order=ready_order).runtime_ns,
            dtype=np.float64,
        )
        for v in variants
    }


def _check_completes(config: Config, params: Any, ready_order: str) -> None:
    """Deadlocks are found by the engine before anything is launched (exit 3)."""
    from cloudnoise.errors import EXIT_STUCK
    from cloudnoise.simulation.api import simulate

    try:
        simulate(config.schedule, params=params, reps=1, ready_order=ready_order)
    except CloudnoiseError as err:
        if err.exit_code == EXIT_STUCK:
            raise CloudnoiseError(
                f"{config.label} on {config.ranks} ranks cannot complete, nothing was launched: {err}", EXIT_STUCK
            ) from None
        raise


MAX_REP_GAP_NS = 1_000_000_000  # cn_goal_exec's own bound (1 s)


def parse_rep_gap(text: str | None) -> int | None:
    """--rep-gap TIME -> ns (None: off). Above 0 and at most 1 s."""
    if text is None:
        return None
    ns = parse_duration_ns(text, "--rep-gap")
    if not 0 < ns <= MAX_REP_GAP_NS:
        raise CloudnoiseError(f"--rep-gap: {text} is outside 1 ns to 1 s; e.g. --rep-gap 2us")
    return ns


def _timeout(sim_ns: np.ndarray, reps: int, warmup: int, ranks: int) -> float:
    """A generous wall-clock limit for one launch: startup plus 50x the simulated work."""
    per_rep_s = float(np.max(sim_ns)) / 1e9 if len(sim_ns) else 0.0
    return 60.0 + 2.0 * ranks + 50.0 * (reps + warmup) * (per_rep_s + 50e-6)


@click.command("validate")
@click.argument("goal_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--pattern", metavar="NAME", help="Validate a generated collective (see `cloudnoise schedule list`).")
@click.option("--size", metavar="SIZE", help="Bytes per step of the collective: 16B, 16MiB.")
@click.option("--nway", type=click.IntRange(min=1), default=1, show_default=True, help="Fan-out of nwaydissemination.")
@click.option("--segmentsize", metavar="SIZE", default="1", show_default=True, help="Segment of the pipelined rings.")
@click.option("--nb", metavar="T", help="Non-blocking variant: every rank starts with an independent calc of T.")
@app_cli.app_options
@click.option("--ranks", metavar="LIST", help="Rank counts to validate, comma-separated: 2,4,8 (pattern/app).")
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
@click.option("--inject-crash", type=int, hidden=True, help="Tests: this rank aborts in the first measured repetition.")
def validate(goal_file: Path | None, **opts: Any) -> None:
    """Run GOAL_FILE (or a generated --pattern, or an --app) on real MPI
    ranks and compare the measured runtimes with the LogGOPS simulation of
    the same schedule under --profile (noise included).

    Every configuration is first simulated: a schedule that cannot complete
    is reported (exit 3) before anything runs. Ranks that die or hang end
    the run with a one-line error (exit 4).

    \b
    Examples:
      cloudnoise validate --pattern dissemination --size 16B --ranks 2,4,8 --profile here.json
      cloudnoise validate --pattern allreduce_ring --size 16MiB --ranks 2 --reps 200 --profile here.json
      cloudnoise validate examples/dissemination_16.goal --profile here.json --json --out val/
      cloudnoise validate --trace jac --profile here.json --reps 20
      cloudnoise validate --suite --profile here.json
      cloudnoise validate --suite --profile here.json --rep-gap 1us
    """
    if opts.get("timeout") is not None:
        opts["timeout"] = parse_wall_seconds(opts["timeout"], "--timeout")
    opts["rep_gap_ns"] = parse_rep_gap(opts.get("rep_gap"))
    if opts.get("suite"):
        from cloudnoise.validation import suite

        if goal_file is not None or opts.get("pattern") or opts.get("app"):
            raise CloudnoiseError("--suite brings its own collectives; drop the GOAL file, --pattern or --app")
        opts["reps"] = opts.get("reps") or suite.DEFAULT_REPS
        suite.emit(suite.run_suite(opts), bool(opts.get("as_json")))
        return
    opts["reps"] = opts.get("reps") or 1000
    if opts.get("trace_dir") is not None:
        run_trace_validation(goal_file, opts)
        return
    run_validation(goal_file, opts)


def run_trace_validation(goal_file: Path | None, opts: dict[str, Any]) -> dict[str, Any]:
    """validate --trace: the recorded runtime against the simulated one.

    The recorded compute already holds this machine's OS noise, so the
    default variant is `none` (and `network` too when the profile has
    network noise); --noise chooses otherwise."""
    from cloudnoise.schedules.trace import trace_schedule
    from cloudnoise.validation import trace as trace_validation

    if goal_file is not None or opts.get("pattern") is not None or opts.get("app") is not None:
        raise CloudnoiseError("give either --trace DIR or a schedule to run, not both")
    if opts.get("ranks"):
        raise CloudnoiseError("--ranks does not go with validate --trace: the recorded run has its own rank count")
    if opts.get("rep_gap_ns"):
        raise CloudnoiseError("--rep-gap does not go with validate --trace: nothing is launched, the trace has its own timing")
    if not opts.get("profile") and all(opts.get(f"{k}_") is None for k in PARAM_HELP):
        raise CloudnoiseError("--profile NAME|FILE is required (or give the LogGOPS parameters --L --o --g --G --O --S)")
    setup_opts = {**opts, "os_noise": None, "latency_noise": None, "bandwidth_noise": None}
    params, noise = resolve_setup(setup_opts)
    if opts.get("variants"):
        variants = parse_variants(opts["variants"], noise)[0]
    else:
        variants = ["none"] + (["network"] if noise.latency is not None or noise.bandwidth is not None else [])
    ts = trace_schedule(opts["trace_dir"], algorithms=opts.get("algorithms"), compute_scale=opts.get("compute_scale", 1.0))
    _check_completes(Config(ts.conversion.ranks, ts.source, ts.schedule), params, opts["ready_order"])
    result = trace_validation.compare(ts, params, noise, variants, opts["reps"], opts["seed"], opts["ready_order"])
    result["profile"] = opts.get("profile")
    result["params_ns"] = params.as_ns()
    if opts.get("out") is not None:
        out: Path = opts["out"]
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / ".summary.json.tmp"
        tmp.write_text(json.dumps(result, indent=2, default=str) + "\n")
        os.replace(tmp, out / "summary.json")
    if opts["as_json"]:
        json.dump(result, sys.stdout, default=str)
        sys.stdout.write("\n")
    else:
        print_trace_table(result)
    return result


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
    sp = result["split"]
    console.print(
        f"rank {sp['rank']} (last to finish): compute {f(sp['compute_ns'])} replayed as recorded; "
        f"time in MPI recorded {f(sp['recorded_mpi_ns'])}, simulated communication {f(sp['simulated_communication_ns'])}"
    )
    for w in result["conversion"]["warnings"]:
        console.print(f"[yellow]warning:[/] {w}")


def measure_and_simulate(config: Config, params: Any, noise: Any, variants: list[str], opts: dict[str, Any],
                         mpi: Any, launch: Any, workdir: Path, warnings: list[str]) -> tuple[Any, Any, dict[str, np.ndarray]]:
    """One configuration: simulate ``opts['reps']`` repetitions per variant,
    run as many on MPI ranks, compare. Appends what the launch should warn
    about to ``warnings``. Returns (comparison, measurement, simulated)."""
    from cloudnoise.validation import compare, executor, optable

    table = optable.from_schedule(config.schedule)
    if table.extra_cpus:
        warnings.append(f"{config.ranks} ranks: calcs on several cpus run one after another on one core")
    hosts = launch.hosts
    cores = available_cores()
    per_host = opts.get("ppn") or -(-config.ranks // max(1, len(hosts)))
    oversubscribed = per_host > cores
    if oversubscribed:
        warnings.append(
            f"{config.ranks} ranks: {per_host} ranks per host on {cores} cores: cores are oversubscribed; "
            "busy-polling ranks share cores, which the LogGOPS model does not cover"
        )
    load = load_average()
    if not hosts and not oversubscribed and load is not None and load + config.ranks > cores + 0.5:
        warnings.append(
            f"{config.ranks} ranks: the machine was busy before the launch (load average {load:.1f} "
            f"on {cores} cores): other processes compete with the ranks for cores, which the model does not cover"
        )
    sim = _simulate(config, params, noise, variants, opts["reps"], opts["seed"], opts["ready_order"])
    req = executor.ExecRequest(
        table=table,
        reps=opts["reps"],
        warmup=opts["warmup"],
        workdir=workdir,
        launch=launch,
        yield_cpu=oversubscribed,
        gap_us=opts["rep_gap_ns"] / 1000.0 if opts.get("rep_gap_ns") else None,
        timeout_s=opts.get("timeout") or _timeout(sim[variants[0]], opts["reps"], opts["warmup"], config.ranks),
    )
    measured = executor.run(req, mpi, crash_rank=opts.get("inject_crash"))
    comparison = compare.compare(config.ranks, measured.runtime_ns, sim, variants[0], oversubscribed,
                                 measured.late_reps())
    comparison.load_average = load
    comparison.rep_gap_ns = opts.get("rep_gap_ns")
    comparison.period_ns = [float(x) for x in measured.period_ns]
    core, ping = state_probes(measured.core_latency_ns, opts.get("profile_core_latency_ns"),
                              measured.pingpong_ref_ns, params.one_byte_ps() / 1000.0)
    comparison.machine_state = machine_state([core, ping])
    comparison.core_latency_ns, comparison.pingpong_ref_ns = core.summary(), ping.summary()
    comparison.notes += [n for n in (core.note(), ping.note()) if n]
    return comparison, measured, sim


def run_validation(goal_file: Path | None, opts: dict[str, Any]) -> dict[str, Any]:
    """The whole command; returns (and prints) the JSON object."""
    from cloudnoise.measurement.launcher import LaunchSpec
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.validation import compare, figures, tables

    if not opts.get("profile") and all(opts.get(f"{k}_") is None for k in PARAM_HELP):
        raise CloudnoiseError("--profile NAME|FILE is required (or give the LogGOPS parameters --L --o --g --G --O --S)")
    setup_opts = {**opts, "os_noise": None, "latency_noise": None, "bandwidth_noise": None}
    params, noise = resolve_setup(setup_opts)
    opts["profile_core_latency_ns"] = setup_opts.get("profile_core_latency_ns")  # the state the profile describes
    # validate compares one simulation with the measurement: the profile's noise unless --noise names variants
    variants = parse_variants(opts["variants"], noise)[0] if opts.get("variants") else noise.default_variants()
    configs = configurations(goal_file, opts)
    for config in configs:
        _check_completes(config, params, opts["ready_order"])
    mpi = find_mpi(opts.get("mpicc"), opts.get("mpiexec"))
    hosts = [h for h in (opts.get("hosts") or "").split(",") if h.strip()]
    launch = LaunchSpec(opts.get("launcher") or "mpiexec", hosts, opts.get("hostfile"), opts.get("ppn"))
    cores = available_cores()

    out: Path | None = opts.get("out")
    warnings: list[str] = []
    comparisons, measurements, simulations = [], [], []
    with work_folder(out, "cloudnoise-validate-") as workroot:
        with configuration_progress(opts) as bar:
            for k, config in enumerate(configs):
                bar.update(k, len(configs), f"{config.label} on {config.ranks} ranks")
                comparison, measured, sim = measure_and_simulate(
                    config, params, noise, variants, opts, mpi, launch, workroot / f"ranks{config.ranks:04d}",
                    warnings)
                comparisons.append(comparison)
                measurements.append(measured)
                simulations.append(sim)
        result: dict[str, Any] = {
            "source": configs[0].label,
            "profile": opts.get("profile"),
            "params_ns": params.as_ns(),
            "noise": variants[0],
            "noise_variants": variants,
            "noise_sources": noise.describe(),
            "ready_order": opts["ready_order"],
            "reps": opts["reps"],
            "warmup": opts["warmup"],
            "seed": opts["seed"],
            "cores": cores,
            "mpi": mpi.as_dict(),
            "hosts": sorted(set(h for m in measurements for h in m.host)),
            "paper_bound": compare.PAPER_BOUND,
            "results": [c.row() for c in comparisons],
            "warnings": warnings,
            "out": str(out) if out else None,
        }
        if out is not None:
            tables.write_measured(out / "measured.parquet", measurements)
            tables.write_simulated(out / "simulated.parquet", [c.ranks for c in configs], simulations)
            files = figures.boxplot_pairs(
                [(c.ranks, m.runtime_ns, s[variants[0]]) for c, m, s in zip(configs, measurements, simulations)],
                f"{configs[0].label}: measured vs simulated ({variants[0]} noise)",
                out / "validation",
                variants[0],
            )
            result["figures"] = [str(f) for f in files]
            (out / "summary.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    if opts["as_json"]:
        json.dump(result, sys.stdout, default=str)
        sys.stdout.write("\n")
    else:
        print_table(result)
    return result


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
