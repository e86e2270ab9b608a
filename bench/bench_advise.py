"""`cloudnoise advise` at full scale, beside its target (600 s on 2 cores).

    python bench/bench_advise.py                 # the full case
    python bench/bench_advise.py --reps 50       # a quicker look
    python bench/bench_advise.py --nodes 16..16384   # every power of two

The case: a 16 B dissemination over the paper's priced HPC systems
(aws-hpc-metal, azure-hpc, azure-hpc-200, gcp-hpc, oracle-hpc-metal,
daint: the HPC instances and supercomputers of Fig. 14 that Table I
prices), 16 to 16384 nodes (the paper's powers of 4), 200 repetitions of the
noisy (OS + network) and the noiseless variant. Target: within 10 minutes on
2 cores.

It runs the command as a user would, in its own process (`--json`, Dask
workers = the cores this process may use, simulations into a fresh folder),
and prints its wall time, peak resident set (the command's process; the Dask
workers are separate processes), and how many repetitions it simulated.
The load average is printed too: on a shared machine the figure measures
the machine as much as the code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = "aws-hpc-metal,azure-hpc,azure-hpc-200,gcp-hpc,oracle-hpc-metal,daint"
TARGET_S = 600.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--nodes", default="16..16384:4")
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-advise-") as tmp:
        cmd = [sys.executable, "-m", "cloudnoise", "advise", "dissemination:16B", "--profile", SYSTEMS,
               "--nodes", args.nodes, "--reps", str(args.reps), "--workers", str(args.workers),
               "--sweep", str(Path(tmp) / "runs"), "--json"]
        load_before = os.getloadavg()
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True)
        out, err = proc.stdout, proc.stderr
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed (exit {proc.returncode}): {err.decode(errors='replace').strip()}")
    doc = json.loads(out)
    load_after = os.getloadavg()
    rss = None
    try:
        import resource

        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    except (ImportError, OSError):
        pass
    points = len(doc["points"])
    print(f"machine: {os.cpu_count()} CPUs, {args.workers} Dask workers; load average before "
          f"{load_before[0]:.1f}, after {load_after[0]:.1f} (1 min)")
    print(f"advise dissemination:16B on {SYSTEMS}, nodes {args.nodes}, {args.reps} repetitions x 2 variants")
    print(f"  points            {points} ({len(doc['front'])} on the front)")
    print(f"  repetitions       {doc['reps_simulated']:,} simulated")
    print(f"  simulation        {doc['wall_s']:.1f} s (the sweep, as the command timed it)")
    print(f"  whole command     {wall:.1f} s   (target: <= {TARGET_S:.0f} s on 2 cores)"
          f"   {'within' if wall <= TARGET_S else 'OVER'} target")
    if rss is not None:
        print(f"  peak RSS          {rss:.0f} MB (largest child process)")
    print(f"  recommendation    {doc['recommendation']['why']}")


if __name__ == "__main__":
    main()
