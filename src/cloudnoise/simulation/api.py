"""`cloudnoise.simulate`: run a workload through the LogGOPS engine.

The Python face of the engine: takes a GOAL file, a generated collective or
an application, a profile or explicit parameters, noise variants, and runs
repetitions on threads; returns a `SimulationResult` with numpy arrays and
the same fields as `cloudnoise simulate --json`. The CLI is a thin layer
over this (docs/how-to/python.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cloudnoise import _engine
from cloudnoise.comma_lists import items_of
from cloudnoise.cores import available_cores
from cloudnoise.errors import EXIT_STUCK, CloudnoiseError
from cloudnoise.simulation.critical_path import CriticalPaths, check_memory
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.simulation.inputs import ScheduleInput, load_schedule  # noqa: F401  (re-exported)
from cloudnoise.simulation.result import SimulationResult
from cloudnoise.simulation.variants import READY_ORDERS, VARIANTS  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from cloudnoise.model.compute import ComputeRate
    from cloudnoise.model.profile import SystemProfile

ParamText = str | float | int | None

Schedule = _engine.Schedule


def _ps_to_ns(ps: np.ndarray) -> np.ndarray:
    if np.all(ps % 1000 == 0):
        return ps // 1000
    return ps / 1000.0


def simulate(
    schedule: ScheduleInput | Schedule | str | os.PathLike[str] | None = None,
    *,
    pattern: str | None = None,
    ranks: int | None = None,
    size: int | str | None = None,
    nway: int = 1,
    segmentsize: int | str = 1,
    nb: int | str | None = None,
    schedgen: str | None = None,
    app: str | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    trace: str | os.PathLike[str] | None = None,
    algorithms: str | None = None,
    compute_scale: float | None = None,
    allow_unsupported: bool = False,
    scaling: str | None = None,
    grid: str | None = None,
    profile: str | os.PathLike[str] | SystemProfile | None = None,
    compute_rate: ComputeRate | None = None,
    params: LogGOPS | None = None,
    L: ParamText = None,
    o: ParamText = None,
    g: ParamText = None,
    G: ParamText = None,
    O: ParamText = None,  # noqa: E741 - LogGOPS's name
    S: ParamText = None,
    noise: NoiseSetup | str | Sequence[str] | None = None,
    variant: str | Sequence[str] | None = None,
    os_noise: str | None = None,
    latency_noise: str | None = None,
    bandwidth_noise: str | None = None,
    bandwidth_episodes: str | None = None,
    reps: int = 1,
    seed: int = 0,
    threads: int | None = None,
    first_rep: int = 0,
    ready_order: str = "program",
    progress: Callable[[int], None] | None = None,
    critical_path: bool = False,
    path_reps: Sequence[int] = (),
) -> SimulationResult:
    """Simulates a workload with LogGOPS, with or without noise, `reps` times.

    The workload is one of:

    - `schedule`: an engine Schedule or a GOAL file (`.goal`, gzip recognised),
      or a ScheduleInput that `simulation.inputs.schedule_input` resolved;
    - a generated collective: `pattern` (`cloudnoise schedule list`), `ranks`,
      `size` (bytes or "16B", "128KiB"), and `nway`, `segmentsize` (bytes,
      or "size/ranks"), `nb`, `schedgen` ("public" Schedgen's pattern, the
      default, or "paper": the paper authors' variant);
    - an application: `app` ("gemm:128 + dissemination:128KiB" or a TOML
      file, docs/how-to/applications.md) with `ranks`, `iterations`, `gflops` (its
      `gemm:N` phases run at `gflops`, else the profile's node rate, else
      at DGEMM's rate timed here);
    - a recorded MPI trace: `trace` (a `cloudnoise trace record` folder,
      liballprof or OTF2), extrapolated to `ranks` when given; `algorithms`,
      `compute_scale`, `allow_unsupported` as in `cloudnoise trace convert`,
      `grid` ('16x16x4') the extrapolated grid's layout.

    `scaling`: "weak" (default) or "strong": strong divides an app's compute
    phases over its ranks, and extrapolates a trace with compute divided by
    N / P and halo messages sized by its grid (docs/how-to/traces.md).

    Parameters: `params`, else `profile`'s (a built-in name, a profile file
    or a SystemProfile), else LogGOPSim's defaults; `L`, `o`, `g`, `G`, `O`,
    `S` override them (numbers in ns, ns/byte and bytes, or text with units:
    "2.5us", "100Gbit/s").

    Noise: the profile's, with `os_noise`, `latency_noise`, `bandwidth_noise`,
    `bandwidth_episodes` (files or specs, as on the command line; episodes
    "none" drops the profile's) replacing its parts, or a NoiseSetup as
    `noise` (then `variant` names the variants, default "both"). `noise`
    otherwise names the variants to run: "none", "os", "network", "both",
    a list of them or the command line's comma list ("none,both"), the
    first the primary one; without it one run carries
    all the noise given. Every variant uses the same
    seed (common random numbers); repetition r depends only on (seed, r),
    so results do not depend on `threads` (default: the cores this process
    may use), and repetition r of a long run equals `first_rep=r, reps=1`.

    An app's `gemm:N` phases run at `gflops`, else `compute_rate` (a
    ComputeRate), else the profile's node rate, else DGEMM timed here.

    `ready_order`: "program" (default) posts operations that become ready
    together in program order, as MPI does; "loggopsim" reproduces
    LogGOPSim exactly, its unstable sort included. `progress(done)` is
    called as repetitions finish.

    `critical_path`: the engine also records every repetition's critical path
    (`paths`, a CriticalPaths: its time split into LogGOPS terms and noise,
    adding up to the runtime; the whole path of the repetitions in
    `path_reps`). The results are the same; the engine is somewhat slower.

    Returns a SimulationResult: `runtime_ns` (one per repetition),
    `host_end_ns`, `statistics`, `variants`, `to_dict()` (what `cloudnoise
    simulate --json` prints), `to_pandas()`.

    Raises CloudnoiseError for bad input (`exit_code` 2) and for a schedule
    that cannot complete (3).

    Example: `cloudnoise.simulate(pattern="dissemination", ranks=1024,
    size="16B", profile="azure-hpc", noise=["both", "none"], reps=100,
    seed=1).variants["both"].statistics.median`
    """
    run = prepare_run(schedule, seed=seed, **{k: v for k, v in locals().items() if k in RUN_INPUTS})
    setup, names, workload = run.noise, run.variants, run.workload
    threads = available_cores() if threads is None else threads
    results: dict[str, SimulationResult] = {}
    for k, name in enumerate(names):
        step = None if progress is None else (lambda done, k=k: progress(k * reps + done))
        r = run_variant(
            workload.schedule, params=run.params, noise=setup, variant=name, reps=reps, seed=seed, threads=threads,
            first_rep=first_rep, ready_order=ready_order, progress=step, critical_path=critical_path,
            path_reps=path_reps,
        )
        r.source, r.parse_seconds = workload.source, workload.parse_seconds
        if workload.application is not None:
            _attach_application(r, workload.application)
        if workload.trace_info is not None:
            r.extra["trace"] = workload.trace_info
        results[name] = r
    primary = results[names[0]]
    if setup is not None:
        primary.noise_sources = setup.describe()
    if len(results) > 1:
        primary.variants = results
    return primary


# simulate's inputs that say what runs (the workload, the parameters, the noise), as
# prepare_run takes them by name.
RUN_INPUTS = (
    "pattern", "ranks", "size", "nway", "segmentsize", "nb", "schedgen", "app", "iterations", "gflops", "trace",
    "algorithms", "compute_scale", "allow_unsupported", "scaling", "grid", "profile", "compute_rate", "params", "L",
    "o", "g", "G", "O", "S", "noise", "variant", "os_noise", "latency_noise", "bandwidth_noise", "bandwidth_episodes",
)


@dataclass
class PreparedRun:
    """What `simulate` runs, resolved: the schedule, the parameters, the noise (None: no
    noise source given) and the variants, the primary first."""

    workload: ScheduleInput
    params: LogGOPS
    noise: NoiseSetup | None
    variants: list[str]


def prepare_run(schedule: ScheduleInput | Schedule | str | os.PathLike[str] | None = None, *, seed: int = 0,
                **inputs: Any) -> PreparedRun:
    """Resolves `simulate`'s inputs (RUN_INPUTS, by name, with simulate's defaults) without
    running anything: for the commands that run the engine their own way (explain)."""
    unknown = sorted(set(inputs) - set(RUN_INPUTS))
    if unknown:
        raise TypeError(f"unexpected input {unknown[0]!r} (simulate's are {', '.join(RUN_INPUTS)})")
    from cloudnoise.simulation.inputs import schedule_input
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    get = inputs.get
    profile, compute_rate, gflops, params = get("profile"), get("compute_rate"), get("gflops"), get("params")
    noise, variant = get("noise"), get("variant")
    os_noise, latency_noise = get("os_noise"), get("latency_noise")
    bandwidth_noise, bandwidth_episodes = get("bandwidth_noise"), get("bandwidth_episodes")
    system = load_system(profile) if profile is not None else None
    if compute_rate is None and system is not None and gflops is None:
        compute_rate = system.compute_rate()  # gemm:N at the profile's node rate
    workload = schedule_input(
        schedule, pattern=get("pattern"), ranks=get("ranks"), size=get("size"), nway=get("nway", 1),
        segmentsize=get("segmentsize", 1), nb=get("nb"), schedgen=get("schedgen"), app=get("app"),
        iterations=get("iterations"), gflops=gflops, trace=get("trace"), algorithms=get("algorithms"),
        compute_scale=get("compute_scale"), allow_unsupported=bool(get("allow_unsupported", False)), rate=compute_rate,
        scaling=get("scaling"), grid=get("grid"),
    )
    overrides = {k: get(k) for k in ("L", "o", "g", "G", "O", "S")}
    if params is not None and any(v is not None for v in overrides.values()):
        raise CloudnoiseError("give either params or L/o/g/G/O/S, not both")
    if params is None:
        params = resolve_params(system, overrides)
    explicit = (os_noise, latency_noise, bandwidth_noise, bandwidth_episodes)
    setup: NoiseSetup | None
    names: list[str] | None
    if isinstance(noise, NoiseSetup):
        if system is not None or any(explicit):
            raise CloudnoiseError("give a NoiseSetup, or a profile and noise specs, not both")
        setup, names = noise, None
    else:
        names = items_of(noise, "noise") if noise is not None else None
        setup = None
        if system is not None or any(explicit):
            setup = resolve_noise(system, seed, os_noise=os_noise, latency_noise=latency_noise,
                                  bandwidth_noise=bandwidth_noise, bandwidth_episodes=bandwidth_episodes)
    if names is not None and variant is not None:
        raise CloudnoiseError("give the variants as noise=[...] or as variant=, not both")
    if names is None:
        if variant is not None:
            names = items_of(variant, "variant")
        else:  # no variant named: all the noise given (a measured profile may carry none)
            names = setup.default_variants() if setup is not None else ["none"]
    if not names:
        raise CloudnoiseError(f"no noise variant given (choose from {', '.join(VARIANTS)})")
    if setup is not None:
        setup.check_variants(names)
    names = list(dict.fromkeys(names))
    return PreparedRun(workload, params, setup, names)


def _attach_application(result: SimulationResult, application: Any) -> None:
    """An application's description and its compute/communication split of every repetition."""
    from cloudnoise.schedules.apps import split_times

    result.extra["application"] = application.describe()
    result.extra.update(split_times(application, result.runtime_ns))


