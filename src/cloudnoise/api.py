"""The public Python API: every stage as a plain function with its parameters.

`cloudnoise.simulate`, `measure`, `validate`, `cost`, `advise`,
`load_profile` and `build_profile` are these functions (`cloudnoise/__init__.py` exports
them), so `help()`, `inspect.signature`, IDEs and type checkers see their
parameters and result classes. Each forwards to its stage's
implementation, imported inside the function: `import cloudnoise` loads no
stage, no numpy and no engine until a function is called. The stages' own
modules (`cloudnoise.simulation.api`, ...) stay the place of the logic;
tests/test_public_api.py holds each function's parameters and defaults to
its stage's, so the two cannot drift apart. docs/api.md shows them in use.
"""

from __future__ import annotations

import os

# typing.TYPE_CHECKING without importing typing (a sixth of `import cloudnoise`'s time);
# type checkers read this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the result classes; imported at run time only when a function runs
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from cloudnoise._engine import Schedule
    from cloudnoise.advice.api import Advice
    from cloudnoise.costs.model import Pricing, RunCost
    from cloudnoise.measurement.api import MeasurementResult
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.simulation.noise import NoiseSetup
    from cloudnoise.simulation.params import LogGOPS
    from cloudnoise.simulation.result import SimulationResult
    from cloudnoise.validation.api import ValidationResult

__all__ = ["simulate", "measure", "validate", "cost", "advise", "load_profile", "build_profile"]

#: A LogGOPS parameter as `simulate` takes it: a number (ns, ns/byte or bytes) or text with a unit.
ParamText = str | float | int | None
#: A file or folder path.
PathLike = str | os.PathLike[str]


def simulate(
    schedule: Schedule | PathLike | None = None,
    *,
    pattern: str | None = None,
    ranks: int | None = None,
    size: int | str | None = None,
    nway: int = 1,
    segmentsize: int | str = 1,
    nb: int | str | None = None,
    app: str | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    trace: PathLike | None = None,
    algorithms: str | None = None,
    compute_scale: float | None = None,
    allow_unsupported: bool = False,
    profile: PathLike | SystemProfile | None = None,
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
) -> SimulationResult:
    """Simulates a workload with LogGOPS, with or without noise, `reps` times.

    The workload is one of:

    - `schedule`: an engine Schedule or a GOAL file (`.goal`, gzip recognised);
    - a generated collective: `pattern` (`cloudnoise schedule list`), `ranks`,
      `size` (bytes or "16B", "128KiB"), and `nway`, `segmentsize`, `nb`;
    - an application: `app` ("gemm:128 + dissemination:128KiB" or a TOML
      file, docs/applications.md) with `ranks`, `iterations`, `gflops` (its
      `gemm:N` phases run at `gflops`, else the profile's node rate, else
      at DGEMM's rate timed here);
    - a recorded MPI trace: `trace` (a `cloudnoise trace record` folder,
      liballprof or OTF2), extrapolated to `ranks` when given; `algorithms`,
      `compute_scale`, `allow_unsupported` as in `cloudnoise trace convert`.

    Parameters: `params`, else `profile`'s (a built-in name, a profile file
    or a SystemProfile), else LogGOPSim's defaults; `L`, `o`, `g`, `G`, `O`,
    `S` override them (numbers in ns, ns/byte and bytes, or text with units:
    "2.5us", "100Gbit/s").

    Noise: the profile's, with `os_noise`, `latency_noise`, `bandwidth_noise`,
    `bandwidth_episodes` (files or specs, as on the command line; episodes
    "none" drops the profile's) replacing its parts, or a NoiseSetup as
    `noise` (then `variant` names the variants, default "both"). `noise`
    otherwise names the variants to run: "none", "os", "network", "both" or
    a list of them, the first the primary one; without it one run carries
    all the noise given. Every variant uses the same
    seed (common random numbers); repetition r depends only on (seed, r),
    so results do not depend on `threads` (default: the cores this process
    may use), and repetition r of a long run equals `first_rep=r, reps=1`.

    `ready_order`: "program" (default) posts operations that become ready
    together in program order, as MPI does; "loggopsim" reproduces
    LogGOPSim exactly, its unstable sort included. `progress(done)` is
    called as repetitions finish.

    Returns a SimulationResult: `runtime_ns` (one per repetition),
    `host_end_ns`, `statistics`, `variants`, `to_dict()` (what `cloudnoise
    simulate --json` prints), `to_pandas()`.

    Raises CloudnoiseError for bad input (`exit_code` 2) and for a schedule
    that cannot complete (3).

    Example: `cloudnoise.simulate(pattern="dissemination", ranks=1024,
    size="16B", profile="azure-hpc", noise=["both", "none"], reps=100,
    seed=1).variants["both"].statistics.median`
    """
    from cloudnoise.simulation.api import simulate as run

    return run(
        schedule, pattern=pattern, ranks=ranks, size=size, nway=nway, segmentsize=segmentsize, nb=nb, app=app,
        iterations=iterations, gflops=gflops, trace=trace, algorithms=algorithms, compute_scale=compute_scale,
        allow_unsupported=allow_unsupported, profile=profile, params=params, L=L, o=o, g=g, G=G, O=O, S=S,
        noise=noise, variant=variant, os_noise=os_noise, latency_noise=latency_noise, bandwidth_noise=bandwidth_noise,
        bandwidth_episodes=bandwidth_episodes, reps=reps, seed=seed, threads=threads, first_rep=first_rep,
        ready_order=ready_order, progress=progress,
    )


