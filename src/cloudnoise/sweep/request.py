"""A sweep's request from option values (the CLI's, or `cloudnoise demo`'s):
a preset, a collective or an application, on systems and node counts, and,
with an existing sweep.json, whatever the options leave out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cloudnoise.comma_lists import parse_counts, parse_items, profile_names
from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import VARIANTS
from cloudnoise.sweep.presets import get_preset

if TYPE_CHECKING:
    from cloudnoise.sweep.runner import System
    from cloudnoise.sweep.sweeper import SweepRequest


def system_from(text: str, placement: str | None = None) -> System:
    """A System from a built-in name or a profile file path, with its nodes
    placed as asked (None: the profile as written; see SystemProfile.at)."""
    from cloudnoise.profiles.registry import resolve_profile
    from cloudnoise.sweep.runner import System

    profile = resolve_profile(text)
    if placement is not None:
        profile = profile.at(placement)
    is_path = text.endswith(".json") or "/" in text or Path(text).is_file()
    return System(profile.name, str(Path(text).resolve()) if is_path else text, profile)


def build_request(opts: dict[str, Any], old: dict[str, Any] | None) -> SweepRequest:
    """The SweepRequest the options describe; with --resume, sweep.json fills what is not given."""
    from cloudnoise.sweep.experiment import (app_experiment, collective_experiment, collective_text, goal_experiment,
                                             trace_experiment)
    from cloudnoise.sweep.sweeper import SweepRequest

    chosen = [k for k in ("preset", "pattern", "app") if opts.get(k)]
    if len(chosen) > 1:
        raise CloudnoiseError(f"give one of --preset, --pattern or --app, not {' and '.join('--' + c for c in chosen)}")
    if opts.get("size") and not opts.get("pattern"):
        raise CloudnoiseError("--size goes with --pattern (an --app gives sizes on its phases: dissemination:128KiB)")
    if opts.get("segmentsize") and not opts.get("pattern"):
        raise CloudnoiseError("--segmentsize goes with --pattern (an --app gives it on its phases: "
                              "pipelinedring:1MiB:segmentsize=64KiB)")
    if opts.get("schedgen") and not (opts.get("pattern") or opts.get("app")):
        raise CloudnoiseError("--schedgen goes with --pattern or --app (a preset brings the Schedgen the paper used)")
    resume = opts["resume"] and old is not None
    preset = get_preset(opts["preset"]) if opts.get("preset") else None
    ready_order = opts.get("ready_order") or (preset.ready_order if preset else None)

    gflops = opts.get("gflops")
    if preset is not None:
        if preset.kind == "collective":
            experiment = collective_experiment(preset.spec, name=preset.name, figure=preset.figure)
        else:
            experiment = app_experiment(preset.spec, iterations=opts.get("iterations"), gflops=gflops,
                                        name=preset.name, figure=preset.figure)
    elif opts.get("pattern"):
        if not opts.get("size"):
            raise CloudnoiseError("--pattern needs --size SIZE (e.g. 16B, 512MiB)")
        experiment = collective_experiment(collective_text(opts["pattern"], opts["size"], schedgen=opts.get("schedgen"),
                                                           segmentsize=opts.get("segmentsize")))
    elif opts.get("app"):
        experiment = app_experiment(opts["app"], iterations=opts.get("iterations"), gflops=gflops,
                                    schedgen=opts.get("schedgen"))
    elif resume:
        e = old["experiment"]
        if e["kind"] == "collective":
            experiment = collective_experiment(e["spec"], name=e.get("name", ""), figure=e.get("figure"))
        elif e["kind"] == "goal":  # a GOAL file's sweep (`cloudnoise advise FILE.goal`)
            experiment = goal_experiment(e["spec"], name=e.get("name", ""))
        elif e["kind"] == "trace":  # a trace's sweep (`cloudnoise advise TRACE_DIR`)
            experiment = trace_experiment(e["spec"], name=e.get("name", ""), scaling=e.get("scaling", "weak"))
        else:
            gflops = e.get("gflops") if gflops is None else gflops
            experiment = app_experiment(e["spec"], iterations=e.get("iterations"), gflops=gflops,
                                        name=e.get("name", ""), figure=e.get("figure"),
                                        scaling=e.get("scaling", "weak"), schedgen=e.get("schedgen"))
    else:
        raise CloudnoiseError(
            "say what to sweep: --preset NAME (see `cloudnoise sweep list-presets`), --pattern NAME --size SIZE, or --app SPEC"
        )
    if experiment.kind == "collective" and (opts.get("iterations") or opts.get("gflops")):
        raise CloudnoiseError("--iterations and --gflops go with --app or an application preset")

    placement = opts.get("placement") or (old.get("placement") if resume and old else None)
    if opts.get("profile"):
        systems = tuple(system_from(s, placement) for s in profile_names(opts["profile"]))
    elif preset is not None:
        systems = tuple(system_from(s, placement) for s in preset.systems)
    elif resume:
        systems = tuple(system_from(old["profiles"][name]["source"], placement) for name in old["systems"])
    else:
        raise CloudnoiseError("--profile: give the systems to sweep (built-in names, see `cloudnoise profiles list`, or profile files)")

    if opts.get("nodes"):
        nodes = tuple(parse_counts(opts["nodes"], "--nodes", minimum=None))
    elif preset is not None:
        nodes = preset.nodes
    elif resume:
        nodes = tuple(old["nodes"])
    else:
        raise CloudnoiseError("--nodes: give the node counts to sweep, e.g. --nodes 16,64,256,1024")

    if opts.get("variants"):
        variants = tuple(parse_items(opts["variants"], "--noise"))
    else:
        variants = tuple(old["variants"]) if resume else VARIANTS
    reps = opts.get("reps") or (old["reps"] if resume else 1000)
    seed = opts.get("seed") if opts.get("seed") is not None else (old["seed"] if resume else 0)
    if ready_order is None:
        ready_order = old["ready_order"] if resume else "program"
    return SweepRequest(
        placement=placement,
        stored_compute=stored_compute(old, experiment),
        experiment=experiment,
        systems=systems,
        nodes=nodes,
        variants=variants,
        reps=int(reps),
        seed=int(seed),
        ready_order=ready_order,
        gflops=experiment.gflops if experiment.kind == "app" else None,
    )


def stored_compute(old: dict[str, Any] | None, experiment: Any) -> dict[str, Any] | None:
    """The compute times a sweep being continued fixed per system when it started,
    if it is the same application with the same --gflops (nothing is timed again)."""
    if old is None or experiment.kind != "app":
        return None
    e = old.get("experiment", {})
    if e.get("kind") != "app" or e.get("spec") != experiment.spec:
        return None
    if e.get("iterations") != experiment.app.iterations or e.get("gflops") != experiment.gflops:
        return None
    compute = old.get("compute")
    return compute if isinstance(compute, dict) else None


