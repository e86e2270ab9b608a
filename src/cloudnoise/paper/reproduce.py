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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.paper.table import FORMAT
from cloudnoise.profiles.calibrate.statements import Config, Outcome, Statement, check, needs_of
from cloudnoise.profiles.calibrate.targets import HPC, WORKLOADS

VARIANT_ORDER = ("none", "os", "network", "both")


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


def grid_cost(grid: Grid, reps: int) -> float:
    """Work of a grid, in simulated operations (for the ETA): a noiseless
    repetition is one run (its repetitions are alike but still simulated)."""
    from cloudnoise.sweep.experiment import app_experiment, collective_experiment

    w = WORKLOADS[grid.workload]
    if w.kind == "collective":
        pattern, size = w.spec.split(":")
        ops = collective_experiment(pattern, size).ops_per_rep(grid.nodes)
    else:
        ops = app_experiment(w.spec, gflops=1.0).ops_per_rep(grid.nodes)
    # noise makes a repetition a few times slower (windowed or not); weigh it
    weight = sum(1.0 if v == "none" else 3.0 for v in grid.variants)
    return float(ops) * len(grid.systems) * weight * reps


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
        pattern, size = w.spec.split(":")
        experiment = collective_experiment(pattern, size, name=preset.name, figure=preset.figure)
    else:
        experiment = app_experiment(w.spec, name=preset.name, figure=preset.figure)
    return SweepRequest(
        experiment=experiment, systems=tuple(system_from(s) for s in grid.systems), nodes=(grid.nodes,),
        variants=grid.variants, reps=reps, seed=seed, ready_order=preset.ready_order,
    )


@dataclass
class SweepRuns:
    """`Runs` over the grids' sweep folders (see profiles.calibrate.statements)."""

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


def reproduce(
    statements: list[Statement],
    out: Path,
    *,
    reps: int,
    seed: int,
    in_process: bool = False,
    workers: int = 2,
    scheduler: str | None = None,
    progress: Callable[[float, float, str], None] | None = None,
    causes: dict[str, str] | None = None,
) -> PaperRun:
    """Runs (or continues) every grid the statements need into `out`, then checks them."""
    from cloudnoise.profiles.calibrate.targets import WORKLOADS as W
    from cloudnoise.sweep.presets import get_preset
    from cloudnoise.sweep.runner import dask_client
    from cloudnoise.sweep.sweeper import run_sweep

    grids = plan(statements)
    costs = [grid_cost(g, reps) for g in grids]
    total = sum(costs)
    finished = 0.0
    reps_run = 0
    t0 = time.perf_counter()

    def run_all(client: Any) -> None:
        nonlocal finished, reps_run
        for grid, cost in zip(grids, costs):
            request = request_for(grid, reps, seed)
            preset = get_preset(W[grid.workload].preset)
            label = f"{preset.figure}: {grid.workload} on {grid.nodes} nodes"

            def step(done: int, of: int, cost: float = cost, label: str = label) -> None:
                if progress is not None:
                    progress(finished + cost * done / max(of, 1), total, label)

            outcome = run_sweep(request, out / grid.folder, in_process=client is None, client=client, progress=step)
            reps_run += outcome.reps_run
            finished += cost

    out.mkdir(parents=True, exist_ok=True)
    if in_process:
        run_all(None)
    else:
        with dask_client(scheduler, workers) as client:
            run_all(client)
    runs = SweepRuns(out, grids)
    outcomes = [check(s, runs, causes) for s in statements]
    return PaperRun(outcomes, grids, reps, seed, time.perf_counter() - t0, reps_run)


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
