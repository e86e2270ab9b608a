"""`advise` as a Python API: run what a decision needs, then weigh it.

`run_advice(request, sweep_dir)`:

1. turns the request into a sweep (the workload on the systems x node
   counts, the `none` and the noisy variant, `reps` repetitions each) and runs
   it with the sweep stage's runner (in this process or on Dask), into
   `sweep_dir` when given, else into a temporary folder removed at the end.
   An existing sweep folder is reused: what it holds is not simulated again;
   what is missing (systems, node counts, repetitions) is added to it, as one
   grid for every variant it holds, so it stays a valid sweep for
   `cloudnoise report` and `cloudnoise cost --sweep`;
2. prices every system (`cost.price_book`), builds the advice points
   (`points`), the front (`front`) and the recommendation (`recommend`).

`advise(workload, profiles=..., nodes=...)` builds the request from plain
values (the public `cloudnoise.advise`).

`advice_from_runtimes` is step 2 alone, for results already in memory (the
report's figure uses it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.advice.critical_path import explain_recommendation
from cloudnoise.advice.points import AdvicePoint, advice_points
from cloudnoise.advice.recommend import Recommendation, recommend
from cloudnoise.advice.risk import CONFIDENCE, bounded_reps
from cloudnoise.advice.workload import Workload
from cloudnoise.console import ProgressSink
from cloudnoise.costs.model import Pricing
from cloudnoise.costs.price_book import PriceBook, Quote
from cloudnoise.errors import EXIT_INTERRUPTED, CloudnoiseError
from cloudnoise.measurement.placement import one_host_name
from cloudnoise.sweep.runner import System
from cloudnoise.sweep.sweeper import SweepRequest

# The fewest repetitions whose p99 has a bounded 95% confidence interval is
# 368 (risk.bounded_reps(0.99)); the default rounds that up.
DEFAULT_REPS = 400
DEFAULT_NODES = (16, 64, 256, 1024, 4096, 16384)
NOISY_VARIANTS = ("os", "network", "both")


@dataclass(frozen=True)
class AdviseRequest:
    """What to advise on, where, and against which limits."""

    workload: Workload
    systems: tuple[System, ...]
    nodes: tuple[int, ...]
    reps: int = DEFAULT_REPS
    seed: int = 0
    noise: str = "both"  # the noisy variant advised on; `none` is always run as the baseline
    ready_order: str = "program"
    prices: PriceBook = field(default_factory=lambda: PriceBook(Pricing("on-demand")))
    deadline_ns: float | None = None
    budget_usd: float | None = None
    confidence: float = 0.99
    gflops: float | None = None

    def check(self) -> None:
        """One-line errors for impossible limits (the sweep checks the grid)."""
        if self.noise not in NOISY_VARIANTS:
            raise CloudnoiseError(f"--noise: advise weighs one noisy variant: {', '.join(NOISY_VARIANTS)}; got {self.noise!r}")
        if self.deadline_ns is not None and not self.deadline_ns > 0:
            raise CloudnoiseError("--deadline must be a positive time, e.g. 2ms")
        if self.budget_usd is not None and not self.budget_usd > 0:
            raise CloudnoiseError("--budget must be a positive number of USD")
        if not 0 < self.confidence < 1:
            raise CloudnoiseError(f"--confidence must be between 0 and 1 (e.g. 0.99), got {self.confidence}")
        if self.workload.fixed_nodes is not None and self.nodes != (self.workload.fixed_nodes,):
            raise CloudnoiseError(
                f"{self.workload.description} runs on {self.workload.fixed_nodes} nodes only; drop --nodes "
                f"or give --nodes {self.workload.fixed_nodes}"
            )

    def sweep_request(self) -> SweepRequest:
        """The sweep this advice needs."""
        return SweepRequest(
            experiment=self.workload.experiment,
            systems=self.systems,
            nodes=self.nodes,
            variants=("none", self.noise),
            reps=self.reps,
            seed=self.seed,
            ready_order=self.ready_order,
            gflops=self.gflops if self.workload.kind == "app" else None,
        )


@dataclass
class Advice:
    """What advise found: every point, the recommendation, and how it got there."""

    request: AdviseRequest
    points: list[AdvicePoint]
    recommendation: Recommendation
    quotes: dict[str, Quote | None]
    sweep_dir: Path | None  # kept results (None: a temporary folder, removed)
    reps_simulated: int = 0
    reps_reused: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def front(self) -> list[AdvicePoint]:
        """The front's points, cheapest first."""
        return sorted((p for p in self.points if p.on_front), key=lambda p: (p.p50_cost or 0.0, p.p50_ns))

    @property
    def unpriced(self) -> list[str]:
        return [s for s, q in self.quotes.items() if q is None]

    def to_dict(self) -> dict[str, Any]:
        """The `--json` object: every point, the front, the recommendation, prices and settings."""
        r = self.request
        return {
            "workload": {**r.workload.experiment.describe(), "description": r.workload.description},
            "systems": [s.name for s in r.systems],
            "nodes": list(r.nodes),
            "reps": r.reps,
            "seed": r.seed,
            "noise": r.noise,
            "ready_order": r.ready_order,
            "deadline_ns": r.deadline_ns,
            "budget_usd": r.budget_usd,
            "confidence_fraction": r.confidence,
            "pricing": r.prices.label(),
            "prices": {s: None if q is None else q.to_dict() for s, q in self.quotes.items()},
            "unpriced": self.unpriced,
            "recommendation": self.recommendation.to_dict(),
            "front": [{"system": p.system, "nodes": p.nodes} for p in self.front],
            "points": [p.to_dict() for p in self.points],
            "sweep": None if self.sweep_dir is None else str(self.sweep_dir),
            "reps_simulated": self.reps_simulated,
            "reps_reused": self.reps_reused,
            "wall_s": round(self.seconds, 3),
            "notes": self.notes,
        }


