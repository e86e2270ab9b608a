"""Runs the paper authors' simulator over a prepared task list, in parallel (standard library only).

    python3 bench/authors_runner.py --bundle DIR --sim PATH/LogGOPSim --results FILE --jobs 16 [--deadline S]

`bench/bench_vs_authors.py --prepare DIR` writes DIR: the inputs (sample and
OS-noise files, the schedules as their txt2bin's binaries, large ones
zstd-compressed as NAME.zst) and DIR/tasks.json, one entry per run of
their simulator: {"key", "schedule", "flags", "seed"}, paths relative to DIR.
This script needs no cloudnoise and no numpy, so it runs on a machine that
has neither (a machine with many cores): it decompresses the schedules
(`zstd` on PATH), runs one process per task, at most --jobs at a time, in
the list's order, and appends {"key", "seed", "ps"} per finished run to
--results as it goes (one JSON object a line; runs already there are
skipped, so an interrupted run continues). With --deadline it starts no task
after that many seconds, so what finished comes back in time.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

FINISH = re.compile(r"Maximum finishing time at host \d+: (\d+)")


def decompress(bundle: Path) -> None:
    """NAME.zst -> NAME beside it (once): the schedules and the sample files."""
    for packed in sorted(bundle.rglob("*.zst")):
        plain = packed.with_suffix("")
        if not plain.exists():
            subprocess.run(["zstd", "-q", "-d", "--long=31", str(packed), "-o", str(plain)], check=True)


def run_one(sim: Path, bundle: Path, task: dict[str, Any]) -> int:
    """One run of their simulator; its maximum finishing time in ps."""
    cmd = [str(sim), "-f", task["schedule"], *task["flags"], "--batchmode", "--seed", str(task["seed"])]
    out = subprocess.run(cmd, cwd=bundle, capture_output=True, text=True, check=True).stdout
    m = FINISH.search(out)
    if m is None:
        raise RuntimeError(f"{task['key']}: their simulator printed no finishing time: {out[-300:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundle", type=Path, required=True)
    ap.add_argument("--sim", type=Path, required=True, help="their LogGOPSim binary")
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--deadline", type=float, default=None, help="start no run after this many seconds")
    a = ap.parse_args()
    t0 = time.monotonic()
    sim = a.sim.resolve()
    decompress(a.bundle)
    tasks = json.loads((a.bundle / "tasks.json").read_text())
    done: set[str] = set()
    if a.results.exists():
        done = {json.loads(line)["key"] for line in a.results.read_text().splitlines() if line.strip()}
    todo = [t for t in tasks if t["key"] not in done]
    print(f"{len(todo)} of {len(tasks)} runs to do, {a.jobs} at a time "
          f"(decompressed in {time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
    lock = threading.Lock()
    skipped = 0

    def work(task: dict[str, Any]) -> None:
        nonlocal skipped
        if a.deadline is not None and time.monotonic() - t0 > a.deadline:
            skipped += 1
            return
        started = time.monotonic()
        try:
            ps = run_one(sim, a.bundle, task)
        except (RuntimeError, subprocess.CalledProcessError) as err:
            print(f"{task['key']}: failed: {err}", file=sys.stderr, flush=True)
            return
        with lock, open(a.results, "a") as fh:
            fh.write(json.dumps({"key": task["key"], "seed": task["seed"], "ps": ps,
                                 "s": round(time.monotonic() - started, 2)}) + "\n")

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for f in [pool.submit(work, t) for t in todo]:
            f.result()
    print(f"done in {time.monotonic() - t0:.1f} s; {skipped} not started (deadline)", file=sys.stderr)


if __name__ == "__main__":
    main()
