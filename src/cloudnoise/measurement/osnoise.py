"""Selfish-detour results: OS-noise traces and their summary.

The trace format is the one the simulator's OS-noise model reads: plain
text, ``#`` lines are comments, then one ``start<TAB>duration`` line per
detour, both integers in nanoseconds, start measured from the beginning of
the measurement. One trace per rank (``os_noise.rankR.trace``); rank 0's is
also written as ``os_noise.trace``. A resumed run's later parts continue the
timeline where the earlier part stopped. Traces are written from the
experiment's Parquet files one row group at a time; the per-rank rows come
from the streaming summaries.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from cloudnoise.measurement.arrow_columns import to_int64
from cloudnoise.measurement.campaign import Campaign
from cloudnoise.measurement.samples import read_info, rank_files
from cloudnoise.measurement.stream import PARQUET_DIR, Stream


def part_span_ns(info: dict[str, str], last_end_ns: int) -> int:
    """How long one launch measured: from its begin to its end, or to the end
    of its last detour when it was killed before writing its end."""
    begin = int(info.get("begin_monotonic_ns", 0) or 0)
    if not begin:
        return 0
    end = int(info.get("end_monotonic_ns", 0) or 0) or int(last_end_ns or 0)
    return max(0, end - begin)


def _rank_facts(campaign: Campaign, name: str, stream: Stream) -> dict[int, dict[str, Any]]:
    """rank -> host, t_min, threshold, timer overhead, and per part (prefix, info, span)."""
    out: dict[int, dict[str, Any]] = {}
    for prefix in campaign.parts(name, 0):
        ranks = stream.launch_ranks(prefix.name)
        for rank, info_path in rank_files(prefix, "info").items():
            info = read_info(info_path)
            entry = out.setdefault(rank, {"host": info.get("host", "unknown"),
                                          "t_min_ns": int(info.get("t_min_ns", 0) or 0),
                                          "threshold_ns": int(info.get("threshold_ns", 0) or 0),
                                          "timer_overhead_ns": float(info.get("timer_overhead_ns", 0) or 0),
                                          "parts": [], "span_ns": 0})
            span = part_span_ns(info, int(ranks.get(rank, {}).get("last_end_ns", 0)))
            entry["parts"].append((prefix, info, span))
            entry["span_ns"] += span
    return out


def write_traces(campaign: Campaign, name: str, stream: Stream, labels: dict[str, str]) -> dict[int, Path]:
    """os_noise.rankR.trace for every rank (and os_noise.trace for rank 0)."""
    exp_dir = campaign.exp_dir(name)
    written: dict[int, Path] = {}
    for rank, entry in sorted(_rank_facts(campaign, name, stream).items()):
        path = exp_dir / f"os_noise.rank{rank}.trace"
        tmp = path.with_suffix(".trace.tmp")
        with open(tmp, "w") as out:
            out.write("# cloudnoise OS-noise trace (selfish detour)\n")
            out.write(f"# host={entry['host']} rank={rank}\n")
            out.write(f"# t_min_ns={entry['t_min_ns']} threshold_ns={entry['threshold_ns']} "
                      f"span_ns={entry['span_ns']}\n")
            if labels:
                out.write("# labels " + " ".join(f"{k}={v}" for k, v in sorted(labels.items())) + "\n")
            out.write("# start_ns\tduration_ns\n")
            shift = 0
            for prefix, info, span in entry["parts"]:
                begin = int(info.get("begin_monotonic_ns", 0) or 0)
                offset = int(info.get("clock_wall_ns", 0) or 0) - int(info.get("clock_monotonic_ns", 0) or 0)
                if begin:
                    for f in sorted((exp_dir / PARQUET_DIR).glob(f"{prefix.name}.c*.parquet")):
                        pf = pq.ParquetFile(f)
                        for i in range(pf.num_row_groups):
                            rg = pf.read_row_group(i, columns=["rank", "time", "value_ns"])
                            mine = to_int64(rg.column("rank")) == rank
                            start = to_int64(rg.column("time"))[mine] - offset - begin + shift
                            dur = to_int64(rg.column("value_ns"))[mine]
                            if len(dur):
                                np.savetxt(out, np.column_stack([start, dur]), fmt="%d", delimiter="\t")
                shift += span
        os.replace(tmp, path)
        written[rank] = path
    if 0 in written:
        shutil.copyfile(written[0], exp_dir / "os_noise.trace")
    return written


def summary_rows(campaign: Campaign, name: str, stream: Stream) -> list[dict[str, Any]]:
    """Per rank: how often and how long the OS took the core."""
    facts = _rank_facts(campaign, name, stream)
    groups = stream.detour_groups()
    out = []
    for rank, e in sorted(facts.items()):
        durations, gaps = groups.get(rank, (None, None))
        n = durations.count if durations else 0
        span = max(1, e["span_ns"])
        out.append({
            "rank": rank,
            "host": e["host"],
            "t_min_ns": e["t_min_ns"],
            "threshold_ns": e["threshold_ns"],
            "duration_s": span / 1e9,
            "detours": int(n),
            "detours_per_s": float(n / (span / 1e9)),
            "noise_fraction": float(durations.sum / span) if n else 0.0,
            "median_detour_us": durations.percentile(50) / 1e3 if n else 0.0,
            "p99_detour_us": durations.percentile(99) / 1e3 if n else 0.0,
            "max_detour_us": durations.max / 1e3 if n else 0.0,
            "median_interval_ms": gaps.percentile(50) / 1e6 if gaps and gaps.count else 0.0,
        })
    return out
