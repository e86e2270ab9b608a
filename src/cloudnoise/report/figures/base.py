"""Shared figure plumbing: panel grids, unit scaling, saving PNG + PDF.

Why base64 PNG in the page rather than inline SVG: the noise scatter plots
and boxplots with thousands of outliers make SVG large and slow to render;
a PNG keeps the page light and self-contained, and the PDF next to it is the
vector version for papers.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import Locator

from cloudnoise.errors import CloudnoiseError
from cloudnoise.output_files import atomic_write

PNG_DPI = 130
VARIANT_COLORS = {"none": "#4c72b0", "os": "#55a868", "network": "#dd8452", "both": "#c44e52"}
VARIANT_LABELS = {"none": "no noise", "os": "OS noise", "network": "network noise", "both": "OS + network noise"}
SERIES_COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


@dataclass(frozen=True)
class SavedFigure:
    """A figure written to disk, with what the HTML page needs to show it."""

    name: str
    title: str
    caption: str
    png: Path
    pdf: Path
    png_base64: str
    wide: bool = False  # several panels: the page gives it the whole width

    def relative(self, outdir: Path) -> dict[str, str]:
        return {"png": str(self.png.relative_to(outdir)), "pdf": str(self.pdf.relative_to(outdir))}


def panel_grid(count: int, width: float = 4.6, height: float = 3.4, max_cols: int = 3) -> tuple[Figure, list[Axes]]:
    """A figure with `count` panels in rows of at most `max_cols`; unused cells hidden."""
    cols = max(1, min(count, max_cols))
    rows = max(1, math.ceil(count / cols))
    fig = Figure(figsize=(width * cols, height * rows + 0.4), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def panel_title(ax: Axes, *lines: str, width: int = 44) -> None:
    """A panel's title, each part on its own line(s) of at most `width` characters:
    a long campaign name (`this-machine (one host, shared memory)`) and the
    figures after it would otherwise run past the panel and be cut at its edge."""
    import textwrap

    ax.set_title("\n".join(textwrap.fill(line, width) for line in lines), fontsize=10)


def format_bytes(size: int) -> str:
    """A byte count as a short label: 512B, 64KiB, 16MiB (binary prefixes, as the paper)."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}B"


def plain_log_labels(ax: Axes, axis: str = "y") -> None:
    """Label a log axis with plain numbers (4, 16, 64; 60, 100, 200) instead of powers."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis

    def minor(v: float, _pos: int | None) -> str:
        lo, hi = sorted(target.get_view_interval())
        if lo <= 0 or hi / lo > 100 or v <= 0:  # wide axes: decades are enough
            return ""
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6)
        # within a decade every minor tick is labelled (a narrow axis would have one label at most)
        shown = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0) if hi / lo <= 10 else (2.0, 5.0)
        return plain_number(v) if mantissa in shown else ""

    target.set_major_formatter(FuncFormatter(plain_number))
    target.set_minor_formatter(FuncFormatter(minor) if target.get_scale() == "log" else NullFormatter())


class PowerOfTwoSizes(Locator):
    """Power-of-two byte ticks from 2^lo to 2^hi, every 2nd, 4th, ... power as
    the axis needs: as many as fit its length when drawn (the panel's width is
    known only then), so labels such as 256KiB never run into each other."""

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def __call__(self) -> list[float]:
        widest = max(len(format_bytes(2**k)) for k in range(self.lo, self.hi + 1))
        # get_tick_space() counts labels about 3 font-sizes wide (5 characters); ours
        # are `widest` characters, and a gap of 2 keeps them apart.
        fit = max(2, int(self.axis.get_tick_space() * 5 / (widest + 2))) if self.axis is not None else 8
        step = max(1, math.ceil((self.hi - self.lo + 1) / fit))
        return [2.0**k for k in range(self.lo, self.hi + 1, step)]

    def tick_values(self, vmin: float, vmax: float) -> list[float]:
        return self()


def size_ticks(ax: Axes, sizes: np.ndarray) -> None:
    """Power-of-two byte ticks on a log2 x axis, labelled 1B, 64KiB, 16MiB, as many as fit."""
    from matplotlib.ticker import FuncFormatter

    lo = int(np.floor(np.log2(max(1.0, float(np.min(sizes))))))
    hi = int(np.ceil(np.log2(max(1.0, float(np.max(sizes))))))
    ax.xaxis.set_major_locator(PowerOfTwoSizes(lo, hi))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: format_bytes(int(round(v)))))
    ax.minorticks_off()


def plain_number(value: float, _pos: int | None = None) -> str:
    """A tick label as people write numbers: 0.025, 40, 4,000,000 (never an
    offset or a power of ten above the axis; below 10^-4, 1e-5)."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else ""
    size = abs(value)
    if size >= 1e4:
        return f"{value:,.0f}"
    if size >= 1e-4:
        return f"{value:.4g}"
    return f"{value:.0e}".replace("e-0", "e-")


