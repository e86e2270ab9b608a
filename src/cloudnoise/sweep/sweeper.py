"""A whole sweep: plan what is missing, run it, save it, merge it.

`run_sweep` is the one entry point (the CLI and the tests use it). It
writes sweep.json first (complete = false), asks the store which
repetitions are already saved (an interrupted or extended sweep), plans
tasks for the rest, runs them (in process or on Dask), saves each task's
part as it finishes, and at the end merges the parts into results.parquet
and marks the sweep complete.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise.console import ProgressSink
from cloudnoise.version import __version__
from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import READY_ORDERS, VARIANTS
from cloudnoise.sweep.experiment import Experiment
from cloudnoise.sweep.plan import TARGET_OPS_PER_TASK, Task, chunk_size, task_cost, tasks_for
from cloudnoise.sweep.runner import System, config_setup, dask_client, run_in_process, run_on_dask
from cloudnoise.sweep.store import FORMAT, SweepStore
from cloudnoise.sweep.task import ChunkResult, ConfigSetup, TaskFailure

MAX_NODES = 2**31 - 1


@dataclass(frozen=True)
class SweepRequest:
    """Everything that defines a sweep's numbers, and its grid."""

    experiment: Experiment
    systems: tuple[System, ...]
    nodes: tuple[int, ...]
    variants: tuple[str, ...]
    reps: int
    seed: int = 0
    ready_order: str = "program"
    gflops: float | None = None
    # per system, the compute phases a sweep being continued fixed when it started
    stored_compute: dict[str, Any] | None = None
    placement: str | None = None  # --placement (None: each profile as written)

    def experiment_for(self, system: System) -> Experiment:
        """The workload on `system`: an application's compute times fixed for it
        (stored ones, else --gflops, else the profile's rate, else timed here)."""
        stored = (self.stored_compute or {}).get(system.name)
        rate = None if self.gflops is not None else system.profile.compute_rate()
        return self.experiment.for_system(system.name, rate, stored)

    def check(self) -> None:
        """One-line errors for an impossible grid."""
        if not self.systems:
            raise CloudnoiseError("--profile: give at least one system (built-in name or profile file)")
        names = [s.name for s in self.systems]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise CloudnoiseError(f"--systems: two profiles are both named {dup[0]!r}; rename one (its \"name\" key)")
        if not self.nodes:
            raise CloudnoiseError("--nodes: give at least one node count")
        for n in self.nodes:
            if n < 2 or n > MAX_NODES:
                raise CloudnoiseError(f"--nodes: {n} is impossible for a scalability sweep: node counts must be in [2, {MAX_NODES}]")
        if len(set(self.nodes)) != len(self.nodes):
            raise CloudnoiseError("--nodes: a node count is listed twice")
        if not self.variants:
            raise CloudnoiseError(f"--noise: give at least one variant ({', '.join(VARIANTS)})")
        for v in self.variants:
            if v not in VARIANTS:
                raise CloudnoiseError(f"--noise: unknown variant {v!r} (choose from {', '.join(VARIANTS)})")
        if len(set(self.variants)) != len(self.variants):
            raise CloudnoiseError("--noise: a variant is listed twice")
        if self.reps < 1:
            raise CloudnoiseError(f"--reps must be at least 1, got {self.reps}")
        if not 0 <= self.seed < 2**64:
            raise CloudnoiseError("--seed must be an integer in [0, 2^64)")
        if self.ready_order not in READY_ORDERS:
            raise CloudnoiseError(f"--ready-order: choose from {', '.join(READY_ORDERS)}")

    def meta(self, experiments: dict[str, Experiment] | None = None, created: str | None = None) -> dict[str, Any]:
        """sweep.json for this request (not yet finished); `experiments` are the
        workload per system (for an application's compute times)."""
        experiment = self.experiment.describe()
        extra: dict[str, Any] = {}
        if self.experiment.kind == "app":
            experiment["gflops"] = self.gflops
            experiments = experiments or {s.name: self.experiment_for(s) for s in self.systems}
            extra["compute"] = {name: e.compute_record() for name, e in experiments.items()}
        return {
            "format": FORMAT,
            "experiment": experiment,
            "systems": [s.name for s in self.systems],
            "nodes": list(self.nodes),
            "variants": list(self.variants),
            "reps": self.reps,
            "seed": self.seed,
            "ready_order": self.ready_order,
            "created": created or _now(),
            "finished": None,
            "complete": False,
            "cloudnoise_version": __version__,
            "placement": self.placement,
            "profiles": {s.name: {"source": s.source, "sha256": s.fingerprint, "placement": s.profile.placement_label(),
                                  "provenance": s.profile.provenance_kinds(),
                                  **({"one_host": True} if s.profile.one_host() else {})} for s in self.systems},
            **extra,
        }


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def check_compatible(old: dict[str, Any], new: dict[str, Any], where: Path, old_is_empty: bool = False) -> None:
    """An existing sweep.json may be continued or extended (other systems, node
    counts, variants or repetitions) only if every saved repetition would come
    out the same: same workload, seed, ready order and system profiles. A
    folder with nothing saved (every cell failed) may change seed and order."""
    hint = f"; use another --out, or `cloudnoise sweep --resume --out {where}` to continue it as it was"
    oe, ne = old.get("experiment", {}), new["experiment"]
    for key in ("kind", "spec", "iterations", "gflops", "scaling", "sha256"):
        if oe.get(key) != ne.get(key):
            raise CloudnoiseError(f"{where} holds a sweep of another workload ({key}: {oe.get(key)!r} vs {ne.get(key)!r}){hint}")
    old_compute = old.get("compute") or {}
    for name, compute in (new.get("compute") or {}).items():
        if name in old_compute and old_compute[name] != compute:
            raise CloudnoiseError(f"{where} holds a sweep whose {name} compute phases differ (another flop rate){hint}")
    for key in ("seed", "ready_order", "placement"):
        if old.get(key) != new.get(key) and not old_is_empty:
            raise CloudnoiseError(f"{where} holds a sweep with another {key} ({old.get(key)!r} vs {new.get(key)!r}){hint}")
    for name, prof in new["profiles"].items():
        before = old.get("profiles", {}).get(name)
        if before is not None and before.get("sha256") != prof["sha256"]:
            raise CloudnoiseError(f"{where} holds a sweep run with another profile named {name!r} (its content changed){hint}")