def measure(
    experiment: str,
    *,
    out: PathLike | None = None,
    ranks: int | None = None,
    sizes: Iterable[int | str] | str | None = None,
    iterations: int | None = None,
    warmup: int | None = None,
    duration: float | str | None = None,
    connections: Iterable[int] | str | None = None,
    intervals: Iterable[float] | str | None = None,
    detours: int | None = None,
    per_core: bool = False,
    slice: float | str | None = None,  # noqa: A002 - the command line's --slice
    train: int = 8,
    rounds: int = 5,
    labels: Mapping[str, str] | Iterable[str] | None = None,
    resume: bool = False,
    mpicc: str | None = None,
    mpiexec: str | None = None,
    launcher: str = "mpiexec",
    hosts: Iterable[str] | str | None = None,
    hostfile: PathLike | None = None,
    ppn: int | None = None,
    timeout: float | str | None = None,
    min_free: int | str = "1GiB",
    quiet: bool = True,
) -> MeasurementResult:
    """Runs one measurement `experiment` with the MPI probes and returns its summary.

    `experiment` is one of latency, bandwidth, connections, bidirectional,
    burst, latency-noise, bandwidth-noise, os-noise, loggp (as `cloudnoise
    measure --help` lists them); the keywords are the command's options.
    Sizes are bytes or quantities ("16MiB"; "1MB" is 10^6); `duration`,
    `slice` and `timeout` seconds or durations ("10m", "1h"); None means the
    experiment's default. Every sample stays in the campaign folder `out`
    (default: a new `cloudnoise-campaign-<time>` here), which
    `build_profile` reads; `resume=True` continues an interrupted
    measurement in `out`. `hosts`/`hostfile`/`launcher` ("srun", or a
    template "mpirun -np {ranks} {cmd}") measure between nodes; one machine
    measures shared memory. `quiet=False` draws a progress bar.

    Returns a MeasurementResult: `campaign`, `complete`, `samples`,
    `results` (the printed table's rows), `loggp` (the loggp fit),
    `to_dict()` (what `--json` prints), `to_pandas()`.

    Raises CloudnoiseError on bad arguments (`exit_code` 2, before anything
    runs), a missing MPI or a failed launch (4); an interrupted run raises
    after keeping what it measured in `out`.
    """
    from cloudnoise.measurement.api import measure as run

    return run(
        experiment, out=out, ranks=ranks, sizes=sizes, iterations=iterations, warmup=warmup, duration=duration,
        connections=connections, intervals=intervals, detours=detours, per_core=per_core, slice=slice, train=train,
        rounds=rounds, labels=labels, resume=resume, mpicc=mpicc, mpiexec=mpiexec, launcher=launcher, hosts=hosts,
        hostfile=hostfile, ppn=ppn, timeout=timeout, min_free=min_free, quiet=quiet,
    )


