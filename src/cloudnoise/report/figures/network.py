"""Measured network figures: latency and bandwidth versus message size
(paper Fig. 2), latency noise (Fig. 9-10) and bandwidth noise (Fig. 11-12)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from cloudnoise.report.figures.base import (
    SERIES_COLORS,
    format_bytes,
    panel_grid,
    panel_title,
    plain_log_labels,
    size_ticks,
)
from cloudnoise.report.measured import NoiseSeries, SizeCurve, SliceSeries


def _size_axis(ax, sizes: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Message size")
    size_ticks(ax, sizes)
    ax.grid(True, which="major", alpha=0.3)


def size_figure(curves: list[SizeCurve]) -> Figure:
    """Two panels: RTT/2 (median, shaded from min to p99) and bandwidth (peak and mean) per size."""
    fig, (lat, bw) = panel_grid(2, width=5.6, height=3.8, max_cols=2)
    for i, c in enumerate(curves):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        lat.plot(c.size_bytes, c.median_us, "o-", color=color, ms=3, label=f"{c.campaign} median")
        lat.fill_between(c.size_bytes, c.min_us, c.p99_us, color=color, alpha=0.2, label=f"{c.campaign} min–p99")
        bw.plot(c.size_bytes, c.bandwidth_gbps, "o-", color=color, ms=3, label=f"{c.campaign} peak")
        bw.plot(c.size_bytes, c.mean_bandwidth_gbps, "--", color=color, label=f"{c.campaign} mean")
    sizes = np.concatenate([c.size_bytes for c in curves])
    for ax in (lat, bw):
        _size_axis(ax, sizes)
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    lat.set_ylabel("Latency, RTT/2 (µs)")
    lat.set_title("Latency vs message size")
    bw.set_ylabel("Bandwidth (Gb/s)")
    bw.set_title("Bandwidth vs message size")
    return fig


def shown(end: str, s: NoiseSeries) -> str:
    """Which samples a noise panel shows: `top 0.1%`, or for long runs (capped at
    measured.MAX_POINTS points) `top 0.0069%`, with as many digits as it takes."""
    return f"{end} {s.shown_percent:.2g}%"


def latency_noise_figure(series: list[NoiseSeries]) -> Figure:
    """One panel per campaign: the largest 0.1% latencies / minimum, over time (log y)."""
    fig, axes = panel_grid(len(series))
    for i, (ax, s) in enumerate(zip(axes, series)):
        ax.scatter(s.t_s, s.values, s=6, color=SERIES_COLORS[i % len(SERIES_COLORS)], alpha=0.7, linewidths=0)
        ax.set_yscale("log", base=2)
        plain_log_labels(ax)
        ax.set_xlim(0, max(s.span_s, 1e-9))
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Latency / minimum latency")
        panel_title(ax, f"{s.campaign}:", f"min {s.base:.3g} µs ({format_bytes(s.size_bytes)}), "
                    f"{shown('top', s)} of {s.total_samples:,} samples")
        ax.grid(True, alpha=0.3)
    return fig


def bandwidth_noise_figure(series: list[NoiseSeries]) -> Figure:
    """One panel per campaign: the smallest 0.1% bandwidths / maximum, over time."""
    fig, axes = panel_grid(len(series))
    for i, (ax, s) in enumerate(zip(axes, series)):
        ax.scatter(s.t_s, s.values, s=8, color=SERIES_COLORS[i % len(SERIES_COLORS)], alpha=0.8, linewidths=0)
        ax.set_ylim(0, 1.05)
        ax.set_xlim(0, max(s.span_s, 1e-9))
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Bandwidth / maximum bandwidth")
        panel_title(ax, f"{s.campaign}:", f"max {s.base:.4g} Gb/s ({format_bytes(s.size_bytes)}), "
                    f"{shown('bottom', s)} of {s.total_samples:,} samples")
        ax.grid(True, alpha=0.3)
    return fig


def latency_slices_figure(series: list[SliceSeries]) -> Figure:
    """One panel per campaign: RTT/2 p50, p99, p99.9 and max per slice of the run (log y)."""
    fig, axes = panel_grid(len(series))
    for ax, s in zip(axes, series):
        hours = s.start_s / 3600.0 if s.slice_s >= 600 else s.start_s
        unit = "h" if s.slice_s >= 600 else "s"
        for values, label, style in ((s.p50_us, "median", "o-"), (s.p99_us, "p99", "s-"),
                                     (s.p999_us, "p99.9", "^-"), (s.max_us, "max", "x:")):
            ax.plot(hours, values, style, ms=3, label=label)
        ax.set_yscale("log")
        ax.set_xlabel(f"Slice start ({unit} since the run began)")
        ax.set_ylabel("Latency, RTT/2 (µs)")
        panel_title(ax, f"{s.campaign}:", f"{len(s.start_s)} slices of {s.slice_s:g} s")
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    return fig
