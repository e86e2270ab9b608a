"""What a sweep runs at every scale: one collective, one application, or one
GOAL schedule.

An `Experiment` is the workload with everything fixed except the node
count and the system: the collective's arguments, or the application's
phases and iterations. An application's compute times depend on the system
(`for_system`): a `gemm:N` phase runs at the user's --gflops if given, else
at the system's own rate (its profile's `compute`), else at DGEMM timed on
the machine that plans the sweep. They are fixed once, when the sweep
starts, kept in sweep.json and travel with the tasks, so every worker
simulates the same application whatever its own CPU (results never depend
on where a task ran), and a resumed sweep never times anything again.


Scaling of an application (`scaling`):

* weak (the default): the phases are each rank's work, whatever the node
  count: every rank runs every compute phase as written;
* strong: the phases' compute is the whole job's, divided evenly over the
  ranks: at P nodes every compute phase lasts its written length / P (a
  `gemm:N` phase: 2 N^3 / P flop per rank, at the rate the compute model
  gives for gemm:N), so P x the compute per rank stays the same at every
  scale. Collective phases are unchanged (their SIZE is what each rank
  sends per step, as in weak scaling).

A GOAL file is a schedule for one rank count: it runs only at that scale.
Each process reads it once (the file's SHA-256 is part of the sweep's
identity, so a changed file is never mixed with results of the old one).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import ComputeRate
from cloudnoise.schedules.apps import Application, app_from, parse_phase, resolve
from cloudnoise.schedules.compute_model import ComputeTime
from cloudnoise.schedules.patterns import CollectiveSpec, count, generate

SCALINGS = ("weak", "strong")


@dataclass
class GoalFile:
    """A GOAL schedule file: where it is, its content's SHA-256 and its rank count.
    The loaded schedule is kept per process (not pickled: each worker reads the file)."""

    path: str
    sha256: str
    ranks: int
    ops: int
    _loaded: Any = field(default=None, repr=False, compare=False)

    def schedule(self) -> Any:
        if self._loaded is None:
            from cloudnoise.simulation.api import load_schedule

            loaded = load_schedule(self.path)
            if file_sha256(self.path) != self.sha256:
                raise CloudnoiseError(f"{self.path}: the GOAL file changed while the sweep ran; start it again")
            self._loaded = loaded
        return self._loaded

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_loaded": None}


@dataclass
class TraceRun:
    """A recorded MPI trace, run at any node count: at its own rank count as
    recorded, at others extrapolated with `scaling` (cloudnoise.trace.extrapolate).
    `sha256` is over the folder's files. Converted schedules are kept per
    process and node count (not pickled: each worker converts its own)."""

    path: str
    sha256: str
    ranks: int
    scaling: str = "weak"
    _schedules: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

    def schedule(self, nodes: int) -> Any:
        if nodes not in self._schedules:
            from cloudnoise.schedules.trace import trace_schedule

            if folder_sha256(self.path) != self.sha256:
                raise CloudnoiseError(f"{self.path}: the trace changed while the sweep ran; start it again")
            self._schedules[nodes] = trace_schedule(self.path, ranks=nodes, scaling=self.scaling).schedule
        return self._schedules[nodes]

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_schedules": {}}


def folder_sha256(path: str | Path) -> str:
    """SHA-256 over a folder's files (names and bytes, in name order; a file's own otherwise)."""
    p = Path(path)
    if p.is_file():
        return file_sha256(p)
    h = hashlib.sha256()
    try:
        files = sorted(f for f in p.rglob("*") if f.is_file())
    except OSError as err:
        raise CloudnoiseError(f"{p}: cannot read ({err.strerror or err})") from None
    for f in files:
        h.update(str(f.relative_to(p)).encode() + b"\0" + file_sha256(f).encode())
    return h.hexdigest()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as err:
        raise CloudnoiseError(f"{path}: cannot read ({err.strerror or err})") from None
    return h.hexdigest()


@dataclass(frozen=True)
class Experiment:
    """A named workload; `collective`, `app` or `goal` holds it (ranks are a placeholder).

    An app experiment as first made is a template: its compute phases last 0
    until `for_system` fixes them for one system (unless nothing in them
    depends on the system: --gflops, or compute stored by a resumed sweep)."""

    name: str
    kind: str  # "collective" | "app" | "goal" | "trace"
    spec: str  # "pattern:size", the app's phase text, or the GOAL file's path
    figure: str | None = None
    collective: CollectiveSpec | None = None
    app: Application | None = None
    gflops: float | None = None  # the user's --gflops, for every system

    def for_system(
        self, system: str, rate: ComputeRate | None, stored: list[dict[str, Any] | None] | None = None
    ) -> Experiment:
        """This workload on one system: compute times from `stored` (a resumed
        sweep's), else from --gflops, else from the system's `rate`, else DGEMM
        timed on this machine (see cloudnoise.schedules.compute_model)."""
        if self.app is None or all(c is None or c.method != "unresolved" for c in self.app.compute):
            return self  # a collective, or compute that does not depend on the system
        spec = self.app.spec
        if stored is not None:
            if len(stored) != len(spec.phases):
                raise CloudnoiseError(f"sweep.json: the compute of {system} does not match the application's phases")
            times = [None if c is None else _compute_time(c) for c in stored]
            app = Application(spec=spec, ranks=2, iterations=self.app.iterations, compute=times)
        else:
            app = resolve(spec, ranks=2, iterations=self.app.iterations, gflops=self.gflops, rate=rate)
        return dataclasses.replace(self, app=app)
    scaling: str = "weak"  # apps: see the module docstring
    goal: GoalFile | None = None
    schedgen: str | None = None  # apps: the Schedgen of phases that name none (--schedgen)
    trace: TraceRun | None = None

    def application(self, nodes: int) -> Application:
        """The application as it runs on `nodes` ranks (strong scaling divides its compute)."""
        assert self.app is not None
        if self.scaling == "strong":
            return self.app.strong(nodes)
        return dataclasses.replace(self.app, ranks=nodes)

    def _check_goal_nodes(self, nodes: int) -> None:
        assert self.goal is not None
        if nodes != self.goal.ranks:
            raise CloudnoiseError(
                f"{self.goal.path} is a schedule of {self.goal.ranks} ranks: it runs on {self.goal.ranks} nodes only, not {nodes}"
            )

    def schedule(self, nodes: int) -> Any:
        """The engine schedule of this workload on `nodes` ranks."""
        if self.collective is not None:
            return generate(dataclasses.replace(self.collective, ranks=nodes))
        if self.goal is not None:
            self._check_goal_nodes(nodes)
            return self.goal.schedule()
        if self.trace is not None:
            return self.trace.schedule(nodes)
        return self.application(nodes).generate()

    def ops_per_rep(self, nodes: int) -> int:
        """Operations in the schedule at `nodes` ranks (counted, not generated); also
        checks that the workload exists at that scale."""
        if self.collective is not None:
            return int(count(dataclasses.replace(self.collective, ranks=nodes))["ops"])
        if self.goal is not None:
            self._check_goal_nodes(nodes)
            return self.goal.ops
        if self.trace is not None:
            return int(self.trace.schedule(nodes).num_ops)
        assert self.app is not None
        app = self.application(nodes)
        for phase in app.spec.phases:  # the pattern's arguments against these ranks
            if phase.kind == "collective":
                phase.collective(nodes)
        return int(app.count()["ops"])

    @property
    def compute_ns(self) -> float:
        """Compute on the critical path as the phases are written (apps; 0 otherwise):
        each rank's at any scale under weak scaling, the whole job's under strong."""
        return 0.0 if self.app is None else float(self.app.compute_ns)

    def compute_ns_at(self, nodes: int) -> float:
        """Compute on the critical path at `nodes` ranks (apps; 0 otherwise)."""
        return 0.0 if self.app is None else float(self.application(nodes).compute_ns)

    def describe(self) -> dict[str, Any]:
        """The `experiment` object of sweep.json."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "spec": self.spec, "figure": self.figure}
        if self.app is not None:
            out["iterations"] = self.app.iterations
            if self.scaling != "weak":  # weak sweeps keep the sweep.json they always had
                out["scaling"] = self.scaling
            if self.schedgen not in (None, "public"):
                out["schedgen"] = self.schedgen
        if self.goal is not None:
            out.update(sha256=self.goal.sha256, ranks=self.goal.ranks)
        if self.trace is not None:
            out.update(sha256=self.trace.sha256, ranks=self.trace.ranks)
            if self.scaling != "weak":
                out["scaling"] = self.scaling
        return out

    def compute_record(self) -> list[dict[str, Any] | None]:
        """This (system's) app's compute phases as sweep.json keeps them: seconds,
        how they were fixed, and the flop rate with its source."""
        assert self.app is not None
        return [
            None if c is None else {"seconds": c.seconds, "method": c.method, "detail": c.detail,
                                    "gflops": c.gflops, "rate_source": c.rate_kind or None}
            for c in self.app.compute
        ]


def _compute_time(c: dict[str, Any]) -> ComputeTime:
    try:
        gflops = c.get("gflops")
        return ComputeTime(float(c["seconds"]), str(c["method"]), str(c.get("detail", "")),
                           None if gflops is None else float(gflops), str(c.get("rate_source") or ""))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise CloudnoiseError("sweep.json: a compute phase needs seconds and method; remove the folder or use another --out") from None


def collective_text(pattern: str, size: str, *, schedgen: str | None = None, segmentsize: str | None = None) -> str:
    """A collective in the phase syntax, PATTERN:SIZE[:OPTS], with only the
    options that differ from Schedgen's defaults (so a sweep of a public
    pattern keeps the spec it always had)."""
    opts = []
    if schedgen not in (None, "public"):
        opts.append(f"schedgen={schedgen}")
    if segmentsize not in (None, "1"):
        opts.append(f"segmentsize={segmentsize}")
    return f"{pattern}:{size}" + (f":{','.join(opts)}" if opts else "")


def collective_experiment(text: str, name: str = "", figure: str | None = None,
                          schedgen: str | None = None) -> Experiment:
    """A collective sweep: PATTERN:SIZE[:OPTS] (an app's collective phase syntax,
    e.g. `dissemination:16B` or `pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks`);
    `schedgen` is the flavour when the text names none, and the stored spec then names it
    (so a resumed sweep runs the same collective)."""
    spec = text.strip()
    phase = parse_phase(spec, f"collective {spec!r}", schedgen)
    if phase.kind != "collective":
        raise CloudnoiseError(f"{spec!r}: a collective sweep takes PATTERN:SIZE (gemm and compute go in --app)")
    if phase.schedgen != "public" and "schedgen=" not in spec:
        spec += f"{':' if spec.count(':') == 1 else ','}schedgen={phase.schedgen}"
    return Experiment(name=name or spec, kind="collective", spec=spec, figure=figure, collective=phase.collective(2))


def app_experiment(
    text: str,
    *,
    iterations: int | None = None,
    gflops: float | None = None,
    name: str = "",
    figure: str | None = None,
    compute: list[dict[str, Any] | None] | None = None,
    scaling: str = "weak",
    schedgen: str | None = None,
) -> Experiment:
    """An application sweep's template (compute fixed per system by `for_system`).
    `compute`, stored by a sweep being resumed, fixes the compute times for
    every system instead. `scaling`: weak or strong (see the module docstring).
    `schedgen`: the Schedgen of collective phases that name none (default public)."""
    if scaling not in SCALINGS:
        raise CloudnoiseError(f"--scaling: choose {' or '.join(SCALINGS)}, not {scaling!r}")
    spec = app_from(text, schedgen=schedgen)
    if iterations is not None and iterations < 1:
        raise CloudnoiseError(f"--iterations must be at least 1, got {iterations}")
    user = gflops if gflops is not None else spec.gflops
    if compute is not None:
        if len(compute) != len(spec.phases):
            raise CloudnoiseError("sweep.json: experiment.compute does not match the application's phases")
        times = [None if c is None else _compute_time(c) for c in compute]
        app = Application(spec=spec, ranks=2, iterations=iterations or spec.iterations or 1, compute=times)
    elif user is not None or all(p.kind != "gemm" or p.gflops for p in spec.phases):
        # nothing depends on the system: fixed here, once
        app = resolve(spec, ranks=2, iterations=iterations, gflops=user)
    else:
        placeholder = [None if p.kind == "collective" else ComputeTime(0.0, "unresolved") for p in spec.phases]
        for phase in spec.phases:  # the pattern's arguments (ranks are checked per node count)
            if phase.kind == "collective":
                phase.collective(2)
        app = Application(spec=spec, ranks=2, iterations=iterations or spec.iterations or 1, compute=placeholder)
    return Experiment(name=name or text.strip(), kind="app", spec=text.strip(), figure=figure, app=app, gflops=user,
                      scaling=scaling, schedgen=schedgen)


def trace_experiment(path: str | Path, name: str = "", scaling: str = "weak") -> Experiment:
    """A recorded trace at every node count (extrapolated where it was not recorded)."""
    from cloudnoise.trace.reader import open_trace

    if scaling not in SCALINGS:
        raise CloudnoiseError(f"--scaling: choose {' or '.join(SCALINGS)}, not {scaling!r}")
    p = Path(path).resolve()
    trace = TraceRun(str(p), folder_sha256(p), int(open_trace(p).num_ranks), scaling)
    return Experiment(name=name or p.name, kind="trace", spec=trace.path, trace=trace, scaling=scaling)


def goal_experiment(path: str | Path, name: str = "") -> Experiment:
    """A GOAL file's schedule, at its own rank count only."""
    from cloudnoise.simulation.api import load_schedule

    p = Path(path)
    sha = file_sha256(p)
    schedule = load_schedule(p)
    goal = GoalFile(str(p.resolve()), sha, int(schedule.num_ranks), int(schedule.num_ops), schedule)
    return Experiment(name=name or p.name, kind="goal", spec=goal.path, goal=goal)
