"""What `advise` simulates: the WORKLOAD argument turned into a sweep experiment.

A workload is named one of these ways, tried in this order (the first
resolver that claims the text resolves it):

* a folder: a recorded MPI trace (`cloudnoise trace record`, liballprof
  files or an OTF2 archive), advised at every node count: as recorded at its
  own rank count, extrapolated at the others (`--scaling` weak or strong;
  see cloudnoise.trace.extrapolate), converted by the trace stage (MPICH's
  collective algorithms) in each process that simulates it;
* an app file (`*.toml`, see docs/how-to/applications.md);
* a GOAL file (`*.goal`, `*.goal.gz`, or any other existing file): a
  schedule for one rank count, so it is advised at that node count only;
* `PATTERN:SIZE[:OPTS]`, a single Schedgen collective such as
  `dissemination:16B` or `pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks`
  (an app phase's options);
* the app phase syntax, e.g. `gemm:128 + dissemination:128KiB`.

`--pattern NAME --size SIZE` and `--app SPEC` say the same as options;
`--schedgen public|paper` picks whose Schedgen generates the collectives
that do not name theirs (see cloudnoise.schedules.patterns).
`--iterations` and `--gflops` belong to applications, `--scaling` to
applications and traces; strong scaling divides an application's compute
phases over the ranks (see `cloudnoise.sweep.experiment`), and a trace's
compute over N / P with its halo messages sized by its grid
(`cloudnoise.trace.scaling`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cloudnoise.errors import CloudnoiseError
from cloudnoise.suggest import did_you_mean
from cloudnoise.sweep.experiment import Experiment, app_experiment, collective_experiment, collective_text, goal_experiment

FORMS = "PATTERN:SIZE (dissemination:16B), an app spec ('gemm:128 + dissemination:128KiB'), an app file (.toml), a GOAL file or a trace folder"


@dataclass(frozen=True)
class WorkloadOptions:
    """The workload options besides WORKLOAD itself."""

    pattern: str | None = None
    size: str | None = None
    app: str | None = None
    iterations: int | None = None
    gflops: float | None = None
    scaling: str | None = None  # None: weak
    # compute times fixed by an earlier sweep of the same app (not timed again)
    stored_compute: list[dict[str, Any] | None] | None = None
    # a scratch folder for what the workload writes (kept with --sweep)
    scratch: Path | None = None
    schedgen: str | None = None  # None: public, or what the collective names


@dataclass(frozen=True)
class Workload:
    """A resolved workload: the sweep experiment and, for a schedule file, its one node count."""

    experiment: Experiment
    description: str
    fixed_nodes: int | None = None
    default_nodes: int | None = None  # without --nodes (a trace: the rank count it was recorded at)

    @property
    def kind(self) -> str:
        return self.experiment.kind


class Resolver(Protocol):
    """One way of naming a workload."""

    def claims(self, text: str) -> bool: ...

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload: ...


def _not_for(kind: str, opts: WorkloadOptions) -> None:
    """Application options given for a workload that is not an application
    (nor a generated collective, for --schedgen)."""
    if opts.schedgen is not None and kind in ("trace", "GOAL schedule"):
        raise CloudnoiseError(f"--schedgen goes with a generated collective or an app; a {kind} brings its own schedule")
    if opts.iterations is not None or opts.gflops is not None:
        raise CloudnoiseError(f"--iterations and --gflops go with an application; this workload is a {kind}")
    if opts.scaling == "strong" and kind != "trace":
        raise CloudnoiseError(
            f"--scaling strong divides an application's compute phases over the ranks; a {kind} has none "
            "(write it as an app, e.g. 'compute:10ms + dissemination:16B')"
        )


class TraceFolder:
    """A folder: a recorded MPI trace, converted by the trace stage into a GOAL
    file at the trace's rank count."""

    def claims(self, text: str) -> bool:
        return Path(text).is_dir()

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload:
        from cloudnoise.schedules.trace import trace_schedule
        from cloudnoise.sweep.experiment import trace_experiment

        _not_for("trace", opts)
        scaling = opts.scaling or "weak"
        exp = trace_experiment(text, name=Path(text).name, scaling=scaling)
        assert exp.trace is not None
        ts = trace_schedule(text)  # converts the trace once here: a bad trace fails before any sweep
        exp.trace._schedules[exp.trace.ranks] = ts.schedule
        what = (f"MPI trace {Path(text).name} ({exp.trace.ranks} ranks, {ts.conversion.calls} MPI calls; other node "
                f"counts extrapolated, {scaling} scaling)")
        return Workload(exp, what, default_nodes=exp.trace.ranks)


class AppFile:
    """An app file (TOML)."""

    def claims(self, text: str) -> bool:
        return text.strip().lower().endswith(".toml")

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload:
        return _app(text, opts)


class GoalFile:
    """A GOAL schedule file, at its own rank count."""

    def claims(self, text: str) -> bool:
        t = text.strip().lower()
        return t.endswith((".goal", ".goal.gz", ".gz")) or Path(text).is_file()

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload:
        _not_for("GOAL schedule", opts)
        exp = goal_experiment(text)
        assert exp.goal is not None
        return Workload(exp, f"GOAL schedule {Path(text).name} ({exp.goal.ranks} ranks)", fixed_nodes=exp.goal.ranks)


class PatternSpec:
    """`PATTERN:SIZE[:OPTS]`: one collective."""

    def claims(self, text: str) -> bool:
        from cloudnoise.schedules.patterns import accepted_names

        name, colon, _ = text.partition(":")
        return bool(colon) and "+" not in text and name.strip() in accepted_names()

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload:
        _not_for("collective", opts)
        return _described(collective_experiment(text, schedgen=opts.schedgen))


