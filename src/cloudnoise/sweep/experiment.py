"""What a sweep runs at every scale: one collective, or one application.

An `Experiment` is the workload with everything fixed except the node
count and the system: the collective's arguments, or the application's
phases and iterations. An application's compute times depend on the system
(`for_system`): a `gemm:N` phase runs at the user's --gflops if given, else
at the system's own rate (its profile's `compute`), else at DGEMM timed on
the machine that plans the sweep. They are fixed once, when the sweep
starts, kept in sweep.json and travel with the tasks, so every worker
simulates the same application whatever its own CPU (results never depend
on where a task ran), and a resumed sweep never times anything again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import ComputeRate
from cloudnoise.schedules.apps import Application, app_from, resolve
from cloudnoise.schedules.compute_model import ComputeTime
from cloudnoise.schedules.patterns import CollectiveSpec, count, generate
from cloudnoise.units import parse_size_bytes


@dataclass(frozen=True)
class Experiment:
    """A named workload; `collective` or `app` holds it (ranks are a placeholder).

    An app experiment as first made is a template: its compute phases last 0
    until `for_system` fixes them for one system."""

    name: str
    kind: str  # "collective" | "app"
    spec: str  # "pattern:size" or the app's phase text
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

    def schedule(self, nodes: int) -> Any:
        """The engine schedule of this workload on `nodes` ranks."""
        if self.collective is not None:
            return generate(dataclasses.replace(self.collective, ranks=nodes))
        assert self.app is not None
        return dataclasses.replace(self.app, ranks=nodes).generate()

    def ops_per_rep(self, nodes: int) -> int:
        """Operations in the schedule at `nodes` ranks (counted, not generated); also
        checks that the workload exists at that scale."""
        if self.collective is not None:
            return int(count(dataclasses.replace(self.collective, ranks=nodes))["ops"])
        assert self.app is not None
        app = dataclasses.replace(self.app, ranks=nodes)
        for phase in app.spec.phases:  # the pattern's arguments against these ranks
            if phase.kind == "collective":
                CollectiveSpec(phase.pattern, nodes, phase.size, phase.nway, phase.segmentsize, phase.nb_ns)
        return int(app.count()["ops"])

    @property
    def compute_ns(self) -> float:
        """Compute on the critical path (apps; 0 for a collective)."""
        return 0.0 if self.app is None else float(self.app.compute_ns)

    def describe(self) -> dict[str, Any]:
        """The `experiment` object of sweep.json."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "spec": self.spec, "figure": self.figure}
        if self.app is not None:
            out["iterations"] = self.app.iterations
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


def collective_experiment(pattern: str, size: str, name: str = "", figure: str | None = None) -> Experiment:
    """A collective sweep: Schedgen pattern and bytes per step."""
    nbytes = parse_size_bytes(size, "--size")
    template = CollectiveSpec(pattern=pattern, ranks=2, size=nbytes)
    spec = f"{pattern}:{size}"
    return Experiment(name=name or spec, kind="collective", spec=spec, figure=figure, collective=template)


def app_experiment(
    text: str,
    *,
    iterations: int | None = None,
    gflops: float | None = None,
    name: str = "",
    figure: str | None = None,
) -> Experiment:
    """An application sweep's template (compute fixed per system by `for_system`)."""
    spec = app_from(text)
    if iterations is not None and iterations < 1:
        raise CloudnoiseError(f"--iterations must be at least 1, got {iterations}")
    user = gflops if gflops is not None else spec.gflops
    if user is not None or all(p.kind != "gemm" or p.gflops for p in spec.phases):
        # nothing depends on the system: fixed here, once
        app = resolve(spec, ranks=2, iterations=iterations, gflops=user)
    else:
        placeholder = [None if p.kind == "collective" else ComputeTime(0.0, "unresolved") for p in spec.phases]
        for phase in spec.phases:  # the pattern's arguments (ranks are checked per node count)
            if phase.kind == "collective":
                CollectiveSpec(phase.pattern, 2, phase.size, phase.nway, phase.segmentsize, phase.nb_ns)
        app = Application(spec=spec, ranks=2, iterations=iterations or spec.iterations or 1, compute=placeholder)
    return Experiment(name=name or text.strip(), kind="app", spec=text.strip(), figure=figure, app=app, gflops=user)
