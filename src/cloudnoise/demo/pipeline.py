"""The demo's stages, run in order through each stage's public API.

Every stage writes into one folder (OUT), so an interrupted demo loses
nothing: run it again with the same --out and finished measurements are
kept (unfinished ones resumed), the profile is rebuilt from them, and
sweeps continue where they stopped.

    OUT/campaign/             cloudnoise measure (this machine, 2 ranks)
    OUT/profile/this-machine.json   cloudnoise model build
    OUT/sweeps/<preset>/      cloudnoise sweep (this machine + built-ins)
    OUT/report.html, OUT/figures/   cloudnoise report
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise.console import ProgressSink
from cloudnoise.demo.plan import DemoPlan, MeasureStep, SweepStep
from cloudnoise.errors import CloudnoiseError

THIS_MACHINE = "this-machine"


@dataclass(frozen=True)
class MpiChoice:
    """How to reach MPI on this machine (the measure options the demo passes on)."""

    mpicc: str | None = None
    mpiexec: str | None = None
    launcher: str = "mpiexec"
    timeout_s: float | None = None


@dataclass
class DemoResult:
    """Where everything went, and the headline numbers."""

    out: Path
    campaign: Path | None = None
    profile: Path | None = None
    sweeps: list[Path] = field(default_factory=list)
    report: Path | None = None
    figures: int = 0
    observations: list[str] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)  # what an earlier run in OUT had done
    mpi: dict[str, Any] = field(default_factory=dict)  # the MPI measured with (MpiInstallation.as_dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "campaign": None if self.campaign is None else str(self.campaign),
            "profile": None if self.profile is None else str(self.profile),
            "sweeps": [str(s) for s in self.sweeps],
            "report": None if self.report is None else str(self.report),
            "figures": self.figures,
            "observations": self.observations,
            "this_machine": self.machine,
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
            "reused": self.reused,
            "mpi": self.mpi or None,
        }


Say = Callable[[str], None]


def measure_step(step: MeasureStep, campaign: Path, mpi: Any, choice: MpiChoice) -> str:
    """One experiment into the campaign: skipped when already complete,
    resumed when an earlier demo was interrupted during it. Returns what it
    did: "measured", "reused" or "resumed"."""
    from cloudnoise.measurement.campaign import Campaign
    from cloudnoise.measurement.launcher import LaunchSpec
    from cloudnoise.measurement.runner import Request, execute

    existing = Campaign(campaign).experiment(step.experiment) if (campaign / "metadata.json").exists() else None
    if existing is not None and existing.get("complete"):
        return "reused"
    request = Request(
        experiment=step.experiment,
        options=step.options,
        launch=LaunchSpec(choice.launcher),
        out=campaign,
        labels={"system": THIS_MACHINE, "distance": "unknown"},
        resume=existing is not None,
        timeout_s=choice.timeout_s,
        announce_mpi=False,  # the demo says it once, before its first measurement
    )
    try:
        execute(request, mpi)
    except OSError as err:
        raise CloudnoiseError(f"cannot write the campaign in {campaign}: {err.strerror or err} (disk full or read-only?)") from err
    return "measured" if existing is None else "resumed"


def measure_and_model(plan: DemoPlan, out: Path, choice: MpiChoice, say: Say, result: DemoResult) -> None:
    """Measure this machine, then build its profile."""
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.model.build import build_profile

    try:
        mpi = find_mpi(choice.mpicc, choice.mpiexec)
    except CloudnoiseError as err:
        raise CloudnoiseError(
            f"{err}; or run `cloudnoise demo --no-measure` to simulate the built-in systems only",
            err.exit_code,
        ) from None
    say(mpi.summary())
    result.mpi = mpi.as_dict()
    campaign = out / "campaign"
    t0 = time.perf_counter()
    for k, step in enumerate(plan.measure, 1):
        label = f"[{k}/{len(plan.measure)}] measure {step.what}"
        if _complete(campaign, step.experiment):
            say(f"{label}: reused, measured by an earlier run in {campaign}")
            result.reused.append(f"measure {step.experiment}")
            continue
        say(label)
        if measure_step(step, campaign, mpi, choice) == "resumed":
            say(f"  continued what an earlier run had measured of {step.experiment}")
    result.seconds["measure"] = time.perf_counter() - t0
    result.campaign = campaign
    profile = out / "profile" / f"{THIS_MACHINE}.json"
    say("model: this machine's profile (LogGOPS fit, latency, bandwidth and OS noise)")
    doc = build_profile(campaign, profile, name=THIS_MACHINE)
    result.profile = profile
    result.machine = machine_facts(campaign, doc)


def _complete(campaign: Path, experiment: str) -> bool:
    """Whether an earlier demo finished measuring `experiment` into `campaign`."""
    from cloudnoise.measurement.campaign import Campaign

    if not (campaign / "metadata.json").exists():
        return False
    found = Campaign(campaign).experiment(experiment)
    return bool(found and found.get("complete"))


def machine_facts(campaign: Path, profile: dict[str, Any]) -> dict[str, Any]:
    """The measured headline: Table II figures and the LogGOPS fit."""
    import json

    from cloudnoise.measurement.placement import ONE_HOST, TWO_NODES_HINT, placement

    facts: dict[str, Any] = {}
    meta_path = campaign / "metadata.json"
    if meta_path.exists():
        facts["placement"] = placement(json.loads(meta_path.read_text()))
        if facts["placement"] == ONE_HOST:
            facts["how_to_measure_a_network"] = TWO_NODES_HINT
    summary = campaign / "summary.json"
    if summary.exists():
        t2 = json.loads(summary.read_text()).get("table2", {})
        for key in ("min_latency_us", "mean_latency_us", "max_bandwidth_gbps", "mean_bandwidth_gbps"):
            if key in t2:
                facts[key] = t2[key]
    lg = profile.get("loggops", {})
    facts["loggops_ns"] = {k: lg[k] for k in ("L", "o", "g", "G", "O", "S", "O_rendezvous") if k in lg}
    return facts


def sweep_step(step: SweepStep, systems: list[str], out: Path, workers: int, in_process: bool,
               progress: ProgressSink | None, seed: int = 0) -> tuple[Path, int, int]:
    """One preset on the demo's systems (continued if an earlier demo left it
    unfinished). Returns the folder, the repetitions reused and their total."""
    from cloudnoise.sweep.request import build_request
    from cloudnoise.sweep.store import SweepStore
    from cloudnoise.sweep.sweeper import run_sweep

    target = out / "sweeps" / step.preset
    opts: dict[str, Any] = {
        "preset": step.preset,
        "profile": tuple(systems),
        "nodes": ",".join(str(n) for n in step.nodes),
        "reps": step.reps,
        "seed": seed,
        "resume": False,
    }
    request = build_request(opts, SweepStore(target).read_meta())
    outcome = run_sweep(request, target, in_process=in_process, workers=workers, progress=progress)
    outcome.raise_failures()
    return target, outcome.resumed_reps, outcome.reps_total


def simulate_at_scale(plan: DemoPlan, out: Path, result: DemoResult, say: Say, workers: int, in_process: bool,
                      progress_factory: Callable[[str], Any], seed: int = 0) -> None:
    """Every sweep of the plan, on this machine's profile (if measured) and the built-ins."""
    systems = list(plan.systems)
    if result.profile is not None:
        systems.insert(0, str(result.profile))
    t0 = time.perf_counter()
    for k, step in enumerate(plan.sweeps, 1):
        label = f"[{k}/{len(plan.sweeps)}] simulate {step.what}: {len(systems)} systems, {min(step.nodes)}-{max(step.nodes)} nodes, {step.reps} reps x 4 noise variants"
        say(label)
        with progress_factory(step.what) as bar:
            folder, reused, total = sweep_step(step, systems, out, workers, in_process, bar, seed)
        result.sweeps.append(folder)
        if reused == total:
            say(f"  reused all {total:,} repetitions, simulated by an earlier run in {folder}")
            result.reused.append(f"sweep {step.preset}")
        elif reused:
            say(f"  reused {reused:,} of {total:,} repetitions simulated by an earlier run in {folder}")
            result.reused.append(f"sweep {step.preset} ({reused} of {total} repetitions)")
    result.seconds["simulate"] = time.perf_counter() - t0


