"""Money as people read it: US dollars in figures a reader takes in at a glance.

One formatter for every table and sentence (cost, advise, report), so a cost
never prints as ``8e-08`` in one place and ``0.00 USD`` in another, and never
as a run of zeros to count ("0.0000001027 to 0.0000241 USD per run"):

- `format_usd`: one amount. A dollar or more gets cents (``4.22``), a thousand
  or more whole dollars in groups (``100,000``), a million or more words
  (``1.5 million``); below a dollar three significant figures (``0.0123``),
  and below a cent scientific notation as the tables write small figures
  (``1.03e-7``).
- `format_percent`: a fraction as a percentage with groups of thousands
  (``+4,096,641%``), the report's cost increases.
- `RunsUnit` / `per_runs_unit`: per-run costs of a 16 B collective are
  millionths of a dollar, so sentences and the advise table tell them per
  1,000, per million or per billion runs, the fewest runs at which the
  smallest cost reaches a cent: "0.103 to 24.1 USD per million runs".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SIGNIFICANT = 3
_CENT = 0.01
# The run counts a per-run cost may be told for, and their names in text.
_RUN_COUNTS = ((1, "run"), (1_000, "1,000 runs"), (1_000_000, "million runs"), (1_000_000_000, "billion runs"))


def format_usd(amount: float | None, missing: str = "N.A.") -> str:
    """`amount` US dollars as text without a run of zeros; `missing` for None or NaN."""
    if amount is None or (isinstance(amount, float) and math.isnan(amount)):
        return missing
    if not math.isfinite(amount):
        return "inf" if amount > 0 else "-inf"
    size = abs(amount)
    if size == 0:
        return "0"
    if size >= 1e6:
        for scale, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
            if size >= scale:
                return f"{amount / scale:.{SIGNIFICANT}g} {word}"
    if size >= 1000:
        return f"{amount:,.0f}"
    if size >= 1:
        return f"{amount:,.2f}"
    if size >= _CENT:
        return f"{amount:.{SIGNIFICANT}g}"
    mantissa, exponent = f"{amount:.{SIGNIFICANT - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


@dataclass(frozen=True)
class RunsUnit:
    """Per-run costs told for `runs` runs: `label` is "run", "1,000 runs", "million runs"..."""

    runs: int
    label: str

    def amount(self, usd_per_run: float | None, missing: str = "N.A.") -> str:
        """A per-run cost in this unit, formatted (`format_usd` of it times `runs`)."""
        return format_usd(None if usd_per_run is None else usd_per_run * self.runs, missing)

    def text(self, *usd_per_run: float | None) -> str:
        """One cost or a range in this unit: "0.103 USD per million runs", "0.103 to 24.1 USD per million runs"."""
        figures = [self.amount(v) for v in usd_per_run]
        return f"{' to '.join(figures)} USD per {self.label}"


def per_runs_unit(usd_per_run: Iterable[float | None]) -> RunsUnit:
    """The fewest runs (1, 1,000, a million, a billion) at which the smallest positive cost reaches a cent."""
    positive = [abs(v) for v in usd_per_run if v is not None and math.isfinite(v) and v != 0]
    smallest = min(positive, default=1.0)
    for runs, label in _RUN_COUNTS:
        if smallest * runs >= _CENT:
            return RunsUnit(runs, label)
    return RunsUnit(*_RUN_COUNTS[-1])


def format_percent(fraction: float | None, missing: str = "—", signed: bool = True) -> str:
    """A fraction (0.5) as a percentage people read: `+50.0%`, `+4,096,641%`
    (groups of thousands, never `4.1e6%`); `missing` for None or NaN."""
    if fraction is None or (isinstance(fraction, float) and not math.isfinite(fraction)):
        return missing
    pct = 100.0 * fraction
    sign = "+" if signed else ""
    return f"{pct:{sign},.0f}%" if abs(pct) >= 1000 else f"{pct:{sign}.1f}%"
