"""Conversion speed and memory of a liballprof trace.

    PYTHONPATH=src python bench/bench_liballprof.py [--calls 100000,400000] [--ranks 4] [--sources named,any]
        [--python] [--schedgen DIR]

For each size, writes a trace in liballprof's real format (absolute
wall-clock microseconds, collprof's header, Open MPI handles): every rank
runs a 1-D halo exchange (MPI_Irecv x2, MPI_Isend x2, MPI_Waitall over 4-byte requests as MPICH's, a
Wtime, an MPI_Allreduce every 10 steps) until it has made --calls calls.
`--sources any` writes the same program with every receive from
MPI_ANY_SOURCE (the tag tells the neighbours apart), as real applications
receive (MILC: every rank); the target is the same, >= 200,000 calls/s.
Then `cloudnoise trace convert` runs on it in a fresh process: the figures
are its calls per second (reading, matching and writing the GOAL file, the
interpreter's start not counted), in wall-clock and in CPU time (the
process's own, which a loaded machine disturbs less), and its peak RSS
(its own VmHWM). The C++ converter (liballprof_native) is what
`trace convert` uses; --python also runs the Python converter alone
(`native=False`, the reference) on the same files. With --schedgen DIR,
Schedgen converts the same files (`schedgen -p trace`, whole process) for a
figure from the same machine at the same time.

Reference figures: >= 200,000 calls/s is the target; Schedgen converts
about 67,000 calls/s (a 4-rank MILC trace, on the development machine).
Measured (docs/reference/trace-formats.md, `--calls 25000,100000,400000 --python`, load 6.5
to 6.8 on the shared 2-core machine): C++ 563,000 to 675,000 calls/s of CPU
time, peak RSS 34 to 37 MiB at 25,000 to 400,000 calls a rank (flat);
the Python converter alone 114,000 to 142,000 calls/s, 32 to 63 MiB.
The machine is shared: quote figures taken at the same time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE = 1300050894308309.0
# Peak RSS is the child's own VmHWM: getrusage's ru_maxrss can keep the
# high-water mark of the forked copy of this (parent) process, which holds
# the trace it just wrote, from before the exec.
CHILD = """
import json, resource, sys, time
from cloudnoise.trace.convert import to_goal
from cloudnoise.trace.reader import open_trace
t0, c0 = time.perf_counter(), time.process_time()
res = to_goal(open_trace(sys.argv[1]), sys.argv[2], native=sys.argv[3] == "1")
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
try:
    peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"calls": res.calls, "seconds": wall, "cpu_seconds": cpu, "peak_rss_kib": peak,
                  "native_ranks": res.native_ranks}))
"""


def write_rank(path: Path, rank: int, ranks: int, calls: int, any_source: bool = False) -> None:
    left, right = (rank - 1) % ranks, (rank + 1) % ranks
    src_left, src_right = (-1, -1) if any_source else (left, right)  # Open MPI's MPI_ANY_SOURCE is -1
    world = f"6611456,{rank},{ranks}"
    t = BASE + 7.0 * rank
    lines = ["# collprof 0.9 output file", "# Thu Mar 10 12:00:00 2011", f"# host: node{rank}", "# Init clockdiff: 0.000000", "",
             f"MPI_Init:-:140737488343500:140737488344604:{t:.6f}"]
    n, step = 1, 0
    while n < calls - 1:
        def call(name: str, *args: object, dur: float = 2.0) -> None:
            nonlocal t, n
            t += 3.0
            start = t
            t += dur
            lines.append(":".join([name, f"{start:.6f}", *map(str, args), f"{t:.6f}"]))
            n += 1
        call("MPI_Irecv", 32060384, 512, "11,8,8", src_left, 1, world, 140737488340000)
        call("MPI_Irecv", 32064480, 512, "11,8,8", src_right, 2, world, 140737488340004)
        call("MPI_Isend", 32068576, 512, "11,8,8", right, 1, world, 140737488340008)
        call("MPI_Isend", 32072672, 512, "11,8,8", left, 2, world, 140737488340012)
        call("MPI_Waitall", 4, 140737488340000, 140737488339000, dur=20.0)
        call("MPI_Wtime")
        step += 1
        if step % 10 == 0:
            call("MPI_Allreduce", 140737488342216, 140737488341152, 1, "11,8,8", 3, world)
    lines.append("# Finalize clockdiff: 0.000000")
    lines.append(f"MPI_Finalize:{t + 5:.6f}:-")
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", default="100000,400000", help="calls per rank, comma-separated sizes")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--sources", default="named,any",
                    help="receives from named ranks, from MPI_ANY_SOURCE, or both (comma-separated)")
    ap.add_argument("--schedgen", type=Path, help="folder with schedgen, for the same-machine reference")
    ap.add_argument("--python", action="store_true",
                    help="also convert with the Python converter alone (native=False, the reference)")
    args = ap.parse_args()
    sources = [x.strip() for x in args.sources.split(",")]
    if not sources or not set(sources) <= {"named", "any"}:
        sys.exit(f"--sources {args.sources}: give named, any or named,any")
    print("| calls (all ranks) | receives from | converter | cloudnoise calls/s (wall) | cloudnoise calls/s (CPU time) "
          "| peak RSS (MiB) | Schedgen calls/s (wall) |")
    print("|---:|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="cn-bench-lap-") as tmp:
        for per_rank, source in ((int(x), s) for x in args.calls.split(",") for s in sources):
            folder = Path(tmp) / f"t{per_rank}-{source}"
            folder.mkdir()
            for r in range(args.ranks):
                write_rank(folder / f"pmpi-trace-rank-{r}.txt", r, args.ranks, per_rank, source == "any")
            label = "MPI_ANY_SOURCE" if source == "any" else "named ranks"
            for native in ((True, False) if args.python else (True,)):
                proc = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(Path(tmp) / "out.goal"),
                                       "1" if native else "0"], capture_output=True, text=True)
                if proc.returncode != 0:
                    sys.exit(proc.stderr.strip()[-400:])
                doc = json.loads(proc.stdout)
                which = f"C++ ({doc['native_ranks']} of {args.ranks} ranks)" if native else "Python"
                print(f"| {doc['calls']:,} | {label} | {which} | {doc['calls'] / doc['seconds']:,.0f} | "
                      f"{doc['calls'] / doc['cpu_seconds']:,.0f} | {doc['peak_rss_kib'] / 1024:,.0f} | - |")
            sg = "-"
            if args.schedgen is not None:
                t0 = time.perf_counter()
                out = subprocess.run([str(args.schedgen.resolve() / "schedgen"), "-p", "trace", "--traces",
                                      "pmpi-trace-rank-0.txt", "-o", str(Path(tmp) / "sg.goal")], cwd=folder,
                                     capture_output=True, text=True, check=True)
                wall = time.perf_counter() - t0
                if "sends" not in out.stdout:  # Schedgen stops early (exit 0) on what it cannot read
                    sys.exit(f"schedgen did not convert the trace: {(out.stdout + out.stderr).strip()[-300:]}")
                sg = f"{doc['calls'] / wall:,.0f}"
                print(f"| {doc['calls']:,} | {label} | Schedgen | - | - | - | {sg} |")


if __name__ == "__main__":
    main()
