"""Runtime against cost, with the Pareto front (what `cloudnoise advise` weighs)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from cloudnoise.advice.points import AdvicePoint
from cloudnoise.costs.money import per_runs_unit
from cloudnoise.report.figures.base import SERIES_COLORS, panel_grid, plain_log_labels, time_unit
from cloudnoise.report.figures.labels import place_labels


def front_figure(points: Sequence[AdvicePoint], title: str) -> Figure:
    """One scatter of every priced (system, nodes): x the median cost (per run, or
    per 1,000 or million runs, as the tables tell it, so no tick is a run of
    zeros), y the median runtime, whiskers up to the p99 cost (right) and p99
    runtime (up), one colour per system; the front is the black step line, its
    points circled. Every point is labelled with its node count (the front's in
    bold), placed so that no label covers another or a point. Both axes are
    logarithmic: node counts span decades, and so do cost and runtime."""
    priced = [p for p in points if p.cost_usd is not None]
    fig, (ax,) = panel_grid(1, width=7.2, height=4.8)
    if not priced:
        ax.text(0.5, 0.5, "no system has a price", ha="center", va="center", transform=ax.transAxes)
        return fig
    unit = per_runs_unit(p.cost_usd["p50"] for p in priced)  # type: ignore[index]
    scale = float(unit.runs)
    tunit, div = time_unit([p.runtime_ns["p99"].value for p in priced])
    systems = list(dict.fromkeys(p.system for p in priced))
    handles = []
    for i, system in enumerate(systems):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        mine = [p for p in priced if p.system == system]
        x = np.array([p.cost_usd["p50"] for p in mine]) * scale  # type: ignore[index]
        y = np.array([p.p50_ns for p in mine]) / div
        x99 = np.array([p.cost_usd["p99"] for p in mine]) * scale  # type: ignore[index]
        y99 = np.array([p.runtime_ns["p99"].value for p in mine]) / div
        ax.errorbar(x, y, xerr=[np.zeros_like(x), x99 - x], yerr=[np.zeros_like(y), y99 - y], fmt="o", ms=5,
                    color=color, ecolor=color, elinewidth=0.9, capsize=2, alpha=0.9, zorder=3)
        handles.append(Line2D([], [], marker="o", ls="", color=color, label=system))
    front = sorted((p for p in priced if p.on_front), key=lambda p: (p.p50_cost, p.p50_ns))
    if front:
        fx = [(p.p50_cost or 0.0) * scale for p in front]
        fy = [p.p50_ns / div for p in front]
        ax.step(fx, fy, where="post", color="#222", lw=1.2, zorder=2)
        ax.scatter(fx, fy, s=110, facecolors="none", edgecolors="#222", lw=1.2, zorder=4)
        handles.append(Line2D([], [], color="#222", marker="o", mfc="none", label="Pareto front"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in ("x", "y"):
        plain_log_labels(ax, axis)
    ax.set_xlabel(f"Cost per {unit.label} (USD): median, whisker to p99")
    ax.set_ylabel(f"Runtime ({tunit}): median, whisker to p99")
    ax.grid(True, which="major", alpha=0.3)
    handles.append(Line2D([], [], ls="", label="labels: node counts\n(bold: on the front)"))
    fig.legend(handles=handles, loc="outside right center", fontsize=8)
    fig.suptitle(title, fontsize=11)
    ax.margins(0.12)
    order = front + [p for p in priced if not p.on_front]
    colors = {s: SERIES_COLORS[i % len(SERIES_COLORS)] for i, s in enumerate(systems)}
    place_labels(ax, [((p.p50_cost or 0.0) * scale, p.p50_ns / div) for p in order], [str(p.nodes) for p in order],
                 weights=["bold" if p.on_front else "normal" for p in order], colors=[colors[p.system] for p in order])
    return fig
