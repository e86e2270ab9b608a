"""Where a run's time goes, by system and scale: the critical path's kinds, stacked (`cloudnoise explain`)."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from cloudnoise.explanation.decomposition import COLORS, KINDS, LABELS, KindShare
from cloudnoise.report.figures.base import panel_grid, panel_title


def shares_figure(cells: Sequence[tuple[str, int, Sequence[KindShare]]], title: str) -> Figure:
    """One horizontal bar per (system, nodes): each kind's mean share of the runtime along the
    critical path, stacked to 100%; systems top to bottom, node counts within each."""
    fig, (ax,) = panel_grid(1, width=9.0, height=0.32 * len(cells) + 1.6, max_cols=1)
    labels = [f"{system}, {nodes:,} nodes" for system, nodes, _ in cells]
    left = [0.0] * len(cells)
    for kind in KINDS:
        widths = [100.0 * next(s.mean_share for s in shares if s.kind == kind) for _, _, shares in cells]
        if not any(widths):
            continue
        # a kind below half a percent everywhere is drawn, but left out of the legend
        ax.barh(range(len(cells)), widths, left=left, color=COLORS[kind], height=0.7, edgecolor="white",
                linewidth=0.4, label=LABELS[kind] if max(widths) >= 0.5 else "_nolegend_")
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(len(cells)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("Share of the runtime on the critical path (%, mean over the repetitions)")
    panel_title(ax, title, width=90)
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    return fig