def run_variant(
    schedule: Schedule,
    *,
    params: LogGOPS,
    noise: NoiseSetup | None = None,
    variant: str = "both",
    reps: int = 1,
    seed: int = 0,
    threads: int = 1,
    first_rep: int = 0,
    ready_order: str = "program",
    progress: Callable[[int], None] | None = None,
    critical_path: bool = False,
    path_reps: Sequence[int] = (),
    departures: bool = False,
) -> SimulationResult:
    """One noise variant of a loaded schedule through the engine: the core of `simulate`.
    `departures`: also each send's departure time in the first repetition (`departures_ns`)."""
    if reps < 1:
        raise CloudnoiseError(f"--reps must be at least 1, got {reps}")
    if threads < 1:
        raise CloudnoiseError(f"--threads must be at least 1, got {threads}")
    if seed < 0 or seed >= 2**64 or first_rep < 0:
        raise CloudnoiseError("--seed must be an integer in [0, 2^64)")
    if ready_order not in READY_ORDERS:
        raise CloudnoiseError(f"unknown ready order {ready_order!r} (choose from {', '.join(READY_ORDERS)})")
    if variant not in VARIANTS:
        raise CloudnoiseError(f"unknown noise variant {variant!r} (choose from {', '.join(VARIANTS)})")
    if noise is not None:
        if variant != "both":  # "both" applies whatever noise is given
            noise.check_variants([variant])
        if noise.latency is not None and variant in ("network", "both"):
            _latency_within(noise, params)
        engine_noise = noise.engine_model(variant)
    elif variant in ("none", "both"):
        engine_noise = _engine.NoiseModel()
    else:
        raise CloudnoiseError(f"variant {variant!r} needs noise: give a profile or a noise source")
    if critical_path:
        check_memory(schedule.num_ops, min(threads, reps))
    t0 = time.perf_counter()
    try:
        out = _engine.run(
            schedule,
            params.to_engine(),
            engine_noise,
            seed=seed,
            first=first_rep,
            count=reps,
            threads=threads,
            program_order=ready_order == "program",
            progress=progress,
            critical_path=critical_path,
            path_reps=[int(r) for r in path_reps],
            departures=departures,
        )
    except _engine.DeadlockError as err:
        hint = ""
        if isinstance(err, _engine.ReorderedDeadlockError):
            hint = (
                "; LogGOPSim's unstable ordering posted receives out of program order: "
                "try --ready-order program, which posts them in order as MPI does"
            )
        raise CloudnoiseError(f"{err}{hint}", EXIT_STUCK) from None
    except OverflowError as err:
        raise CloudnoiseError(str(err)) from None
    except MemoryError:
        raise CloudnoiseError(
            f"not enough memory for {schedule.num_ops:,} operations on {threads} threads"
            + (" with their critical paths" if critical_path else "") + ": give fewer --threads or a smaller run"
        ) from None
    engine_seconds = time.perf_counter() - t0
    return SimulationResult(
        ranks=schedule.num_ranks,
        reps=reps,
        events=int(out["events"]),
        messages=int(out["messages"]),
        runtime_ns=_ps_to_ns(out["max_end_ps"]),
        host_end_ns=_ps_to_ns(out["host_end_ps"]),
        params=params,
        seed=seed,
        engine_seconds=engine_seconds,
        ready_order=ready_order,
        variant=variant if noise is not None else "",
        paths=CriticalPaths.from_engine(out) if critical_path else None,
        departures_ns=_ps_to_ns(out["departures_ps"]) if departures else None,
    )


