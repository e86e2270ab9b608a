"""Scalability of a simulated job with and without noise (paper Fig. 14-15)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from cloudnoise.report.data import SweepData
from cloudnoise.report.figures.base import panel_grid, panel_title, plain_log_labels, time_unit
from cloudnoise.report.figures.boxes import clip_outliers, grouped_boxes


def scalability_figure(sweep: SweepData, log_y: bool = False) -> Figure:
    """One panel per system: runtime boxplots per node count, one box per noise
    variant (the noiseless one included), in one time unit for the whole figure.

    The runtime axis is linear with its own scale per panel, as the paper draws
    Fig. 14-15, sized by the boxes and whiskers (outliers and means beyond it are
    counted in the panel's title); `log_y` draws every point on a logarithmic
    axis instead, which suits node counts whose runtimes differ by decades."""
    systems = sweep.systems()
    fig, axes = panel_grid(len(systems))
    everything = [v for s in systems for n in sweep.nodes(s) for var in sweep.variants(s)
                  if (v := sweep.get(s, n, var)) is not None]
    unit, div = time_unit(np.concatenate(everything) if everything else np.array([0.0]))
    handles = []
    for ax, system in zip(axes, systems):
        nodes, variants = sweep.nodes(system), sweep.variants(system)

        def values(n: int, var: str, system: str = system) -> np.ndarray | None:
            v = sweep.get(system, n, var)
            return None if v is None else v / div

        drawn = grouped_boxes(ax, nodes, variants, values)
        if len(drawn.handles) > len(handles):
            handles = drawn.handles
        note = ""
        if log_y:
            ax.set_yscale("log")
            plain_log_labels(ax)
        else:
            note = clip_outliers(ax, drawn, f" {unit}")
        ax.set_ylabel(f"Runtime ({unit}{', log scale' if log_y else ''})")
        panel_title(ax, system, *([f"({note})"] if note else []))
    fig.legend(handles=handles, loc="outside lower center", ncols=max(1, len(handles)), fontsize=9)
    fig.suptitle(f"Scalability: {sweep.title}", fontsize=11)
    return fig
