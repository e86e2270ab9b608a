"""A reading of a series (shared levels, recurring stalls) as `model build --json` shows it."""

from __future__ import annotations

import math
from dataclasses import fields
from numbers import Integral, Real
from typing import Any


def reading_as_dict(reading: Any) -> dict[str, Any]:
    """The dataclass `reading`'s plain fields (booleans, text, numbers), in their order, a number
    that is not finite as None (JSON has no NaN); fields holding anything else (the histograms a
    model is drawn from) left out."""
    out: dict[str, Any] = {}
    for f in fields(reading):
        value = getattr(reading, f.name)
        if isinstance(value, (bool, str)):
            out[f.name] = value
        elif isinstance(value, Integral):
            out[f.name] = int(value)
        elif isinstance(value, Real):
            out[f.name] = float(value) if math.isfinite(value) else None
    return out
