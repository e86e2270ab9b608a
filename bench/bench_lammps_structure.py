"""LAMMPS extrapolated against LAMMPS recorded at that size: per rank, the
messages sent, the distinct peers and the bytes sent.

Records LAMMPS's `melt` example (the Debian package: `apt-get install lammps
libopenmpi-dev`) with `cloudnoise trace record` on --base ranks (the 20 x 20
x 20 box of ../shared/traces/lammps-melt-4), then at each of --ranks twice:

- weak: the box grown with the ranks (atoms per rank kept: x2 along x for 8
  ranks, along x and y for 16, ...), against the base trace extrapolated
  with --scaling weak;
- strong: the same box, against the base trace extrapolated with --scaling
  strong.

and prints, per case, the medians over the ranks (and their range) of both,
the error, the tolerance (weak: sends 5 %, peers equal, bytes 10 %; strong:
sends 5 %, peers equal, bytes 20 %) and whether it holds. Extrapolated
traces and recorded ones may lay their grids out differently (LAMMPS picks
its own, the extrapolation MPI_Dims_create's sizes), so ranks are compared
as a distribution, not one by one.

    PYTHONPATH=src python bench/bench_lammps_structure.py [--ranks 8,16] [--steps 100] [--keep DIR]

Needs `lmp` and Open MPI's `mpirun` (and `mpicc` for the recorder); without
them it says so and exits 2. Recording oversubscribes the machine's cores:
times are inflated, the structure is the application's.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace
from cloudnoise.trace.record import record
from cloudnoise.trace.structure import compare, structure

EXAMPLE = Path("/usr/share/lammps/examples/melt/in.melt")
TOLERANCE = {"weak": {"sends": 0.05, "peers": 0.0, "bytes": 0.10},
             "strong": {"sends": 0.05, "peers": 0.0, "bytes": 0.20}}


def melt_input(box: tuple[int, int, int], steps: int) -> str:
    text = EXAMPLE.read_text()
    out = []
    for line in text.splitlines():
        if line.startswith("region"):
            line = f"region\t\tbox block 0 {box[0]} 0 {box[1]} 0 {box[2]}"
        elif line.startswith("run"):
            line = f"run\t\t{steps}"
        out.append(line)
    return "\n".join(out) + "\n"


def weak_box(base: int, ranks: int, base_ranks: int) -> tuple[int, int, int]:
    """The base box grown by ranks / base_ranks, doubling x, then y, then z, ..."""
    factor = ranks // base_ranks
    box = [base, base, base]
    k = 0
    while factor > 1:
        box[k % 3] *= 2
        factor //= 2
        k += 1
    return box[0], box[1], box[2]


def record_melt(folder: Path, ranks: int, box: tuple[int, int, int], steps: int, mpicc: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = melt_input(box, steps)
    out = folder / "trace"
    if (folder / "in.melt").is_file() and (folder / "in.melt").read_text() == text and any(out.glob("rank-*.cntr")):
        print(f"  {ranks} ranks, box {'x'.join(map(str, box))}: the trace kept in {out}", flush=True)
        return out  # recorded before with this input (--keep)
    shutil.rmtree(out, ignore_errors=True)
    (folder / "in.melt").write_text(text)
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "LD_PRELOAD", "-x", "CN_TRACE_DIR",
           "-n", str(ranks), "lmp", "-in", str(folder / "in.melt"), "-log", "none", "-screen", "none"]
    rec = record(cmd, out, mpicc=mpicc, quiet=True)
    if rec.returncode != 0:
        sys.exit(f"LAMMPS on {ranks} ranks failed (exit {rec.returncode}); its output is in {out}")
    print(f"  recorded {ranks} ranks, box {'x'.join(map(str, box))} in {rec.seconds:.1f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=int, default=4, help="ranks of the trace to extrapolate [4]")
    ap.add_argument("--ranks", default="8,16", help="rank counts to compare at [8,16]")
    ap.add_argument("--box", type=int, default=20, help="edge of the base box, in lattice cells [20]")
    ap.add_argument("--steps", type=int, default=100, help="time steps [100]")
    ap.add_argument("--mpicc", default="/usr/bin/mpicc", help="the MPI the recorder is built with [/usr/bin/mpicc]")
    ap.add_argument("--keep", type=Path, help="keep the recorded traces here (and reuse those recorded with the same input)")
    args = ap.parse_args()
    for tool in ("lmp", "mpirun", args.mpicc):
        if shutil.which(tool) is None:
            print(f"bench_lammps_structure: {tool} not found; install with apt-get install lammps libopenmpi-dev",
                  file=sys.stderr)
            sys.exit(2)
    ranks = [int(x) for x in args.ranks.split(",")]
    if any(r % args.base or r <= args.base or (r // args.base) & (r // args.base - 1) for r in ranks):
        sys.exit("--ranks: each must be the base ranks times a power of two")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-lammps-"))
    base_box = (args.box,) * 3
    print(f"recording LAMMPS melt ({args.steps} steps) under {work}", flush=True)
    base = open_trace(record_melt(work / f"base-{args.base}", args.base, base_box, args.steps, args.mpicc))
    rows = []
    for n in ranks:
        for mode in ("weak", "strong"):
            box = weak_box(args.box, n, args.base) if mode == "weak" else base_box
            recorded = open_trace(record_melt(work / f"{mode}-{n}", n, box, args.steps, args.mpicc))
            ext = extrapolated(base, n, scaling=mode)
            cmp = compare(structure(recorded), structure(ext))
            grid = "x".join(map(str, ext.grid_dims))
            for field, c in cmp.items():
                tol = TOLERANCE[mode][field]
                ok = abs(c["error"]) <= tol + 1e-12
                rows.append((mode, n, "x".join(map(str, box)), grid, field, c, tol, ok))
    print()
    print(f"{'scaling':7} {'ranks':>5} {'box':>9} {'our grid':>8}  {'':6} {'recorded (median [range])':>28} "
          f"{'extrapolated':>28} {'error':>8} {'tol':>5}  ok")
    for mode, n, box, grid, field, c, tol, ok in rows:
        rec = f"{c['recorded']:,.0f} [{c['recorded_range'][0]:,.0f}-{c['recorded_range'][1]:,.0f}]"
        ext = f"{c['extrapolated']:,.0f} [{c['extrapolated_range'][0]:,.0f}-{c['extrapolated_range'][1]:,.0f}]"
        print(f"{mode:7} {n:>5} {box:>9} {grid:>8}  {field:6} {rec:>28} {ext:>28} {c['error']:>+8.1%} "
              f"{tol:>5.0%}  {'yes' if ok else 'NO'}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    held = sum(ok for *_, ok in rows)
    print(f"\n{held} of {len(rows)} within tolerance")


if __name__ == "__main__":
    main()