def quotes_for(systems: tuple[System, ...], prices: PriceBook) -> dict[str, Quote | None]:
    """Each system's quote (None: no price under this pricing)."""
    return {s.name: prices.quote(s.profile) for s in systems}


def advice_from_runtimes(
    runtimes_ns: Mapping[tuple[str, int, str], np.ndarray],
    quotes: Mapping[str, Quote | None],
    *,
    noise: str = "both",
    deadline_ns: float | None = None,
    budget_usd: float | None = None,
    confidence: float = 0.99,
) -> tuple[list[AdvicePoint], Recommendation]:
    """The points (front marked) and the recommendation from repetitions in memory."""
    points = advice_points(runtimes_ns, quotes, noise, deadline_ns, budget_usd)
    return points, recommend(points, deadline_ns, budget_usd, confidence)


def union_request(new: SweepRequest, old: dict[str, Any] | None) -> SweepRequest:
    """The sweep a folder must hold: what it holds already (`old`, its sweep.json)
    plus what this advice needs, as one grid."""
    if old is None:
        return new
    from cloudnoise.sweep.request import system_from

    given = {s.name: s for s in new.systems}
    systems = []
    for name in old.get("systems", []):  # the folder's systems first, in its order
        if name in given:
            systems.append(given.pop(name))
            continue
        source = (old.get("profiles", {}).get(name) or {}).get("source", name)
        try:
            systems.append(system_from(source))
        except CloudnoiseError as err:
            raise CloudnoiseError(f"the sweep folder also holds {name}, whose profile cannot be read ({err}); "
                                  "use another --sweep folder") from None
    systems += given.values()
    old_nodes = [int(n) for n in old.get("nodes", [])]
    old_variants = [str(v) for v in old.get("variants", [])]
    return SweepRequest(
        experiment=new.experiment,
        systems=tuple(systems),
        nodes=tuple(old_nodes + [n for n in new.nodes if n not in old_nodes]),
        variants=tuple(old_variants + [v for v in new.variants if v not in old_variants]),
        reps=max(new.reps, int(old.get("reps", 0))),
        seed=new.seed,
        ready_order=new.ready_order,
        gflops=new.gflops,
    )


def _needed(runtimes: Mapping[tuple[str, int, str], np.ndarray], request: AdviseRequest) -> dict[tuple[str, int, str], np.ndarray]:
    """The repetitions of the requested systems, nodes and variants (a reused folder may hold more)."""
    want_sys = {s.name for s in request.systems}
    want = {(s, n, v) for s in want_sys for n in request.nodes for v in ("none", request.noise)}
    return {k: v for k, v in runtimes.items() if k in want}


