"""Summary rows and the paper's Table II from streaming summaries.

Ping-pong rows hold statistics of RTT/2 (the paper's latency) per message
size, and the bandwidth as size over the minimum RTT/2. With several
concurrent pairs an iteration's RTT is the maximum over pairs (the stream
stage reduced it so), and the bandwidth is the whole message over that.
Count, min, max, mean and standard deviation are exact; percentiles come
from the HDR histogram (see ``cloudnoise.measurement.summaries`` for the stated
precision).

The Table II summary: minimum and mean latency, maximum and mean bandwidth,
plus the latency tail over its minimum (p50, p99, p99.9, max: what Fig. 9-10
plot) and the bandwidth tail over its maximum (p50, p1, p0.1, min; Fig. 11-12).
A bandwidth percentile q is size / the RTT/2 percentile 100 - q.
"""

from __future__ import annotations

from typing import Any

from cloudnoise.measurement.experiments import Run
from cloudnoise.measurement.summaries import PERCENTILES, StreamStats, merged


def measuring_groups(groups: list[tuple[int, int, int, StreamStats]], runs: list[Run],
                     roles: tuple[str, ...] = ("measure",)) -> dict[tuple[int, int, int], StreamStats]:
    """(pairs, size, param) -> stats merged over the runs whose role is in ``roles``."""
    by: dict[tuple[int, int, int], list[StreamStats]] = {}
    for run, size, param, stats in groups:
        if run < len(runs) and runs[run].role in roles:
            by.setdefault((runs[run].pairs, size, param), []).append(stats)
    return {k: merged(v) for k, v in sorted(by.items())}


def _stats(s: StreamStats, size: int) -> dict[str, Any]:
    pct = s.percentiles((50.0, 99.0, 99.9))
    return {
        "samples": s.count,
        "min_us": s.min / 2000.0,
        "median_us": pct["p50"] / 2000.0,
        "mean_us": s.mean / 2000.0,
        "max_us": s.max / 2000.0,
        "std_us": s.std / 2000.0,
        "p99_us": pct["p99"] / 2000.0,
        "p999_us": pct["p99.9"] / 2000.0,
        "bandwidth_gbps": size * 8.0 / (s.min / 2.0),
        "mean_bandwidth_gbps": size * 16.0 * s.suminv / s.count,
    }


def pingpong_rows(groups: list[tuple[int, int, int, StreamStats]], runs: list[Run], experiment: str,
                  roles: tuple[str, ...] = ("measure",)) -> list[dict[str, Any]]:
    """One row per (pairs, size, interval) of the runs with the given roles."""
    chosen = [i for i, r in enumerate(runs) if r.role in roles]
    mode = runs[chosen[0]].mode if chosen else "pingpong"
    rows: list[dict[str, Any]] = []
    for (pairs, size, param), s in measuring_groups(groups, runs, roles).items():
        if not s.count:
            continue
        row: dict[str, Any] = {"size_bytes": int(size)}
        if experiment in ("connections", "bandwidth-noise") or pairs > 1:
            row["connections"] = int(pairs)
        if experiment == "burst":
            row["interval_s"] = float(param) / 1e9
        row.update(_stats(s, int(size)))
        if mode == "bidir":
            row["aggregate_bandwidth_gbps"] = 2 * row["bandwidth_gbps"]
        rows.append(row)
    return rows


def latency_tail(s: StreamStats) -> dict[str, float]:
    """RTT/2 percentiles over the minimum (the ratio is the same for RTT)."""
    pct = s.percentiles((50.0, 99.0, 99.9))
    return {"p50": pct["p50"] / s.min, "p99": pct["p99"] / s.min, "p99.9": pct["p99.9"] / s.min,
            "max": s.max / s.min}


def bandwidth_tail(s: StreamStats) -> dict[str, float]:
    """Bandwidth percentiles over the maximum: min RTT over the RTT percentile 100 - q."""
    pct = s.percentiles((50.0, 99.0, 99.9))
    return {"p50": s.min / pct["p50"], "p1": s.min / pct["p99"], "p0.1": s.min / pct["p99.9"],
            "min": s.min / s.max}


def table2(groups: list[tuple[int, int, int, StreamStats]], runs: list[Run], experiment: str) -> dict[str, Any]:
    """The paper's Table II quantities from one experiment's summaries."""
    by_size: dict[int, list[StreamStats]] = {}
    for (_, size, _), s in measuring_groups(groups, runs).items():
        if s.count:
            by_size.setdefault(size, []).append(s)
    if not by_size:
        return {}
    sizes = {size: merged(v) for size, v in by_size.items()}
    out: dict[str, Any] = {}
    smallest = min(sizes)
    lat = sizes[smallest]
    if experiment != "bandwidth-noise":
        out["latency_size_bytes"] = int(smallest)
        out["min_latency_us"] = lat.min / 2000.0
        out["mean_latency_us"] = lat.mean / 2000.0
        out["latency_normalized"] = latency_tail(lat)
        out["latency_percentiles_us"] = {k: v / 2000.0 for k, v in lat.percentiles(PERCENTILES).items()}
    if experiment in ("bandwidth", "bandwidth-noise", "connections", "bidirectional", "latency"):
        best_size, best_bw = max(((size, size * 8.0 / (s.min / 2.0)) for size, s in sizes.items()),
                                 key=lambda x: x[1])
        if experiment != "latency" or best_size >= 65536:
            s = sizes[best_size]
            out["bandwidth_size_bytes"] = int(best_size)
            out["max_bandwidth_gbps"] = best_bw
            out["mean_bandwidth_gbps"] = best_size * 16.0 * s.suminv / s.count
            out["bandwidth_normalized"] = bandwidth_tail(s)
    return out


def slice_rows(slices: list[tuple[int, int, int, int, StreamStats]], runs: list[Run], slice_s: float,
               origins: dict[str, int]) -> list[dict[str, Any]]:
    """Per slice of the day (``--slice``): latency (RTT/2) statistics of the measuring runs."""
    rows = []
    for run, size, param, index, s in slices:
        if run >= len(runs) or runs[run].role != "measure" or not s.count:
            continue
        pct = s.percentiles(PERCENTILES)
        start_ns = int(origins.get(str(run), 0)) + int(index * slice_s * 1e9)
        rows.append({
            "slice": int(index), "start_ns": start_ns, "slice_s": slice_s, "size_bytes": int(size),
            "samples": s.count, "min_us": s.min / 2000.0, "mean_us": s.mean / 2000.0,
            "max_us": s.max / 2000.0, **{f"{k}_us": v / 2000.0 for k, v in pct.items()},
            "bandwidth_gbps": size * 8.0 / (s.min / 2.0),
        })
    return rows
