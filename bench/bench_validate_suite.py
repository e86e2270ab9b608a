"""A profile measured here predicts here: the whole check, repeated.

For each measurement plan (the measurement steps and durations of
`cloudnoise demo --quick` and of the full demo: latency, latency noise,
bandwidth noise, OS noise, loggp) and each of --runs fresh measurements in a
row: measure into a new campaign, `cloudnoise model build`, `cloudnoise
validate --suite` (2 ranks). Prints every suite table, then per plan each
configuration's error in every run beside the range of its measured
medians over the runs (the machine against itself: where that range is
wider than 20 %, no model can be within 10 % in every run), and the verdict
against the target: every configuration within 10 %, median |error| <= 5 %,
in every run. The reference column (BEFORE) is one run with a naive LogGP
estimate (o_s + o_r above the measured one-way 1 B time, L clipped to 0):
dissemination 16B +75 %, dissemination 64KiB +8 %, binomialtreebcast 1MiB
+39 %, allreduce_ring 1MiB +39 %, allreduce_ring 16MiB +4 %.

The machine must be quiet: two busy-polling ranks on a 2-core machine leave
no core for anything else, and any third process (a build, a test suite)
shows up as a slower measurement or a slower validation run. The load
average before and after each step is printed beside the results, and each
configuration's state probes (validation/machine_state.py: core-to-core
latency / 1 B ping-pong one way, starred where the machine was not in the
state the profile describes).

With --rep-gaps off,1us each profile is validated once per setting of
`validate --rep-gap` (off: every repetition starts from a broadcast ~60 us
ahead; a time: paced repetitions, that long after the previous one's usual
end), back to back on the same profile, and the verdict is given per setting.

    python bench/bench_validate_suite.py [--plans quick,full] [--runs 3] [--out DIR] [--reps 300] [--rep-gaps off,1us]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cloudnoise.demo.plan import full_plan, quick_plan
from cloudnoise.measurement.experiments import Options
from cloudnoise.validation.suite import state_cell

# One run's error of the median per configuration with a naive LogGP estimate (see the top).
BEFORE = {"dissemination 16B": 0.75, "dissemination 64KiB": 0.08, "binomialtreebcast 1MiB": 0.39,
          "allreduce_ring 1MiB": 0.39, "allreduce_ring 16MiB": 0.04}


def load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def measure_args(options: Options) -> list[str]:
    """The `cloudnoise measure` flags of a demo step's options."""
    args: list[str] = []
    if options.ranks:
        args += ["--ranks", str(options.ranks)]
    if options.sizes:
        args += ["--sizes", ",".join(str(s) for s in options.sizes)]
    if options.iterations:
        args += ["--iterations", str(options.iterations)]
    if options.duration_s is not None:
        args += ["--duration", repr(options.duration_s)]
    return args


def cli(*args: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "cloudnoise", *args], capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        sys.exit(f"cloudnoise {' '.join(args[:2])} failed: {proc.stderr.strip()[-500:]}")
    return proc


def one_run(plan_name: str, steps: list, workdir: Path, reps: int, mpicc: str | None,
            gaps: list[str]) -> list[dict[str, Any]]:
    """Measure, build, validate --suite once per --rep-gap setting; returns the
    suites' JSON with timings and loads."""
    campaign, profile = workdir / "campaign", workdir / "profile.json"
    mpi = ["--mpicc", mpicc] if mpicc else []
    info: dict[str, Any] = {"plan": plan_name, "load_before": load(), "steps": []}
    t0 = time.perf_counter()
    for step in steps:
        s0, l0 = time.perf_counter(), load()
        cli("measure", step.experiment, "--out", str(campaign), *measure_args(step.options), *mpi)
        info["steps"].append({"experiment": step.experiment, "seconds": round(time.perf_counter() - s0, 1),
                              "load_before": l0, "load_after": load()})
    info["measure_s"] = round(time.perf_counter() - t0, 1)
    cli("model", "build", str(campaign), "-o", str(profile))
    built = json.loads(profile.read_text())
    info["loggops"] = built["loggops"]
    info["profile_core_latency_ns"] = built["hardware"].get("core_latency_ns")
    suites = []
    for gap in gaps:
        l0 = load()
        pace = [] if gap == "off" else ["--rep-gap", gap]
        # the profile's full noise first (the verdict), then without OS noise and without any, to see
        # what each part of the noise model adds
        suite = json.loads(cli("validate", "--suite", "--profile", str(profile), "--reps", str(reps), "--json",
                               "--noise", "both,network,none", *pace, *mpi).stdout)
        suite.update(info, gap=gap, load_before_validate=l0, load_after=load())
        suites.append(suite)
    return suites