@dataclass(frozen=True)
class FailedCell:
    """A (system, nodes, variant) whose repetitions cannot be simulated, and why."""

    system: str
    nodes: int
    variant: str
    message: str
    exit_code: int

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "nodes": self.nodes, "variant": self.variant,
                "message": self.message, "exit_code": self.exit_code}


@dataclass
class SweepOutcome:
    """What run_sweep did."""

    meta: dict[str, Any]
    tasks_run: int
    reps_run: int
    reps_total: int
    resumed_reps: int
    seconds: float = 0.0
    failed: list[FailedCell] = field(default_factory=list)

    def raise_failures(self) -> None:
        """One line for the cells that could not be simulated (the rest is saved), with the first cell's reason."""
        if not self.failed:
            return
        first = self.failed[0]
        more = f" (and {len(self.failed) - 1} more cells: see `failed` in sweep.json)" if len(self.failed) > 1 else ""
        raise CloudnoiseError(f"{first.message}{more}; every other cell of the sweep is saved", first.exit_code)


def plan_tasks(
    request: SweepRequest,
    done: dict[tuple[str, int, str], set[int]],
    chunk: int | None = None,
    alike: set[tuple[str, int, str]] | frozenset[tuple[str, int, str]] = frozenset(),
    target_ops: int = TARGET_OPS_PER_TASK,
) -> list[Task]:
    """Tasks for every repetition of the grid not yet saved, in grid order,
    each about `target_ops` simulated operations (see plan.chunk_size).
    A cell in `alike` (its noise draws nothing: every repetition is the same,
    simulated once, see task.run_chunk) is one task unless `chunk` is given."""
    sizes = {n: chunk or chunk_size(request.experiment.ops_per_rep(n), request.reps, target_ops) for n in request.nodes}
    tasks: list[Task] = []
    for system in request.systems:
        for nodes in request.nodes:
            for variant in request.variants:
                cell = (system.name, nodes, variant)
                size = request.reps if chunk is None and cell in alike else sizes[nodes]
                tasks += tasks_for(system.name, nodes, variant, request.reps, size, done.get(cell, ()))
    return tasks


def alike_cells(setups: dict[tuple[str, int], ConfigSetup], variants: tuple[str, ...]) -> set[tuple[str, int, str]]:
    """The (system, nodes, variant) cells whose repetitions are all the same (no noise drawn)."""
    return {(s, n, v) for (s, n), setup in setups.items() for v in variants if not setup.noise.draws(v)}


def _check_noise(setup: ConfigSetup, variants: tuple[str, ...]) -> None:
    """Every variant needs its kind of noise in the system's profile."""
    for v in variants:
        if v in ("os", "both") and not setup.noise.has_os:
            lacks = "OS noise"
        elif v in ("network", "both") and not setup.noise.has_network:
            lacks = "network (latency or bandwidth) noise"
        else:
            continue
        raise CloudnoiseError(
            f"{setup.system}: its profile has no {lacks}, so the {v!r} variant cannot run; drop it from --noise, or the system"
        )


