"""`cloudnoise validate --suite`: a built-in set of collectives and sizes, run
on real MPI ranks and simulated with one profile, as one table.

The suite spans small, medium and large messages (eager, rendezvous, copies
that fit the caches and copies that do not) and the shapes collectives are
made of: one message (gather, reduce, broadcast), an exchange (dissemination,
alltoall) and chains of exchanges (the ring and recursive-doubling
allreduces). The sizes are fixed here, before any profile is measured: the
suite is held out from the fit, never tuned to it.

Each configuration is measured and simulated as `cloudnoise validate` does
(`local_run.measure_and_simulate`); the summary is the median and the worst
|error| of the medians, the paper's measure (Sec. V-A).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.cores import available_cores
from cloudnoise.errors import CloudnoiseError
from cloudnoise.validation.work_folder import work_folder


@dataclass(frozen=True)
class SuiteEntry:
    """One collective at one size (bytes as Schedgen's --size takes them)."""

    pattern: str
    size: str
    regime: str  # small | medium | large


SUITE: tuple[SuiteEntry, ...] = (
    SuiteEntry("dissemination", "16B", "small"),
    SuiteEntry("gather", "1KiB", "small"),
    SuiteEntry("linear_alltoall", "4KiB", "small"),
    SuiteEntry("binomialtreereduce", "16KiB", "medium"),
    SuiteEntry("dissemination", "64KiB", "medium"),
    SuiteEntry("allreduce_recdoub", "256KiB", "medium"),
    SuiteEntry("binomialtreebcast", "1MiB", "large"),
    SuiteEntry("allreduce_ring", "1MiB", "large"),
    SuiteEntry("allreduce_ring", "16MiB", "large"),
)
DEFAULT_REPS = 300
CHECK_REPS = 100  # `model build --check`: a short suite


def suite_configs(ranks: list[int]) -> list[Any]:
    """Every suite entry at every rank count, as validate configurations."""
    from cloudnoise.schedules.patterns import CollectiveSpec, generate
    from cloudnoise.units import parse_size_bytes
    from cloudnoise.validation.config import Config

    configs = []
    for entry in SUITE:
        for p in ranks:
            spec = CollectiveSpec(pattern=entry.pattern, ranks=p, size=parse_size_bytes(entry.size, "suite size"))
            configs.append(Config(p, f"{entry.pattern} {entry.size}", generate(spec)))
    return configs


def run_suite(opts: dict[str, Any], params: Any, noise: Any, variants: list[str]) -> dict[str, Any]:
    """Measure and simulate the suite with ``opts`` (validate's options) and
    the resolved LogGOPS ``params``, ``noise`` and noise ``variants`` (the
    first is reported); returns the JSON object `validate --suite --json`
    prints."""
    from cloudnoise.validation.config import parse_ranks
    from cloudnoise.validation.local_run import measure_and_simulate, prepare
    from cloudnoise.validation.progress import configuration_progress

    ranks = parse_ranks(opts.get("ranks")) or [2]
    configs = suite_configs(ranks)
    mpi, launch = prepare(configs, params, opts)
    out: Path | None = opts.get("out")
    warnings: list[str] = []
    rows: list[dict[str, Any]] = []
    samples: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    with work_folder(out, "cloudnoise-suite-") as workroot:
        with configuration_progress(opts) as bar:
            for k, config in enumerate(configs):
                bar.update(k, len(configs), f"suite: {config.label} on {config.ranks} ranks")
                workdir = workroot / f"{k:02d}-{config.label.replace(' ', '-')}-ranks{config.ranks:04d}"
                comparison, measured, sim = measure_and_simulate(config, params, noise, variants, opts, mpi, launch,
                                                                 workdir, warnings)
                samples.setdefault(config.label, []).append((config.ranks, measured.runtime_ns, sim[variants[0]]))
                row = comparison.row()
                rows.append({"config": config.label,
                             **{k: v for k, v in row.items() if k not in ("measured_ns", "simulated_ns")}})
    result = summarize_rows(rows)
    result.update({
        "profile": opts.get("profile"),
        "params_ns": params.as_ns(),
        "profile_one_byte_ns": params.one_byte_ps() / 1000.0,
        "profile_core_latency_ns": opts.get("profile_core_latency_ns"),
        "noise": variants[0],
        "noise_sources": noise.describe(),
        "reps": opts["reps"],
        "warmup": opts["warmup"],
        "rep_gap_ns": opts.get("rep_gap_ns"),
        "seed": opts["seed"],
        "ranks": ranks,
        "cores": available_cores(),
        "mpi": mpi.as_dict(),
        "paper_bound": 0.10,
        "warnings": list(dict.fromkeys(warnings)),
        "out": str(out) if out else None,
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    if out is not None:
        from cloudnoise.validation import figures

        written = []
        for label, configs in samples.items():
            stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)
            written += figures.boxplot_pairs(configs, f"suite, {label}: measured vs simulated ({variants[0]} noise)",
                                             out / "figures" / stem, variants[0])
        result["figures"] = [str(f) for f in written]
        (out / "suite.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    return result


def summarize_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The suite's rows with the verdict over the median and the p90 (compare.summarize_errors)."""
    from cloudnoise.validation.compare import summarize_errors

    # the configurations measured in the machine state the profile was measured in
    # (measurement/core_latency.py): the part of the table the profile can be held to
    same = [abs(r["signed_error_median"]) for r in rows
            if r.get("machine_state") == "same" and r["signed_error_median"] == r["signed_error_median"]]
    return {
        "results": rows,
        **summarize_errors(rows),
        "machine_state": {
            "configs": len(rows),
            "same_as_profile": len(same),
            "unknown": sum(1 for r in rows if r.get("machine_state", "unknown") == "unknown"),
            "median_abs_error_same": float(np.median(same)) if same else None,
            "worst_abs_error_same": float(max(same)) if same else None,
        },
    }


def print_suite(result: dict[str, Any]) -> None:
    """The suite as one table, its summary and the warnings."""
    from rich.table import Table

    from cloudnoise.console import stdout_console

    console = stdout_console()
    table = Table(title=f"validate --suite: measured vs simulated medians ({result['noise']} noise), "
                        f"{result['reps']} repetitions each, times in us")
    for col in ("config", "ranks", "measured median", "simulated median", "error", "measured p90", "simulated p90",
                "error p90", "load avg", "core / 1 B ns"):
        table.add_column(col, justify="left" if col == "config" else "right", no_wrap=True)
    for r in result["results"]:
        load = r.get("load_average")
        table.add_row(r["config"], str(r["ranks"]), f"{r['measured_median_us']:.4g}",
                      f"{r['simulated_median_us']:.4g}", error_cell(r["signed_error_median"]),
                      f"{r['measured_p90_us']:.4g}", f"{r['simulated_p90_us']:.4g}", error_cell(r["signed_error_p90"]),
                      "-" if load is None else f"{load:.1f}", state_cell(r))
    console.print(table)
    from cloudnoise.validation.compare import verdict_lines

    for line in verdict_lines(result):
        console.print(line)
    state = result.get("machine_state") or {}
    if state.get("configs") and state.get("unknown", 0) < state["configs"]:
        same = state["same_as_profile"]
        line = f"{same} of {state['configs']} configurations ran in the profile's machine state"
        if same:
            line += (f": median |error| {state['median_abs_error_same']:.1%}, worst "
                     f"{state['worst_abs_error_same']:.1%} among them")
        if same < state["configs"]:
            line += ("; the others (*) ran on a machine in another state: the cores placed differently or the "
                     "transport slower or faster than the profile's one-way 1 B time "
                     f"({fmt_ns(result.get('profile_one_byte_ns'))}; docs/explanation/measurement.md, 'Where the ranks' cores are')")
        console.print(line)
    for w in result["warnings"]:
        console.print(f"[yellow]warning:[/] {w}")


def error_cell(err: float) -> str:
    """A signed error, coloured against the paper's bound (green within 5 %, yellow within 10 %)."""
    colour = "green" if abs(err) <= 0.05 else "yellow" if abs(err) <= 0.10 else "red"
    return f"[{colour}]{err:+.1%}[/]"


def state_cell(row: dict[str, Any]) -> str:
    """The run's state probes (validation/machine_state.py): the core-to-core
    latency and the 1 B ping-pong's one-way time in ns, each as a median or,
    where it moved during the run, as a range; starred where the run's state
    was not the profile's."""
    from cloudnoise.measurement.core_latency import STATE_FACTOR
    from cloudnoise.validation.machine_state import PINGPONG_FACTOR

    def probe(values: dict[str, Any] | None, factor: float) -> str:
        """A range where the probe moved by more than its state factor, else the median."""
        if not values or not values.get("probes"):
            return "-"
        lo, hi, med = values["min"], values["max"], values["median"]
        return f"{lo:.0f}-{hi:.0f}" if hi > factor * lo else f"{med:.0f}"

    text = (f"{probe(row.get('core_latency_ns'), STATE_FACTOR)} / "
            f"{probe(row.get('pingpong_ref_ns'), PINGPONG_FACTOR)}")
    return text + (" *" if row.get("machine_state") in ("different", "changed") else "")


def fmt_ns(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ns"


def check_profile(profile_path: Path, reps: int = CHECK_REPS, mpicc: str | None = None,
                  mpiexec: str | None = None, launcher: str = "mpiexec", quiet: bool = True) -> dict[str, Any]:
    """Run a short suite on this machine with the profile at ``profile_path``
    and store its errors in the profile (key ``check``) with what it was
    checked on. Returns the suite result."""
    import os
    import socket

    from cloudnoise.model.profile import load_profile, profile_from_dict, save_profile

    opts: dict[str, Any] = {
        "profile": str(profile_path), "ranks": "2", "reps": reps, "warmup": 20, "seed": 0,
        "ready_order": "program", "variants": None, "mpicc": mpicc, "mpiexec": mpiexec, "launcher": launcher,
        "hosts": None, "hostfile": None, "ppn": None, "timeout": None, "out": None, "inject_crash": None,
        "quiet": quiet, "as_json": False,
        **{f"{k}_": None for k in "LogGOS"},
    }
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    system = load_system(str(profile_path))
    opts["profile_core_latency_ns"] = system.hardware.core_latency_ns if system.hardware else None
    noise = resolve_noise(system, opts["seed"])
    result = run_suite(opts, resolve_params(system, {}), noise, noise.default_variants())
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    check = {
        "provenance": {"kind": "measured", "source": (
            f"cloudnoise validate --suite on {socket.gethostname()} ({result['mpi'].get('library') or 'MPI'}), "
            f"{result['ranks'][0]} ranks, {reps} repetitions per configuration, {result['noise']} noise, "
            f"{result['time']}, load average {load:.1f} on {result['cores']} cores after the run")},
        "ranks": int(result["ranks"][0]),
        "reps": int(reps),
        "median_abs_error": result["median_abs_error"],
        "worst_abs_error": result["worst_abs_error"],
        "worst": result["worst"],
        "machine_state": result["machine_state"],
        "results": [
            {"config": r["config"], "measured_median_us": r["measured_median_us"],
             "simulated_median_us": r["simulated_median_us"], "error": r["signed_error_median"],
             "machine_state": r.get("machine_state")}
            for r in result["results"]
        ],
    }
    profile = load_profile(profile_path)
    data = profile.to_dict()
    data["check"] = check
    save_profile(profile_from_dict(data, str(profile_path), base_dir=profile.base_dir), profile_path)
    return result
