"""`cloudnoise paper` and `cloudnoise profiles calibrate`, timed, beside their targets.

    python bench/bench_paper.py                 # paper --reps 200 (target: <= 20 min on 2 cores)
    python bench/bench_paper.py --reps 50       # a shorter run
    python bench/bench_paper.py --calibrate     # also the full calibration and its bit-for-bit check

Each step runs as its own `python -m cloudnoise` process into a fresh
temporary folder (nothing resumed); the wall time is printed beside the
target, with the machine's load average, since the figure taken on a shared
machine is only an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cloudnoise", *args], capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--calibrate", action="store_true")
    opts = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"cores available: {cores}; load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        wall, proc = run(["paper", "--reps", str(opts.reps), "--workers", str(opts.workers), "--json",
                          "--out", os.path.join(tmp, "paper")])
        if proc.returncode != 0:
            sys.exit(f"paper failed: {proc.stderr.strip()}")
        data = json.loads(proc.stdout)
        s = data["summary"]
        print(f"cloudnoise paper --reps {opts.reps} --workers {opts.workers}: {wall:.0f} s wall "
              f"({data['reps_simulated']} repetitions) | target (--reps 200): <= 1200 s on 2 cores")
        for role in ("calibration", "held-out"):
            print(f"  {role}: {s[role]['agree']} of {s[role]['total']} agree")
        if opts.calibrate:
            wall, proc = run(["profiles", "calibrate", "--out", os.path.join(tmp, "calib"), "--compare", "--json"])
            if proc.returncode not in (0, 1):
                sys.exit(f"calibrate failed: {proc.stderr.strip()}")
            differ = json.loads(proc.stdout).get("differ_from_builtin")
            print(f"cloudnoise profiles calibrate --compare: {wall:.0f} s wall; "
                  f"{'identical to the built-in files' if not differ else 'DIFFERS: ' + ', '.join(differ)}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
