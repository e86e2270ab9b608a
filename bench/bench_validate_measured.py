"""Validation on real clusters: the paper artifact's collective runs (Daint,
GCP, Azure HPC, Oracle HPC; 4-32 nodes) against cloudnoise's simulation of
the schedules they ran, as `cloudnoise validate --measured` compares them.

For every system, every measured file: the measured median and p90 (a
repetition's runtime is its slowest rank's), and the simulated median and
p90 (the verdict of `validate --measured` judges both) with

  (a) the profile cloudnoise estimates from that system's Netgauge run (the
      run description.csv names for the HPC instance, same rack, by day),
      made with the commands a user runs: `cloudnoise measure import
      netgauge RUN.tar.xz --out C` and `cloudnoise model build C -o P`,
      simulated without noise and with the profile's own noise; the columns
      stay empty, and the summary says why, where this tree has no Netgauge
      import or the artifact has no Netgauge run (Oracle HPC),
  (b) the authors' hand-tuned LogGOPS parameters
      (profiles/authors_parameters.py, same-rack row, O = 0), without noise
      and with the built-in profile's OS and network noise (`both`).

Nothing is fitted here: the parameters are used as they are. Every point is
printed, then per system, parameter set and noise variant the median |error|
of the medians and of the p90s, the share within 10 % and 15 % of each, and
the worst point.

The same comparison from the command line (the authors' Daint parameters):

    cloudnoise validate --measured ../shared/paper-artifact/daint__collectives \\
        --profile daint --L 500000ps --o 0 --g 6000000ps --G 110ps --O 0 --S 4096 --noise none,both

    python bench/bench_validate_measured.py [--artifact DIR] [--reps 1000] [--systems daint,gcp,...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cloudnoise.profiles.authors_parameters import authors_parameters
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.simulation.setup import load_system, resolve_noise
from cloudnoise.validation.measured import compare_runs

ROOT = Path(__file__).resolve().parents[1]
# the artifact beside the checkout (../shared) or inside it (shared/)
ARTIFACT = next((p for p in (ROOT / "shared" / "paper-artifact", ROOT.parent / "shared" / "paper-artifact")
                 if p.is_dir()), ROOT.parent / "shared" / "paper-artifact")
# system -> (built-in profile, the artifact's collective runs)
SYSTEMS: dict[str, tuple[str, list[str]]] = {
    "daint": ("daint", ["daint", "daint__collectives"]),
    "gcp": ("gcp-hpc", ["gcp/2022_07_09_19_55_51.tar.xz"]),
    "azure-hpc": ("azure-hpc", ["azure_hc44rs_collectives"]),
    "oracle-hpc": ("oracle-hpc-metal", ["oracle-hpc/2022_08_03_14_08_02.tar.xz"]),
}
# the system's Netgauge run, as description.csv names it (HPC instance, same rack, day);
# Oracle HPC's (oracle-hpc/2022_07_13_13_09_16) is not in the artifact
NETGAUGE_RUNS: dict[str, str | None] = {
    "daint": "daint_mc_rush_hour_same_slot_default/2022_03_30_18_14_05.tar.xz",
    "gcp": "gcp/2022_06_08_17_01_09.tar.xz",
    "azure-hpc": "azure_hpc44rs_azure_rush_same_rack/2022_03_18_22_04_11.tar.xz",
    "oracle-hpc": None,
}
VARIANTS = ["none", "os", "network", "both"]


def authors_loggops(profile: str) -> tuple[LogGOPS, str]:
    """The authors' same-rack parameters as engine parameters, and as the
    command-line overrides that give the same."""
    a = authors_parameters(profile, "same-rack")
    if a is None:
        raise SystemExit(f"the authors have no parameters for {profile}")
    params = LogGOPS(L_ps=a.L_ps, o_ps=a.o_ps, g_ps=a.g_ps, G_fs=a.G_ps_per_byte * 1000, O_fs=0, S=a.S_bytes)
    flags = f"--L {a.L_ps}ps --o {a.o_ps}ps --g {a.g_ps}ps --G {a.G_ps_per_byte}ps --O 0 --S {a.S_bytes}"
    return params, flags


def netgauge_profile(name: str, artifact: Path, workdir: Path) -> tuple[Path | None, str]:
    """The profile `model build` makes from the system's Netgauge run, through
    the commands a user runs (`measure import netgauge`, `model build`); None
    and the reason where there is none."""
    import importlib.util
    import subprocess

    run = NETGAUGE_RUNS[name]
    if run is None:
        return None, "the artifact has no Netgauge run of this system"
    try:
        found = importlib.util.find_spec("cloudnoise.measurement.imports.netgauge") is not None
    except ModuleNotFoundError:  # not even the imports package
        found = False
    if not found:
        return None, "this tree has no Netgauge import (cloudnoise.measurement.imports.netgauge)"
    campaign, profile = workdir / f"{name}-campaign", workdir / f"{name}.json"
    for cmd in (["measure", "import", "netgauge", str(artifact / run), "--out", str(campaign)],
                ["model", "build", str(campaign), "-o", str(profile)]):
        done = subprocess.run([sys.executable, "-m", "cloudnoise", *cmd], capture_output=True, text=True)
        if done.returncode != 0:
            return None, f"`cloudnoise {' '.join(cmd)}` failed: {done.stderr.strip()}"
    return profile, f"model build on `measure import netgauge {run}`"


def compare_all(sources: list[str], artifact: Path, params: LogGOPS, noise: Any, reps: int, seed: int
                ) -> tuple[list[dict[str, Any]], list[str]]:
    rows, refused = [], []
    for source in sources:
        result = compare_runs(artifact / source, params, noise, VARIANTS, reps, seed)
        rows += result["results"]
        refused += result["refused"]
    return rows, refused


def run_system(name: str, artifact: Path, reps: int, seed: int, workdir: Path) -> dict[str, Any]:
    from cloudnoise.simulation.setup import resolve_params

    profile, sources = SYSTEMS[name]
    params, flags = authors_loggops(profile)
    noise = resolve_noise(load_system(profile), seed)
    rows, refused = compare_all(sources, artifact, params, noise, reps, seed)
    built, why = netgauge_profile(name, artifact, workdir)
    own_params: dict[str, Any] | None = None
    if built is not None:
        system = load_system(str(built))
        own_params = resolve_params(system, {}).as_ns()
        own, _ = compare_all(sources, artifact, resolve_params(system, {}), resolve_noise(system, seed), reps, seed)
        mine = {(r["file"], r["ranks"]): r for r in own}
        for r in rows:
            r["netgauge_profile"] = mine[(r["file"], r["ranks"])]["variants"]
    return {"system": name, "profile": profile, "flags": flags, "noise_sources": noise.describe(),
            "rows": rows, "refused": refused, "netgauge": why, "netgauge_profile": str(built) if built else None,
            "netgauge_params_ns": own_params}


def summary(errors: list[float]) -> str:
    if not errors:
        return "no points"
    a = [abs(e) for e in errors]
    return (f"median |error| {statistics.median(a):.1%}, within 10 %: {sum(x <= 0.10 for x in a)}/{len(a)}, "
            f"within 15 %: {sum(x <= 0.15 for x in a)}/{len(a)}")


def tail_summary(variants: list[dict[str, Any]]) -> str:
    """Of the rows' per-variant errors: the median's summary and the p90's (one verdict judges both)."""
    return (f"median: {summary([v['signed_error_median'] for v in variants])}; "
            f"p90: {summary([v['signed_error_p90'] for v in variants])}")


