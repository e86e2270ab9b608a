"""Boxplots as the paper draws them (Fig. 14-17), from cloudnoise's own statistics.

The boxes are drawn with matplotlib's ``bxp`` from
:func:`cloudnoise.simulate.statistics.summarize` (quartiles, 1.5 IQR
whiskers, notch = median ± 1.57 IQR / sqrt(n), the mean), so the figure shows
exactly the numbers the tables and observations use. One panel per system,
x = node count, one box per noise variant side by side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from cloudnoise.report.figures.base import VARIANT_COLORS, VARIANT_LABELS
from cloudnoise.simulate.statistics import summarize


def box_stats(values: np.ndarray, label: str = "") -> dict[str, object]:
    """A bxp() stats dict from summarize(): same quartiles, whiskers, notch and mean."""
    s = summarize(values)
    x = np.asarray(values, dtype=float)
    return {
        "label": label, "med": s.median, "q1": s.q1, "q3": s.q3, "mean": s.mean,
        "whislo": s.whisker_low, "whishi": s.whisker_high,
        "cilo": s.median_ci_low, "cihi": s.median_ci_high,
        "fliers": x[(x < s.whisker_low) | (x > s.whisker_high)],
    }


@dataclass
class DrawnBoxes:
    """What grouped_boxes drew: legend handles, and the extent of boxes, whiskers and
    means (for clipping far outliers) with every outlier value."""

    handles: list[Patch] = field(default_factory=list)
    low: float = np.inf
    high: float = -np.inf
    fliers: list[float] = field(default_factory=list)


def grouped_boxes(
    ax: Axes,
    nodes: list[int],
    variants: list[str],
    values: Callable[[int, str], np.ndarray | None],
) -> DrawnBoxes:
    """Draw, at each node count, one notched box per variant."""
    width = 0.8 / max(1, len(variants))
    drawn = DrawnBoxes()
    handles = drawn.handles
    for k, variant in enumerate(variants):
        stats, positions = [], []
        for i, n in enumerate(nodes):
            v = values(n, variant)
            if v is None or len(v) == 0:
                continue
            stats.append(box_stats(v, str(n)))
            positions.append(i + (k - (len(variants) - 1) / 2) * width)
        if not stats:
            continue
        for st in stats:
            drawn.low = min(drawn.low, float(st["whislo"]), float(st["mean"]), float(st["cilo"]))
            drawn.high = max(drawn.high, float(st["whishi"]), float(st["mean"]), float(st["cihi"]))
            drawn.fliers.extend(np.asarray(st["fliers"], dtype=float).tolist())
        color = VARIANT_COLORS.get(variant, "#777777")
        ax.bxp(
            stats, positions=positions, widths=width * 0.85, shownotches=True, showmeans=True,
            showfliers=True, patch_artist=True, manage_ticks=False,
            boxprops={"facecolor": color, "alpha": 0.55, "edgecolor": color},
            medianprops={"color": "black", "lw": 1.2},
            meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black", "markersize": 3.5},
            flierprops={"marker": ".", "markersize": 2.5, "markerfacecolor": color, "markeredgecolor": color,
                        "alpha": 0.5},
            whiskerprops={"color": color}, capprops={"color": color},
        )
        handles.append(Patch(facecolor=color, alpha=0.55, edgecolor=color, label=VARIANT_LABELS.get(variant, variant)))
    ax.set_xticks(range(len(nodes)), [str(n) for n in nodes])
    ax.set_xlim(-0.6, len(nodes) - 0.4)
    ax.set_xlabel("Nodes")
    ax.grid(True, axis="y", alpha=0.3)
    return drawn


def clip_outliers(ax: Axes, drawn: DrawnBoxes, unit: str) -> str:
    """Limit the y axis to the boxes, whiskers and means when far outliers would squash
    them; returns a note saying how many outliers lie beyond and how far ("" if none)."""
    if not np.isfinite(drawn.high):
        return ""
    low = min(drawn.low, 0.0)
    span = max(drawn.high - low, 1e-12)
    top = drawn.high + 0.15 * span
    ax.set_ylim(bottom=low - 0.05 * span)
    fliers = np.asarray(drawn.fliers)
    above = fliers[fliers > top]
    if above.size == 0:
        return ""
    ax.set_ylim(top=top)
    return f"{above.size} outlier{'s' if above.size > 1 else ''} above the axis, up to {above.max():,.0f}{unit}"
