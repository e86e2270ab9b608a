"""Boxplots as the paper draws them (Fig. 14-17), from cloudnoise's own statistics.

The boxes are drawn with matplotlib's ``bxp`` from
:func:`cloudnoise.simulation.statistics.summarize` (quartiles, 1.5 IQR
whiskers, notch = the median's distribution-free 95% interval, the mean;
`box_stats`), so the figure shows
exactly the numbers the tables and observations use. One panel per system,
x = node count, one box per noise variant side by side.

Three choices keep every box readable:
* a notch wider than its box (few repetitions, or a box of outliers) is drawn
  at the box's edges: matplotlib would otherwise fold the box inside out;
* a box of identical values (the noiseless variant: every repetition is the
  same run) is a flat line, so it gets a thick bar in its colour;
* the axis is sized by boxes and whiskers, not by means or far outliers: a
  mean lifted by a few huge outliers (Oracle's) would squash every box; what
  lies beyond the axis is counted in a note (`clip_outliers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from cloudnoise.report.figures.base import VARIANT_COLORS, VARIANT_LABELS
from cloudnoise.simulation.statistics import box_stats, summarize


@dataclass
class DrawnBoxes:
    """What grouped_boxes drew: legend handles, the extent of boxes and whiskers
    (for clipping far outliers), every outlier value and every mean."""

    handles: list[Patch] = field(default_factory=list)
    low: float = np.inf
    high: float = -np.inf
    fliers: list[float] = field(default_factory=list)
    means: list[float] = field(default_factory=list)


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
            drawn.low = min(drawn.low, float(st["whislo"]))
            drawn.high = max(drawn.high, float(st["whishi"]))
            drawn.fliers.extend(np.asarray(st["fliers"], dtype=float).tolist())
            drawn.means.append(float(st["mean"]))
        color = VARIANT_COLORS.get(variant, "#777777")
        flat = [(p, float(st["med"])) for p, st in zip(positions, stats) if st["q1"] == st["q3"]]
        for p, med in flat:  # a box of one value: a visible bar, not a hairline
            ax.hlines(med, p - width * 0.42, p + width * 0.42, colors=color, lw=3.0, zorder=3)
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


def clip_outliers(ax: Axes, drawn: DrawnBoxes, unit: str, from_zero: bool = True) -> str:
    """Limit a linear y axis to the boxes and whiskers when far outliers (or means
    they lift) would squash them; returns a note that counts what lies above the
    axis and how far it goes ("" if nothing does). `from_zero`: the axis starts
    at 0 (or below, for negative values), as the paper's panels do."""
    if not np.isfinite(drawn.high):
        return ""
    low = min(drawn.low, 0.0) if from_zero else drawn.low
    span = max(drawn.high - low, abs(drawn.high) * 1e-3, 1e-12)
    top = drawn.high + 0.15 * span
    ax.set_ylim(bottom=low - 0.05 * span)
    fliers = np.asarray(drawn.fliers)
    above = fliers[fliers > top]
    means = np.asarray(drawn.means)
    means_above = means[means > top]
    if above.size == 0 and means_above.size == 0:
        return ""
    ax.set_ylim(top=top)
    parts = []
    if above.size:
        parts.append(f"{above.size} outlier{'s' if above.size > 1 else ''} above the axis, up to {_short(above.max())}{unit}")
    if means_above.size:
        parts.append(f"{means_above.size} mean{'s' if means_above.size > 1 else ''} above the axis, up to "
                     f"{_short(means_above.max())}{unit}")
    return "; ".join(parts)


def _short(x: float) -> str:
    """Three significant figures without an exponent: 0.0123, 4.56, 1,234."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"