def print_system(res: dict[str, Any]) -> None:
    print(f"\n## {res['system']} (profile {res['profile']}; authors' parameters: {res['flags']}; "
          f"noise of `both`: {res['noise_sources']})")
    print("times in us; each simulated value with its error against the measured one: (sim - meas) / meas")
    head = ("run", "program", "size B", "nodes", "reps", "meas. median", "meas. p90", "(a) none: median",
            "(a) both: median", "(a) both: p90", "(b) none: median", "(b) none: p90", "(b) both: median", "(b) both: p90")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))

    def cell(sim: float, meas: float) -> str:
        return f"{sim:.4g} ({(sim - meas) / meas:+.0%})"

    for r in res["rows"]:
        v = r["variants"]
        med, p90 = r["measured_median_us"], r["measured_p90_us"]
        print("| " + " | ".join([
            r["run"], r["config"].rsplit(" ", 2)[0], str(r["size_bytes"]), str(r["ranks"]), str(r["reps"]),
            f"{med:.4g}", f"{p90:.4g}", *netgauge_cells(r, med, p90, cell),
            cell(v["none"]["simulated_median_us"], med), cell(v["none"]["simulated_p90_us"], p90),
            cell(v["both"]["simulated_median_us"], med), cell(v["both"]["simulated_p90_us"], p90),
        ]) + " |")
    for line in res["refused"]:
        print(f"not compared: {line}")
    for variant in VARIANTS:
        worst = max(res["rows"], key=lambda r: abs(r["variants"][variant]["signed_error_median"]))
        print(f"{res['system']}, authors' parameters, noise {variant}: "
              f"{tail_summary([r['variants'][variant] for r in res['rows']])}; worst "
              f"{worst['variants'][variant]['signed_error_median']:+.1%} ({worst['config']}, {worst['ranks']} nodes, "
              f"{worst['run']})")
    fig13 = [r for r in res["rows"] if is_fig13(r)]
    for variant in VARIANTS:
        print(f"{res['system']}, the paper's Fig. 13/18-20 configurations only (dissemination without compute 16 B, "
              f"pipelined ring 16 MiB; {len(fig13)} points), noise {variant}: "
              f"{tail_summary([r['variants'][variant] for r in fig13])}")
    run_to_run(res)
    if res["netgauge_profile"] is None:
        print(f"{res['system']}, (a) cloudnoise's profile from the system's Netgauge run: not computed: {res['netgauge']}")
        return
    print(f"{res['system']}, (a) the profile's LogGOPS (ns): {res['netgauge_params_ns']}")
    for variant in VARIANTS:
        fig = [r["netgauge_profile"][variant] for r in res["rows"] if is_fig13(r)]
        print(f"{res['system']}, (a) the profile from its Netgauge run ({res['netgauge']}), noise {variant}: "
              f"{tail_summary([r['netgauge_profile'][variant] for r in res['rows']])}; Fig. 13 configurations: "
              f"{tail_summary(fig)}")


