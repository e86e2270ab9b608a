"""Are a run's repetitions independent draws of the noise? Medians over seeds, per profile and scale.

    python bench/bench_independent_repetitions.py                       # the full grid (30 s-3.5 min on 2 cores)
    python bench/bench_independent_repetitions.py --nodes 16,64 --seeds 4
    python bench/bench_independent_repetitions.py --profile busy=../shared/profiles/busy-demo/this-machine.json

For each profile and node count, the same workload is simulated with seeds
0..S-1, R repetitions each (default 8 x 100), as `cloudnoise simulate
--profile P --seed S --reps R` does. If the repetitions of one run are
independent draws of the noise, the seeds' runs are samples of one
distribution: their medians agree within their 95% intervals (distribution-
free, from order statistics) and a Kruskal-Wallis test does not tell them
apart. When a run's repetitions share one draw of noise in time (one table
of stalls or drops per seed), the seeds disagree: each run is one draw.

Printed per (profile, workload, nodes): each seed's median, the highest
interval's lower end against the lowest's upper end (they agree when
low <= high), and the Kruskal-Wallis p-value. With 8 seeds, two 95% intervals
fail to overlap now and then by chance (about one grid point in ten when
all is well); a table per run made them miss by orders of magnitude.

Measured 2026-12-06 (load average 5-18 on the shared 2-core machine), 8 x 100
repetitions, noise both: after, every grid point agrees (Kruskal-Wallis p
0.041-0.98), and with DEEP-EST's profile as `model build` now writes it (its
state left out: model/state_choice.py) every grid point but
DEEP-EST's at 16 nodes, whose highest lower end passes the lowest upper end
by 5 ns of 8.7 us (Kruskal-Wallis p 0.12: the chance miss above); before
(one table per run), the busy demo machine disagreed at
every scale (p 1e-58 at 16 nodes to 1e-155 at 1,024; medians 0.16-44 ms at
16 nodes, 1.75-106 ms at 64), the others agreed (Alps' stalls are one clock
for every host, DEEP-EST's run has none, oracle-hpc-metal's drops of
0.005/s hardly meet a run).

Profiles (default): the busy demo machine's (../shared/profiles/busy-demo:
heavy-tailed latency stalls), Alps' and DEEP-EST's as `measure import
netgauge` + `model build` make them from their Netgauge runs in
../shared/paper-artifact (built into --cache on first use), and the built-in
oracle-hpc-metal (bandwidth episodes; the 16 B workload hardly meets them,
so it also runs a 1 MiB dissemination). The script uses only the public
API, so it runs on an older tree too (PYTHONPATH=that/src) for a before/after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import bdtr
from scipy.stats import kruskal

from cloudnoise import simulate
from cloudnoise.model.profile import load_profile
from cloudnoise.profiles.registry import resolve_profile
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.noise import noise_from_profile
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.units import parse_size_bytes

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ARTIFACT_RUNS = {  # the Netgauge runs the issue names
    "alps": "alps/2022_05_06_16_58_37.tar.xz",
    "deep-est": "deep-est/2022_05_05_17_00_11.tar.xz",
}


def median_interval(x: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The median's distribution-free interval: [x_(k), x_(n+1-k)] with the largest k covering `confidence`."""
    s = np.sort(x)
    n = s.size
    k = np.arange(1, n // 2 + 1)
    ok = k[2.0 * bdtr(k - 1, n, 0.5) <= 1.0 - confidence]
    j = int(ok[-1]) if ok.size else 1
    return float(s[j - 1]), float(s[n - j])


def built_profile(name: str, cache: Path) -> Path:
    """The profile `model build --latency-model stalls` makes of the artifact's Netgauge run for `name` (built once
    into `cache`)."""
    out = cache / f"{name}.json"
    if out.exists():
        return out
    camp = cache / f"{name}-campaign"
    cli = [sys.executable, "-m", "cloudnoise"]
    if not camp.exists():
        subprocess.run([*cli, "measure", "import", "netgauge", str(SHARED / "paper-artifact" / ARTIFACT_RUNS[name]),
                        "-o", str(camp), "--label", f"system={name}"], check=True, stdout=subprocess.DEVNULL)
    # --latency-model stalls: the stalls in time the series shows, kept (by default Alps's bandwidth series
    # refutes them and the profile draws them per message, model/stall_choice.py): this checks the noise in time
    subprocess.run([*cli, "model", "build", str(camp), "-o", str(out), "--allow-missing", "--latency-model", "stalls"],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def profile_of(source: str):
    return load_profile(source) if source.endswith(".json") else resolve_profile(source)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", action="append", default=None, metavar="NAME=FILE|BUILTIN",
                    help="a profile to check (repeatable); default: busy demo, alps, deep-est, oracle-hpc-metal")
    ap.add_argument("--nodes", default="16,64,256,1024")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--variant", default="both", help="none, os, network or both (default: both)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "cloudnoise-bench-profiles")
    a = ap.parse_args()
    a.cache.mkdir(parents=True, exist_ok=True)
    if a.profile:
        profiles = [tuple(p.split("=", 1)) for p in a.profile]
    else:
        profiles = [("busy-demo", str(SHARED / "profiles" / "busy-demo" / "this-machine.json")),
                    ("alps", str(built_profile("alps", a.cache))),
                    ("deep-est", str(built_profile("deep-est", a.cache))),
                    ("oracle-hpc-metal", "oracle-hpc-metal")]
    nodes = [int(n) for n in a.nodes.split(",")]
    print(f"# {a.seeds} seeds x {a.reps} repetitions, noise {a.variant}, {a.threads} threads; load: "
          f"{os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    header = f"{'profile':<17}{'workload':<19}{'nodes':>6}  {'medians per seed':<72}{'max low':>9}{'min high':>9}" \
             f"{'agree':>6}{'KW p':>9}{'s':>6}"
    print(header)
    t_all = time.perf_counter()
    for name, source in profiles:
        profile = profile_of(source)
        params = LogGOPS.from_profile(profile)
        workloads = ["dissemination:16B"] + (["dissemination:1MiB"] if profile.bandwidth_episodes() else [])
        for workload in workloads:
            pattern, size = workload.split(":")
            for n in nodes:
                t0 = time.perf_counter()
                sched = generate(CollectiveSpec(pattern, n, parse_size_bytes(size)))
                runs = [simulate(sched, params=params, noise=noise_from_profile(profile, s), variant=a.variant,
                                 reps=a.reps, seed=s, threads=a.threads).runtime_ns for s in range(a.seeds)]
                ci = [median_interval(r) for r in runs]
                low, high = max(c[0] for c in ci), min(c[1] for c in ci)
                p = kruskal(*runs).pvalue if any(np.ptp(r) > 0 for r in runs) else 1.0
                scale, unit = (1e6, "ms") if max(np.median(r) for r in runs) >= 1e7 else (1e3, "us")
                meds = " ".join(f"{np.median(r) / scale:.4g}" for r in runs) + f" {unit}"
                print(f"{name:<17}{workload:<19}{n:>6}  {meds:<72}{low / scale:>9.4g}{high / scale:>9.4g}"
                      f"{'yes' if low <= high else 'NO':>6}{p:>9.2g}{time.perf_counter() - t0:>6.0f}", flush=True)
    print(f"# {time.perf_counter() - t_all:.0f} s")


if __name__ == "__main__":
    main()
