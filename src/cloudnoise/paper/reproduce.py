"""Run the paper's Sec. V through `sweep` and check every statement.

The statements say which simulations they need (system, workload, node
count, noise variant); `plan` groups those into sweep grids, one per
(workload, node count, set of variants), so nothing is simulated that no
statement reads (the 512 MiB ring runs at 1024 nodes only on Oracle, for the
one sentence about it). Each grid is an ordinary sweep folder under OUT
(sweep.json, results.parquet): rerunning the same command continues where
it stopped, a larger --reps extends it. The sweeps use the presets'
workloads and ready orders and the built-in profiles at the paper's
placement (same rack).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.console import ProgressSink
from cloudnoise.errors import CloudnoiseError
from cloudnoise.paper.table import FORMAT
from cloudnoise.paper.measures import Config
from cloudnoise.paper.statements import HPC, WORKLOADS, Outcome, Statement, check, needs_of
from cloudnoise.sweep.plan import task_cost

VARIANT_ORDER = ("none", "os", "network", "both")
# Operations per task in the campaign: 12x a sweep's (sweep.plan), 400 tasks at --reps 1000
# (4,318 at a sweep's 5 M), the largest ~4 s. Each task costs the client ~25 ms CPU
# (Dask, its part file) and its worker an engine set up again (~10-30 ms for a 16K-rank schedule:
# the first repetition of a call against the next ones); the largest tasks run first,
# so a larger task lengthens no tail. Chunking changes no number.
CAMPAIGN_OPS_PER_TASK = 60_000_000


@dataclass(frozen=True)
class Grid:
    """One sweep: a workload at one node count, systems x variants."""

    workload: str
    nodes: int
    systems: tuple[str, ...]
    variants: tuple[str, ...]

    @property
    def folder(self) -> str:
        return f"{self.workload}-n{self.nodes}-{'-'.join(self.variants)}"

    def configs(self) -> set[Config]:
        return {Config(self.workload, s, self.nodes, v) for s in self.systems for v in self.variants}


def _system_order(name: str) -> tuple[int, str]:
    return (HPC.index(name), name) if name in HPC else (len(HPC), name)


def plan(statements: tuple[Statement, ...] | list[Statement]) -> list[Grid]:
    """The sweeps that give every configuration the statements need, and no other
    (systems needing the same variants at a scale share a grid)."""
    by_scale: dict[tuple[str, int], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for c in needs_of(list(statements)):
        by_scale[(c.workload, c.nodes)][c.system].add(c.variant)
    grids = []
    for (workload, nodes), systems in sorted(by_scale.items()):
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for system, variants in systems.items():
            groups[tuple(v for v in VARIANT_ORDER if v in variants)].append(system)
        for variants, names in sorted(groups.items()):
            grids.append(Grid(workload, nodes, tuple(sorted(names, key=_system_order)), variants))
    return grids


def request_for(grid: Grid, reps: int, seed: int) -> Any:
    """The SweepRequest of one grid: the preset's workload and ready order,
    the built-in profiles as written (the paper's placement)."""
    from cloudnoise.sweep.experiment import app_experiment, collective_experiment
    from cloudnoise.sweep.presets import get_preset
    from cloudnoise.sweep.request import system_from
    from cloudnoise.sweep.sweeper import SweepRequest

    w = WORKLOADS[grid.workload]
    preset = get_preset(w.preset)
    if w.kind == "collective":
        experiment = collective_experiment(w.spec, name=preset.name, figure=preset.figure)
    else:
        experiment = app_experiment(w.spec, name=preset.name, figure=preset.figure)
    return SweepRequest(
        experiment=experiment, systems=tuple(system_from(s) for s in grid.systems), nodes=(grid.nodes,),
        variants=grid.variants, reps=reps, seed=seed, ready_order=preset.ready_order,
    )


Key = tuple[int, str, int]  # (sweep index, system, nodes): one configuration of the campaign


def campaign_groups(sweeps: list[Any]) -> list[tuple[Key, list[tuple[Any, float]], float]]:
    """Every configuration's tasks (sweep index, system, nodes) with their cost,
    the largest configuration first, each one's tasks largest first: the
    longest work starts first and the short configurations fill the end, so
    no worker waits idle at the tail of a sweep or of the campaign (longest
    processing time first). Ties keep the plan's order. `sweeps` are
    PreparedSweeps, their setups held or dropped."""
    groups: dict[Key, list[tuple[Any, float]]] = {}
    for i, sweep in enumerate(sweeps):
        ops = {n: sweep.request.experiment.ops_per_rep(n) for n in sweep.request.nodes}
        for t in sweep.tasks:
            cost = task_cost(ops[t.nodes], t, (t.system, t.nodes, t.variant) in sweep.alike)
            groups.setdefault((i, t.system, t.nodes), []).append((t, cost))
    out = []
    for key, tasks in groups.items():
        tasks.sort(key=lambda tc: -tc[1])
        out.append((key, tasks, sum(c for _, c in tasks)))
    return sorted(out, key=lambda g: -g[2])


@dataclass
class SweepRuns:
    """`Runs` over the grids' sweep folders (see paper/measures.py)."""

    out: Path
    grids: list[Grid]
    _tables: dict[str, dict[tuple[str, int, str], np.ndarray]] = field(default_factory=dict)
    _compute: dict[tuple[str, str], float] = field(default_factory=dict)
    _profiles: dict[str, Any] = field(default_factory=dict)

    def _load(self, grid: Grid) -> dict[tuple[str, int, str], np.ndarray]:
        if grid.folder not in self._tables:
            from cloudnoise.sweep.store import by_config, load_results

            table = load_results(self.out / grid.folder)
            self._tables[grid.folder] = by_config(table)
            if "compute_ns" in table.column_names:
                for s, c in zip(table["system"].to_pylist(), table["compute_ns"].to_pylist()):
                    self._compute[(grid.workload, s)] = float(c)
        return self._tables[grid.folder]

    def runtimes(self, config: Config) -> np.ndarray:
        for g in self.grids:
            if config in g.configs():
                values = self._load(g).get((config.system, config.nodes, config.variant))
                if values is not None and len(values):
                    return values
        raise CloudnoiseError(f"no results for {config} in {self.out}; rerun `cloudnoise paper --out {self.out}`")

    def compute_ns(self, workload: str, system: str) -> float:
        for g in self.grids:
            if g.workload == workload and system in g.systems:
                self._load(g)
        return self._compute.get((workload, system), 0.0)

    def price(self, system: str) -> float | None:
        if system not in self._profiles:
            from cloudnoise.profiles.registry import load_builtin

            self._profiles[system] = load_builtin(system)
        return self._profiles[system].prices.on_demand_per_node_hour


@dataclass
class PaperRun:
    """What `reproduce` did."""

    outcomes: list[Outcome]
    grids: list[Grid]
    reps: int
    seed: int
    seconds: float
    reps_run: int
    extra: list[Grid] = field(default_factory=list)  # run, read by no statement


def reproduce(
    statements: list[Statement],
    out: Path,
    *,
    reps: int,
    seed: int,
    in_process: bool = False,
    workers: int = 2,
    scheduler: str | None = None,
    progress: ProgressSink | None = None,
    causes: dict[str, str] | None = None,
    extra: list[tuple[Grid, int]] | tuple[tuple[Grid, int], ...] = (),
) -> PaperRun:
    """Runs (or continues) every grid the statements need into `out`, then checks them.
    `extra`: more grids to run in the same campaign, each with its own repetitions,
    which no statement reads (paper/beyond.py: Fig. 15 past the paper's scale)."""
    from cloudnoise.paper.statements import WORKLOADS as W
    from cloudnoise.sweep.presets import get_preset
    from cloudnoise.sweep.runner import dask_client, run_groups_in_process, run_groups_on_dask
    from cloudnoise.sweep.sweeper import prepare_sweep

    grids = plan(statements)
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    sweeps = []
    runs_of = [(g, reps) for g in grids] + list(extra)
    for g, r in runs_of:  # one sweep's setups in memory at a time
        sweeps.append(prepare_sweep(request_for(g, r, seed), out / g.folder, target_ops=CAMPAIGN_OPS_PER_TASK))
        sweeps[-1].drop_setups()
    groups = campaign_groups(sweeps)
    task_costs = {(key[0], t): c for key, ts, _ in groups for t, c in ts}
    total = sum(c for _, _, c in groups)
    done = 0.0
    labels = [f"{get_preset(W[g.workload].preset).figure}: {g.workload} on {g.nodes} nodes" for g in grids]
    labels += [f"{get_preset(W[g.workload].preset).figure} beyond the paper: {g.workload} on {g.nodes} nodes"
               for g, _ in extra]
    if progress is not None and groups:
        _estimate(progress, sweeps, groups, total, workers=1 if in_process else workers, on_dask=not in_process)
        progress.update(0.0, total, "")

    def save(key: Key, result: Any) -> None:
        nonlocal done
        sweeps[key[0]].save(result)
        done += task_costs[(key[0], result.task)]
        if progress is not None:
            progress.update(done, total, labels[key[0]])

    def fail(key: Key, failure: Any) -> None:
        sweeps[key[0]].fail(failure)

    def make_setup(key: Key) -> Any:
        return sweeps[key[0]].setup(key[1], key[2])

    order = [(key, [t for t, _ in ts]) for key, ts, _ in groups]
    if order:
        if in_process:
            run_groups_in_process(make_setup, order, save, fail)
        else:
            with dask_client(scheduler, workers) as client:
                run_groups_on_dask(client, make_setup, order, save, fail, queue=4 * workers)
    outcomes_ = [sw.finish(time.perf_counter() - t0) for sw in sweeps]
    reps_run = sum(o.reps_run for o in outcomes_)
    for o in outcomes_:
        o.raise_failures()
    runs = SweepRuns(out, grids)
    outcomes = [check(s, runs, causes) for s in statements]
    return PaperRun(outcomes, grids, reps, seed, time.perf_counter() - t0, reps_run, [g for g, _ in extra])


def _estimate(progress: ProgressSink, sweeps: list[Any], groups: list[tuple[Key, list[tuple[Any, float]], float]],
              total: float, workers: int, on_dask: bool) -> None:
    """The campaign's wall time, at the speed timed on its largest sweep's workload (sweep/estimate.py)."""
    from cloudnoise.console import ESTIMATE_FLOOR_S
    from cloudnoise.cores import available_cores
    from cloudnoise.sweep.estimate import DASK_START_S, FASTEST_UNITS_PER_S, estimate_sweep

    parallel = max(1, min(workers, available_cores()))
    if total / (FASTEST_UNITS_PER_S * parallel) < ESTIMATE_FLOOR_S:
        return
    largest = sweeps[groups[0][0][0]]
    timed = estimate_sweep(largest.request, largest.experiments, {}, workers, on_dask=False)
    if timed is None:
        return
    configs = len(groups)
    seconds = total / (timed.units_per_s * parallel) + configs * 0.1 + (DASK_START_S if on_dask else 0.0)
    progress.estimate(seconds, timed.basis)


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for role in ("calibration", "held-out"):
        rows = [o for o in outcomes if o.statement.role == role]
        out[role] = {"agree": sum(o.agrees for o in rows), "total": len(rows)}
    return out


def to_json(run: PaperRun, out: Path) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "out": str(out),
        "reps": run.reps,
        "seed": run.seed,
        "seconds": round(run.seconds, 3),
        "reps_simulated": run.reps_run,
        "summary": summary(run.outcomes),
        "sweeps": [{"folder": g.folder, "workload": g.workload, "nodes": g.nodes, "systems": list(g.systems),
                    "variants": list(g.variants)} for g in run.grids],
        "statements": [o.to_dict() for o in run.outcomes],
    }
