"""The recorder's disk rate on a polling loop: bytes written per rank-second,
polling runs folded (the default) and every call recorded (--every-poll).

Runs examples/trace/polling.c (pairs of ranks: one computes and sends, the
other polls with MPI_Test, MPI_Testany and MPI_Iprobe until the message is
there) without the recorder, then recorded both ways, and prints for each:
the run's wall time, the recorded runtime (first MPI_Init exit to last
MPI_Finalize entry), calls and records, the bytes of the rank files, and
bytes per rank-second (bytes / (ranks x recorded runtime)).

`--command "..."` records another application the same way (run in
`--cwd`), e.g. HPC Challenge:

    PYTHONPATH=src python bench/bench_trace_polling.py [--ranks 2] [--iterations 2000] [--work-us 200]
    PYTHONPATH=src python bench/bench_trace_polling.py --cwd /tmp/hpcc --mpicc /usr/bin/mpicc \\
        --command "mpirun --allow-run-as-root --oversubscribe -x LD_PRELOAD -x CN_TRACE_DIR -n 4 hpcc"

The figures move with the machine's load (printed): a busy-polling rank
descheduled polls less.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

from cloudnoise.measurement.launcher import LaunchSpec, build_command
from cloudnoise.measurement.mpi import find_mpi
from cloudnoise.trace.reader import open_trace
from cloudnoise.trace.record import record

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "trace" / "polling.c"


def measure(trace_dir: Path) -> dict[str, float]:
    trace = open_trace(trace_dir)
    calls = records = 0
    finalize = 0
    for rank in range(trace.num_ranks):
        for c in trace.calls(rank):
            records += 1
            calls += c.repeat
            if c.kind == "finalize":
                finalize = max(finalize, c.t_entry_ns)
    size = sum(p.stat().st_size for p in trace_dir.glob("rank-*.cntr"))
    rank_seconds = trace.num_ranks * finalize / 1e9
    return {"ranks": trace.num_ranks, "runtime_s": finalize / 1e9, "calls": calls, "records": records,
            "bytes": size, "mb_per_rank_s": size / 1e6 / rank_seconds, "calls_per_rank_s": calls / rank_seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2, help="ranks of the polling loop (even)")
    ap.add_argument("--iterations", type=int, default=2000, help="messages each polling rank waits for")
    ap.add_argument("--work-us", type=float, default=200.0, help="compute before each message (us)")
    ap.add_argument("--mpicc", help="MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel)")
    ap.add_argument("--command", help="record this launcher line instead of the polling loop")
    ap.add_argument("--cwd", type=Path, help="run --command here")
    args = ap.parse_args()
    mpi = find_mpi(args.mpicc)
    work = Path(tempfile.mkdtemp(prefix="cn-bench-polling-"))
    if args.command:
        command = shlex.split(args.command)
        what = args.command
    else:
        exe = work / "polling"
        subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(EXAMPLE)], check=True)
        command = build_command(mpi, LaunchSpec(), args.ranks, [str(exe), str(args.iterations), str(args.work_us)])
        what = f"examples/trace/polling.c on {args.ranks} ranks, {args.iterations} messages, {args.work_us:g} us compute each"
    cwd = args.cwd or work
    print(f"{what} (load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
    t0 = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    print(f"  without the recorder: {time.perf_counter() - t0:.2f} s wall")
    print(f"  {'recording':<22} {'wall s':>7} {'runtime s':>9} {'calls':>12} {'records':>10} {'MB':>9} "
          f"{'MB/rank-s':>10} {'calls/rank-s':>13}")
    here = os.getcwd()
    for label, every in (("polls folded", False), ("every poll", True)):
        out = work / ("every" if every else "folded")
        os.chdir(cwd)
        try:
            rec = record(command, out, mpicc=str(mpi.mpicc), quiet=True, every_poll=every)
        finally:
            os.chdir(here)
        m = measure(out)
        print(f"  {label:<22} {rec.seconds:7.2f} {m['runtime_s']:9.3f} {m['calls']:12,} {m['records']:10,} "
              f"{m['bytes'] / 1e6:9.2f} {m['mb_per_rank_s']:10.3f} {m['calls_per_rank_s']:13,.0f}")
    print(f"(load average after: {os.getloadavg()[0]:.1f}; traces in {work})")


if __name__ == "__main__":
    main()
