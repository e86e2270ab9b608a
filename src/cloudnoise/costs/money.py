"""Money as people read it: US dollars with sensible significant figures.

One formatter for every table and sentence (cost, advise, report), so a cost
never prints as ``8e-08`` in one place and ``0.00 USD`` in another: amounts of
a dollar or more get cents (``1,234.56``); smaller ones four significant
figures written out (``0.00008512``), because a run of a 16 B collective costs
a fraction of a cent and those digits are the comparison users make.
"""

from __future__ import annotations

import math

import numpy as np

SIGNIFICANT = 4


def format_usd(amount: float | None, missing: str = "N.A.") -> str:
    """`amount` US dollars as text without an exponent; `missing` for None or NaN."""
    if amount is None or (isinstance(amount, float) and math.isnan(amount)):
        return missing
    if not math.isfinite(amount):
        return "inf" if amount > 0 else "-inf"
    if abs(amount) >= 1.0:
        return f"{amount:,.2f}"
    if amount == 0:
        return "0"
    return np.format_float_positional(amount, precision=SIGNIFICANT, unique=False, fractional=False, trim="-")
