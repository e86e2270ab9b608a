"""OS detours over the first seconds of a run (paper Fig. 8 shows a 5-second window)."""

from __future__ import annotations

from matplotlib.figure import Figure

from cloudnoise.report.figures.base import SERIES_COLORS, panel_grid, panel_title, plain_log_labels
from cloudnoise.report.measured import NoiseSeries


def os_detours_figure(series: list[NoiseSeries]) -> Figure:
    """One panel per campaign: the largest 1% detours (µs, log y) against their start time."""
    fig, axes = panel_grid(len(series))
    for i, (ax, s) in enumerate(zip(axes, series)):
        floor = float(s.values.min()) / 1.5
        ax.vlines(s.t_s, floor, s.values, color=SERIES_COLORS[i % len(SERIES_COLORS)], lw=0.8, alpha=0.8)
        ax.plot(s.t_s, s.values, "o", ms=2.5, color=SERIES_COLORS[i % len(SERIES_COLORS)])
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor)
        plain_log_labels(ax)
        ax.set_xlim(0, max(s.span_s, 1e-9))
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Detour duration (µs)")
        panel_title(ax, f"{s.campaign}:", f"top {s.shown_percent:g}% of {s.total_samples:,} detours in the first {s.span_s:.3g} s")
        ax.grid(True, alpha=0.3)
    return fig