def netgauge_cells(row: dict[str, Any], med: float, p90: float, cell: Any) -> list[str]:
    """Column (a): the Netgauge profile's simulated median (no noise, with its noise) and p90."""
    v = row.get("netgauge_profile")
    if v is None:
        return ["-", "-", "-"]
    return [cell(v["none"]["simulated_median_us"], med), cell(v["both"]["simulated_median_us"], med),
            cell(v["both"]["simulated_p90_us"], p90)]


def is_fig13(row: dict[str, Any]) -> bool:
    """The configurations of the paper's validation figures (Sec. V-A, App. A)."""
    return ((row["pattern"] == "nwaydissemination" and row["variant"].startswith("nocompute") and row["size_bytes"] == 16)
            or (row["pattern"] == "pipelinedring" and row["size_bytes"] == 16 * 2**20))


def run_to_run(res: dict[str, Any]) -> None:
    """The system against itself: a configuration measured in several runs
    (Daint) has as many medians; where they spread by more than the model's
    error, no model can be within that error in every run."""
    by_config: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in res["rows"]:
        by_config.setdefault((r["config"], r["ranks"]), []).append(r)
    several = {k: v for k, v in by_config.items() if len(v) > 1}
    if not several:
        return
    ratios = [max(r["measured_median_us"] for r in v) / min(r["measured_median_us"] for r in v) for v in several.values()]
    inside = sum(1 for v in several.values()
                 if min(r["measured_median_us"] for r in v) <= v[0]["variants"]["none"]["simulated_median_us"]
                 <= max(r["measured_median_us"] for r in v))
    print(f"{res['system']}, run to run: {len(several)} configurations measured in 2-{max(len(v) for v in several.values())} "
          f"runs; their largest / smallest measured median: median {statistics.median(ratios):.2f}x, "
          f"max {max(ratios):.1f}x; the simulated median (authors', none) lies within the runs' range for {inside}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifact", type=Path, default=ARTIFACT, help="the paper artifact's folder")
    ap.add_argument("--reps", type=int, default=1000, help="simulated repetitions per configuration")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma list of " + ", ".join(SYSTEMS))
    ap.add_argument("--json", type=Path, help="also write every point as JSON")
    args = ap.parse_args()
    import tempfile

    results = []
    with tempfile.TemporaryDirectory(prefix="bench-validate-measured-") as tmp:
        for name in [s.strip() for s in args.systems.split(",") if s.strip()]:
            if name not in SYSTEMS:
                ap.error(f"unknown system {name!r}; choose from {', '.join(SYSTEMS)}")
            t0 = time.perf_counter()
            res = run_system(name, args.artifact.resolve(), args.reps, args.seed, Path(tmp))
            print_system(res)
            for variant in VARIANTS:
                own = [r["netgauge_profile"][variant] for r in res["rows"] if r.get("netgauge_profile")]
                print(f"{name} noise {variant}: (a) {tail_summary(own)}; (b) "
                      f"{tail_summary([r['variants'][variant] for r in res['rows']])}")
            print(f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
            results.append(res)
    everything = [r for res in results for r in res["rows"]]
    for variant in VARIANTS:
        print(f"\nall systems, authors' parameters, noise {variant}: "
              f"{tail_summary([r['variants'][variant] for r in everything])}; Fig. 13 configurations: "
              f"{tail_summary([r['variants'][variant] for r in everything if is_fig13(r)])}")
    with_a = [r for r in everything if r.get("netgauge_profile")]
    for variant in VARIANTS:
        if with_a:
            print(f"all systems with a Netgauge run ({len(with_a)} points), (a) noise {variant}: "
                  f"{tail_summary([r['netgauge_profile'][variant] for r in with_a])}; "
                  f"(b) on the same points, noise {variant}: "
                  f"{tail_summary([r['variants'][variant] for r in with_a])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
