"""Summary statistics of repeated runs, as the paper's boxplots show them.

Box: quartiles (numpy's linear interpolation). Whiskers: the most extreme
samples within 1.5 IQR of the box (Tukey); samples beyond are outliers.
Notch: the 95% confidence interval of the median, median ± 1.57 IQR / sqrt(n)
(McGill, Tukey and Larsen; the notch matplotlib draws). Mean: with its 95%
confidence interval from Student's t.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    n: int
    min: float
    q1: float
    median: float
    q3: float
    max: float
    mean: float
    std: float
    whisker_low: float
    whisker_high: float
    outliers: int
    median_ci_low: float
    median_ci_high: float
    mean_ci_low: float
    mean_ci_high: float

    def to_dict(self, unit: str | None = "ns") -> dict[str, float | int]:
        """The statistics by name; with `unit`, every value that carries it is
        named with it (`median_ns`), as JSON fields are (docs/reference/conventions.md)."""
        d = asdict(self)
        if unit is None:
            return d
        return {k if k in ("n", "outliers") else f"{k}_{unit}": v for k, v in d.items()}


def summarize(values: np.ndarray) -> Summary:
    """Boxplot statistics of `values` (at least one sample)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples to summarize")
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    iqr = q3 - q1
    inside = x[(x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)]
    notch = 1.57 * iqr / np.sqrt(x.size)
    mean = float(x.mean())
    if x.size > 1:
        # Student's t quantile from scipy.special (~0.3 s to import), the
        # function scipy.stats.t.ppf itself calls: importing scipy.stats for
        # it took ~1.4 s, longer than a small `simulate` runs.
        from scipy.special import stdtrit

        std = float(x.std(ddof=1))
        half = float(stdtrit(x.size - 1, 0.975) * std / np.sqrt(x.size))
    else:
        std, half = 0.0, 0.0
    return Summary(
        n=int(x.size),
        min=float(x.min()),
        q1=float(q1),
        median=float(med),
        q3=float(q3),
        max=float(x.max()),
        mean=mean,
        std=std,
        whisker_low=float(inside.min()),
        whisker_high=float(inside.max()),
        outliers=int(x.size - inside.size),
        median_ci_low=float(med - notch),
        median_ci_high=float(med + notch),
        mean_ci_low=mean - half,
        mean_ci_high=mean + half,
    )
