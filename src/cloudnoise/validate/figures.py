"""The validation figure: a measured/simulated boxplot pair per configuration,
as in the paper's Fig. 13 (notched boxes, whiskers at 1.5 IQR, outliers
drawn), written as PNG and PDF with matplotlib's Agg backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np


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
        parts = ax.boxplot(
            [np.asarray(measured) / scale, np.asarray(simulated) / scale],
            notch=True,
            widths=0.6,
            patch_artist=True,
            flierprops={"markersize": 2, "alpha": 0.4},
        )
        for patch, color in zip(parts["boxes"], ("#4878d0", "#ee854a")):
            patch.set_facecolor(color)
            patch.set_alpha(0.7)
        ax.set_xticks([1, 2], ["measured", f"simulated\n({variant})"])
        ax.set_title(f"{ranks} ranks", fontsize=10)
        ax.set_ylabel(f"runtime ({unit})")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out_stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for ext in ("png", "pdf"):
        path = out_stem.with_suffix(f".{ext}")
        fig.savefig(path, dpi=150)
        written.append(path)
    plt.close(fig)
    return written
