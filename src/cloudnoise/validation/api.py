"""The validation stage's API: what `cloudnoise validate` does, without printing.

`validate(...)` takes the command's options as keywords and returns a
ValidationResult (the rows and the summary `--json` prints). `run(goal_file,
opts)` is the same on the command's option dict (click's names: `L_`,
`variants`, `measured_dir`, ...): the command calls it and prints what it
returns, so the two cannot differ. Which path runs is chosen by the workload:
a GOAL file, `pattern`+`size`+`ranks` or `app` run on this machine
(`local_run.py`), `suite` runs the built-in suite (`suite.py`), `measured`
compares runs measured elsewhere (`measured.py`) and `trace` a recorded trace
(`trace.py`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.params import DEFAULTS
from cloudnoise.units import parse_duration_ns, parse_wall_seconds
from cloudnoise.validation.config import Config, check_completes, parse_ranks

#: A file or folder path.
PathLike = str | os.PathLike[str]
#: A LogGOPS parameter: a number (ns, ns/byte or bytes) or text with a unit.
ParamText = str | float | int | None

MAX_REP_GAP_NS = 1_000_000_000  # cn_goal_exec's own bound (1 s)
DEFAULT_REPS = 1000  # measured (and simulated) repetitions per configuration; the suite has its own


@dataclass
class ValidationResult:
    """What a validation found: measured against simulated runtimes.

    `kind` is the path that ran: "run" (a GOAL file, pattern or app run on
    this machine), "suite", "measured" (runs measured elsewhere) or "trace".
    `rows` has one dict per configuration compared (per noise variant for a
    trace), with the measured and simulated medians and their signed error;
    `summary` is the whole JSON object `cloudnoise validate --json` prints
    (`rows` is its `results`)."""

    kind: str
    summary: dict[str, Any] = field(repr=False)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One row per configuration (a trace: per noise variant, `noise` naming it)."""
        if self.kind == "trace":
            return [{"noise": name, **row} for name, row in self.summary["variants"].items()]
        rows: list[dict[str, Any]] = self.summary["results"]
        return rows

    def to_dict(self) -> dict[str, Any]:
        """The JSON object `cloudnoise validate --json` prints."""
        return self.summary


def validate(
    goal_file: PathLike | None = None,
    *,
    pattern: str | None = None,
    size: str | int | None = None,
    nway: int = 1,
    segmentsize: str | int = "1",
    nb: str | int | None = None,
    schedgen: str | None = None,
    app: str | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    ranks: str | Sequence[int] | None = None,
    measured: PathLike | None = None,
    suite: bool = False,
    trace: PathLike | None = None,
    algorithms: str = "mpich",
    compute_scale: float = 1.0,
    extrapolate_from: PathLike | None = None,
    scaling: str | None = None,
    grid: str | None = None,
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
      `compute_scale` as in `cloudnoise trace convert`); with
      `extrapolate_from`, against the simulation of that trace (the same
      application on fewer ranks) extrapolated to `trace`'s rank count
      (`scaling` "weak" or "strong", `grid` "AxBxC"), and their messages,
      peers and bytes per rank (`structure`).

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
    opts: dict[str, Any] = {
        "pattern": pattern, "size": None if size is None else str(size), "nway": nway,
        "segmentsize": str(segmentsize), "nb": None if nb is None else str(nb), "schedgen": schedgen, "app": app,
        "iterations": iterations, "gflops": gflops,
        "ranks": ranks if ranks is None or isinstance(ranks, str) else ",".join(str(r) for r in ranks),
        "measured_dir": None if measured is None else Path(measured), "suite": suite,
        "trace_dir": None if trace is None else Path(trace), "algorithms": algorithms, "compute_scale": compute_scale,
        "extrapolate_from": None if extrapolate_from is None else Path(extrapolate_from), "scaling": scaling,
        "grid": grid,
        "profile": None if profile is None else os.fspath(profile),
        **{f"{k}_": None if v is None else str(v) for k, v in zip(DEFAULTS, (L, o, g, G, O, S))},
        "variants": noise if noise is None or isinstance(noise, str) else ",".join(noise),
        "reps": reps, "warmup": warmup, "rep_gap": None if rep_gap is None else str(rep_gap),
        "ready_order": ready_order, "seed": seed, "mpicc": mpicc, "mpiexec": mpiexec, "launcher": launcher,
        "hosts": hosts if hosts is None or isinstance(hosts, str) else ",".join(hosts),
        "hostfile": None if hostfile is None else os.fspath(hostfile), "ppn": ppn,
        "timeout": timeout, "out": None if out is None else Path(out), "as_json": False, "quiet": quiet,
        "inject_crash": None,
    }
    return run(None if goal_file is None else Path(goal_file), opts)


