"""Selfish-detour results: OS-noise traces and their summary.

The trace format is the one the simulator's OS-noise model reads: plain
text, ``#`` lines are comments, then one ``start<TAB>duration`` line per
detour, both integers in nanoseconds, start measured from the beginning of
the measurement. One trace per rank (``os_noise.rankR.trace``); rank 0's is
also written as ``os_noise.trace``. A resumed run's later parts continue the
timeline where the earlier part stopped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.measure.campaign import Campaign
from cloudnoise.measure.samples import KIND_DETOUR, read_info, read_records, rank_files


def part_span_ns(info: dict[str, str], detours: np.ndarray) -> int:
    """How long one launch measured: from its begin to its end, or to the end
    of its last detour when it was killed before writing its end."""
    begin = int(info.get("begin_monotonic_ns", 0) or 0)
    if not begin:
        return 0
    end = int(info.get("end_monotonic_ns", 0) or 0)
    if not end and len(detours):
        end = int((detours["t_ns"] + detours["value_ns"]).max())
    return max(0, end - begin)


def traces(campaign: Campaign, name: str) -> dict[int, dict[str, Any]]:
    """rank -> {starts, durations, span_ns, t_min_ns, threshold_ns, host}."""
    out: dict[int, dict[str, Any]] = {}
    for prefix in campaign.parts(name, 0):
        infos = rank_files(prefix, "info")
        for rank, info_path in infos.items():
            info = read_info(info_path)
            rec = read_records(prefix.parent / f"{prefix.name}.rank{rank}.bin")
            rec = rec[rec["kind"] == KIND_DETOUR]
            entry = out.setdefault(rank, {"starts": [], "durations": [], "span_ns": 0,
                                          "t_min_ns": int(info.get("t_min_ns", 0) or 0),
                                          "threshold_ns": int(info.get("threshold_ns", 0) or 0),
                                          "host": info.get("host", "unknown"),
                                          "timer_overhead_ns": float(info.get("timer_overhead_ns", 0) or 0)})
            begin = int(info.get("begin_monotonic_ns", 0) or 0)
            if begin:
                entry["starts"].append(rec["t_ns"] - begin + entry["span_ns"])
                entry["durations"].append(rec["value_ns"].copy())
                entry["span_ns"] += part_span_ns(info, rec)
    for entry in out.values():
        entry["starts"] = np.concatenate(entry["starts"]) if entry["starts"] else np.empty(0, np.int64)
        entry["durations"] = np.concatenate(entry["durations"]) if entry["durations"] else np.empty(0, np.int64)
    return out


def write_trace(path: Path, rank: int, entry: dict[str, Any], labels: dict[str, str]) -> None:
    lines = [
        "# cloudnoise OS-noise trace (selfish detour)",
        f"# host={entry['host']} rank={rank}",
        f"# t_min_ns={entry['t_min_ns']} threshold_ns={entry['threshold_ns']} span_ns={entry['span_ns']}",
    ]
    if labels:
        lines.append("# labels " + " ".join(f"{k}={v}" for k, v in sorted(labels.items())))
    lines.append("# start_ns\tduration_ns")
    body = "\n".join(f"{s}\t{d}" for s, d in zip(entry["starts"].tolist(), entry["durations"].tolist()))
    path.write_text("\n".join(lines) + "\n" + (body + "\n" if body else ""))


def summary_rows(all_traces: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per rank: how often and how long the OS took the core."""
    rows = []
    for rank, e in sorted(all_traces.items()):
        dur = e["durations"]
        span = max(1, e["span_ns"])
        gaps = np.diff(e["starts"]) if len(dur) > 1 else np.empty(0)
        rows.append({
            "rank": rank,
            "host": e["host"],
            "t_min_ns": e["t_min_ns"],
            "threshold_ns": e["threshold_ns"],
            "duration_s": span / 1e9,
            "detours": int(len(dur)),
            "detours_per_s": float(len(dur) / (span / 1e9)),
            "noise_fraction": float(dur.sum() / span) if len(dur) else 0.0,
            "median_detour_us": float(np.median(dur) / 1e3) if len(dur) else 0.0,
            "p99_detour_us": float(np.percentile(dur, 99) / 1e3) if len(dur) else 0.0,
            "max_detour_us": float(dur.max() / 1e3) if len(dur) else 0.0,
            "median_interval_ms": float(np.median(gaps) / 1e6) if len(gaps) else 0.0,
        })
    return rows
