"""Views of measured data the figures plot: noise over time and per-size rows.

Latency noise (paper Fig. 9-10): the RTT/2 samples of the latency-noise
experiment's smallest message, normalised to their minimum, keeping only the
largest 0.1% (those at or above the 99.9th percentile). Bandwidth noise
(Fig. 11-12): the bandwidth-noise experiment's bandwidth samples (size over
RTT/2 at the size the measure stage picked), normalised to their maximum,
keeping the smallest 0.1%. OS detours (Fig. 8): the selfish-detour trace's
largest 1% detours inside a 5-second window.

Nothing here loads a whole column: the minimum and the percentile
thresholds come from the measure stage's streaming summaries
(``cloudnoise.measurement.summary_reader``), and the Parquet is scanned a row
group at a time keeping only the samples beyond the threshold. With
concurrent pairs an iteration counts once, as its slowest pair, exactly as the
summaries count it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cloudnoise.measurement.summaries import RELATIVE_PRECISION
from cloudnoise.measurement.summary_reader import ExperimentStats, experiment_stats, iter_samples
from cloudnoise.report.data import CampaignData

LATENCY_TOP = 99.9  # percentile: Fig. 9-10 show the largest 0.1%
BANDWIDTH_BOTTOM = 0.1  # percentile: Fig. 11-12 show the smallest 0.1%
DETOUR_TOP = 99.0  # percentile: Fig. 8 shows the largest 1%
# At most this many points per noise panel: 0.1% of an hour at 360 K samples/s is 1.3 M
# points, of a day 31 M, which neither memory nor a PDF holds; past it, the panel shows
# the largest (smallest) MAX_POINTS samples instead of 0.1% and says so.
MAX_POINTS = 250_000
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
    shown_percent: float = 0.1  # the share of the samples shown, in %
    longest: tuple[float, float] | None = None  # OS detours: the run's longest (start s, duration µs), in the window or not


def _top_iterations(stats: ExperimentStats, size: int, threshold_ns: float) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(wall start ns, RTT ns) of the measuring runs' iterations of `size` whose RTT is at
    least `threshold_ns`, and the first and last sample's wall time, read a row group at a
    time. With concurrent pairs an iteration's RTT is its slowest pair's (per direction for
    bidirectional runs), as the summaries count it: an iteration's maximum reaches the
    threshold exactly when one of its pairs' samples does, so only those rows are kept."""
    measuring = [i for i, r in enumerate(stats.runs) if r.role == "measure"]
    pairs = any(stats.runs[i].pairs > 1 for i in measuring)
    cols = ("run", "size_bytes", "value_ns", "time") + (("part", "stream", "iteration") if pairs else ())
    kept: dict[str, list[np.ndarray]] = {c: [] for c in cols}
    first, last = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for batch in iter_samples(stats.parquet, cols):
        mine = np.isin(batch["run"], measuring) & (batch["size_bytes"] == size)
        if not mine.any():
            continue
        t = batch["time"][mine]
        first, last = min(first, int(t.min())), max(last, int(t.max()))
        sel = mine & (batch["value_ns"] >= threshold_ns)
        for c in cols:
            kept[c].append(batch[c][sel])
    if first > last:
        return np.empty(0, np.int64), np.empty(0, np.int64), 0, 0
    d = {c: np.concatenate(v) if v else np.empty(0, np.int64) for c, v in kept.items()}
    if pairs and len(d["value_ns"]):
        direction = [d["stream"] % 2] if stats.mode == "bidir" else []
        keys = np.stack([d["run"], d["part"], d["iteration"], *direction])
        _, first_idx, inv = np.unique(keys, axis=1, return_index=True, return_inverse=True)
        inv = inv.reshape(-1)
        worst = np.zeros(len(first_idx), np.int64)
        np.maximum.at(worst, inv, d["value_ns"])
        start = np.full(len(first_idx), np.iinfo(np.int64).max, np.int64)
        np.minimum.at(start, inv, d["time"])
        return start, worst, first, last
    return d["time"], d["value_ns"], first, last


