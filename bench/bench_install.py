"""The README's install, timed from a fresh clone, beside its target.

    python bench/bench_install.py                 # HEAD, once
    python bench/bench_install.py --runs 3        # three fresh clones in turn
    python bench/bench_install.py --pgo           # with -Ccmake.define.CLOUDNOISE_PGO=ON

Each run clones this repository's HEAD into a temporary folder, makes a fresh
virtual environment there and runs the README's `pip install '.[mpi]'`
(quiet), exactly as a new user would. Printed per run: the whole command's
wall time, the engine build's share of it (first to last compile in the
build's `.ninja_log`) and the machine's load average before the run, since a
figure taken on a shared machine is only an upper bound. pip's own caches
are used as they are: a user installing a second time has them too; the
first install on a new machine also downloads the wheels.

Target: under 60 s on the 2-core development VM.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 60.0


def build_seconds(clone: Path) -> float | None:
    """First start to last end in the engine build's ninja log, in seconds."""
    logs = list((clone / "build").glob("*/.ninja_log"))
    if not logs:
        return None
    starts, ends = [], []
    for line in logs[0].read_text().splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) >= 2:
            starts.append(int(fields[0]))
            ends.append(int(fields[1]))
    return (max(ends) - min(starts)) / 1000 if ends else None


def one_install(pgo: bool) -> tuple[float, float | None]:
    with tempfile.TemporaryDirectory(prefix="cn-install-") as tmp:
        clone = Path(tmp) / "cloudnoise"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        subprocess.run([sys.executable, "-m", "venv", ".venv"], cwd=clone, check=True)
        cmd = [str(clone / ".venv" / "bin" / "pip"), "install", "-q", ".[mpi]"]
        if pgo:
            cmd.append("-Ccmake.define.CLOUDNOISE_PGO=ON")
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=clone, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            sys.exit(f"bench_install: pip install failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
        return wall, build_seconds(clone)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--pgo", action="store_true", help="build the engine with profile-guided optimisation")
    opts = ap.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    print(f"HEAD {head}, cores {len(os.sched_getaffinity(0))}, pgo {'on' if opts.pgo else 'off'}; target < {TARGET_S:.0f} s")
    print("run   load   wall s   build s")
    walls = []
    for i in range(1, opts.runs + 1):
        load = os.getloadavg()[0]
        wall, build = one_install(opts.pgo)
        walls.append(wall)
        print(f"{i:>3}  {load:5.2f}  {wall:7.1f}   {build if build is None else f'{build:7.1f}'}")
    med = statistics.median(walls)
    print(f"median {med:.1f} s ({'meets' if med < TARGET_S else 'misses'} the {TARGET_S:.0f} s target)")


if __name__ == "__main__":
    main()