def run_advice(
    request: AdviseRequest,
    sweep_dir: str | os.PathLike[str] | None = None,
    *,
    in_process: bool = False,
    scheduler: str | None = None,
    workers: int = 1,
    progress: ProgressSink | None = None,
) -> Advice:
    """Simulates what is missing (see the module docstring) and returns the Advice."""
    from cloudnoise.sweep.store import SweepStore, by_config, load_results
    from cloudnoise.sweep.sweeper import check_compatible, run_sweep

    request.check()
    needed = request.sweep_request()
    needed.check()
    quotes = quotes_for(request.systems, request.prices)
    temporary = sweep_dir is None
    folder = Path(tempfile.mkdtemp(prefix="cloudnoise-advise-")) if temporary else Path(sweep_dir)  # type: ignore[arg-type]
    store = SweepStore(folder)
    old = store.read_meta()
    if old is not None:
        try:
            check_compatible(old, needed.meta(), folder, old_is_empty=not store.done(needed.experiment.kind))
        except CloudnoiseError as err:  # the sweep's hint names its own options; say advise's
            what = str(err).split("; use another --out")[0]
            raise CloudnoiseError(f"{what}; give another --sweep folder, or leave out WORKLOAD, --seed, "
                                  "--ready-order and --gflops to take the folder's") from None
    sweep = union_request(needed, old)
    t0 = time.perf_counter()
    try:
        outcome = run_sweep(sweep, folder, in_process=in_process or (scheduler is None and workers <= 1),
                            scheduler=scheduler, workers=workers, progress=progress)
        runtimes = _needed(by_config(load_results(folder)), request)
    except KeyboardInterrupt:
        if temporary and not store.part_files():
            shutil.rmtree(folder, ignore_errors=True)
            raise CloudnoiseError("interrupted before any simulation finished", EXIT_INTERRUPTED) from None
        raise CloudnoiseError(_kept(folder, "interrupted", temporary), EXIT_INTERRUPTED) from None
    except CloudnoiseError as err:
        if temporary and not store.part_files():
            shutil.rmtree(folder, ignore_errors=True)
            raise
        raise CloudnoiseError(_kept(folder, str(err), temporary), err.exit_code) from None
    seconds = time.perf_counter() - t0
    if temporary:
        shutil.rmtree(folder, ignore_errors=True)
    points, rec = advice_from_runtimes(runtimes, quotes, noise=request.noise, deadline_ns=request.deadline_ns,
                                       budget_usd=request.budget_usd, confidence=request.confidence)
    rec = explain_recommendation(rec, sweep.experiment, request.systems, request.noise, request.reps, request.seed,
                                 request.ready_order)
    notes = [f"not simulated: {f.message}" for f in outcome.failed if (f.system, f.nodes) in _cells(request)]
    if not points:
        outcome.raise_failures()
    need = bounded_reps(0.99, CONFIDENCE)
    fewest = min((p.reps for p in points), default=0)
    if fewest < need:
        notes.append(f"p99 from {fewest} repetitions: its 95% confidence interval is open above (it needs {need}; --reps {DEFAULT_REPS})")
    one_host = {s.name for s in request.systems if s.profile.one_host()}
    unpriced = [one_host_name(s) if s in one_host else s for s, q in quotes.items() if q is None]
    if unpriced:
        notes.append(f"no {request.prices.kind_label()} price for {', '.join(unpriced)}: shown without cost, never recommended")
    return Advice(request, points, rec, quotes, None if temporary else folder, outcome.reps_run, outcome.resumed_reps,
                  seconds, notes)


def _cells(request: AdviseRequest) -> set[tuple[str, int]]:
    return {(s.name, n) for s in request.systems for n in request.nodes}


def _kept(folder: Path, what: str, temporary: bool) -> str:
    from cloudnoise.sweep.sweeper import saved_reps

    saved = saved_reps(folder)
    if not saved:
        return f"{what}; no simulation had finished"
    where = "kept in" if temporary else "saved in"
    return f"{what}; {saved:,} finished repetitions are {where} {folder}: rerun with --sweep {folder} to continue"