def write_report(plan: DemoPlan, out: Path, result: DemoResult, say: Say) -> None:
    """Price the runs and write the report (Table II, noise, scalability, cost, observations)."""
    from cloudnoise.report.build import ReportOptions, build_report
    from cloudnoise.report.html import write

    say("report: figures (PNG, PDF), cost, observations, HTML")
    t0 = time.perf_counter()
    profiles = tuple(([str(result.profile)] if result.profile else []) + list(plan.systems))
    options = ReportOptions(
        outdir=out,
        campaigns=(result.campaign,) if result.campaign else (),
        sweeps=tuple(result.sweeps),
        profiles=profiles,
        pricing=plan.pricing,
        title="cloudnoise demo: this machine beside the paper's clouds and supercomputers",
    )
    report = build_report(options)
    result.report = write(report)
    result.figures = len(report.figures)
    result.observations = [o.text for o in report.observations]
    result.seconds["report"] = time.perf_counter() - t0


def kept_after_interrupt(out: Path) -> str | None:
    """What an interrupted demo leaves in OUT for the next run to reuse, in
    words (None: nothing yet)."""
    import json

    from cloudnoise.sweep.sweeper import saved_reps

    kept = []
    meta = out / "campaign" / "metadata.json"
    if meta.exists():
        try:
            experiments = json.loads(meta.read_text()).get("experiments") or {}
        except (OSError, ValueError):
            experiments = {}
        done = [name for name, e in experiments.items() if isinstance(e, dict) and e.get("complete")]
        started = [name for name, e in experiments.items() if isinstance(e, dict) and not e.get("complete")]
        if done:
            kept.append(f"the {', '.join(done)} measurement{'s' if len(done) > 1 else ''}")
        if started:
            kept.append(f"part of {', '.join(started)}")
    sweeps = out / "sweeps"
    reps = sum(saved_reps(d) for d in sorted(sweeps.iterdir()) if d.is_dir()) if sweeps.is_dir() else 0
    if reps:
        kept.append(f"{reps:,} simulated repetitions")
    return "; ".join(kept) if kept else None