def validate(
    goal_file: PathLike | None = None,
    *,
    pattern: str | None = None,
    size: str | int | None = None,
    nway: int = 1,
    segmentsize: str | int = "1",
    nb: str | int | None = None,
    app: str | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    ranks: str | Sequence[int] | None = None,
    measured: PathLike | None = None,
    suite: bool = False,
    trace: PathLike | None = None,
    algorithms: str = "mpich",
    compute_scale: float = 1.0,
    profile: PathLike | None = None,
    L: ParamText = None,
    o: ParamText = None,
    g: ParamText = None,
    G: ParamText = None,
    O: ParamText = None,  # noqa: E741 - LogGOPS's name
    S: ParamText = None,
    noise: str | Sequence[str] | None = None,
    reps: int | None = None,
    warmup: int = 20,
    rep_gap: str | int | None = None,
    ready_order: str = "program",
    seed: int = 0,
    mpicc: str | None = None,
    mpiexec: str | None = None,
    launcher: str = "mpiexec",
    hosts: str | Sequence[str] | None = None,
    hostfile: PathLike | None = None,
    ppn: int | None = None,
    timeout: float | str | None = None,
    out: PathLike | None = None,
    quiet: bool = True,
) -> ValidationResult:
    """Compares measured runtimes with their LogGOPS simulation, as `cloudnoise validate` does.

    The measured side is one of:

    - run here on real MPI ranks: a GOAL file `goal_file`, a generated
      collective `pattern` with `size` ("16B", "16MiB"; `nway`,
      `segmentsize`, `nb` as for `simulate`) at each of `ranks` ([2, 4, 8]
      or "2,4,8"), or an application `app` with `ranks`, `iterations`,
      `gflops`; `reps` measured repetitions (default 1000) after `warmup`,
      paced `rep_gap` apart ("2us"; default: from a start broadcast);
      launched with `mpicc`, `mpiexec`, `launcher` ("srun", or a template
      "mpirun -np {ranks} {cmd}"), `hosts`, `hostfile`, `ppn`, stopped
      after `timeout` (seconds or "30m"; default: from the simulated runtime);
    - `suite=True`: the built-in suite (9 collectives, 16 B to 16 MiB;
      `ranks` default 2, `reps` default 300);
    - `measured`: runs measured elsewhere (a folder of the paper artifact's
      PATTERN[_nocompute][_nbsend|_test]_NODES_SIZE.csv files, a run's
      .tar.xz, or a folder of them); nothing is launched, `reps` is the
      simulated repetitions;
    - `trace`: a recorded trace folder, its runtime (first MPI_Init exit to
      last MPI_Finalize entry) against its simulation (`algorithms`,
      `compute_scale` as in `cloudnoise trace convert`).

    The simulated side uses `profile` (a built-in name or a profile file)
    or the LogGOPS parameters `L`, `o`, `g`, `G`, `O`, `S` (numbers in ns,
    ns/byte and bytes, or text with units), which override the profile's;
    one of them is required. `noise` names the simulated variants ("none",
    "os", "network", "both" or a list, the first reported at the top;
    default: the profile's noise), drawn from `seed`; `ready_order` as for
    `simulate`. `out` keeps the measured and simulated repetitions,
    summary.json and figures. `quiet=False` draws a progress bar on a
    terminal. Nothing is printed.

    Returns a ValidationResult: `kind` ("run", "suite", "measured" or
    "trace"), `rows` (one per configuration: measured and simulated
    medians, signed error, ...), `summary` and `to_dict()` (what `cloudnoise
    validate --json` prints).

    Raises CloudnoiseError with the command's one-line message: bad input
    (`exit_code` 2, before anything runs), a schedule that cannot complete
    (3), a missing MPI or ranks that die or hang (4).

    Example: `cloudnoise.validate(measured="daint__collectives/2022_03_30_00_54_29.tar.xz",
    profile="daint", noise="none").rows`
    """
    from cloudnoise.validation.api import validate as run

    return run(
        goal_file, pattern=pattern, size=size, nway=nway, segmentsize=segmentsize, nb=nb, app=app,
        iterations=iterations, gflops=gflops, ranks=ranks, measured=measured, suite=suite, trace=trace,
        algorithms=algorithms, compute_scale=compute_scale, profile=profile, L=L, o=o, g=g, G=G, O=O, S=S,
        noise=noise, reps=reps, warmup=warmup, rep_gap=rep_gap, ready_order=ready_order, seed=seed, mpicc=mpicc,
        mpiexec=mpiexec, launcher=launcher, hosts=hosts, hostfile=hostfile, ppn=ppn, timeout=timeout, out=out,
        quiet=quiet,
    )


