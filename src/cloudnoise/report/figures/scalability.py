"""Scalability of a simulated job with and without noise (paper Fig. 14-15)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from cloudnoise.report.data import SweepData
from cloudnoise.report.figures.base import panel_grid, plain_log_labels, time_unit
from cloudnoise.report.figures.boxes import grouped_boxes


def scalability_figure(sweep: SweepData) -> Figure:
    """One panel per system: runtime boxplots per node count, one box per noise variant.

    The runtime axis is logarithmic: runtimes grow with the node count and
    noise outliers reach tens of times the median, which on a linear axis
    flattens every box (the paper gives each panel its own linear scale)."""
    systems = sweep.systems()
    fig, axes = panel_grid(len(systems))
    handles = []
    for ax, system in zip(axes, systems):
        nodes, variants = sweep.nodes(system), sweep.variants(system)
        every = [v for n in nodes for var in variants if (v := sweep.get(system, n, var)) is not None]
        unit, div = time_unit(np.concatenate(every))

        def values(n: int, var: str, system: str = system, div: float = div) -> np.ndarray | None:
            v = sweep.get(system, n, var)
            return None if v is None else v / div

        drawn = grouped_boxes(ax, nodes, variants, values)
        if len(drawn.handles) > len(handles):
            handles = drawn.handles
        ax.set_yscale("log")
        plain_log_labels(ax)
        ax.set_ylabel(f"Runtime ({unit}, log scale)")
        ax.set_title(system, fontsize=10)
    fig.legend(handles=handles, loc="outside lower center", ncols=max(1, len(handles)), fontsize=9)
    fig.suptitle(f"Scalability: {sweep.title}", fontsize=11)
    return fig
