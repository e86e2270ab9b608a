"""What a sweep runs at every scale: one collective, or one application.

An `Experiment` is the workload with everything fixed except the node
count: the collective's arguments, or the application's phases, iterations
and compute times. Compute times (DGEMM) are fixed once, on the machine that
plans the sweep, and travel with the experiment, so every worker simulates
the same application whatever its own CPU (results never depend on where a
task ran).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.apps import Application, app_from, resolve
from cloudnoise.schedules.compute_model import ComputeTime
from cloudnoise.schedules.patterns import CollectiveSpec, count, generate
from cloudnoise.units import parse_size_bytes


@dataclass(frozen=True)
class Experiment:
    """A named workload; `collective` or `app` holds it (ranks are a placeholder)."""

    name: str
    kind: str  # "collective" | "app"
    spec: str  # "pattern:size" or the app's phase text
    figure: str | None = None
    collective: CollectiveSpec | None = None
    app: Application | None = None

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
            out["compute"] = [
                None if c is None else {"seconds": c.seconds, "method": c.method, "detail": c.detail}
                for c in self.app.compute
            ]
        return out


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
    compute: list[dict[str, Any] | None] | None = None,
) -> Experiment:
    """An application sweep. `compute`, from a sweep.json being resumed, reuses the
    compute times fixed when the sweep started instead of timing DGEMM again."""
    spec = app_from(text)
    if compute is not None:
        if len(compute) != len(spec.phases):
            raise CloudnoiseError("sweep.json: experiment.compute does not match the application's phases")
        times = [None if c is None else ComputeTime(float(c["seconds"]), str(c["method"]), str(c.get("detail", ""))) for c in compute]
        app = Application(spec=spec, ranks=2, iterations=iterations or spec.iterations or 1, compute=times)
    else:
        app = resolve(spec, ranks=2, iterations=iterations, gflops=gflops)
    return Experiment(name=name or text.strip(), kind="app", spec=text.strip(), figure=figure, app=app)
