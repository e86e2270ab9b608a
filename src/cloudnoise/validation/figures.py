"""The validation figure: a measured/simulated boxplot pair per configuration,
as in the paper's Fig. 13 (notched boxes, whiskers at 1.5 IQR, outliers
drawn), written as PNG and PDF with matplotlib's Agg backend. Each box marks
its p90 (a dashed red bar across it) and each panel's title gives the simulated
median's and p90's errors: the verdict judges both. The y axis spans the
whiskers and the p90s of both boxes; outliers beyond it are counted in the
panel instead of squashing the boxes (noise tails reach 1000x the median)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cloudnoise.simulation.statistics import box_stats, summarize

P90_COLOR = "#b22222"


def boxplot_pairs(
    configs: list[tuple[int, np.ndarray, np.ndarray]], title: str, out_stem: Path, variant: str
) -> list[Path]:
    """configs: (ranks, measured ns, simulated ns) each; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(configs)
    fig, axes = plt.subplots(1, n, figsize=(max(3.0, 2.4 * n), 3.4), squeeze=False)
    for ax, (ranks, measured, simulated) in zip(axes[0], configs):
        scale = 1e3 if max(np.median(measured), np.median(simulated)) < 1e6 else 1e6
        unit = "us" if scale == 1e3 else "ms"
        # drawn from cloudnoise's statistics (the notch: the median's distribution-free interval)
        parts = ax.bxp(
            [box_stats(np.asarray(measured) / scale), box_stats(np.asarray(simulated) / scale)],
            shownotches=True,
            showmeans=False,
            widths=0.6,
            patch_artist=True,
            flierprops={"markersize": 2, "alpha": 0.4},
        )
        for patch, color in zip(parts["boxes"], ("#4878d0", "#ee854a")):
            patch.set_facecolor(color)
            patch.set_alpha(0.7)
        ax.set_xticks([1, 2], ["measured", f"simulated\n({variant})"])
        # the p90 of each side, as the verdict takes it (numpy's linear interpolation)
        p90s = [float(np.percentile(np.asarray(v, dtype=float) / scale, 90)) for v in (measured, simulated)]
        ax.hlines(p90s, [0.62, 1.62], [1.38, 2.38], colors=P90_COLOR, linewidths=1.6, linestyles="--", zorder=5)
        # the axis spans the whiskers (Tukey's, as the boxes draw them) and the p90s; outliers beyond are counted
        whiskers = [summarize(np.asarray(v) / scale) for v in (measured, simulated)]
        lo = min(w.whisker_low for w in whiskers)
        hi, above = max(max(w.whisker_high for w in whiskers), *p90s), 0
        pad = 0.08 * (hi - lo) if hi > lo else 0.05 * hi
        ax.set_ylim(max(0.0, lo - pad), hi + pad)
        for values in (np.asarray(measured) / scale, np.asarray(simulated) / scale):
            above += int((values > hi + pad).sum())
        if above:
            ax.text(0.5, 0.98, f"{above} outliers above", transform=ax.transAxes, ha="center", va="top",
                    fontsize=7, color="0.3", bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8})
        med_m, med_s = float(np.median(measured)), float(np.median(simulated))
        err = f"median {(med_s - med_m) / med_m:+.0%}" if med_m else "median -"
        err += f", p90 {(p90s[1] - p90s[0]) / p90s[0]:+.0%}" if p90s[0] else ", p90 -"
        ax.set_title(f"{ranks} ranks\n{err}", fontsize=9)
        ax.set_ylabel(f"runtime ({unit})")
        ax.grid(axis="y", alpha=0.3)
    import textwrap

    fig.suptitle("\n".join(textwrap.wrap(title + " (dashed red: p90)", width=max(30, 28 * n))), fontsize=9)
    # Labels are text, never mathtext: a `$` in a profile name is a character.
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        text.set_parse_math(False)
    fig.tight_layout()
    out_stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for ext in ("png", "pdf"):
        path = out_stem.with_suffix(f".{ext}")
        fig.savefig(path, dpi=150)
        written.append(path)
    plt.close(fig)
    return written
