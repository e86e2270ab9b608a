"""A real liballprof trace converted by Schedgen and by cloudnoise, both GOAL
files simulated by LogGOPSim at the same parameters.

    python bench/bench_vs_schedgen.py --schedgen DIR --loggopsim DIR [--trace FOLDER] [--extr K]

Default trace: the Sweep3D sample in tests/trace/data (see its README).
DIR for --schedgen holds `schedgen`; for --loggopsim, `LogGOPSim` and
`txt2bin` (LogGOPSim-O3 is taken when present). Neither is part of
cloudnoise: build them yourself from the authors' public code (LogGOPSim's
repository, spcl/LogGOPSim, has both) and pass their folders.

For the trace:

1. Schedgen converts it (`schedgen -p trace --traces RANK0FILE`); cloudnoise
   converts it with the collective algorithms Schedgen uses (barrier,
   allreduce: dissemination; bcast: binomial tree; reduce: binomial tree;
   alltoall: linear), and once more with Schedgen's time base (every rank
   starting at its own MPI_Init exit, the clockdiff ignored) to show where
   the two conversions differ.
2. LogGOPSim simulates every GOAL file with its default parameters
   (L=2500 o=1500 g=1000 G=6 O=0 S=65535, ns), and cloudnoise's engine
   simulates them too (noiseless, the same parameters).
3. The table: runtime of each, and its difference from LogGOPSim on
   Schedgen's conversion; then the reasons.

LogGOPSim (the version in the paper authors' repository) does not finish a
schedule with 0-byte messages (cloudnoise writes MPI_Barrier's messages as
0 bytes, Schedgen as 1 byte): the copy LogGOPSim gets has them as 1 byte
(6 ps each at G=6); the engine simulates the file as written.

--extr K also compares Schedgen's `--traces-extr K` with cloudnoise's
extrapolation to K x P ranks (replication, the same rule for a trace whose
ranks differ).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cloudnoise.trace.collectives import parse_algorithms
from cloudnoise.trace.convert import ConvertOptions, to_goal
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.liballprof import LiballprofTrace

ROOT = Path(__file__).resolve().parents[1]
SCHEDGEN_ALGORITHMS = ("barrier=dissemination,allreduce=dissemination,bcast=binomialtreebcast,"
                       "reduce=binomialtreereduce,alltoall=linear_alltoall")


def run(cmd: list[str], cwd: Path | None = None, timeout: int = 3600) -> tuple[str, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} ...: exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-400:]}")
    return proc.stdout, wall


def loggopsim(lgs: Path, goal: Path) -> int:
    """LogGOPSim's runtime (the latest host end, ns) of a GOAL file (0-byte messages made 1 byte)."""
    text = goal.with_suffix(".lgs.goal")
    with open(goal) as src, open(text, "w") as dst:
        for line in src:
            dst.write(line.replace(" 0b ", " 1b "))
    binary = goal.with_suffix(".bin")
    run([str(lgs / "txt2bin"), "-i", str(text), "-o", str(binary)])
    exe = lgs / "LogGOPSim-O3" if (lgs / "LogGOPSim-O3").is_file() else lgs / "LogGOPSim"
    out, _ = run([str(exe), "-f", str(binary)])
    ends = [int(m) for m in re.findall(r"Host \d+: (\d+)", out)]
    if not ends:
        sys.exit(f"LogGOPSim printed no host times for {goal}")
    return max(ends)


