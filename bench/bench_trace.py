"""Recorder overhead and trace conversion speed.

1. Recorder overhead: an OSU-style 1-byte ping-pong (osu_latency's loop:
   warm-up, then N round trips, half the round trip reported) on 2 ranks,
   run plainly and under the recorder (LD_PRELOAD); the difference per
   one-way message is the cost of recording one MPI_Send and one MPI_Recv
   (two calls). Reference: the issue asks for well under 1 us per call.
2. Conversion speed: calls per second of `trace convert` on a recorded
   Jacobi run (examples/trace/jacobi2d.c), to GOAL text.
3. OTF2 conversion speed (when the otf2 package is installed): calls per
   second of `trace convert` on an OTF2 archive written here with the otf2
   writer, Score-P's layout, a halo exchange on 2 ranks (MPI_Irecv x2,
   MPI_Isend x2, MPI_Waitall, an MPI_Allreduce every 10 steps) of
   --otf2-calls calls; --otf2-only runs just this part (no MPI needed).

    PYTHONPATH=src python bench/bench_trace.py [--iterations 20000] [--otf2-calls 100000] [--otf2-only]

Timings on a shared machine are noisy: run it on a quiet one for figures
to quote.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from cloudnoise.measurement.mpi import find_mpi
from cloudnoise.trace.convert import to_goal
from cloudnoise.trace.reader import open_trace
from cloudnoise.trace.record import recorder_library

PINGPONG = textwrap.dedent("""
    #include <mpi.h>
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
        int rank, n = atoi(argv[1]), skip = n / 10;
        char b = 0;
        double t0 = 0;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        for (int i = 0; i < n + skip; i++) {
            if (i == skip) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
            if (rank == 0) {
                MPI_Send(&b, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&b, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&b, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&b, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) printf("%.4f\\n", (MPI_Wtime() - t0) * 1e6 / (2.0 * n));
        MPI_Finalize();
        return 0;
    }
""")


IPROBE = textwrap.dedent("""
    #include <mpi.h>
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
        int n = atoi(argv[1]), flag;
        MPI_Init(&argc, &argv);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        printf("%.4f\\n", (MPI_Wtime() - t0) * 1e9 / n);
        MPI_Finalize();
        return 0;
    }