def plain_axes(fig: Figure) -> None:
    """Every axis of `fig` labelled with plain numbers: matplotlib's default
    formatters put an offset or a multiplier above the axis ("1e6", "x1e7")
    that a reader misses, and powers of ten on log axes; only those defaults
    are replaced (formatters a figure chose stay)."""
    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation, ScalarFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            major = axis.get_major_formatter()
            if type(major) is ScalarFormatter:
                axis.set_major_formatter(FuncFormatter(plain_number))
            elif type(major) is LogFormatterSciNotation and getattr(major, "_base", 10) == 10:
                plain_log_labels(ax, "y" if axis is ax.yaxis else "x")


def time_unit(values_ns: Sequence[float] | np.ndarray) -> tuple[str, float]:
    """A readable unit for nanosecond values: (name, divisor)."""
    arr = np.asarray(values_ns, dtype=float)
    top = float(np.nanmax(arr)) if arr.size else 0.0
    for name, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if top >= div:
            return name, div
    return "ns", 1.0


def escape_math(text: str) -> str:
    """`text` shown as written: every `$` escaped, so matplotlib never reads it as mathtext."""
    return text.replace("$", "\\$")


def plain_text(fig: Figure) -> None:
    """Every text we wrote into the figure shown as written: labels come from
    system names, campaign labels and profiles, where a `$` is a character (a
    name like `x$^$` would otherwise be typeset, or stop matplotlib with a
    parse error). Only our texts are escaped: the tick labels matplotlib's own
    formatters make (a log axis's `$\\mathdefault{10^{3}}$`) stay mathtext, and
    fixed tick labels (system names on a categorical axis) are escaped in place."""
    from matplotlib.axis import Tick
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter

    ticks = {id(label) for tick in fig.findobj(Tick) for label in (tick.label1, tick.label2)}
    for text in fig.findobj(Text):
        if id(text) not in ticks and "$" in text.get_text():
            text.set_text(escape_math(text.get_text()))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for formatter in (axis.get_major_formatter(), axis.get_minor_formatter()):
                if isinstance(formatter, FixedFormatter):
                    formatter.seq = [escape_math(str(s)) for s in formatter.seq]


def save(fig: Figure, outdir: Path, name: str, title: str, caption: str, wide: bool = False) -> SavedFigure:
    """Write figures/NAME.png and NAME.pdf; the PNG is also returned as base64."""
    plain_axes(fig)
    plain_text(fig)
    figdir = outdir / "figures"
    png, pdf = figdir / f"{name}.png", figdir / f"{name}.pdf"
    try:
        figdir.mkdir(parents=True, exist_ok=True)
        atomic_write(png, lambda tmp: fig.savefig(tmp, format="png", dpi=PNG_DPI, metadata={"Software": None}))
        atomic_write(pdf, lambda tmp: fig.savefig(tmp, format="pdf", metadata={"Creator": "cloudnoise report"}))
    except OSError as err:
        raise CloudnoiseError(f"{figdir}: cannot write figures ({err.strerror or err})") from None
    return SavedFigure(name, title, caption, png, pdf, base64.b64encode(png.read_bytes()).decode("ascii"), wide)
