"""Validation on this machine: each configuration is run on real MPI ranks
(the `cn_goal_exec` probe, `executor.py`) and simulated with a profile, and
the two runtime distributions are compared (`compare.py`).

`validate FILE|--pattern|--app` and `validate --suite` both measure through
`measure_and_simulate`; `run` is the whole of the former once its options are
resolved.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.cores import available_cores
from cloudnoise.validation.config import Config, check_completes, simulate_config
from cloudnoise.validation.machine_state import machine_state
from cloudnoise.validation.machine_state import probes as state_probes
from cloudnoise.validation.progress import configuration_progress
from cloudnoise.validation.work_folder import work_folder


def load_average() -> float | None:
    """The 1-minute load average (None where the OS does not say)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def launch_timeout(sim_ns: np.ndarray, reps: int, warmup: int, ranks: int) -> float:
    """A generous wall-clock limit for one launch: startup plus 50x the simulated work."""
    per_rep_s = float(np.max(sim_ns)) / 1e9 if len(sim_ns) else 0.0
    return 60.0 + 2.0 * ranks + 50.0 * (reps + warmup) * (per_rep_s + 50e-6)


def launch_spec(opts: dict[str, Any]) -> Any:
    """How the ranks are launched (--launcher, --hosts, --hostfile, --ppn)."""
    from cloudnoise.measurement.launcher import LaunchSpec

    hosts = [h for h in (opts.get("hosts") or "").split(",") if h.strip()]
    return LaunchSpec(opts.get("launcher") or "mpiexec", hosts, opts.get("hostfile"), opts.get("ppn"))


def prepare(configs: list[Config], params: Any, opts: dict[str, Any]) -> tuple[Any, Any]:
    """Before anything is launched: every configuration can complete (exit 3
    otherwise), and the MPI to launch with is found (exit 4 where there is
    none). Returns (mpi, launch spec)."""
    from cloudnoise.measurement.mpi import find_mpi

    for config in configs:
        check_completes(config, params, opts["ready_order"])
    return find_mpi(opts.get("mpicc"), opts.get("mpiexec")), launch_spec(opts)


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
    sim = simulate_config(config, params, noise, variants, opts["reps"], opts["seed"], opts["ready_order"])
    req = executor.ExecRequest(
        table=table,
        reps=opts["reps"],
        warmup=opts["warmup"],
        workdir=workdir,
        launch=launch,
        yield_cpu=oversubscribed,
        gap_us=opts["rep_gap_ns"] / 1000.0 if opts.get("rep_gap_ns") else None,
        timeout_s=opts.get("timeout") or launch_timeout(sim[variants[0]], opts["reps"], opts["warmup"], config.ranks),
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


def run(configs: list[Config], params: Any, noise: Any, variants: list[str], opts: dict[str, Any]) -> dict[str, Any]:
    """Measure and simulate every configuration on this machine; returns the
    JSON object `validate --json` prints (and, with ``opts['out']``, writes
    the Parquet files, the figure and summary.json there)."""
    from cloudnoise.validation import compare, figures, tables

    mpi, launch = prepare(configs, params, opts)
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
            "cores": available_cores(),
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
    return result