def run_sweep(
    request: SweepRequest,
    out: str | Path,
    *,
    in_process: bool = False,
    scheduler: str | None = None,
    workers: int = 2,
    threads_per_worker: int = 1,
    connect_timeout: float = 20.0,
    chunk: int | None = None,
    client: Any = None,
    progress: ProgressSink | None = None,
    on_result: Callable[[ChunkResult], None] | None = None,
) -> SweepOutcome:
    """Runs (or continues) the sweep into folder `out`.

    `in_process` runs without Dask; else `client` (a connected
    distributed.Client), `scheduler` (an address) or a new LocalCluster of
    `workers` processes runs the tasks. `chunk` fixes repetitions per task
    (default: sized by the schedule). `progress` (console.Progress) hears
    the estimate before the work starts, then the work done as each task
    ends (`PreparedSweep.report`); `on_result` sees each saved task (tests
    use it)."""
    on_dask = not in_process
    prepared = prepare_sweep(request, out, chunk, progress=progress,
                             workers=1 if in_process else workers * threads_per_worker, on_dask=on_dask)
    if progress is not None:
        prepared.report(progress)

    def save(result: ChunkResult) -> None:
        prepared.save(result)
        if on_result is not None:
            on_result(result)
        if progress is not None:
            prepared.report(progress)

    t0 = time.perf_counter()
    tasks, setups = prepared.tasks, prepared.setups
    if tasks:
        if in_process:
            run_in_process(setups, tasks, save, prepared.fail)
        elif client is not None:
            run_on_dask(client, setups, tasks, save, prepared.fail)
        else:
            with dask_client(scheduler, workers, threads_per_worker, connect_timeout) as c:
                run_on_dask(c, setups, tasks, save, prepared.fail)
    return prepared.finish(time.perf_counter() - t0)


@dataclass
class PreparedSweep:
    """A sweep ready to run: its folder's sweep.json written, the tasks of the
    repetitions not yet saved, and the setups they need (`prepare_sweep`).
    `save` and `fail` take each task's outcome as it ends; `finish` merges
    the parts and marks the sweep complete. `run_sweep` is prepare, run,
    finish; `cloudnoise paper` prepares all its sweeps and runs their tasks
    together."""

    request: SweepRequest
    store: SweepStore
    meta: dict[str, Any]
    setups: dict[tuple[str, int], ConfigSetup]
    tasks: list[Task]
    total: int
    todo: int
    finished: int
    experiments: dict[str, Experiment]
    # The cells whose noise draws nothing (alike_cells): one task, one
    # simulated repetition each; kept after drop_setups.
    alike: set[tuple[str, int, str]]
    failed: dict[tuple[str, int, str], FailedCell] = field(default_factory=dict)
    work_done: float = 0.0  # of this run's tasks, in plan.task_cost units
    _ops: dict[int, int] = field(default_factory=dict, repr=False)  # operations per repetition, by nodes
    _work_total: float | None = field(default=None, repr=False)

    def task_work(self, task: Task) -> float:
        """A task's work (plan.task_cost)."""
        if task.nodes not in self._ops:
            self._ops[task.nodes] = self.request.experiment.ops_per_rep(task.nodes)
        return task_cost(self._ops[task.nodes], task, (task.system, task.nodes, task.variant) in self.alike)

    @property
    def work_total(self) -> float:
        """The work of this run's tasks."""
        return sum(self.task_work(t) for t in self.tasks)

    def report(self, progress: ProgressSink) -> None:
        """Tells `progress` the work done so far and the repetitions saved in words."""
        if self._work_total is None:
            self._work_total = self.work_total
        progress.update(self.work_done, self._work_total, f"{self.finished:,} of {self.total:,} repetitions")

    def setup(self, system: str, nodes: int) -> ConfigSetup:
        """The setup of one configuration: the one planned with, or (after
        `drop_setups`) made again, the same (config_setup is deterministic)."""
        held = self.setups.get((system, nodes))
        if held is not None:
            return held
        sys_ = next(s for s in self.request.systems if s.name == system)
        return config_setup(self.experiments[system], sys_, nodes, self.request.seed, self.request.ready_order)

    def drop_setups(self) -> None:
        """Frees the setups (their noise: 5-40 MB each on the paper's systems)."""
        self.setups = {}

    def save(self, result: ChunkResult) -> None:
        """A finished task's part file, written now (an interrupted sweep keeps it)."""
        self.store.write_part(result, self.request.experiment.kind)
        self.finished += result.task.reps
        self.work_done += self.task_work(result.task)

    def fail(self, failure: TaskFailure) -> None:
        # A cell's chunks fail alike (the schedule deadlocks in every repetition): keep the first word of it.
        t = failure.task
        self.failed.setdefault((t.system, t.nodes, t.variant),
                               FailedCell(t.system, t.nodes, t.variant, failure.message, failure.exit_code))

    def finish(self, seconds: float) -> SweepOutcome:
        """Merges the parts into results.parquet and writes the finished sweep.json."""
        request, store, meta, failed = self.request, self.store, self.meta, self.failed
        table = store.merge(meta)
        missing = sum(request.reps - len(done_now) for done_now in _done_per_cell(store, request, failed))
        if table.num_rows + missing != self.total:
            raise CloudnoiseError(f"{store.dir}: merged {table.num_rows} rows, expected {self.total - missing}; rerun with --resume")
        meta["finished"] = _now()
        meta["complete"] = not failed
        meta["failed"] = [f.to_dict() for f in failed.values()]
        store.write_meta(meta)
        return SweepOutcome(meta, len(self.tasks), self.todo, self.total, self.total - self.todo, seconds,
                            list(failed.values()))


