"""A real trace extrapolated to thousands of ranks, under noise: every
repetition must complete, and how long the whole run takes.

For each --ranks: extrapolates the trace (default ../shared/traces/lammps-melt-4,
LAMMPS on 4 ranks) with --scaling, converts it (rank_copies: one conversion
per kind of rank), and simulates --reps repetitions under --profile's noise
(`--noise both` by default) on --threads threads, as `cloudnoise simulate
--trace DIR --ranks N` does. Prints, per rank count: the conversion's CPU
and wall time, the ranks converted and copied, the schedule's ops and
templates, the simulation's CPU and wall time, the median runtime, and
whether every repetition completed (a deadlock is exit status 3 from the
engine, which this bench reports and counts).

    PYTHONPATH=src python bench/bench_trace_scale.py [--trace DIR] [--ranks 1024,16384] [--reps 100]
        [--scaling weak|strong] [--threads 2]

The machine's load is printed (os.getloadavg): on a shared machine compare
CPU times, not wall times.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace

SHARED = Path(os.environ.get("CLOUDNOISE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def cpu() -> float:
    """CPU seconds of this process and its threads (user + system)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", type=Path, default=SHARED / "traces" / "lammps-melt-4")
    ap.add_argument("--ranks", default="1024,16384")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--scaling", default="weak", choices=("weak", "strong"))
    ap.add_argument("--profile", default="aws-hpc-metal")
    ap.add_argument("--noise", default="both")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    print(f"{args.trace}, {args.scaling} scaling, {args.profile} noise {args.noise}, {args.reps} repetitions, "
          f"{args.threads} threads; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    print(f"{'ranks':>6} {'grid':>9} {'convert cpu/wall s':>19} {'converted/copied':>17} {'ops':>12} {'templates':>9} "
          f"{'simulate cpu/wall s':>20} {'median ms':>10} {'completed':>10}")
    base = open_trace(args.trace)
    for n in (int(x) for x in args.ranks.split(",")):
        c0, w0 = cpu(), time.perf_counter()
        ext = extrapolated(base, n, scaling=args.scaling)
        schedule, conv = to_schedule(ext)
        c1, w1 = cpu(), time.perf_counter()
        grid = "x".join(map(str, getattr(ext, "grid_dims", ()) or ())) or "-"
        try:
            r = simulate(schedule, profile=args.profile, noise=args.noise, reps=args.reps, threads=args.threads)
            done, median = len(r.runtime_ns), f"{r.statistics.median / 1e6:.3f}"
        except CloudnoiseError as err:
            done, median = 0, f"stuck: {str(err)[:60]}"
        c2, w2 = cpu(), time.perf_counter()
        print(f"{n:>6} {grid:>9} {c1 - c0:>9.2f}/{w1 - w0:<9.2f} {n - conv.copied_ranks:>8}/{conv.copied_ranks:<8} "
              f"{schedule.num_ops:>12,} {schedule.num_templates:>9} {c2 - c1:>10.1f}/{w2 - w1:<9.1f} {median:>10} "
              f"{done:>4}/{args.reps}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
