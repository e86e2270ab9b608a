"""Importing a whole Netgauge run of the paper's artifact: wall time and peak memory.

Runs ``cloudnoise measure import netgauge RUN --out TMP`` in a child process, a
fresh one per repetition (so the interpreter's start and imports count, as a
user pays them), and reads the child's peak resident set from the kernel
(``getrusage(RUSAGE_CHILDREN)``: the largest of the children so far). Prints
both beside the targets: under 10 s and under 300 MB for a whole run folder.
Then ``model build`` on the last campaign, timed the same way.

    python bench/bench_netgauge_import.py [RUN.tar.xz|RUN_DIR ...] [--repeat 3]

Default run: $CLOUDNOISE_SHARED (else ../shared)/paper-artifact/daint/2022_05_19_13_03_39.tar.xz (330k
latency and 330k bandwidth samples, 100k detours, 20 ping-pong sweeps). The
machine's load changes the time (say how loaded it was), not the memory much.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CLOUDNOISE_SHARED", REPO.parent / "shared"))
DEFAULT = SHARED / "paper-artifact" / "daint" / "2022_05_19_13_03_39.tar.xz"
TARGET_S = 10.0
TARGET_MB = 300.0


def _run(args: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB of the children so far) of `python -m cloudnoise ARGS`."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cloudnoise", *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"cloudnoise {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'run':45s} {'import wall s':>13s} {'CPU s':>6s} {'target':>7s} {'peak MB':>8s} {'target':>7s} "
          f"{'model build s':>14s}")
    for run in args.runs:
        walls, cpus, peak = [], [], 0.0
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.repeat):
                wall, cpu, peak = _run(["measure", "import", "netgauge", str(run), "--out", f"{tmp}/c{k}"])
                walls.append(wall)
                cpus.append(cpu)
            build, _, _ = _run(["model", "build", f"{tmp}/c{args.repeat - 1}", "-o", f"{tmp}/p.json"])
        walls.sort()
        cpus.sort()
        print(f"{run.parent.name + '/' + run.name:45s} {walls[len(walls) // 2]:13.2f} {cpus[len(cpus) // 2]:6.2f} "
              f"{TARGET_S:7.0f} {peak:8.0f} {TARGET_MB:7.0f} {build:14.2f}")
    print("(wall and CPU: medians over --repeat imports, each a fresh interpreter)")
    print(f"(peak MB: the largest child so far, cumulative over the runs listed; cpus: {os.cpu_count()}, "
          f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