""")


def per_call_ns(exe: Path, n: int, env: dict[str, str]) -> float:
    out = subprocess.run([str(exe), str(n)], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def latency_us(exe: Path, mpiexec: str, n: int, env: dict[str, str]) -> float:
    out = subprocess.run([mpiexec, "-n", "2", str(exe), str(n)], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def write_otf2_halo(folder: Path, calls: int) -> int:
    """An OTF2 archive of a 2-rank halo exchange with about `calls` MPI calls
    in all (1 tick = 1 ns); returns the number of calls written."""
    import otf2
    from otf2.enums import CollectiveOp, GroupType, Paradigm

    w = otf2.writer.Writer(str(folder), timer_resolution=1_000_000_000)
    defs = w.definitions
    node = defs.system_tree_node("node")
    locs = [defs.location("Master thread", group=defs.location_group(f"MPI Rank {r}", system_tree_parent=node))
            for r in range(2)]
    defs.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=tuple(locs))
    world = defs.comm("MPI_COMM_WORLD", group=defs.group("world", group_type=GroupType.COMM_GROUP,
                                                         paradigm=Paradigm.MPI, members=(0, 1)))
    reg = {n: defs.region(n, paradigm=Paradigm.MPI) for n in
           ("MPI_Init", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Finalize")}
    steps = max(1, (calls // 2 - 2) * 10 // 51)  # 5 calls a step, one Allreduce every 10
    written = 0
    for r, loc in enumerate(locs):
        ew = w.event_writer_from_location(loc)
        peer = 1 - r
        t = 0

        def call(name: str, dur: int, *records: tuple) -> None:
            nonlocal t, written
            ew.enter(t, reg[name])
            for method, *a in records:
                getattr(ew, method)(t, *a)
            t += dur
            ew.leave(t, reg[name])
            t += 500  # compute between calls
            written += 1

        call("MPI_Init", 1000)
        for step in range(steps):
            call("MPI_Irecv", 50, ("mpi_irecv_request", 1))
            call("MPI_Irecv", 50, ("mpi_irecv_request", 2))
            call("MPI_Isend", 80, ("mpi_isend", peer, world, 1, 4096, 3))
            call("MPI_Isend", 80, ("mpi_isend", peer, world, 2, 4096, 4))
            call("MPI_Waitall", 2000, ("mpi_isend_complete", 3), ("mpi_isend_complete", 4),
                 ("mpi_irecv", peer, world, 1, 4096, 1), ("mpi_irecv", peer, world, 2, 4096, 2))
            if step % 10 == 9:
                call("MPI_Allreduce", 3000, ("mpi_collective_begin",),
                     ("mpi_collective_end", CollectiveOp.ALLREDUCE, world, otf2.Undefined.UINT32, 16, 16))
        call("MPI_Finalize", 100)
    w.close()
    return written


def otf2_speed(work: Path, calls: int) -> None:
    try:
        import otf2  # noqa: F401
    except ImportError:
        print("OTF2 conversion: skipped (the otf2 package is not installed: pip install 'cloudnoise[otf2]')")
        return
    archive = work / "halo-otf2"
    t0 = time.perf_counter()
    written = write_otf2_halo(archive, calls)
    made = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in archive.rglob("*") if p.is_file())
    t0 = time.perf_counter()
    conv = to_goal(open_trace(archive), work / "halo-otf2.goal.gz")
    seconds = time.perf_counter() - t0
    assert conv.calls == written
    print(f"OTF2 conversion: {conv.calls:,} calls ({size / conv.calls:.0f} archive bytes per call, written in "
          f"{made:.1f} s) -> {conv.ops:,} ops in {seconds:.2f} s = {conv.calls / seconds:,.0f} calls/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=20000, help="round trips per run")
    ap.add_argument("--runs", type=int, default=5, help="runs of each (the minimum is reported)")
    ap.add_argument("--otf2-calls", type=int, default=100_000, help="calls in the generated OTF2 archive")
    ap.add_argument("--otf2-only", action="store_true", help="only the OTF2 conversion speed (no MPI needed)")
    args = ap.parse_args()
    if args.otf2_only:
        otf2_speed(Path(tempfile.mkdtemp(prefix="cn-bench-trace-")), args.otf2_calls)
        return
    mpi = find_mpi()
    lib = recorder_library(mpi)
    work = Path(tempfile.mkdtemp(prefix="cn-bench-trace-"))
    src = work / "pp.c"
    src.write_text(PINGPONG)
    exe = work / "pp"
    subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(src)], check=True)
    plain, traced = [], []
    for k in range(args.runs):
        plain.append(latency_us(exe, str(mpi.mpiexec), args.iterations, dict(os.environ)))
        env = dict(os.environ, LD_PRELOAD=str(lib), CN_TRACE_DIR=str(work / f"tr{k}"))
        traced.append(latency_us(exe, str(mpi.mpiexec), args.iterations, env))
    load = os.getloadavg()[0]
    print(f"1-byte ping-pong, {args.iterations} round trips, min of {args.runs} runs (load average {load:.1f}):")
    print(f"  without recorder: {min(plain):8.3f} us one-way")
    print(f"  with recorder:    {min(traced):8.3f} us one-way")
    per_call = (min(traced) - min(plain)) / 2
    print(f"  recorder overhead: {per_call * 1000:8.1f} ns per MPI call   (reference: well under 1000 ns)")

    # The recorder's own cost, away from any message: one rank, a wrapped
    # local call (MPI_Iprobe on MPI_COMM_SELF) in a loop, with and without it.
    isrc = work / "iprobe.c"
    isrc.write_text(IPROBE)
    iexe = work / "iprobe"
    subprocess.run([str(mpi.mpicc), "-O2", "-o", str(iexe), str(isrc)], check=True)
    base = min(per_call_ns(iexe, 1_000_000, dict(os.environ)) for _ in range(args.runs))
    # (an MPI_Iprobe that finds nothing is a poll: folded by default, one record per call with --every-poll)
    for label, polling in (("every call a record", "every"), ("polls folded", "folded")):
        rec = min(per_call_ns(iexe, 1_000_000, dict(os.environ, LD_PRELOAD=str(lib), CN_TRACE_POLLING=polling,
                                                    CN_TRACE_DIR=str(work / f"ip-{polling}{k}")))
                  for k in range(args.runs))
        print(f"1,000,000 MPI_Iprobe on one rank ({label}): {base:.1f} ns per call plain, {rec:.1f} ns recorded: "
              f"{rec - base:.1f} ns per recorded call   (reference: well under 1000 ns)")

    jac = Path(__file__).resolve().parents[1] / "examples" / "trace" / "jacobi2d.c"
    jexe = work / "jacobi2d"
    subprocess.run([str(mpi.mpicc), "-O2", "-o", str(jexe), str(jac), "-lm"], check=True)
    tr = work / "jac"
    env = dict(os.environ, LD_PRELOAD=str(lib), CN_TRACE_DIR=str(tr))
    subprocess.run([str(mpi.mpiexec), "-n", "2", str(jexe), "32", "32", "20000", "10"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    t0 = time.perf_counter()
    conv = to_goal(open_trace(tr), work / "jac.goal.gz")
    seconds = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in tr.glob("rank-*.cntr"))
    print(f"conversion: {conv.calls:,} calls ({size / conv.calls:.0f} trace bytes per call) -> {conv.ops:,} ops "
          f"in {seconds:.2f} s = {conv.calls / seconds:,.0f} calls/s (no reference figure in the issue)")
    otf2_speed(work, args.otf2_calls)


if __name__ == "__main__":
    sys.exit(main())
