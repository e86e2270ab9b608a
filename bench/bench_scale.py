"""Collectives generated in the engine at the paper's largest scale, beside
their targets.

    python bench/bench_scale.py              # both cases
    python bench/bench_scale.py --small      # only the 1024-rank ring

Cases (no GOAL file: `cloudnoise simulate --pattern ...`, program order,
since LogGOPSim's own order deadlocks the ring):

* 1024-rank 16 MiB allreduce_ring: target <= 0.3 s of engine time
  (LogGOPSim: 3.3 s, plus a 180 MB GOAL file).
* 16384-rank 512 MiB allreduce_ring (Fig. 15's largest point, 537 million
  messages; as a GOAL file about 46 GB): target <= 60 s single-threaded,
  <= 1 GB peak RSS.

Each case runs as its own `cloudnoise simulate --json` process: its wall
time (generation included), the engine time it reports, and its peak
resident set, read from the kernel's accounting of the child.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = [
    ("1024-rank 16 MiB allreduce_ring", ["--ranks", "1024", "--size", "16MiB"], "engine <= 0.3 s (LogGOPSim 3.3 s + 180 MB file)"),
    ("16384-rank 512 MiB allreduce_ring", ["--ranks", "16384", "--size", "512MiB"], "whole run <= 60 s, peak RSS <= 1 GB"),
]


def run_case(args: list[str]) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS (MB) and the JSON result of one process."""
    cmd = [sys.executable, "-m", "cloudnoise", "simulate", "--pattern", "allreduce_ring",
           "--ready-order", "program", "--json", *args]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_maxrss / 1024, json.loads(stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true", help="only the 1024-rank ring")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs")
    for name, extra, target in CASES[:1] if args.small else CASES:
        wall, rss, out = run_case(extra)
        events, engine = out["events"], out["engine_seconds"]
        print(f"\n{name}")
        print(f"  events               {events:,} ({out['messages']:,} messages)")
        print(f"  engine               {engine:8.2f} s  {events / engine / 1e6:.1f} M events/s")
        print(f"  whole run            {wall:8.2f} s  (generation + engine + start-up)")
        print(f"  peak RSS            {rss:8.0f} MB")
        print(f"  completion time      {out['runtime_ns'][0] / 1e6:.3f} ms simulated")
        print(f"  target               {target}")


if __name__ == "__main__":
    main()
