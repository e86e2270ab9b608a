"""OS detours over the first seconds of a run (paper Fig. 8 shows a 5-second window)."""

from __future__ import annotations

from matplotlib.figure import Figure

from cloudnoise.report.figures.base import SERIES_COLORS, panel_grid, panel_title, plain_log_labels, plain_number
from cloudnoise.report.measured import NoiseSeries

# Detours spanning less than this factor are drawn on a linear axis: a log axis
# over less than a decade has one labelled tick, or none.
LOG_SPAN = 10.0


def os_detours_figure(series: list[NoiseSeries]) -> Figure:
    """One panel per campaign: the largest 1% detours (µs) against their start
    time, on a log axis when they span a decade or more, else a linear one from
    zero; the run's longest detour is marked (in the window) or named in the
    title (when it came after the window)."""
    fig, axes = panel_grid(len(series))
    for i, (ax, s) in enumerate(zip(axes, series)):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        low, high = float(s.values.min()), float(s.values.max())
        longest = s.longest
        if longest is not None and longest[0] <= s.span_s:
            high = max(high, longest[1])
        log = high / max(low, 1e-9) >= LOG_SPAN
        floor = low / 1.5 if log else 0.0
        ax.vlines(s.t_s, floor, s.values, color=color, lw=0.8, alpha=0.8)
        ax.plot(s.t_s, s.values, "o", ms=2.5, color=color)
        if log:
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor, top=high * 1.6)
            plain_log_labels(ax)
        else:
            ax.set_ylim(0, high * 1.15)
            ax.yaxis.set_major_formatter(plain_number)
        ax.set_xlim(0, max(s.span_s, 1e-9))
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Detour duration (µs)")
        title = [f"{s.campaign}:", f"top {s.shown_percent:g}% of {s.total_samples:,} detours in the first {s.span_s:.3g} s"]
        if longest is not None:
            t, us = longest
            if t <= s.span_s:
                ax.plot([t], [us], marker="*", ms=11, color="#c44e52", zorder=5, ls="")
                right = t > 0.6 * s.span_s
                ax.annotate(f"longest: {plain_number(round(us))} µs at {t:.3g} s", (t, us),
                            xytext=(-8 if right else 8, 0), textcoords="offset points", fontsize=8,
                            ha="right" if right else "left", va="center", color="#c44e52",
                            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
            else:
                title.append(f"the longest, {plain_number(round(us))} µs at {t:.3g} s, came after this window")
        panel_title(ax, *title)
        ax.grid(True, alpha=0.3)
    return fig