def _latency_within(noise: NoiseSetup, params: LogGOPS) -> None:
    """Latency noise below L (a measured profile's, model/latency_deconvolution.py) may take back
    at most L and the send overhead: a message never arrives before its send started. With an
    L or o given on the command line smaller than the profile's, a draw could."""
    from cloudnoise.model.distributions import drawn_range

    assert noise.latency is not None
    least = drawn_range(noise.latency)[0]
    floor = params.least_latency_noise_ps() / 1000.0
    if least < floor - 1e-6:
        raise CloudnoiseError(
            f"the latency noise ({noise.latency_source or 'given'}) draws {least:g} ns, below L + o = {-floor:g} ns: "
            "a message would arrive before it was sent; give an L and o at least as large as the profile's")


def simulate_variants(
    schedule: Schedule | str | os.PathLike[str],
    *,
    params: LogGOPS,
    noise: NoiseSetup,
    variants: list[str],
    reps: int = 1,
    seed: int = 0,
    threads: int = 1,
    ready_order: str = "program",
    progress: Callable[[int], None] | None = None,
) -> dict[str, SimulationResult]:
    """Runs each noise variant on the same seed (common random numbers): `simulate(...).by_variant()`."""
    return simulate(schedule, params=params, noise=noise, variant=variants, reps=reps, seed=seed, threads=threads,
                    ready_order=ready_order, progress=progress).by_variant()
