"""One sweep task, as a worker runs it: a chunk of repetitions of one
(system, nodes, variant).

Everything a task needs travels with it (`ConfigSetup`: the LogGOPS
parameters, the noise already built from the profile with the
configuration's seed, and the workload), so a worker needs cloudnoise
installed but none of the client's files. A CloudnoiseError (a deadlock, an
impossible parameter) is returned as a `TaskFailure` rather than raised:
it is deterministic, so Dask must not retry it, and the client turns it into
the usual one-line error.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import simulate
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.sweep.experiment import Experiment
from cloudnoise.sweep.plan import Task


@dataclass
class PreparedNoise(NoiseSetup):
    """A NoiseSetup that builds each variant's engine model once per process.

    Turning the latency and bandwidth distributions into the engine's
    quantile tables takes ~0.1 s, more than simulating a chunk of a small
    schedule; a worker holds one configuration's setup in memory for all of
    its tasks, so the models are built once per worker, not once per task.
    The models are not pickled (each process builds its own)."""

    _models: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, noise: NoiseSetup) -> PreparedNoise:
        return cls(**{f.name: getattr(noise, f.name) for f in fields(NoiseSetup)})

    def engine_model(self, variant: str) -> _engine.NoiseModel:
        model = self._models.get(variant)
        if model is None:
            model = super().engine_model(variant)
            self._models[variant] = model
        return model

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_models": {}}


@dataclass(frozen=True)
class ConfigSetup:
    """What every task of one (system, nodes) configuration shares."""

    system: str
    nodes: int
    seed: int
    params: LogGOPS
    noise: PreparedNoise
    experiment: Experiment
    ready_order: str


@dataclass(frozen=True)
class ChunkResult:
    """A task's repetitions: completion time (ns) of each, in repetition order."""

    task: Task
    seed: int
    runtime_ns: np.ndarray
    compute_ns: float | None  # apps only: compute on the critical path


@dataclass(frozen=True)
class TaskFailure:
    """A task that cannot succeed anywhere: the message and exit status of its error."""

    task: Task
    message: str
    exit_code: int


def run_chunk(setup: ConfigSetup, task: Task, threads: int | None = None) -> ChunkResult | TaskFailure:
    """Simulates the task's repetitions; repetition r depends only on (setup.seed, r).

    `threads`: engine threads (None: every core, for tasks run one after
    the other in this process). The Dask runners pass 1: they run a task per
    Dask thread already, and the engine's default put two workers' 2 x 2
    threads on a 2-core machine (twice as many threads as cores, every CPU
    second inflated by the contention). Results do not depend on it.

    A variant whose noise draws nothing (`NoiseSetup.draws`: the noiseless
    one, or one whose noise is a single value) gives every repetition the
    same runtime, bit for bit: the first repetition is simulated once and
    repeated (tests/test_sweep.py compares it with simulating each)."""
    once = not setup.noise.draws(task.variant)
    try:
        result = simulate(
            setup.experiment.schedule(setup.nodes),
            params=setup.params,
            reps=1 if once else task.reps,
            seed=setup.seed,
            first_rep=task.first_rep,
            noise=setup.noise,
            variant=task.variant,
            ready_order=setup.ready_order,
            threads=threads,
        )
    except CloudnoiseError as err:
        where = f"{task.system}, {task.nodes} nodes, {task.variant} noise, repetitions {task.first_rep}+{task.reps}"
        return TaskFailure(task, f"{where}: {err}", err.exit_code)
    runtime = np.asarray(result.runtime_ns, dtype=np.float64)
    if once:
        runtime = np.repeat(runtime, task.reps)
    compute = setup.experiment.compute_ns_at(setup.nodes) if setup.experiment.kind == "app" else None
    return ChunkResult(task=task, seed=setup.seed, runtime_ns=runtime, compute_ns=compute)


def hold(setup: ConfigSetup) -> ConfigSetup:
    """Identity: submitted as a Dask task so a configuration's setup is shipped
    once, and recomputed from the scheduler's copy if its worker is lost."""
    return setup
