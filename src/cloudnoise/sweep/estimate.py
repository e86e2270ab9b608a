"""How long a sweep will take, said before it starts.

The work is counted as the campaign orders it (`plan.task_cost`:
noiseless-equivalent simulated operations, a noisy repetition weighing
`NOISY_COST` noiseless ones, a noiseless cell simulated once). Its speed is
timed, not assumed: one configuration of the sweep itself is simulated for
a moment (the first system, the largest node count whose repetition holds
at most `CALIBRATION_OPS` operations, its first noisy variant), because the
engine's speed per operation differs tenfold between workloads (a 16 B
dissemination against a 1 MiB allreduce of rendezvous messages). The
estimate divides the work over the workers that have a core each and adds
the configurations' setup (timed on the same one) and a Dask cluster's
start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cloudnoise.sweep.experiment import Experiment
from cloudnoise.sweep.plan import Task, task_cost

# The calibration simulates about this many operations (a fraction of a second).
CALIBRATION_OPS = 1_000_000
# No engine case runs faster than this many noiseless-equivalent operations
# a second on one core (the fastest measured: ~13 M noisy operations/s, 39 M
# units); a sweep whose work at this speed ends within ESTIMATE_FLOOR_S is
# not timed at all.
FASTEST_UNITS_PER_S = 60e6
# A local Dask cluster's start, measured at 2-4 s on 2 cores.
DASK_START_S = 3.0


@dataclass(frozen=True)
class Estimate:
    """How long, and from what."""

    seconds: float
    work: float  # noiseless-equivalent operations to simulate
    units_per_s: float  # of them per second on one worker, as timed
    basis: str


def sweep_work(request: Any, done: dict[tuple[str, int, str], set[int]]) -> float:
    """The work of every repetition not yet saved (noiseless cells counted once);
    `request` is a sweeper.SweepRequest (which imports this module)."""
    from cloudnoise.sweep.plan import missing_ranges

    ops = {n: request.experiment.ops_per_rep(n) for n in request.nodes}
    work = 0.0
    for system in request.systems:
        for nodes in request.nodes:
            for variant in request.variants:
                todo = sum(b - a for a, b in missing_ranges(done.get((system.name, nodes, variant), ()), request.reps))
                if todo:
                    work += task_cost(ops[nodes], Task(system.name, nodes, variant, 0, todo), variant == "none")
    return work


def estimate_sweep(request: Any, experiments: dict[str, Experiment],
                   done: dict[tuple[str, int, str], set[int]], workers: int, on_dask: bool,
                   floor_s: float = 0.0) -> Estimate | None:
    """The sweep's wall time on `workers` workers (None: nothing left to do, or
    so little that even the fastest engine speed ends it within `floor_s`)."""
    from cloudnoise.cores import available_cores
    from cloudnoise.simulation.api import simulate
    from cloudnoise.sweep.runner import config_setup

    work = sweep_work(request, done)
    parallel = max(1, min(workers, available_cores()))
    if work <= 0 or work / (FASTEST_UNITS_PER_S * parallel) < floor_s:
        return None
    sizes = {n: request.experiment.ops_per_rep(n) for n in request.nodes}
    small = [n for n in request.nodes if sizes[n] <= CALIBRATION_OPS]
    nodes = max(small) if small else min(request.nodes)
    system = request.systems[0]
    variant = next((v for v in request.variants if v != "none"), "none")
    t0 = time.perf_counter()
    setup = config_setup(experiments[system.name], system, nodes, request.seed, request.ready_order)
    setup_s = time.perf_counter() - t0
    reps = 1 if variant == "none" else max(1, CALIBRATION_OPS // max(1, sizes[nodes]))
    t0 = time.perf_counter()
    simulate(setup.experiment.schedule(nodes), params=setup.params, reps=reps, seed=setup.seed, noise=setup.noise,
             variant=variant, ready_order=setup.ready_order, threads=1)
    seconds = max(1e-6, time.perf_counter() - t0)
    units = task_cost(sizes[nodes], Task(system.name, nodes, variant, 0, reps), False)
    rate = units / seconds
    configs = len(request.systems) * len(request.nodes)
    total = work / (rate * parallel) + configs * setup_s + (DASK_START_S if on_dask else 0.0)
    ops_per_s = sizes[nodes] * reps / seconds
    basis = (f"{system.name} at {nodes} nodes timed here: {_count(ops_per_s)} simulated operations/s"
             f"{' with ' + variant + ' noise' if variant != 'none' else ''}; {parallel} worker{'s' if parallel > 1 else ''}")
    return Estimate(total, work, rate, basis)


def _count(x: float) -> str:
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if x >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.0f}"
