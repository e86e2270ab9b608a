"""A repetition's timeline, drawn: every rank's CPU and NIC over time, messages, OS detours, the critical path.

The static companion of `simulate --timeline` (explanation.timeline): one panel per
repetition (the report draws the median and the p99 of a small case). Each rank is a
row: its CPU's activities above (a send's or a receive's o and what came with it, a
calc), its NIC's gaps below, a line for each message from its send to its receive,
OS detours in red at the end of the activity they stopped, and the critical path in a
thick red outline and line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from cloudnoise.explanation.decomposition import COLORS
from cloudnoise.explanation.timeline import Timeline
from cloudnoise.report.figures.base import panel_grid, panel_title, time_unit
from cloudnoise.simulation.critical_path import KINDS, LINKS, PARTS

_OS = PARTS.index("os_detour")
PATH_COLOR = "#d62728"


def timeline_figure(timelines: Sequence[Timeline], titles: Sequence[str]) -> Figure:
    """One panel per timeline (its ranks as rows, time in a unit that fits the longest)."""
    rows = max(len(t.ranks) for t in timelines)
    fig, axes = panel_grid(len(timelines), width=7.0, height=0.28 * rows + 1.4, max_cols=1)
    unit, div = time_unit([t.end_ps / 1000 for t in timelines])
    for ax, tl, title in zip(axes, timelines, titles):
        row = {int(r): k for k, r in enumerate(tl.ranks)}
        a = tl.activities
        on_path = tl.on_path()
        scale = 1000 * div  # ps per axis unit

        def x(ps: int | np.integer) -> float:
            return float(ps) / scale

        for i in range(len(a)):
            host, link, kind = int(a["host"][i]), LINKS[int(a["link"][i])], KINDS.get(int(a["kind"][i]), "")
            start, end = int(a["start_ps"][i]), max(int(a["end_ps"][i]), int(a["start_ps"][i]))
            if link == "flight":
                receiver = int(a["peer"][i])
                if receiver in row:
                    ax.plot([x(start), x(end)], [row[host] - 0.15, row[receiver] - 0.15], color="#999999", lw=0.5,
                            zorder=1)
                continue
            cpu = link == "cpu"
            y, h = (row[host] - 0.38, 0.42) if cpu else (row[host] + 0.08, 0.22)
            color = COLORS["compute"] if kind == "calc" else (COLORS["o"] if cpu else COLORS["g"])
            ax.broken_barh([(x(start), x(end) - x(start))], (y, h), facecolors=color, zorder=2)
            detour = int(a["parts"][i][_OS])
            if detour > 0:
                ax.broken_barh([(x(end - detour), x(detour))], (y, h), facecolors=COLORS["os_noise"], zorder=3)
        # the critical path over the activities drawn
        p = tl.path
        for i in range(len(p)):
            host, link = int(p["host"][i]), LINKS[int(p["link"][i])]
            start, end = int(p["start_ps"][i]), int(p["end_ps"][i])
            if link == "flight":
                receiver = int(p["peer"][i])
                if host in row and receiver in row:
                    ax.plot([x(start), x(end)], [row[host] - 0.15, row[receiver] - 0.15], color=PATH_COLOR, lw=2.0,
                            zorder=4)
            elif host in row and link in ("cpu", "nic_send", "nic_recv") and end > start:
                y, h = (row[host] - 0.38, 0.42) if link == "cpu" else (row[host] + 0.08, 0.22)
                ax.broken_barh([(x(start), x(end) - x(start))], (y, h), facecolors="none", edgecolors=PATH_COLOR,
                               linewidth=1.6, zorder=5)
        ax.set_yticks(range(len(tl.ranks)), [str(int(r)) for r in tl.ranks], fontsize=7)
        ax.set_ylim(len(tl.ranks) - 0.4, -0.6)
        ax.set_xlim(x(tl.start_ps), x(tl.end_ps))
        ax.set_ylabel("rank (CPU above, NIC below)")
        ax.set_xlabel(f"time ({unit})")
        panel_title(ax, title, width=100)
    handles = [Patch(color=COLORS["o"], label="CPU: o (send, receive)"), Patch(color=COLORS["compute"], label="CPU: calc"),
               Patch(color=COLORS["g"], label="NIC: g + G x bytes"), Patch(color=COLORS["os_noise"], label="OS detour"),
               Line2D([], [], color="#999999", lw=0.8, label="message (o + L)"),
               Line2D([], [], color=PATH_COLOR, lw=2.0, label="critical path")]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8)
    return fig