def priced_builtin_systems(prices: PriceBook) -> tuple[System, ...]:
    """Every built-in system with a price of the kind `prices` asks for (advise's default systems)."""
    from cloudnoise.profiles.registry import builtin_names
    from cloudnoise.sweep.request import system_from

    systems = tuple(s for s in (system_from(n) for n in builtin_names()) if prices.quote(s.profile) is not None)
    if not systems:
        raise CloudnoiseError(f"no built-in system has a {prices.label()} price; give --profile NAMES or --pricing PRICE")
    return systems


def advise(
    workload: str | os.PathLike[str],
    *,
    profiles: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    nodes: str | Sequence[int] | None = None,
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    noise: str = "both",
    pricing: str = "on-demand",
    billing: str = "provider",
    gflops: float | None = None,
    scaling: str | None = None,
    schedgen: str | None = None,
    deadline: float | str | None = None,
    budget_usd: float | None = None,
    confidence: float = 0.99,
    ready_order: str = "program",
    sweep_dir: str | os.PathLike[str] | None = None,
) -> Advice:
    """Which system, how many nodes, at what cost and what risk, for `workload`.

    `workload` is what `cloudnoise advise WORKLOAD` takes: "PATTERN:SIZE"
    (a collective, "dissemination:16B"), "PHASE + PHASE" (an application,
    "gemm:128 + dissemination:128KiB"), an app TOML file, or a GOAL file
    (advised at its own rank count). It is simulated on every system of
    `profiles` (built-in names or profile files, a list or the command
    line's comma list "daint,azure-hpc"; default: every built-in system
    with a price) and every node count of `nodes` (a list, or the command
    line's "16,64" or "16..16384:4"; default 16 to 16384 by 4), with and without `noise` ("os", "network"
    or "both"), `reps` times each, and each run priced as the provider
    bills it (`pricing` as for `cost`, or a price file; `billing`
    "provider", "exact", or e.g. "1s:60s"). `scaling` "strong" divides an
    application's compute over the nodes, "weak" (the default) keeps it. `deadline` (ns
    or "100ms") and `budget_usd` are the limits the recommendation meets
    with probability `confidence`. `sweep_dir` keeps the simulations (and
    reuses what it holds); without it they go to a temporary folder.

    A trace's converted schedule goes into `sweep_dir`, else into a
    temporary folder that lives as long as the run.

    Returns an Advice: `points` (one per system and node count), `front`
    (the Pareto front of median runtime vs cost), `recommendation`,
    `to_dict()` (what `--json` prints). Bad input raises CloudnoiseError.
    """
    from cloudnoise.advice.workload import WorkloadOptions, resolve_workload
    from cloudnoise.comma_lists import parse_scales, profile_names
    from cloudnoise.costs.price_book import price_book
    from cloudnoise.sweep.request import system_from
    from cloudnoise.units import parse_time_ps

    book = price_book(pricing, None, billing)
    with contextlib.ExitStack() as stack:
        scratch = (Path(sweep_dir) / "workload" if sweep_dir is not None
                   else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cloudnoise-advise-"))))
        chosen = resolve_workload(os.fspath(workload),
                                  WorkloadOptions(gflops=gflops, scaling=scaling, scratch=scratch, schedgen=schedgen))
        systems = (tuple(system_from(p) for p in profile_names(profiles, "profiles")) if profiles is not None
                   else priced_builtin_systems(book))
        request = AdviseRequest(
            workload=chosen,
            systems=systems,
            nodes=(tuple(parse_scales(nodes, "nodes")) if isinstance(nodes, str) else tuple(nodes)) if nodes is not None else
            ((chosen.fixed_nodes,) if chosen.fixed_nodes is not None else
             (chosen.default_nodes,) if chosen.default_nodes is not None else DEFAULT_NODES),
            reps=reps,
            seed=seed,
            noise=noise,
            ready_order=ready_order,
            prices=book,
            deadline_ns=None if deadline is None else parse_time_ps(deadline, "deadline", default_unit="ns") / 1000,
            budget_usd=budget_usd,
            confidence=confidence,
            gflops=gflops,
        )
        return run_advice(request, sweep_dir, in_process=True)