def print_run(k: int, result: dict[str, Any]) -> None:
    print(f"\n== {result['plan']} run {k}, rep gap {result['gap']}: measured in {result['measure_s']} s "
          f"(load {result['load_before']:.1f} before), validate load {result['load_before_validate']:.1f} -> "
          f"{result['load_after']:.1f}")
    core = result.get("profile_core_latency_ns")
    print(f"   the profile's machine state: a cache line between the cores took "
          + (f"{core:.0f} ns" if core else "(not probed)")
          + f", the model's one-way 1 B time is {result.get('profile_one_byte_ns', float('nan')):.0f} ns")
    print(f"   {'config':26s} {'measured us':>12s} {'simulated us':>13s} {'error':>8s}   "
          f"{'no OS noise':>12s} {'no noise':>9s} {'core / 1 B ns':>16s}")
    for r in result["results"]:
        v = r.get("variants", {})
        extra = "".join(f" {v[k]['signed_error_median']:+12.1%}" if k in v else " " * 13 for k in ("network", "none"))
        print(f"   {r['config']:26s} {r['measured_median_us']:12.4g} {r['simulated_median_us']:13.4g} "
              f"{r['signed_error_median']:+8.1%}  {extra} {state_cell(r):>16s}")
    print(f"   median |error| {result['median_abs_error']:.1%}, worst {result['worst_abs_error']:.1%} "
          f"({result['worst']})")
    state = result.get("machine_state") or {}
    if state.get("same_as_profile"):
        print(f"   in the profile's machine state: {state['same_as_profile']} of {state['configs']} configurations, "
              f"median |error| {state['median_abs_error_same']:.1%}, worst {state['worst_abs_error_same']:.1%}")
    else:
        print(f"   in the profile's machine state: 0 of {state.get('configs', 0)} configurations")


def verdict(plan: str, runs: list[dict[str, Any]]) -> bool:
    configs = [r["config"] for r in runs[0]["results"]]
    print(f"\n{plan}: error of the median per run (then the naive estimate's), then the machine against itself: "
          "the measured medians' range over the runs and max/min")
    ok = True
    for c in configs:
        errs = [next(r["signed_error_median"] for r in run["results"] if r["config"] == c) for run in runs]
        meds = [next(r["measured_median_us"] for r in run["results"] if r["config"] == c) for run in runs]
        ok &= all(abs(e) <= 0.10 for e in errs)
        before = f"{BEFORE[c]:+.0%}" if c in BEFORE else ""
        print(f"   {c:26s} " + " ".join(f"{e:+7.1%}" for e in errs) + f"   {before:>5s}   "
              f"{min(meds):.4g}-{max(meds):.4g} us  {max(meds) / min(meds):.2f}x")
    medians = [run["median_abs_error"] for run in runs]
    ok &= all(m <= 0.05 for m in medians)
    print("   median |error|            " + " ".join(f"{m:7.1%}" for m in medians))
    same = [run.get("machine_state") or {} for run in runs]
    print("   in the profile's state    " + " ".join(f"{s.get('same_as_profile', 0):>3d}/{s.get('configs', 0):<3d}"
                                                       for s in same))
    print("   their median |error|      " + " ".join(
        f"{s['median_abs_error_same']:7.1%}" if s.get("median_abs_error_same") is not None else "      -"
        for s in same))
    print(f"   target: every configuration within 10 %, median |error| <= 5 %, in all {len(runs)} runs: "
          + ("MET" if ok else "NOT MET"))
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", default="quick,full", help="quick, full or both (comma list)")
    ap.add_argument("--runs", type=int, default=3, help="fresh measurements in a row per plan")
    ap.add_argument("--reps", type=int, default=300, help="validate --suite repetitions per configuration")
    ap.add_argument("--out", type=Path, help="keep campaigns, profiles and results here (default: a temp dir)")
    ap.add_argument("--mpicc", help="MPI compiler wrapper (default: cloudnoise's discovery)")
    ap.add_argument("--rep-gaps", default="off", help="validate --rep-gap settings, comma list (off = unpaced)")
    opts = ap.parse_args()
    plans = {"quick": quick_plan(), "full": full_plan()}
    root = opts.out or Path(tempfile.mkdtemp(prefix="bench-suite-"))
    root.mkdir(parents=True, exist_ok=True)
    all_ok = True
    everything: dict[str, list[dict[str, Any]]] = {}
    for name in [p.strip() for p in opts.plans.split(",") if p.strip()]:
        if name not in plans:
            sys.exit(f"unknown plan {name!r}: quick or full")
        gaps = [g.strip() for g in opts.rep_gaps.split(",") if g.strip()]
        runs: dict[str, list[dict[str, Any]]] = {g: [] for g in gaps}
        for k in range(1, opts.runs + 1):
            for result in one_run(name, plans[name].measure, root / f"{name}-{k}", opts.reps, opts.mpicc, gaps):
                print_run(k, result)
                runs[result["gap"]].append(result)
            (root / "results.json").write_text(json.dumps({**everything, name: runs}, indent=2, default=str))
        for gap in gaps:
            everything[f"{name}, rep gap {gap}"] = runs[gap]
            all_ok &= verdict(f"{name}, rep gap {gap}", runs[gap])
    loads = [s["load_before"] for runs in everything.values() for r in runs for s in r["steps"]]
    print(f"\nload average before the measurement steps: median {statistics.median(loads):.1f}, "
          f"max {max(loads):.1f} on {os.cpu_count()} cores; results in {root / 'results.json'}")
    print("ALL TARGETS MET" if all_ok else "TARGET NOT MET (see above)")


if __name__ == "__main__":
    main()
