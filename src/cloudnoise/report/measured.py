"""Views of measured data the figures plot: noise over time and per-size rows.

Latency noise (paper Fig. 9-10): the RTT/2 samples of the latency-noise
experiment's smallest message, normalised to their minimum, keeping only the
largest 0.1% (those at or above the 99.9th percentile). Bandwidth noise
(Fig. 11-12): the bandwidth-noise experiment's bandwidth samples (size over
RTT/2 at the size the measure stage picked), normalised to their maximum,
keeping the smallest 0.1%. OS detours (Fig. 8): the selfish-detour trace's
largest 1% detours inside a 5-second window.

Samples are first reduced to one per ping-pong iteration with
``cloudnoise.measure.tables.iteration_rtts`` (the max over concurrent pairs),
exactly as the measure stage's summaries are computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cloudnoise.measure import tables
from cloudnoise.report.data import CampaignData

LATENCY_TOP = 99.9  # percentile: Fig. 9-10 show the largest 0.1%
BANDWIDTH_BOTTOM = 0.1  # percentile: Fig. 11-12 show the smallest 0.1%
DETOUR_TOP = 99.0  # percentile: Fig. 8 shows the largest 1%
DETOUR_WINDOW_S = 5.0


@dataclass(frozen=True)
class NoiseSeries:
    """Selected samples over time: seconds since the first sample, and values."""

    campaign: str
    t_s: np.ndarray
    values: np.ndarray
    base: float  # what values are normalised to (min latency us, max bandwidth Gb/s, or 1)
    threshold: float  # selection threshold, in the units of `values`
    total_samples: int
    size_bytes: int
    span_s: float  # how long the measurement lasted


# What the noise views use of each sample, and what reducing concurrent
# pairs to one sample per iteration needs besides.
VIEW_COLUMNS = ("run", "size_bytes", "value_ns", "wall_ns")
PAIR_COLUMNS = ("part", "pairs", "param", "stream", "iteration")


def _measuring_iterations(c: CampaignData, experiment: str) -> dict[str, np.ndarray]:
    runs = c.runs(experiment)
    measuring = [i for i, r in enumerate(runs) if r.role == "measure"]
    mode = runs[measuring[0]].mode if measuring else "pingpong"
    single_pair = bool(runs) and all(r.pairs <= 1 for r in runs) and mode != "bidir"
    if single_pair:  # one sample per iteration already
        d = c.rtt_samples(experiment, VIEW_COLUMNS)
    else:
        d = c.rtt_samples(experiment, VIEW_COLUMNS + PAIR_COLUMNS)
        d["kind"] = np.full(len(d["run"]), tables.KIND_RTT, np.int64)
        d = tables.iteration_rtts(d, mode)
    if not runs:
        return d
    keep = np.isin(d["run"], measuring)
    return d if keep.all() else {k: v[keep] for k, v in d.items()}


def latency_noise(c: CampaignData, experiment: str = "latency-noise") -> NoiseSeries | None:
    """The top 0.1% of RTT/2 samples normalised to the minimum, over time."""
    if not c.has(experiment):
        return None
    d = _measuring_iterations(c, experiment)
    if len(d["value_ns"]) == 0:
        return None
    smallest = d["size_bytes"].min()
    sel = d["size_bytes"] == smallest
    lat_us = d["value_ns"][sel] / 2000.0
    wall = d["wall_ns"][sel]
    base = float(lat_us.min())
    norm = lat_us / base
    threshold = float(np.percentile(norm, LATENCY_TOP))
    top = norm >= threshold
    t0 = wall.min()
    return NoiseSeries(c.name, (wall[top] - t0) / 1e9, norm[top], base, threshold, int(norm.size), int(smallest),
                       float((wall.max() - t0) / 1e9))


def bandwidth_noise(c: CampaignData, experiment: str = "bandwidth-noise") -> NoiseSeries | None:
    """The bottom 0.1% of bandwidth samples normalised to the maximum, over time."""
    if not c.has(experiment):
        return None
    t2 = c.experiments[experiment].get("table2") or {}
    d = _measuring_iterations(c, experiment)
    if len(d["value_ns"]) == 0:
        return None
    size = int(t2.get("bandwidth_size_bytes") or d["size_bytes"].max())
    sel = d["size_bytes"] == size
    if not sel.any():
        return None
    bw = size * 8.0 / (d["value_ns"][sel] / 2.0)  # Gb/s
    wall = d["wall_ns"][sel]
    base = float(bw.max())
    norm = bw / base
    threshold = float(np.percentile(norm, BANDWIDTH_BOTTOM))
    low = norm <= threshold
    t0 = wall.min()
    return NoiseSeries(c.name, (wall[low] - t0) / 1e9, norm[low], base, threshold, int(norm.size), size,
                       float((wall.max() - t0) / 1e9))


def os_detours(c: CampaignData, window_s: float = DETOUR_WINDOW_S) -> NoiseSeries | None:
    """The largest 1% detours (us) within the first `window_s` seconds of the measurement
    (trace starts count from its beginning)."""
    path = c.root / "os-noise" / "os_noise.trace"
    if not path.is_file():
        return None
    from cloudnoise.model.os_noise import read_trace

    trace = read_trace(path)
    if len(trace) == 0:
        return None
    inside = trace.starts < window_s * 1e9
    starts, durations = trace.starts[inside], trace.durations[inside] / 1000.0
    threshold = float(np.percentile(durations, DETOUR_TOP))
    top = durations >= threshold
    row = os_noise_row(c) or {}
    measured_s = float(row.get("duration_s") or (trace.starts + trace.durations).max() / 1e9)
    return NoiseSeries(c.name, starts[top] / 1e9, durations[top], 1.0, threshold, int(durations.size), 0,
                       min(window_s, measured_s))


@dataclass(frozen=True)
class SizeCurve:
    """Per message size: latency (RTT/2) statistics and bandwidth, from one experiment."""

    campaign: str
    experiment: str
    size_bytes: np.ndarray
    min_us: np.ndarray
    median_us: np.ndarray
    p99_us: np.ndarray
    max_us: np.ndarray
    bandwidth_gbps: np.ndarray  # size over the minimum RTT/2
    mean_bandwidth_gbps: np.ndarray


def size_curve(c: CampaignData, experiments: tuple[str, ...] = ("bandwidth", "latency")) -> SizeCurve | None:
    """Latency and bandwidth per size from the first of `experiments` measured with
    at least two sizes (single-pair rows only, as Fig. 2 shows them)."""
    for name in experiments:
        rows = [r for r in (c.experiments.get(name) or {}).get("results", [])
                if r.get("connections", 1) == 1 and "interval_s" not in r]
        rows = sorted(rows, key=lambda r: r["size_bytes"])
        if len(rows) < 2:
            continue

        def col(key: str, rows: list[dict[str, Any]] = rows) -> np.ndarray:
            return np.array([float(r.get(key, np.nan)) for r in rows])

        return SizeCurve(c.name, name, col("size_bytes"), col("min_us"), col("median_us"), col("p99_us"),
                         col("max_us"), col("bandwidth_gbps"), col("mean_bandwidth_gbps"))
    return None


def os_noise_row(c: CampaignData) -> dict[str, Any] | None:
    """Rank 0's OS-noise summary row (detours per second, noise fraction, ...)."""
    rows = (c.experiments.get("os-noise") or {}).get("results") or []
    return dict(rows[0]) if rows else None

