"""Long noise measurements in bounded memory and disk, measured.

For each duration, runs ``cloudnoise measure latency-noise --duration D`` into
a fresh campaign while sampling the memory of the whole process tree
(cloudnoise, the launcher, the probe ranks) every 0.1 s, then ``cloudnoise
model build`` and ``cloudnoise report`` on that campaign the same way (a short
``measure loggp`` is added first, because a profile needs LogGP figures).
Prints each figure beside the reference (REFERENCE: a 60 s measurement by a build
that holds the whole measurement in memory) and the targets:

* peak RSS of the tree: the sum of every process's resident set (an upper
  bound: shared pages count once per process) and the sum of their PSS;
* bytes per sample of the raw chunks (their largest size seen before they
  were converted and deleted) and of the Parquet;
* conversion throughput: samples over the time cloudnoise spent converting
  (read, Parquet, read-back check, summaries), from the streaming state;
* raw files left after the run (must be none).

    python bench/bench_long_measure.py --durations 60,600 [--nice 5] [--keep DIR]

The machine's load changes every figure but the bytes: say how loaded it was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A build that holds the whole measurement in memory: measure latency-noise --duration 60, 2 cores, shared memory.
REFERENCE = {
    "samples": 20.4e6, "peak_rss_mb": 2750.0, "raw_b_per_sample": 48.0, "parquet_b_per_sample": 8.6,
}
TARGET_RSS_MB = 300.0
TARGET_PARQUET_B = 3.0


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def process_tree(pid: int) -> list[int]:
    """`pid` and every live descendant, from /proc (Linux); bench_campaign.py sums their CPU."""
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def _memory_kb(pids: list[int]) -> tuple[int, int]:
    """(sum of RSS, sum of PSS) in kB over `pids`."""
    rss = pss = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
        except OSError:
            continue
    return rss, pss


def watched(cmd: list[str], raw_dir: Path | None = None, nice: int = 0) -> dict[str, float]:
    """Run `cmd`, sampling its process tree's memory and (if given) the raw chunk sizes."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    full = (["nice", "-n", str(nice)] if nice else []) + cmd
    began = time.monotonic()
    proc = subprocess.Popen(full, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_rss = peak_pss = 0
    chunk_sizes: dict[str, int] = {}
    while proc.poll() is None:
        rss, pss = _memory_kb(process_tree(proc.pid))
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        if raw_dir is not None and raw_dir.is_dir():
            for f in raw_dir.glob("*.cnk"):
                try:
                    chunk_sizes[f.name] = max(chunk_sizes.get(f.name, 0), f.stat().st_size)
                except FileNotFoundError:
                    pass
        time.sleep(0.1)
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-500:]}")
    return {"wall_s": time.monotonic() - began, "peak_rss_mb": peak_rss / 1024, "peak_pss_mb": peak_pss / 1024,
            "raw_bytes_seen": float(sum(chunk_sizes.values()))}


def one(duration: float, root: Path, nice: int) -> dict[str, float]:
    camp = root / f"latency-noise-{int(duration)}s"
    exe = [sys.executable, "-m", "cloudnoise"]
    m = watched(exe + ["measure", "latency-noise", "--duration", str(duration), "--out", str(camp)],
                camp / "latency-noise" / "raw", nice)
    exp = camp / "latency-noise"
    state = json.loads((exp / "stream.json").read_text())
    samples = int(state["rows"])
    parquet = sum(f.stat().st_size for f in (exp / "samples.parquet").glob("*.parquet"))
    left = [p.name for p in (exp / "raw").glob("*.cnk")]
    watched(exe + ["measure", "loggp", "--sizes", "1,1K,64K", "--iterations", "200", "--out", str(camp)], nice=nice)
    b = watched(exe + ["model", "build", str(camp), "-o", str(root / f"profile-{int(duration)}s.json")], nice=nice)
    r = watched(exe + ["report", "--campaign", str(camp), "-o", str(root / f"report-{int(duration)}s")], nice=nice)
    return {
        "duration_s": duration, "samples": samples, "samples_per_s": samples / duration,
        "peak_rss_mb": m["peak_rss_mb"], "peak_pss_mb": m["peak_pss_mb"],
        "raw_b_per_sample": m["raw_bytes_seen"] / max(1, samples), "parquet_b_per_sample": parquet / max(1, samples),
        "convert_msamples_per_s": samples / max(1e-9, float(state.get("convert_s", 0))) / 1e6,
        "raw_left": len(left), "model_build_rss_mb": b["peak_rss_mb"], "report_rss_mb": r["peak_rss_mb"],
        "model_build_s": b["wall_s"], "report_s": r["wall_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--durations", default="60,600", help="seconds, comma separated")
    ap.add_argument("--nice", type=int, default=0, help="run everything under nice -n N")
    ap.add_argument("--keep", type=Path, help="write the campaigns here (default: a temporary folder)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="cn-bench-long-"))
    root.mkdir(parents=True, exist_ok=True)
    results = [one(float(d), root, args.nice) for d in args.durations.split(",")]
    ref = REFERENCE
    print(f"# load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; campaigns in {root}")
    print(f"{'':34s} {'in memory (60 s)':>20s}  " + "  ".join(f"{r['duration_s']:>10.0f} s" for r in results))
    rowspec = [
        ("samples", "samples", "{:,.0f}", ref["samples"]),
        ("samples per second", "samples_per_s", "{:,.0f}", ref["samples"] / 60),
        ("peak RSS, process tree (MB)", "peak_rss_mb", "{:.0f}", ref["peak_rss_mb"]),
        ("peak PSS, process tree (MB)", "peak_pss_mb", "{:.0f}", None),
        ("raw bytes per sample", "raw_b_per_sample", "{:.2f}", ref["raw_b_per_sample"]),
        ("Parquet bytes per sample", "parquet_b_per_sample", "{:.2f}", ref["parquet_b_per_sample"]),
        ("conversion (M samples/s)", "convert_msamples_per_s", "{:.2f}", None),
        ("raw chunk files left", "raw_left", "{:.0f}", None),
        ("model build peak RSS (MB)", "model_build_rss_mb", "{:.0f}", None),
        ("report peak RSS (MB)", "report_rss_mb", "{:.0f}", None),
    ]
    for label, key, fmt, reference in rowspec:
        refs = fmt.format(reference) if reference is not None else "-"
        print(f"{label:34s} {refs:>20s}  " + "  ".join(f"{fmt.format(r[key]):>12s}" for r in results))
    ok = all(r["peak_rss_mb"] < TARGET_RSS_MB and r["parquet_b_per_sample"] <= TARGET_PARQUET_B and not r["raw_left"]
             and r["model_build_rss_mb"] < TARGET_RSS_MB and r["report_rss_mb"] < TARGET_RSS_MB for r in results)
    print(f"# targets: peak RSS < {TARGET_RSS_MB:.0f} MB (measure, model build, report), Parquet <= "
          f"{TARGET_PARQUET_B} B/sample, no raw file left: {'met' if ok else 'NOT met'}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