def cost(
    profile: PathLike | SystemProfile,
    *,
    nodes: int,
    runtime_ns: float,
    noiseless_runtime_ns: float | None = None,
    pricing: str | Pricing = "on-demand",
) -> RunCost:
    """The cost of one run of `runtime_ns` nanoseconds on `nodes` nodes of `profile`.

    `profile` is a built-in name, a profile file or a SystemProfile;
    `pricing` "on-demand", "committed", "spot:F" (a fraction of on-demand)
    or a USD price per node-hour ("2.5"). With `noiseless_runtime_ns`, also
    the noiseless run's cost and the increase noise causes.

    Returns a RunCost: `cost_usd`, `price_per_node_hour`,
    `noiseless_cost_usd`, `noise_increase` (0.5 = +50%). A system without a
    price of that kind raises CloudnoiseError saying what to pass.
    """
    from cloudnoise.costs.api import cost as run

    return run(profile, nodes=nodes, runtime_ns=runtime_ns, noiseless_runtime_ns=noiseless_runtime_ns, pricing=pricing)


def advise(
    workload: str | PathLike,
    *,
    profiles: Sequence[PathLike] | None = None,
    nodes: Sequence[int] | None = None,
    reps: int = 400,
    seed: int = 0,
    noise: str = "both",
    pricing: str = "on-demand",
    billing: str = "provider",
    gflops: float | None = None,
    scaling: str | None = None,
    deadline: float | str | None = None,
    budget_usd: float | None = None,
    confidence: float = 0.99,
    ready_order: str = "program",
    sweep_dir: PathLike | None = None,
) -> Advice:
    """Which system, how many nodes, at what cost and what risk, for `workload`.

    `workload` is what `cloudnoise advise WORKLOAD` takes: "PATTERN:SIZE"
    (a collective, "dissemination:16B"), "PHASE + PHASE" (an application,
    "gemm:128 + dissemination:128KiB"), an app TOML file, or a GOAL file
    (advised at its own rank count). It is simulated on every system of
    `profiles` (built-in names or profile files; default:
    every built-in system with a price) and every node count of `nodes`
    (default 16 to 16384 by 4), with and without `noise` ("os", "network"
    or "both"), `reps` times each, and each run priced as the provider
    bills it (`pricing` as for `cost`, or a price file; `billing`
    "provider", "exact", or e.g. "1s:60s"). `scaling` "strong" divides an
    application's compute over the nodes, "weak" (the default) keeps it. `deadline` (ns
    or "100ms") and `budget_usd` are the limits the recommendation meets
    with probability `confidence`. `sweep_dir` keeps the simulations (and
    reuses what it holds); without it they go to a temporary folder.

    Returns an Advice: `points` (one per system and node count), `front`
    (the Pareto front of median runtime vs cost), `recommendation`,
    `to_dict()` (what `--json` prints). Bad input raises CloudnoiseError.
    """
    from cloudnoise.advice.api import advise as run

    return run(
        workload, profiles=profiles, nodes=nodes, reps=reps, seed=seed, noise=noise, pricing=pricing, billing=billing,
        gflops=gflops, scaling=scaling, deadline=deadline, budget_usd=budget_usd, confidence=confidence,
        ready_order=ready_order, sweep_dir=sweep_dir,
    )


def load_profile(name_or_file: PathLike) -> SystemProfile:
    """A system profile: a built-in name (`cloudnoise profiles list`) or a
    profile file (`cloudnoise model build` writes them, docs/profile-format.md).

    Returns a SystemProfile: the LogGOPS parameters per size class, the noise
    models, prices and where each figure came from. An unknown name raises
    CloudnoiseError with the closest built-in name."""
    from cloudnoise.profiles.registry import resolve_profile

    return resolve_profile(name_or_file)


def build_profile(
    campaign: PathLike,
    out: PathLike,
    *,
    name: str | None = None,
    on_demand_price: float | None = None,
    committed_price: float | None = None,
    allow_missing: bool = False,
    latency_model: str = "auto",
) -> SystemProfile:
    """`cloudnoise model build`: the profile of a measured campaign folder
    (`measure` writes them), written to `out` (a .json file; its noise data
    files beside it).

    `name` names the system (default: the campaign's host); the prices are
    USD per node-hour. A campaign missing a part (no loggp or latency-noise
    run, say) is an error naming it, unless `allow_missing`.
    `latency_model`: "auto" models stalls that the latency series shows in time
    as such (docs/measure.md, "Noise in time"), "iid" draws every sample per
    message (the paper's semantics).

    Returns the profile written, as a SystemProfile (what `load_profile(out)` gives)."""
    from pathlib import Path

    from cloudnoise.model.build import build_profile as run
    from cloudnoise.model.profile import load_profile as read

    run(Path(campaign), Path(out), name=name, on_demand_price=on_demand_price,
        committed_price=committed_price, allow_missing=allow_missing, latency_model=latency_model)
    return read(Path(out))
