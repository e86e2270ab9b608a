"""Billing as users pay it: how a run's wall time becomes billed time.

Providers quote an hourly price but bill in increments, with a minimum
charge: AWS bills Linux instances per second with a 60 s minimum, Oracle's
bare-metal instances per second with a one-hour minimum, and so on. A
`Billing` rule turns a runtime into billed seconds:

    billed = max(minimum, ceil(runtime / increment) x increment)

(`increment` 0 means pro rata: billed = max(minimum, runtime)). A run's cost
is billed seconds / 3600 x nodes x USD per node-hour: every node is billed the
same time, because a tightly coupled job holds all of them until it ends.

The providers' rules are data (`data/billing.json`, each with its source and
provenance); a rule applies to a system whose profile carries all of its
`match` labels, the most specific rule winning. Committed capacity is billed
pro rata (the commitment pays for the hours whether used or not), and a
system no rule matches is billed pro rata with a note saying so. `--billing`
overrides: `provider` (the rules), `exact` (pro rata, the paper's cost
model), or `STEP[:MINIMUM]` such as `1s:60s` or `1h`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile

DATA = Path(__file__).parent / "data" / "billing.json"
FORMAT = "cloudnoise-billing/1"
CHOICES = "provider, exact, or STEP[:MINIMUM] such as 1s:60s, 1min, 1h:1h"


@dataclass(frozen=True)
class Billing:
    """How wall time is billed: rounded up to `increment_s` (0: not rounded), at least `minimum_s`."""

    provider: str
    increment_s: float
    minimum_s: float
    provenance: str  # published | reconstructed | given (on the command line or in a price file)
    source: str
    as_of: str | None = None

    def __post_init__(self) -> None:
        for name in ("increment_s", "minimum_s"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise CloudnoiseError(f"billing {name} must be a finite number of seconds >= 0, got {v!r}")

    def billed_seconds(self, runtime_s: float | np.ndarray) -> Any:
        """Billed seconds for each runtime (seconds); a float for a float."""
        t = np.asarray(runtime_s, dtype=np.float64)
        if np.any(~np.isfinite(t)) or np.any(t < 0):
            raise CloudnoiseError("a runtime to bill must be a finite number of seconds >= 0")
        if self.increment_s > 0:
            # Rounding to 9 digits first keeps 7200.0000000001 s (float noise) from costing an extra step.
            t = np.ceil(np.round(t / self.increment_s, 9)) * self.increment_s
        billed = np.maximum(t, self.minimum_s)
        return float(billed) if billed.ndim == 0 else billed

    def cost_usd(self, runtime_s: float | np.ndarray, nodes: int, usd_per_node_hour: float) -> Any:
        """What a run of `runtime_s` on `nodes` nodes is billed, in USD."""
        if nodes < 1 or not (math.isfinite(usd_per_node_hour) and usd_per_node_hour >= 0):
            raise CloudnoiseError(f"cost needs nodes >= 1 and a price >= 0; got {nodes} nodes at {usd_per_node_hour}")
        return self.billed_seconds(runtime_s) / 3600.0 * nodes * usd_per_node_hour

    def label(self) -> str:
        """`per-second, 60 s minimum`, `per-hour`, `pro rata`."""
        if self.increment_s == 0:
            step = "pro rata"
        else:
            names = {1: "per-second", 60: "per-minute", 3600: "per-hour"}
            step = names.get(self.increment_s) or f"in steps of {_seconds(self.increment_s)}"  # type: ignore[call-overload]
        return step if self.minimum_s == 0 else f"{step}, {_seconds(self.minimum_s)} minimum"

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "increment_s": self.increment_s,
            "minimum_s": self.minimum_s,
            "label": self.label(),
            "provenance": self.provenance,
            "source": self.source,
            "as_of": self.as_of,
        }


def _seconds(s: float) -> str:
    if s >= 3600 and s % 3600 == 0:
        return f"{s / 3600:g} h"
    if s >= 60 and s % 60 == 0:
        return f"{s / 60:g} min"
    return f"{s:g} s"


def _rule(entry: dict[str, Any]) -> Billing:
    prov = entry["provenance"]
    return Billing(entry["provider"], float(entry["increment_s"]), float(entry["minimum_s"]), prov["kind"], prov["source"],
                   entry.get("as_of"))


@cache
def _rules() -> tuple[tuple[tuple[str, ...], Billing], ...]:
    data = json.loads(DATA.read_text())
    assert data["format"] == FORMAT
    return tuple((tuple(r["match"]), _rule(r)) for r in data["rules"])


@cache
def _special(key: str) -> Billing:
    return _rule(json.loads(DATA.read_text())[key])


def provider_billing(profile: SystemProfile, pricing_kind: str) -> Billing:
    """The provider's rule for this system (by its profile's labels) and pricing kind."""
    if pricing_kind == "committed":
        return _special("committed")
    labels = set(profile.labels or ())
    matching = [(len(match), rule) for match, rule in _rules() if set(match) <= labels]
    if not matching:
        return _special("default")
    return max(matching, key=lambda m: m[0])[1]


def parse_step(text: str, what: str = "--billing") -> Billing:
    """`STEP[:MINIMUM]`: a rounding step and an optional minimum, durations such as
    1s, 60s, 1min, 1h (a plain number is seconds)."""
    from cloudnoise.units import parse_time_ps

    step_text, _, min_text = str(text).partition(":")
    try:
        step = parse_time_ps(step_text.strip(), what, default_unit="s") / 1e12
        minimum = parse_time_ps(min_text.strip(), what, default_unit="s") / 1e12 if min_text.strip() else 0.0
    except CloudnoiseError:
        raise CloudnoiseError(f"{what}: cannot read {text!r}; give {CHOICES}") from None
    if not step > 0 or minimum < 0:
        raise CloudnoiseError(f"{what}: the step must be positive and the minimum >= 0, got {text!r}")
    return Billing(f"given ({text})", step, minimum, "given", f"{what} {text}")


EXACT = Billing("pro rata", 0.0, 0.0, "given", "--billing exact: runtime x nodes x price, no rounding (the paper's cost model)")


def parse_billing(text: str) -> Billing | None:
    """`--billing`'s value: None for `provider` (each system's own rule), else one rule for every system."""
    t = str(text).strip().lower()
    if t in ("provider", "providers"):
        return None
    if t in ("exact", "pro-rata", "prorata", "none"):
        return EXACT
    return parse_step(t)