class AppSpec:
    """The application phase syntax."""

    def claims(self, text: str) -> bool:
        return True

    def resolve(self, text: str, opts: WorkloadOptions) -> Workload:
        from cloudnoise.schedules.patterns import pattern_names

        if "+" not in text:
            head = text.partition(":")[0].strip()
            if head not in ("gemm", "compute", *pattern_names()):
                hint = did_you_mean(head, [*pattern_names(), "gemm", "compute"])
                raise CloudnoiseError(
                    f"unknown workload {text!r}: no pattern {head!r}{hint} (a workload is {FORMS}; "
                    "patterns: `cloudnoise schedule list`)"
                )
        return _app(text, opts)


RESOLVERS: tuple[Resolver, ...] = (TraceFolder(), AppFile(), GoalFile(), PatternSpec(), AppSpec())


def _described(exp: Experiment) -> Workload:
    """A collective experiment as advise names it: PATTERN of SIZE per step, and whose Schedgen."""
    assert exp.collective is not None
    flavour = " (the paper authors' Schedgen)" if exp.collective.schedgen == "paper" else ""
    c = exp.collective
    name = f"{c.mpi_call} (MPICH's algorithm at each node count)" if c.mpi_call else c.pattern
    return Workload(exp, f"{name} of {exp.spec.split(':')[1]} per step{flavour}")


def _collective(pattern: str, size: str, opts: WorkloadOptions) -> Workload:
    _not_for("collective", opts)
    from cloudnoise.schedules.patterns import accepted_names

    if pattern not in accepted_names():
        raise CloudnoiseError(f"--pattern: no pattern {pattern!r}{did_you_mean(pattern, accepted_names())} (see `cloudnoise schedule list`)")
    return _described(collective_experiment(collective_text(pattern, size), schedgen=opts.schedgen))


def _app(text: str, opts: WorkloadOptions) -> Workload:
    scaling = opts.scaling or "weak"
    exp = app_experiment(text, iterations=opts.iterations, gflops=opts.gflops, scaling=scaling,
                         compute=opts.stored_compute, schedgen=opts.schedgen)
    assert exp.app is not None
    its = exp.app.iterations
    share = "the whole job's compute divided over the nodes" if scaling == "strong" else "each node's work"
    return Workload(exp, f"application {exp.spec}, {its} iteration{'s' if its != 1 else ''}, {scaling} scaling ({share})")


def resolve_workload(text: str | None, opts: WorkloadOptions) -> Workload:
    """The workload WORKLOAD (or --pattern/--size, or --app) names."""
    given = [w for w, v in (("WORKLOAD", text), ("--pattern", opts.pattern), ("--app", opts.app)) if v]
    if len(given) > 1:
        raise CloudnoiseError(f"give the workload once: {' or '.join(given)}, not both")
    if opts.size and not opts.pattern:
        raise CloudnoiseError("--size goes with --pattern NAME (with WORKLOAD write PATTERN:SIZE, e.g. dissemination:16B)")
    if opts.pattern:
        if not opts.size:
            raise CloudnoiseError("--pattern needs --size SIZE (e.g. 16B, 512MiB)")
        return _collective(opts.pattern, opts.size, opts)
    if opts.app:
        return _app(opts.app, opts)
    if not text or not text.strip():
        raise CloudnoiseError(f"say what to advise on: {FORMS}")
    for resolver in RESOLVERS:
        if resolver.claims(text):
            return resolver.resolve(text, opts)
    raise AssertionError("AppSpec claims every text")  # pragma: no cover


def workload_of_sweep(meta: dict[str, Any], opts: WorkloadOptions) -> Workload:
    """The workload an existing sweep ran (its sweep.json), for `advise --sweep DIR` without WORKLOAD."""
    e = meta.get("experiment") or {}
    kind, spec = e.get("kind"), str(e.get("spec", ""))
    if kind == "collective":
        return _described(collective_experiment(spec))
    if kind == "goal":
        return GoalFile().resolve(spec, opts)
    if kind == "trace":
        scaling = opts.scaling or e.get("scaling", "weak")
        return TraceFolder().resolve(spec, WorkloadOptions(scaling=scaling))
    if kind == "app":
        gflops = opts.gflops if opts.gflops is not None else e.get("gflops")
        stored = WorkloadOptions(
            iterations=opts.iterations if opts.iterations is not None else e.get("iterations"),
            gflops=gflops,
            scaling=opts.scaling or e.get("scaling", "weak"),
            stored_compute=e.get("compute") if gflops == e.get("gflops") else None,
            schedgen=e.get("schedgen"),
        )
        return _app(spec, stored)
    raise CloudnoiseError(f"sweep.json: unknown experiment kind {kind!r}; give the WORKLOAD")


def with_stored_compute(text: str | None, opts: WorkloadOptions, meta: dict[str, Any] | None) -> WorkloadOptions:
    """`opts` carrying the compute times an earlier sweep of the same application
    fixed (so DGEMM is not timed again, and the earlier results stay valid)."""
    e = (meta or {}).get("experiment") or {}
    spec = (text or opts.app or "").strip()
    if e.get("kind") != "app" or not spec or e.get("spec") != spec or e.get("gflops") != opts.gflops:
        return opts
    return WorkloadOptions(opts.pattern, opts.size, opts.app, opts.iterations, opts.gflops, opts.scaling, e.get("compute"),
                           opts.scratch, opts.schedgen)