def latency_noise(c: CampaignData, experiment: str = "latency-noise") -> NoiseSeries | None:
    """The top 0.1% of RTT/2 samples normalised to the minimum, over time: the threshold is
    the streaming summaries' 99.9th percentile, the samples above it are read from Parquet."""
    if not c.has(experiment):
        return None
    stats = experiment_stats(c.root, experiment)
    sizes = stats.by_size() if stats else {}
    sizes = {k: v for k, v in sizes.items() if v.count}
    if not stats or not sizes:
        return None
    smallest = min(sizes)
    s = sizes[smallest]
    top = max(LATENCY_TOP, 100.0 * (1.0 - MAX_POINTS / s.count))
    # every sample at or above the exact percentile (the summary's is at most this much above it)
    cut = s.percentile(top) / (1.0 + RELATIVE_PRECISION)
    wall, rtt, t0, t1 = _top_iterations(stats, smallest, cut)
    base = s.min / 2000.0
    return NoiseSeries(c.name, (wall - t0) / 1e9, (rtt / 2000.0) / base, base, s.percentile(top) / s.min,
                       s.count, int(smallest), float((t1 - t0) / 1e9), 100.0 - top)


def bandwidth_noise(c: CampaignData, experiment: str = "bandwidth-noise") -> NoiseSeries | None:
    """The bottom 0.1% of bandwidth samples normalised to the maximum, over time (the
    iterations whose RTT is in the top 0.1%)."""
    if not c.has(experiment):
        return None
    t2 = c.experiments[experiment].get("table2") or {}
    stats = experiment_stats(c.root, experiment)
    sizes = {k: v for k, v in (stats.by_size() if stats else {}).items() if v.count}
    if not stats or not sizes:
        return None
    size = int(t2.get("bandwidth_size_bytes") or max(sizes))
    if size not in sizes:
        return None
    s = sizes[size]
    bottom = min(BANDWIDTH_BOTTOM, 100.0 * MAX_POINTS / s.count)
    cut = s.percentile(100.0 - bottom) / (1.0 + RELATIVE_PRECISION)
    wall, rtt, t0, t1 = _top_iterations(stats, size, cut)
    base = size * 8.0 / (s.min / 2.0)  # Gb/s
    return NoiseSeries(c.name, (wall - t0) / 1e9, s.min / rtt.astype(np.float64), base,
                       s.min / s.percentile(100.0 - bottom), s.count, size, float((t1 - t0) / 1e9), bottom)


@dataclass(frozen=True)
class SliceSeries:
    """Per slice of the day (``measure --slice``): RTT/2 percentiles, to see whether the hour matters."""

    campaign: str
    start_s: np.ndarray  # slice start, seconds since the measurement began
    slice_s: float
    p50_us: np.ndarray
    p99_us: np.ndarray
    p999_us: np.ndarray
    max_us: np.ndarray
    samples: np.ndarray


def latency_slices(c: CampaignData, experiment: str = "latency-noise") -> SliceSeries | None:
    rows = (c.experiments.get(experiment) or {}).get("slices") or []
    if len(rows) < 2:
        return None
    smallest = min(r["size_bytes"] for r in rows)
    rows = sorted((r for r in rows if r["size_bytes"] == smallest), key=lambda r: r["slice"])
    col = lambda k: np.array([float(r[k]) for r in rows])  # noqa: E731
    slice_s = float(rows[0]["slice_s"])
    return SliceSeries(c.name, col("slice") * slice_s, slice_s, col("p50_us"), col("p99_us"), col("p99.9_us"),
                       col("max_us"), col("samples"))


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
    k = int(np.argmax(trace.durations))
    longest = (float(trace.starts[k]) / 1e9, float(trace.durations[k]) / 1000.0)
    return NoiseSeries(c.name, starts[top] / 1e9, durations[top], 1.0, threshold, int(durations.size), 0,
                       min(window_s, measured_s), 100.0 - DETOUR_TOP, longest)


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