def run(goal_file: Path | None, opts: dict[str, Any]) -> ValidationResult:
    """The validation `opts` (the command's option dict) asks for; `opts` gains
    what the profile brings (`profile_core_latency_ns`, ...)."""
    if isinstance(opts.get("timeout"), str):
        opts["timeout"] = parse_wall_seconds(opts["timeout"], "--timeout")
    opts["rep_gap_ns"] = parse_rep_gap(opts.get("rep_gap"))
    if opts.get("measured_dir") is not None:
        opts["reps"] = opts.get("reps") or DEFAULT_REPS
        return ValidationResult("measured", run_measured(goal_file, opts))
    if opts.get("suite"):
        from cloudnoise.validation import suite

        if goal_file is not None or opts.get("pattern") or opts.get("app"):
            raise CloudnoiseError("--suite brings its own collectives; drop the GOAL file, --pattern or --app")
        opts["reps"] = opts.get("reps") or suite.DEFAULT_REPS
        params, noise, variants = resolved_model(opts, "--suite")
        return ValidationResult("suite", suite.run_suite(opts, params, noise, variants))
    opts["reps"] = opts.get("reps") or DEFAULT_REPS
    if opts.get("trace_dir") is not None:
        return ValidationResult("trace", run_trace(goal_file, opts))
    from cloudnoise.validation import local_run

    params, noise, variants = resolved_model(opts, "validate")
    return ValidationResult("run", local_run.run(configurations(goal_file, opts), params, noise, variants, opts))


def configurations(goal_file: Path | None, opts: dict[str, Any]) -> list[Config]:
    """The schedules to validate: one GOAL file, or a pattern/app per rank count."""
    from cloudnoise.simulation.inputs import schedule_input

    ranks = parse_ranks(opts.get("ranks"))
    sources = sum(x is not None for x in (goal_file, opts.get("pattern"), opts.get("app")))
    if sources != 1:
        raise CloudnoiseError("give one of a GOAL file, --pattern NAME --size SIZE, or --app SPEC")
    workload: dict[str, Any] = {k: opts.get(k) for k in ("pattern", "size", "nb", "app", "iterations", "gflops",
                                                         "schedgen")}
    workload.update(nway=opts["nway"], segmentsize=opts["segmentsize"])
    if goal_file is not None:
        for name in ("size", "nb", "iterations", "gflops", "schedgen"):
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


def has_model(opts: dict[str, Any]) -> bool:
    """A profile or an explicit LogGOPS parameter was given."""
    return bool(opts.get("profile")) or any(opts.get(f"{k}_") is not None for k in DEFAULTS)


def resolved_model(opts: dict[str, Any], what: str) -> tuple[Any, Any, list[str]]:
    """The profile's (or the explicit) LogGOPS parameters and noise, and the
    noise variants to compare with: the profile's noise unless `variants`
    names others. Sets opts['profile_core_latency_ns'] (the state the profile describes)."""
    from cloudnoise.simulation.setup import parse_variants

    if not has_model(opts):
        raise CloudnoiseError(f"{what} needs --profile NAME|FILE (or the LogGOPS parameters --L --o --g --G --O --S)")
    params, noise = _setup(opts)
    variants = parse_variants(opts["variants"], noise)[0] if opts.get("variants") else noise.default_variants()
    return params, noise, variants


def _setup(opts: dict[str, Any]) -> tuple[Any, Any]:
    """The profile's parameters and noise (validate takes no explicit noise specs)."""
    from cloudnoise.simulation.setup import resolve_setup

    setup_opts = {**opts, "os_noise": None, "latency_noise": None, "bandwidth_noise": None}
    params, noise = resolve_setup(setup_opts)
    opts["profile_core_latency_ns"] = setup_opts.get("profile_core_latency_ns")
    return params, noise


