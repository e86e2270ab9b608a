"""bench_noise's first case, this build against another, in the same minutes.

    PYTHONPATH=src python bench/bench_noise_vs_build.py --baseline DIR [--pairs 6]

The target: the 16K-rank dissemination under OS + network noise, 1000
repetitions, in at most 8/12 = 0.667 of the time the reference build (13a405a)
takes on the same machine (8 s where it takes 12 s). This machine's speed moves
by up to 2x from day to day and by ~10% from run to run, so seconds measured on
another day say little; the ratio to the reference build, run in turn with this
one, is the figure that holds.

DIR is a folder holding another build's `cloudnoise` package, built. For the
reference build:

    git worktree add /tmp/cn-13a405a 13a405a
    pip install --no-deps --target /tmp/build-13a405a /tmp/cn-13a405a   # ~1 min
    git worktree remove /tmp/cn-13a405a
    PYTHONPATH=src python bench/bench_noise_vs_build.py --baseline /tmp/build-13a405a

Both builds run the same case from the same tables (noise_case_runner.py), each
in a fresh process, alternating which goes first; each pair's ratio is this
build's simulation time over the baseline's. Before timing, both run 20
repetitions: their runtimes must agree bit for bit, or the times would not be
of the same work.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import cloudnoise
from bench_noise import noise_case

RUNNER = Path(__file__).with_name("noise_case_runner.py")
TARGET_RATIO = 8 / 12  # at most 8 s where the reference build (13a405a) takes 12 s


def write_case(path: Path) -> None:
    """bench_noise's case as the engine's tables, for builds that cannot parse its models."""
    params, noise = noise_case()
    lat_p, lat_v = noise.latency.to_quantile_table()
    bw_p, bw_v = noise.bandwidth.to_quantile_table()
    np.savez(
        path,
        params=np.array([params.L_ps, params.o_ps, params.g_ps, params.G_fs, params.O_fs, params.S], dtype=np.int64),
        os_starts_ns=noise.os_trace.starts, os_durations_ns=noise.os_trace.durations,
        latency_p=lat_p, latency_v=lat_v, bandwidth_p=bw_p, bandwidth_v=bw_v,
    )


def run(package_dir: Path, case: Path, reps: int, threads: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(package_dir))
    proc = subprocess.run([sys.executable, str(RUNNER), str(case), str(reps), str(threads)],
                          env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"bench_noise_vs_build: the build in {package_dir} failed: {last}", file=sys.stderr)
        sys.exit(2)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, required=True, help="folder holding another build's cloudnoise package")
    ap.add_argument("--pairs", type=int, default=6, help="pairs of runs, taken in turn [default: 6]")
    ap.add_argument("--reps", type=int, default=1000, help="repetitions per run [default: 1000, as bench_noise]")
    ap.add_argument("--threads", type=int, default=2, help="threads per run [default: 2, as bench_noise]")
    args = ap.parse_args()
    if args.pairs < 1 or args.reps < 1 or args.threads < 1:
        print("bench_noise_vs_build: --pairs, --reps and --threads must be at least 1", file=sys.stderr)
        sys.exit(2)
    baseline = args.baseline.resolve()
    if not (baseline / "cloudnoise" / "__init__.py").is_file() or not list((baseline / "cloudnoise").glob("_engine*")):
        print(f"bench_noise_vs_build: {baseline} holds no built cloudnoise package (cloudnoise/__init__.py and its "
              "_engine module); see --help for how to build one", file=sys.stderr)
        sys.exit(2)
    current = Path(cloudnoise.__file__).resolve().parent.parent
    if current == baseline:
        print("bench_noise_vs_build: --baseline is this build itself", file=sys.stderr)
        sys.exit(2)

    with tempfile.TemporaryDirectory() as tmp:
        case = Path(tmp) / "case.npz"
        write_case(case)
        builds = (("this", current), ("baseline", baseline))
        check = {name: run(d, case, 20, args.threads)["runtimes_sha1"] for name, d in builds}
        if check["this"] != check["baseline"]:
            print(f"bench_noise_vs_build: the builds' runtimes differ on the same case ({check['this']} against "
                  f"{check['baseline']}, 20 repetitions): their times would not be of the same work", file=sys.stderr)
            sys.exit(2)
        print(f"this build: {current}\nbaseline:   {baseline}")
        print(f"same runtimes on 20 repetitions (sha1 {check['this']}); {args.pairs} pairs of {args.reps} repetitions, "
              f"{args.threads} threads, simulation time only")
        print(f"{'pair':>4}  {'this s':>8}  {'baseline s':>10}  {'ratio':>6}")
        ratios, ours, theirs = [], [], []
        for i in range(args.pairs):
            order = [("this", current), ("baseline", baseline)]
            if i % 2:
                order.reverse()
            t = {name: run(d, case, args.reps, args.threads)["seconds"] for name, d in order}
            ours.append(t["this"])
            theirs.append(t["baseline"])
            ratios.append(t["this"] / t["baseline"])
            print(f"{i + 1:>4}  {t['this']:>8.2f}  {t['baseline']:>10.2f}  {ratios[-1]:>6.3f}", flush=True)
    med = statistics.median(ratios)
    print(f"median: this {statistics.median(ours):.2f} s, baseline {statistics.median(theirs):.2f} s; "
          f"ratio {med:.3f} (pairs {min(ratios):.3f}-{max(ratios):.3f}); "
          f"target against the reference build (13a405a): <= {TARGET_RATIO:.3f}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        # Ctrl-C reaches the running build too (one process group): nothing is left running.
        print("bench_noise_vs_build: interrupted", file=sys.stderr)
        sys.exit(130)