def engine(goal: Path) -> int:
    """cloudnoise's noiseless runtime (ns) of a GOAL file at LogGOPSim's default parameters."""
    out, _ = run([sys.executable, "-m", "cloudnoise", "simulate", str(goal), "--json", "--quiet"])
    return int(json.loads(out)["runtime_ns"][0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schedgen", type=Path, required=True, help="folder with schedgen")
    ap.add_argument("--loggopsim", type=Path, required=True, help="folder with LogGOPSim (or LogGOPSim-O3) and txt2bin")
    ap.add_argument("--trace", type=Path, default=ROOT / "tests" / "trace" / "data" / "sweep3d-2x2",
                    help="folder of liballprof rank files (.txt, or .txt.gz)")
    ap.add_argument("--extr", type=int, default=0, help="also compare Schedgen's --traces-extr K with K x P ranks")
    ap.add_argument("--keep", type=Path, help="folder for the GOAL files (kept)")
    args = ap.parse_args()
    for folder, names in ((args.schedgen, ("schedgen",)), (args.loggopsim, ("txt2bin",))):
        if not all((folder / n).is_file() for n in names):
            sys.exit(f"{folder}: no {' or '.join(names)} there; pass the folder holding it")
    with tempfile.TemporaryDirectory(prefix="cn-bench-sg-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        compare(args, work)


def plain_copy(folder: Path, work: Path) -> Path:
    """The rank files uncompressed (Schedgen reads plain text only)."""
    out = work / "trace"
    out.mkdir(exist_ok=True)
    for path in LiballprofTrace(folder).files.values():
        name = path.name[:-3] if path.name.endswith(".gz") else path.name
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as src, open(out / name, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def compare(args: argparse.Namespace, work: Path) -> None:
    args.trace = plain_copy(args.trace, work)
    trace = LiballprofTrace(args.trace)
    rank0 = trace.files[0]
    calls = sum(1 for r in range(trace.num_ranks) for _ in trace.lines(r))
    options = ConvertOptions(parse_algorithms(SCHEDGEN_ALGORITHMS))
    rows: list[tuple[str, str, int]] = []

    sg_goal = work / "schedgen.goal"
    _, sg_wall = run([str(args.schedgen.resolve() / "schedgen"), "-p", "trace", "--traces", rank0.name,
                      "-o", str(sg_goal.resolve())], cwd=rank0.parent)
    cn_goal = work / "cloudnoise.goal"
    t0 = time.perf_counter()
    conv = to_goal(trace, cn_goal, options)
    cn_wall = time.perf_counter() - t0
    base_goal = work / "cloudnoise-schedgen-time-base.goal"
    to_goal(LiballprofTrace(args.trace, align_clocks=False), base_goal, options)

    print(f"trace: {args.trace} ({trace.num_ranks} ranks, {calls:,} calls, recorded runtime "
          f"{conv.recorded_runtime_ns / 1e9:.6f} s)")
    print(f"conversion: Schedgen {sg_wall:.3f} s ({calls / sg_wall:,.0f} calls/s, process start included); "
          f"cloudnoise {cn_wall:.3f} s ({calls / cn_wall:,.0f} calls/s, in process)")
    reference = loggopsim(args.loggopsim, sg_goal)
    rows.append(("Schedgen", "LogGOPSim", reference))
    rows.append(("Schedgen", "cloudnoise engine", engine(sg_goal)))
    rows.append(("cloudnoise", "LogGOPSim", loggopsim(args.loggopsim, cn_goal)))
    rows.append(("cloudnoise", "cloudnoise engine", engine(cn_goal)))
    rows.append(("cloudnoise, Schedgen's time base", "LogGOPSim", loggopsim(args.loggopsim, base_goal)))
    rows.append(("cloudnoise, Schedgen's time base", "cloudnoise engine", engine(base_goal)))

    if args.extr > 1:
        n = args.extr * trace.num_ranks
        sgx = work / f"schedgen-x{args.extr}.goal"
        run([str(args.schedgen.resolve() / "schedgen"), "-p", "trace", "--traces", rank0.name, "--traces-extr",
             str(args.extr), "-o", str(sgx.resolve())], cwd=rank0.parent)
        cnx = work / f"cloudnoise-x{args.extr}.goal"
        to_goal(extrapolated(trace, n), cnx, options)
        ref_x = loggopsim(args.loggopsim, sgx)
        rows.append((f"Schedgen --traces-extr {args.extr} ({n} ranks)", "LogGOPSim", ref_x))
        rows.append((f"cloudnoise extrapolate --ranks {n}", "LogGOPSim", loggopsim(args.loggopsim, cnx)))
        rows.append((f"cloudnoise extrapolate --ranks {n}", "cloudnoise engine", engine(cnx)))

    print(f"\nLogGOPSim's default parameters (L=2500 o=1500 g=1000 G=6 O=0 S=65535 ns), no noise; algorithms "
          f"{SCHEDGEN_ALGORITHMS}\n")
    print(f"| conversion | simulator | runtime (s) | vs LogGOPSim on Schedgen's |")
    print("|---|---|---:|---:|")
    for conv_name, sim, ns in rows:
        ref = ref_x if "ranks)" in conv_name or "--ranks" in conv_name else reference
        print(f"| {conv_name} | {sim} | {ns / 1e9:.6f} | {100 * (ns - ref) / ref:+.4f} % |")
    spread(trace)


def spread(trace: LiballprofTrace) -> None:
    """How far apart the ranks' MPI_Finalize entries are, with and without the clockdiff: the
    evidence for which time base is right (every rank enters MPI_Finalize right after a collective)."""
    out = []
    for align in (True, False):
        t = LiballprofTrace(trace.path, align_clocks=align)
        ends = []
        for r in range(t.num_ranks):
            fin = [c for c in t.calls(r) if c.kind == "finalize"]
            ends.append(fin[-1].t_entry_ns + (t.init_end_us[r] - t.origin_us) * 1000 * (not align))
        out.append(max(ends) - min(ends))
    print(f"\nMPI_Finalize entries of the {trace.num_ranks} ranks lie within {out[0] / 1e3:,.1f} us of each other "
          f"with the header's clockdiff applied, within {out[1] / 1e3:,.1f} us without it.")
    print("Reasons for the differences: Schedgen starts every rank at its own MPI_Init exit in its own clock (it "
          "ignores the clockdiff), cloudnoise at the earliest MPI_Init exit in rank 0's clock, so a rank that left "
          "MPI_Init later computes that much longer first; with Schedgen's time base cloudnoise's conversion "
          "matches Schedgen's to the row above. Barrier messages: 0 bytes (cloudnoise) against 1 byte (Schedgen).")


if __name__ == "__main__":
    main()
