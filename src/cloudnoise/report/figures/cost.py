"""Cost increase due to noise over the noiseless median (paper Fig. 16-17)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from cloudnoise.report.costs import increase_samples
from cloudnoise.report.data import SweepData
from cloudnoise.report.figures.base import panel_grid, panel_title
from cloudnoise.report.figures.boxes import clip_outliers, grouped_boxes


def cost_increase_figure(sweep: SweepData) -> Figure:
    """One panel per system: per repetition, cost / median noiseless cost - 1 (in %),
    one box per noise variant and node count."""
    systems = [s for s in sweep.systems() if "none" in sweep.variants(s) and len(sweep.variants(s)) > 1]
    fig, axes = panel_grid(len(systems))
    handles = []
    for ax, system in zip(axes, systems):
        noisy = [v for v in sweep.variants(system) if v != "none"]

        def values(n: int, var: str, system: str = system) -> np.ndarray | None:
            inc = increase_samples(sweep, system, n, var)
            return None if inc is None else inc * 100.0

        drawn = grouped_boxes(ax, sweep.nodes(system), noisy, values)
        if len(drawn.handles) > len(handles):
            handles = drawn.handles
        ax.axhline(0, color="#333", lw=0.8)
        note = clip_outliers(ax, drawn, "%")
        ax.set_ylabel("Cost increase due to noise (%)")
        panel_title(ax, system, *([f"({note})"] if note else []))
    fig.legend(handles=handles, loc="outside lower center", ncols=max(1, len(handles)), fontsize=9)
    fig.suptitle(f"Cost increase over the noiseless median: {sweep.title}", fontsize=11)
    return fig
