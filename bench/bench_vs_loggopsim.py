"""cloudnoise beside LogGOPSim -O3 on the same inputs.

    python bench/bench_vs_loggopsim.py                         # cloudnoise only, beside LogGOPSim's reference figures
    python bench/bench_vs_loggopsim.py --loggopsim DIR         # DIR holds LogGOPSim-O3 and txt2bin
    python bench/bench_vs_loggopsim.py --loggopsim DIR --runs 5 --keep /tmp/lgs-inputs

Cases, all with LogGOPSim's default parameters (L=2500 o=1500 g=1000 G=6 O=0 S=65535):

* OS noise only, 16384-rank 16 B dissemination, the `azure-hpc` profile's
  dense selfish-detour trace (the cloud OS noise of Fig. 8). cloudnoise runs
  --reps repetitions on 2 threads and reports ms per repetition; LogGOPSim
  runs one repetition per process (`--noise-trace`, ranks start at random
  offsets into the trace as ours do), its schedule already converted by
  txt2bin. Target: about 15 ms per repetition, >= 50x LogGOPSim per repetition.
* The 180 MB, 1024-rank 16 MiB allreduce_ring GOAL file, whole command, parse
  included: `cloudnoise simulate FILE.goal` (LogGOPSim's order, so both
  simulate the same 3,473,408 events and stop at the same deadlock; and
  program order, which completes) against txt2bin + LogGOPSim-O3. Target:
  >= 3x LogGOPSim, parse included.

LogGOPSim is not part of cloudnoise: build it yourself (github.com/spcl/LogGOPSim,
`make` with -O3) and pass its folder. Figures are medians over --runs runs;
the machine is shared, so quote medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cloudnoise import simulate
from cloudnoise.model.os_noise import write_trace
from cloudnoise.profiles.registry import resolve_profile
from cloudnoise.schedules.patterns import CollectiveSpec, generate, write_goal
from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse()  # LogGOPSim's defaults


def timed(cmd: list[str], ok: tuple[int, ...] = (0,)) -> float:
    """Wall seconds of one process run; its output is discarded."""
    return timed_cpu(cmd, ok)[0]


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_cpu(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds of one process run; its output is discarded."""
    t0, c0 = time.perf_counter(), children_cpu()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode not in ok:
        sys.exit(f"{' '.join(cmd[:3])} ...: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return wall, cpu


def os_noise_only(work: Path, reps: int, runs: int, lgs: Path | None) -> None:
    profile = resolve_profile("azure-hpc")
    trace = noise_from_profile(profile, seed=1).os_trace
    noise = NoiseSetup(os_trace=trace)
    spec = CollectiveSpec(pattern="dissemination", ranks=16384, size=16)
    sched = generate(spec)
    per_rep, cpu_per_rep = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        r = simulate(sched, params=PARAMS, noise=noise, variant="os", reps=reps, seed=1, threads=2)
        per_rep.append((time.perf_counter() - t0) / reps)
        cpu_per_rep.append((time.process_time() - c0) / reps)
    ours, ours_cpu = statistics.median(per_rep), statistics.median(cpu_per_rep)
    detours_per_s = len(trace) / (trace.length_ns / 1e9)
    print(f"\nOS noise only: 16384-rank 16 B dissemination, azure-hpc trace ({len(trace):,} detours, "
          f"{detours_per_s:,.0f}/s, noise fraction {trace.noise_fraction():.2%})")
    print(f"  cloudnoise   {ours * 1e3:.1f} ms/repetition (median of {runs} runs of {reps} repetitions, 2 threads), "
          f"{ours_cpu * 1e3:.1f} ms CPU; completion median {np.median(r.runtime_ns) / 1e3:.1f} us")
    print("  target       about 15 ms/repetition; >= 50x LogGOPSim -O3 per repetition")
    if lgs is None:
        print("  LogGOPSim    not run (pass --loggopsim DIR); LogGOPSim's time on this case: 0.6-0.75 s per repetition")
        return
    goal, binary, trace_file = work / "diss16k.goal", work / "diss16k.bin", work / "azure-hpc.trace"
    if not binary.exists():
        write_goal(spec, goal)
        timed([str(lgs / "txt2bin"), "-i", str(goal), "-o", str(binary)])
    write_trace(trace_file, trace)
    runs_theirs = [timed_cpu([str(lgs / "LogGOPSim-O3"), "-f", str(binary), "--noise-trace", str(trace_file), "-b"])
                   for _ in range(max(3, runs))]
    theirs = statistics.median(wall for wall, _ in runs_theirs)
    theirs_cpu = statistics.median(cpu for _, cpu in runs_theirs)
    print(f"  LogGOPSim    {theirs * 1e3:.0f} ms/repetition, {theirs_cpu * 1e3:.0f} ms CPU "
          "(one process per repetition, binary schedule loaded)")
    # The wall ratio counts our two threads against their one, and halves
    # when the other core is busy; the CPU ratio holds under load.
    print(f"  ratio        {theirs / ours:.0f}x in wall time, {theirs_cpu / ours_cpu:.0f}x per CPU second")


def ring_file(work: Path, runs: int, lgs: Path | None) -> None:
    goal = work / "ring1024.goal"
    if not goal.exists():
        write_goal(CollectiveSpec(pattern="allreduce_ring", ranks=1024, size=16 * 2**20), goal)
    mb = goal.stat().st_size / 1e6
    exe = [sys.executable, "-m", "cloudnoise", "simulate", str(goal), "--json", "--quiet"]
    lgs_order = statistics.median(timed(exe + ["--ready-order", "loggopsim"], ok=(3,)) for _ in range(runs))
    program = statistics.median(timed(exe + ["--ready-order", "program"]) for _ in range(runs))
    print(f"\nWhole `cloudnoise simulate FILE.goal`: 1024-rank 16 MiB allreduce_ring, {mb:.0f} MB GOAL text")
    print(f"  cloudnoise   {lgs_order:.2f} s in LogGOPSim's order (the same deadlock after 3,473,408 events, exit 3); "
          f"{program:.2f} s in program order (completes); parse and interpreter start included")
    print("  target       >= 3x LogGOPSim -O3, parse included")
    if lgs is None:
        print("  LogGOPSim    not run (pass --loggopsim DIR); LogGOPSim's time on this case: 3.3 s simulating the binary file")
        return
    binary = work / "ring1024.bin"
    convert = statistics.median(
        timed([str(lgs / "txt2bin"), "-i", str(goal), "-o", str(binary)]) for _ in range(max(1, runs // 2)))
    sim = statistics.median(timed([str(lgs / "LogGOPSim-O3"), "-f", str(binary), "-b"], ok=(0, 1, 255))
                            for _ in range(runs))
    print(f"  LogGOPSim    txt2bin {convert:.2f} s + LogGOPSim-O3 {sim:.2f} s = {convert + sim:.2f} s")
    print(f"  ratio        {(convert + sim) / lgs_order:.1f}x parse included; {sim / lgs_order:.1f}x against "
          "LogGOPSim's simulation alone")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loggopsim", type=Path, help="folder with LogGOPSim-O3 and txt2bin")
    ap.add_argument("--runs", type=int, default=3, help="runs per figure (medians are printed)")
    ap.add_argument("--reps", type=int, default=100, help="cloudnoise repetitions per OS-noise run")
    ap.add_argument("--keep", type=Path, help="folder for the GOAL, binary and trace files (reused when present)")
    args = ap.parse_args()
    if args.loggopsim is not None:
        missing = [name for name in ("LogGOPSim-O3", "txt2bin") if not (args.loggopsim / name).is_file()]
        if missing:
            print(f"--loggopsim {args.loggopsim}: no {' or '.join(missing)} there; pass the folder holding both",
                  file=sys.stderr)
            sys.exit(2)
    print(f"machine: {os.cpu_count()} CPUs, {len(os.sched_getaffinity(0))} usable")
    with tempfile.TemporaryDirectory(prefix="cn-bench-lgs-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        os_noise_only(work, args.reps, args.runs, args.loggopsim)
        ring_file(work, args.runs, args.loggopsim)


if __name__ == "__main__":
    main()