def parse_rep_gap(text: str | None) -> int | None:
    """--rep-gap TIME -> ns (None: off). Above 0 and at most 1 s."""
    if text is None:
        return None
    ns = parse_duration_ns(text, "--rep-gap")
    if not 0 < ns <= MAX_REP_GAP_NS:
        raise CloudnoiseError(f"--rep-gap: {text} is outside 1 ns to 1 s; e.g. --rep-gap 2us")
    return ns


def run_measured(goal_file: Path | None, opts: dict[str, Any]) -> dict[str, Any]:
    """validate --measured DIR: runs measured elsewhere against their simulation
    (summary.json and figures written to opts['out'] when given)."""
    from cloudnoise.validation import measured
    from cloudnoise.validation.progress import configuration_progress

    if goal_file is not None or opts.get("pattern") or opts.get("app") or opts.get("suite") or opts.get("trace_dir"):
        raise CloudnoiseError("--measured DIR brings its own runs; drop the GOAL file, --pattern, --app, --suite or --trace")
    if opts.get("ranks") or opts.get("rep_gap_ns"):
        raise CloudnoiseError("--ranks and --rep-gap do not go with --measured: the runs have their own")
    params, noise, variants = resolved_model(opts, "--measured")
    with configuration_progress(opts) as bar:
        result = measured.compare_runs(opts["measured_dir"], params, noise, variants, opts["reps"], opts["seed"],
                                       opts["ready_order"], keep=opts.get("out") is not None, progress=bar)
    result["profile"] = opts.get("profile")
    if opts.get("out") is not None:
        measured.write_outputs(result, opts["out"])
    result.pop("_samples", None)
    return result


def run_trace(goal_file: Path | None, opts: dict[str, Any]) -> dict[str, Any]:
    """validate --trace: the recorded runtime against the simulated one.

    The recorded compute already holds this machine's OS noise, so the
    default variant is `none` (and `network` too when the profile has
    network noise); `variants` chooses otherwise."""
    from cloudnoise.schedules.trace import trace_schedule
    from cloudnoise.simulation.setup import parse_variants
    from cloudnoise.validation import trace as trace_validation

    if goal_file is not None or opts.get("pattern") is not None or opts.get("app") is not None:
        raise CloudnoiseError("give either --trace DIR or a schedule to run, not both")
    if opts.get("ranks"):
        raise CloudnoiseError("--ranks does not go with validate --trace: the recorded run has its own rank count")
    if opts.get("rep_gap_ns"):
        raise CloudnoiseError("--rep-gap does not go with validate --trace: nothing is launched, the trace has its own timing")
    if not has_model(opts):
        raise CloudnoiseError("--profile NAME|FILE is required (or give the LogGOPS parameters --L --o --g --G --O --S)")
    params, noise = _setup(opts)
    if opts.get("variants"):
        variants = parse_variants(opts["variants"], noise)[0]
    else:
        variants = ["none"] + (["network"] if noise.latency is not None or noise.bandwidth is not None else [])
    source = opts.get("extrapolate_from")
    if source is None and (opts.get("scaling") is not None or opts.get("grid") is not None):
        raise CloudnoiseError("--scaling and --grid go with validate --trace only with --extrapolate-from DIR "
                              "(the recorded trace runs at its own rank count)")
    if source is None:
        ts = trace_schedule(opts["trace_dir"], algorithms=opts.get("algorithms"), compute_scale=opts.get("compute_scale", 1.0))
        check_completes(Config(ts.conversion.ranks, ts.source, ts.schedule), params, opts["ready_order"])
        result: dict[str, Any] = trace_validation.compare(ts, params, noise, variants, opts["reps"], opts["seed"],
                                                          opts["ready_order"])
    else:
        result = trace_validation.compare_extrapolated(
            opts["trace_dir"], source, opts.get("scaling"), opts.get("grid"), params, noise, variants, opts["reps"],
            opts["seed"], opts["ready_order"], algorithms=opts.get("algorithms"),
            compute_scale=opts.get("compute_scale", 1.0))
    result["profile"] = opts.get("profile")
    result["params_ns"] = params.as_ns()
    if opts.get("out") is not None:
        out: Path = opts["out"]
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / ".summary.json.tmp"
        tmp.write_text(json.dumps(result, indent=2, default=str) + "\n")
        os.replace(tmp, out / "summary.json")
    return result