def prepare_sweep(
    request: SweepRequest, out: str | Path, chunk: int | None = None, target_ops: int = TARGET_OPS_PER_TASK,
    *, progress: ProgressSink | None = None, workers: int = 1, on_dask: bool = False,
) -> PreparedSweep:
    """Checks the request against what `out` holds, writes sweep.json (not yet
    complete) and plans the tasks of every repetition not yet saved (`chunk`
    repetitions each, or about `target_ops` operations). With `progress`, the
    estimate of the rest on `workers` workers (sweep/estimate.py) goes to it
    before the configurations are set up."""
    request.check()
    store = SweepStore(out)
    experiments = {s.name: request.experiment_for(s) for s in request.systems}
    meta = request.meta(experiments)
    old = store.read_meta()
    if old is not None:
        check_compatible(old, meta, store.dir, old_is_empty=not store.done(request.experiment.kind))
        meta["created"] = old.get("created", meta["created"])
        if "compute" in meta:  # systems only the old sweep had keep their record
            meta["compute"] = {**(old.get("compute") or {}), **meta["compute"]}
    kind = request.experiment.kind
    if progress is not None:
        from cloudnoise.console import ESTIMATE_FLOOR_S
        from cloudnoise.sweep.estimate import estimate_sweep

        guess = estimate_sweep(request, experiments, store.done(kind), workers, on_dask, floor_s=ESTIMATE_FLOOR_S)
        progress.estimate(None if guess is None else guess.seconds, "" if guess is None else guess.basis)
    # Every (system, nodes) must exist and have the noise its variants need, before anything runs.
    setups = {}
    for system in request.systems:
        for nodes in request.nodes:
            setup = config_setup(experiments[system.name], system, nodes, request.seed, request.ready_order)
            _check_noise(setup, request.variants)
            setups[(system.name, nodes)] = setup
    done = store.done(kind)
    alike = alike_cells(setups, request.variants)
    tasks = plan_tasks(request, done, chunk, alike, target_ops)
    total = len(request.systems) * len(request.nodes) * len(request.variants) * request.reps
    todo = sum(t.reps for t in tasks)
    store.write_meta(meta)
    needed = {(t.system, t.nodes) for t in tasks}
    setups = {k: v for k, v in setups.items() if k in needed}
    return PreparedSweep(request, store, meta, setups, tasks, total, todo, total - todo, experiments, alike)


def _done_per_cell(store: SweepStore, request: SweepRequest, failed: dict[tuple[str, int, str], FailedCell]) -> list[set[int]]:
    """The saved repetitions of each failed cell (the rest of the grid is complete)."""
    done = store.done(request.experiment.kind)
    return [done.get(cell, set()) for cell in failed]


def saved_reps(out: str | Path) -> int:
    """Repetitions saved in the sweep folder `out` (merged or in parts; 0 when it holds no sweep)."""
    store = SweepStore(out)
    try:
        meta = store.read_meta()
        return 0 if meta is None else store.rows(meta["experiment"]["kind"]).num_rows
    except CloudnoiseError:
        return 0


def interrupted_note(out: str | Path, how: str | None = None) -> str:
    """What an interrupted sweep kept: the repetitions saved in `out` and `how` to
    continue (default: `sweep --resume`), or that nothing was."""
    saved = saved_reps(out)
    if not saved:
        return "interrupted before any repetition was saved"
    how = how or f"rerun with --resume --out {out} to continue"
    return f"interrupted; {saved:,} repetitions are saved in {out}: {how}"
