"""Accuracy of `cloudnoise measure` against the OSU micro-benchmarks.

Runs, with the same MPI and launcher on the same machine, alternately for
--repeat rounds (so both see the same background load):

* ``osu_latency -m 1:1`` and ``cloudnoise measure latency --sizes 1``:
  OSU prints the mean RTT/2 over its iterations; cloudnoise keeps every
  sample, so its minimum, median and mean RTT/2 are all compared;
* ``osu_bw`` and ``cloudnoise measure bandwidth``: the peak over message
  sizes, of cloudnoise's best sample (size / min RTT/2) and of its mean. osu_bw streams windows of 64 non-blocking sends while cloudnoise
  ping-pongs (size / RTT/2, as the paper), so at sizes where the window
  hides latency osu_bw is expected to read higher.

The target is agreement within 5 %. The OSU benchmarks are not
part of cloudnoise: build them yourself with the same mpicc and pass the
folder holding ``osu_latency`` and ``osu_bw`` (e.g. their ``mpi/pt2pt``).

    python bench/bench_measure_vs_osu.py --osu-dir /tmp/osu/mpi/pt2pt [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cloudnoise.measurement.launcher import LaunchSpec, build_command, launch_env
from cloudnoise.measurement.mpi import find_mpi

ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)\s*$")


def osu(binary: Path, args: list[str], mpi) -> dict[int, float]:
    """size -> value from an OSU benchmark's table."""
    cmd = build_command(mpi, LaunchSpec(), 2, [str(binary), *args])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=launch_env())
    if out.returncode != 0:
        sys.exit(f"{binary.name} failed: {out.stderr.strip()[-300:]}")
    rows = {}
    for line in out.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[int(m.group(1))] = float(m.group(2))
    return rows


def supports_sizes(binary: Path) -> bool:
    """Whether this OSU build takes -m MIN:MAX (5.4 and later; 5.3 has only -i and -x,
    and its osu_bw stops at 4 MiB)."""
    out = subprocess.run([str(binary), "-h"], capture_output=True, text=True, timeout=30)
    return "-m" in (out.stdout + out.stderr)


def cloudnoise(experiment: str, args: list[str], mpicc: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "cloudnoise", "measure", experiment, "--json",
               "--out", os.path.join(tmp, "c"), *args]
        if mpicc:
            cmd += ["--mpicc", mpicc]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            sys.exit(f"cloudnoise measure {experiment} failed: {out.stderr.strip()}")
        return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osu-dir", required=True, type=Path, help="folder with osu_latency and osu_bw")
    ap.add_argument("--mpicc", help="the mpicc OSU was built with (default: cloudnoise's discovery)")
    ap.add_argument("--iterations", type=int, default=20000, help="1-byte ping-pongs per run")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    opts = ap.parse_args()
    mpi = find_mpi(opts.mpicc)
    lat_osu, lat_min, lat_med, lat_mean, bw_osu, bw_ours, bw_mean = [], [], [], [], [], [], []
    modern = supports_sizes(opts.osu_dir / "osu_latency")
    # both sides over the same sizes: 1 KiB to 16 MiB, or to OSU 5.3's fixed 4 MiB
    sizes = ",".join(str(1 << k) for k in range(10, 25 if modern else 23))
    for _ in range(opts.repeat):
        lat_osu.append(osu(opts.osu_dir / "osu_latency",
                           (["-m", "1:1"] if modern else []) + ["-i", str(opts.iterations), "-x", "1000"], mpi)[1])
        row = cloudnoise("latency", ["--sizes", "1", "--iterations", str(opts.iterations),
                                     "--warmup", "1000"], opts.mpicc)["results"][0]
        lat_min.append(row["min_us"])
        lat_med.append(row["median_us"])
        lat_mean.append(row["mean_us"])
        bw_rows = osu(opts.osu_dir / "osu_bw", ["-m", "1024:16777216"] if modern else [], mpi)
        bw_osu.append(max(v for k, v in bw_rows.items() if k >= 1024) * 8 / 1000)
        rows = cloudnoise("bandwidth", ["--sizes", sizes, "--iterations", "200"], opts.mpicc)["results"]
        bw_ours.append(max(r["bandwidth_gbps"] for r in rows))
        bw_mean.append(max(r["mean_bandwidth_gbps"] for r in rows))
    med = statistics.median
    figures = {
        "mpi": mpi.version,
        "osu_latency_us": med(lat_osu),
        "cloudnoise_min_us": med(lat_min),
        "cloudnoise_median_us": med(lat_med),
        "cloudnoise_mean_us": med(lat_mean),
        "osu_bw_peak_gbps": med(bw_osu),
        "cloudnoise_peak_gbps": med(bw_ours),
        "cloudnoise_peak_of_means_gbps": med(bw_mean),
        "rounds": {"osu_latency_us": lat_osu, "cloudnoise_min_us": lat_min, "cloudnoise_median_us": lat_med,
                   "cloudnoise_mean_us": lat_mean, "osu_bw_peak_gbps": bw_osu, "cloudnoise_peak_gbps": bw_ours,
                   "cloudnoise_peak_of_means_gbps": bw_mean},
    }
    for key in ("cloudnoise_min_us", "cloudnoise_median_us", "cloudnoise_mean_us"):
        figures[key.replace("_us", "_vs_osu")] = figures[key] / figures["osu_latency_us"] - 1
    figures["peak_bandwidth_vs_osu"] = figures["cloudnoise_peak_gbps"] / figures["osu_bw_peak_gbps"] - 1
    figures["peak_of_means_vs_osu"] = figures["cloudnoise_peak_of_means_gbps"] / figures["osu_bw_peak_gbps"] - 1
    if opts.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"MPI: {figures['mpi']}   ({opts.repeat} alternating rounds, medians)")
    print(f"1-byte RTT/2   osu_latency {figures['osu_latency_us']:.3f} us | cloudnoise min "
          f"{figures['cloudnoise_min_us']:.3f} ({figures['cloudnoise_min_vs_osu']:+.1%}), median "
          f"{figures['cloudnoise_median_us']:.3f} ({figures['cloudnoise_median_vs_osu']:+.1%}), mean "
          f"{figures['cloudnoise_mean_us']:.3f} ({figures['cloudnoise_mean_vs_osu']:+.1%})")
    print(f"peak bandwidth osu_bw {figures['osu_bw_peak_gbps']:.2f} Gb/s | cloudnoise "
          f"{figures['cloudnoise_peak_gbps']:.2f} Gb/s ({figures['peak_bandwidth_vs_osu']:+.1%}), "
          f"best mean over sizes {figures['cloudnoise_peak_of_means_gbps']:.2f} Gb/s "
          f"({figures['peak_of_means_vs_osu']:+.1%})")


if __name__ == "__main__":
    main()
