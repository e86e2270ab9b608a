"""Engine speed on two reference cases, printed beside LogGOPSim's figures.

    python bench/bench_engine.py            # both cases, 5 runs each
    python bench/bench_engine.py --runs 3 --keep /tmp/bench

Cases (schedules generated in-engine, written as GOAL text exactly as
Schedgen writes them, then read back so parsing is measured too):

* 16384-rank 16 B dissemination: LogGOPSim 688,128 events, 0.31 s, 77 MB RSS.
* 1024-rank 16 MiB allreduce_ring: LogGOPSim 3,473,408 events, 3.3 s,
  590 MB RSS, from a 180 MB GOAL file. LogGOPSim stops there: its unstable
  ordering posts receives out of program order and the ring deadlocks
  (`--ready-order loggopsim` reproduces that event for event); in program
  order, the default, the ring completes (6,285,312 events), also timed.

Engine time excludes parsing (reported separately); "whole CLI" is the
wall time of the `cloudnoise simulate FILE --json` process, parse included,
measured from outside. Peak RSS is that process's maximum resident set.
Figures are medians over --runs runs; the machine is shared, so quote the
medians and ratios, not single runs.
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

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, write_goal
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse()  # LogGOPSim's defaults: L=2500 o=1500 g=1000 G=6 O=0 S=65535


def whole_cli(path: Path, extra: list[str]) -> tuple[float, float, dict | None]:
    """Wall seconds and peak RSS (MB) of one `cloudnoise simulate` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cloudnoise", "simulate", str(path), "--json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = json.loads(stdout) if proc.returncode == 0 else None
    return wall, usage.ru_maxrss / 1024, out


def engine_runs(sched: _engine.Schedule, runs: int, program: bool) -> tuple[list[float], int, str]:
    times, events, status = [], 0, "complete"
    for _ in range(runs):
        t0 = time.perf_counter()
        try:
            r = _engine.run(sched, PARAMS.to_engine(), _engine.NoiseModel(), program_order=program)
            events = int(r["events"])
        except _engine.DeadlockError as err:
            text = str(err)
            events = int(text.split("stopped after ")[1].split(" ")[0])
            status = "deadlock (as LogGOPSim)"
        times.append(time.perf_counter() - t0)
    return times, events, status


def case(name: str, spec: CollectiveSpec, workdir: Path, runs: int, reference: str, program: bool) -> None:
    path = workdir / f"{spec.pattern}_{spec.ranks}.goal"
    if not path.exists():
        write_goal(spec, path)
    size_mb = path.stat().st_size / 1e6
    parse = []
    for _ in range(max(1, runs // 2)):
        t0 = time.perf_counter()
        sched = _engine.read_goal(str(path))
        parse.append(time.perf_counter() - t0)
    times, events, status = engine_runs(sched, runs, program)
    med = statistics.median(times)
    order = ["--ready-order", "program" if program else "loggopsim"]
    clis = [whole_cli(path, order) for _ in range(max(1, runs // 2))]
    cli_med = statistics.median(c[0] for c in clis)
    rss = max(c[1] for c in clis)
    print(f"\n{name}  [{'program' if program else 'loggopsim'} order]")
    print(f"  GOAL file            {size_mb:8.1f} MB, {sched.num_ops:,} ops, {sched.memory_bytes / sched.num_ops:.1f} B/op in memory")
    print(f"  parse                {statistics.median(parse):8.3f} s  ({size_mb / statistics.median(parse):.0f} MB/s)")
    print(f"  engine               {med:8.3f} s  {events:,} events  {events / med / 1e6:.1f} M events/s  ({status})")
    print(f"  whole CLI            {cli_med:8.3f} s  peak RSS {rss:.0f} MB")
    print(f"  LogGOPSim reference  {reference}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="directory for the GOAL files (kept between runs)")
    args = ap.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="cloudnoise-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} CPUs; GOAL files in {workdir}")
    print("targets: >= 20 M events/s engine time on both; whole CLI on the ring file >= 3x faster than 3.3 s")
    case(
        "16384-rank 16 B dissemination",
        CollectiveSpec(pattern="dissemination", ranks=16384, size=16),
        workdir, args.runs, "688,128 events, 0.31 s, 77 MB RSS", program=False,
    )
    ring = CollectiveSpec(pattern="allreduce_ring", ranks=1024, size=16 * 2**20)
    case("1024-rank 16 MiB allreduce_ring", ring, workdir, args.runs, "3,473,408 events (then deadlock), 3.3 s, 590 MB RSS", program=False)
    case("1024-rank 16 MiB allreduce_ring", ring, workdir, args.runs, "(does not complete)", program=True)


if __name__ == "__main__":
    main()
