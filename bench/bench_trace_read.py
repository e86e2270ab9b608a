"""How fast an OS-noise trace (selfish detour, `start duration` lines) is read.

    PYTHONPATH=src python bench/bench_trace_read.py [--detours 700000] [--runs 5] [--baseline DIR]

Writes a trace of --detours detours (a comment header, as `measure` and `measure import
netgauge` write them; DEEP-EST's hour-long run would hold about 3.6 million at its 1,003 a
second) and reads it --runs times with this tree's `read_trace`, each in a fresh process,
printing the median seconds and detours a second. With --baseline DIR (a folder holding
another build's `cloudnoise` package, e.g. `pip install --no-deps --target DIR <checkout>`)
that build reads the same file in turn, and the ratio of the medians is printed: the figure
that holds on a machine whose speed moves from run to run. Both readings must give the same
detours.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

READER = """
import hashlib, sys, time
from cloudnoise.model.os_noise import read_trace
t = time.perf_counter()
trace = read_trace(sys.argv[1])
took = time.perf_counter() - t
print(took, len(trace), hashlib.sha1(trace.starts.tobytes() + trace.durations.tobytes()).hexdigest()[:12])
"""


def read_once(path: Path, package_dir: Path) -> tuple[float, int, str]:
    out = subprocess.run([sys.executable, "-c", READER, str(path)], env={"PYTHONPATH": str(package_dir)},
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]), out[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detours", type=int, default=700_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="another build's package folder, read in turn")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    from cloudnoise.model.os_noise import OSNoiseTrace, write_trace

    rng = np.random.default_rng(0)
    trace = OSNoiseTrace(np.cumsum(rng.integers(900_000, 1_100_000, args.detours)),
                         rng.integers(2_000, 30_000, args.detours))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "os_noise.trace"
        write_trace(path, trace, comment="cloudnoise OS-noise trace (selfish detour)\nbench_trace_read.py")
        size_mb = path.stat().st_size / 1e6
        builds = {"this tree": REPO / "src"}
        if args.baseline is not None:
            builds["baseline"] = args.baseline
        times: dict[str, list[float]] = {name: [] for name in builds}
        digests = set()
        for _ in range(args.runs):
            for name, where in builds.items():
                took, count, digest = read_once(path, where)
                assert count == args.detours
                times[name].append(took)
                digests.add(digest)
        if len(digests) != 1:
            sys.exit(f"the builds read different detours: {sorted(digests)}")
        want = hashlib.sha1(trace.starts.tobytes() + trace.durations.tobytes()).hexdigest()[:12]
        if digests != {want}:
            sys.exit(f"the detours read back ({digests.pop()}) are not the ones written ({want})")
        print(f"# {args.detours:,} detours, {size_mb:.1f} MB, median of {args.runs} reads, each in a fresh process")
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, m in med.items():
            print(f"{name:10s} {m:7.3f} s  {args.detours / m / 1e6:6.2f} M detours/s  "
                  f"(runs {', '.join(f'{t:.3f}' for t in times[name])})")
        if "baseline" in med:
            print(f"ratio this tree / baseline: {med['this tree'] / med['baseline']:.3f}")


if __name__ == "__main__":
    main()
