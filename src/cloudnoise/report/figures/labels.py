"""Labels beside points that overlap neither each other nor the points.

A deterministic placement (the same figure gets the same labels): each label
tries positions around its point, nearest first (right-above, right-below,
left-above, left-below, above, below, then the same eight directions farther
out, drawn with a thin leader line), and takes the first whose box stays
inside the axes and clear of every point and every label already placed.
Labels are placed in the order given, so the caller lists the important ones
(the Pareto front) first. Boxes are measured by the renderer at the figure's
final layout, in display pixels; they keep their relative sizes at any DPI.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

# Distances tried, in points, and directions, in degrees counter-clockwise from the right.
RADII = (4, 9, 16, 26, 40, 60)
DIRECTIONS = (30, -30, 150, -150, 90, -90, 0, 180)
POINT_RADIUS = 4.0  # points: how much room a marker takes
LEADER_FROM = 16  # labels this far or farther get a leader line


def place_labels(ax: Axes, xy: Sequence[tuple[float, float]], texts: Sequence[str],
                 fontsize: float = 7.0, weights: Sequence[str] | None = None,
                 colors: Sequence[str] | None = None) -> list[Annotation]:
    """One annotation per point (data coordinates), placed without overlaps where
    the axes have room; a label that finds none goes to its last position tried."""
    fig = ax.figure
    fig.canvas.draw()  # the final layout: axes position and limits
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    px_per_pt = fig.dpi / 72.0
    frame = ax.get_window_extent(renderer)
    centres = ax.transData.transform(list(xy))
    r = POINT_RADIUS * px_per_pt
    taken = [Bbox.from_extents(x - r, y - r, x + r, y + r) for x, y in centres]
    placed: list[Annotation] = []
    for k, ((x, y), text) in enumerate(zip(centres, texts)):
        weight = weights[k] if weights else "normal"
        probe = ax.text(0, 0, text, fontsize=fontsize, fontweight=weight)
        size = probe.get_window_extent(renderer)
        probe.remove()
        w, h = size.width, size.height
        box, radius = _position(x, y, w, h, px_per_pt, frame, taken)
        label = ax.annotate(text, xy[k], xytext=((box.x0 - x) / px_per_pt, (box.y0 - y) / px_per_pt),
                            textcoords="offset points", fontsize=fontsize, fontweight=weight, ha="left", va="bottom",
                            color=colors[k] if colors else "black",
                            annotation_clip=False,
                            arrowprops={"arrowstyle": "-", "color": colors[k] if colors else "#888", "lw": 0.5,
                                        "shrinkA": 0, "shrinkB": 3}
                            if radius >= LEADER_FROM else None)
        label.set_in_layout(False)
        taken.append(box)
        placed.append(label)
    return placed


def _position(x: float, y: float, w: float, h: float, px_per_pt: float, frame: Bbox,
              taken: list[Bbox]) -> tuple[Bbox, int]:
    """The first free box of size w x h around (x, y) (pixels), and its distance in points."""
    box = Bbox.from_extents(x, y, x + w, y + h)
    radius = RADII[0]
    for radius in RADII:
        for angle in DIRECTIONS:
            dx = radius * math.cos(math.radians(angle)) * px_per_pt
            dy = radius * math.sin(math.radians(angle)) * px_per_pt
            x0 = x + dx if dx > 0.5 else (x + dx - w if dx < -0.5 else x - w / 2)
            y0 = y + dy if dy > 0.5 else (y + dy - h if dy < -0.5 else y - h / 2)
            box = Bbox.from_extents(x0, y0, x0 + w, y0 + h)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not any(box.overlaps(t) for t in taken):
                return box, radius
    return box, radius
