"""`cloudnoise explain`: why a run takes as long as it does, from its critical paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from cloudnoise.console import Progress, stdout_console, write_csv
from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.api import Explanation, explain as run_explain, setup_variants
from cloudnoise.explanation.decomposition import LABELS, SHORT
from cloudnoise.options import csv_option, json_option, one_of_json_csv, quiet_option
from cloudnoise.simulation.cli import (
    parse_variants, print_json, resolve_setup, resolve_workload, run_options, timeline_options, timeline_request,
    write_timeline,
)
from cloudnoise.units import format_time_ps


@click.command("explain")
@click.argument("goal_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@run_options
@click.option("--top", "top", type=click.IntRange(min=0), default=5, show_default=True,
              help="How many of the ranks whose noise lies on the critical path most often to name.")
@click.option("--tolerance", is_flag=True,
              help="Also the latency tolerance: the largest added L (and OS-noise factor) that keeps the median, and "
              "the p99, within --within of today's, by the critical path and by re-simulation on the same seed "
              "(a run again per step of a bisection).")
@click.option("--within", "within", default="1%", show_default=True, metavar="PERCENT",
              help="With --tolerance: the runtime increase tolerated, a percentage (1%) or a fraction (0.01).")
@json_option("Print one JSON object instead of the tables.")
@csv_option("Print each variant's shares by kind as CSV.")
@quiet_option()
@timeline_options
def explain(goal_file: Path | None, **opts: Any) -> None:
    """Explain a run's runtime by its critical path: the chain of activities, from
    time 0 to the last rank's end, each of which started when the one before it
    ended. Takes what `cloudnoise simulate` takes (GOAL_FILE, --pattern, --app or
    --trace; a --profile or LogGOPS parameters; noise; --reps) and records every
    repetition's path, split into compute, o, g, L, G x bytes, O, OS detours, latency
    noise and bandwidth noise (the parts add up to the runtime to the picosecond).

    Per noise variant, over the repetitions: each kind's share of the runtime (median
    and 90th percentile), the slowdown of the median from the noiseless run (`none`,
    always run beside, same seed) split by OS, latency and bandwidth noise, the ranks
    whose noise lies on the path most often, and whether the tail (the p99
    repetitions) has another cause than the median. docs/how-to/explain.md says how each is
    read. Times in ns.

    Exit status 2 for malformed input, 3 for a schedule that cannot complete.

    \b
    Examples:
      cloudnoise explain --pattern dissemination --ranks 16384 --size 16B --profile daint --noise both --reps 200
      cloudnoise explain examples/dissemination_16.goal --profile azure-hpc --reps 100 --json
      cloudnoise explain --pattern dissemination --ranks 1024 --size 16B --profile alps --noise both \\
          --reps 50 --timeline rep.json --timeline-rep median,p99 --timeline-ranks 0-63
    """
    one_of_json_csv(opts["as_json"], opts["as_csv"])
    within = parse_within(opts["within"])
    params, noise = resolve_setup(opts)
    variants = setup_variants(noise, parse_variants(opts.get("variants"), noise)[0] if opts.get("variants")
                              else noise.default_variants())
    reps = opts["reps"]
    quiet = opts["as_json"] or opts["as_csv"] or opts["quiet"]
    workload = resolve_workload(goal_file, opts)
    timeline = timeline_request(opts, workload.schedule.num_ranks, reps)
    total = reps * len(variants)
    with Progress("explain", quiet=quiet or reps == 1) as bar:
        result = run_explain(
            workload, params=params, noise=noise, reps=reps, seed=opts["seed"], threads=opts["threads"],
            ready_order=opts["ready_order"], top_ranks=opts["top"], variant=variants,
            progress=None if bar.quiet else (lambda done: bar.update(done, total, f"{done:,} of {total:,} repetitions")),
            tolerance=opts["tolerance"], within=within,
        )
    if opts["as_json"]:
        print_json(result.to_dict(), opts)
    elif opts["as_csv"]:
        write_shares_csv(result)
    else:
        print_explanation(result)
    if timeline is not None:
        write_timeline(opts, timeline, workload, params, noise, result.primary,
                       result.variants[result.primary].result.runtime_ns)


def parse_within(text: str) -> float:
    """--within: "1%" or 0.01, above 0 and below 1."""
    value = text.strip()
    try:
        fraction = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise CloudnoiseError(f"--within takes a percentage (1%) or a fraction (0.01), got {value!r}") from None
    if not 0 < fraction < 1:
        raise CloudnoiseError(f"--within must be above 0% and below 100%, got {value!r}")
    return fraction


def write_shares_csv(result: Explanation) -> None:
    rows = [[name, s.kind, s.median_share, s.p90_share, s.median_ns]
            for name, v in result.variants.items() for s in v.shares]
    write_csv(["variant", "kind", "median_fraction", "p90_fraction", "median_ns"], rows)


def _ns(ns: float) -> str:
    return format_time_ps(ns * 1000)


def print_explanation(result: Explanation) -> None:
    console = stdout_console()
    console.print(f"[bold]{result.source or 'schedule'}[/]: {result.ranks} ranks, {result.reps} repetitions "
                  f"(seed {result.seed}); the critical path of each, split by kind")
    for name, v in result.variants.items():
        runtime = v.result.runtime_ns
        table = Table(title=f"{name}: median runtime {_ns(float(sorted(runtime)[(len(runtime) - 1) // 2]))}")
        for col in ("kind", "median share", "p90 share", "median time"):
            table.add_column(col, justify="left" if col == "kind" else "right", no_wrap=True)
        for s in v.shares:
            if s.p90_share == 0 and s.median_ns == 0:
                continue
            table.add_row(LABELS[s.kind], f"{100 * s.median_share:.1f}%", f"{100 * s.p90_share:.1f}%", _ns(s.median_ns))
        console.print(table)
        if v.slowdown is not None:
            sd = v.slowdown
            split = ", ".join(f"{SHORT[k]} {_ns(x)}" for k, x in sd.by_noise_ns.items() if x)
            console.print(f"  slowdown from none: {sd.ratio:.3g}x (+{_ns(sd.excess_ns)})" + (f": {split}" if split else ""))
            on_path = sum(sd.on_path_ns.values())
            console.print(f"    noise on the median paths {_ns(on_path)}"
                          + ("" if sd.moved_ns == 0 else
                             f"; {_ns(sd.moved_ns)} more from noiseless activities the noise put on the path"
                             if sd.moved_ns > 0 else f"; {_ns(-sd.moved_ns)} of it filled slack"))
        tail = v.tail
        if tail.tail_cause != "none" or tail.median_cause != "none":
            same = "another cause than" if tail.differs else "the same cause as"
            console.print(f"  tail (p99 repetitions {', '.join(map(str, tail.tail_reps[:5]))}): "
                          f"{SHORT.get(tail.tail_cause, tail.tail_cause)}, {same} the median "
                          f"({SHORT.get(tail.median_cause, tail.median_cause)})")
        if v.noisy_ranks:
            named = "; ".join(f"rank {r.rank} ({100 * r.fraction:.0f}% of repetitions, {_ns(r.mean_ns)} each)"
                              for r in v.noisy_ranks)
            console.print(f"  noise on the path most often from: {named}")
        sens = {s.term: s for s in v.sensitivity}
        if sens:
            console.print("  terms on the path (dT/dL, dT/do, dT/dg; median, p90): " + ", ".join(
                f"{t} {sens[t].median:g} ({sens[t].p90:g})" for t in ("L", "o", "g")) +
                f"; dT/dG {sens['G'].median:g} bytes")
        for t in v.tolerance:
            what = ("added L" if t.what == "latency" else "OS detours x")
            show = (lambda x: "no limit" if x is None else _ns(x)) if t.what == "latency" else \
                (lambda x: "no limit" if x is None else f"{x:.3g}")
            console.print(f"  tolerance, {t.statistic} within {100 * t.within:g}%: {what} {show(t.bound)} by the path"
                          + ("" if t.simulated is None and t.evaluations == 0
                             else f", {show(t.simulated)} re-simulated ({t.evaluations} runs)")
                          + ("" if t.tolerated_L_ns is None else f": L up to {_ns(t.tolerated_L_ns)}"))
    console.print(f"[dim]engine {result.engine_seconds:.3f} s[/]")
