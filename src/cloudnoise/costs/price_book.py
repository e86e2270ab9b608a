"""Which price, dated and sourced, and which billing rule apply to a system.

A `PriceBook` answers, for one system's profile, with a `Quote`: USD per
node-hour, the pricing kind, the date and source of that price, and the
billing rule that turns runtimes into billed time. Where the price comes
from, first match wins:

1. `--pricing PRICE` (a number): that price for every system, dated today;
2. a user price file (`--pricing FILE` or `--prices FILE`): the file's row
   for the system and kind; `spot:F` without a spot row is F x the file's
   on-demand row;
3. the profile's prices (the paper's Table I, July 18, 2022, for the
   built-in systems), with the profile's `as_of` date.

`--pricing FILE` alone takes, per system, the one kind the file lists for
it (a system with several kinds in the file is an error that says to pick
one with `--pricing KIND --prices FILE`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudnoise.costs.billing import Billing, parse_billing, provider_billing
from cloudnoise.costs.model import Pricing, parse_pricing
from cloudnoise.costs.price_file import PriceFile, load_price_file
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile


@dataclass(frozen=True)
class Quote:
    """The price one system is charged at, where it comes from, and how it is billed."""

    system: str
    pricing: str  # on-demand | committed | spot | fixed
    usd_per_node_hour: float
    date: str | None  # YYYY-MM-DD the price was read; None where the profile does not say
    source: str
    billing: Billing

    def cost_usd(self, runtime_s: Any, nodes: int) -> Any:
        """The billed cost of runs of `runtime_s` seconds on `nodes` nodes (floats or an array)."""
        return self.billing.cost_usd(runtime_s, nodes, self.usd_per_node_hour)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "pricing": self.pricing,
            "usd_per_node_hour": self.usd_per_node_hour,
            "price_date": self.date,
            "price_source": self.source,
            "billing": self.billing.to_dict(),
        }


@dataclass(frozen=True)
class PriceBook:
    """The pricing kind, an optional user price file, and the billing choice."""

    pricing: Pricing | None  # None: each system's one kind in `prices`
    prices: PriceFile | None = None
    billing: Billing | None = None  # None: each provider's rule
    today: dt.date | None = None

    def quote(self, profile: SystemProfile) -> Quote | None:
        """The system's quote, or None when nothing prices it under this pricing."""
        name = profile.name
        kind = self.pricing.kind if self.pricing is not None else None
        if kind == "fixed":
            assert self.pricing is not None and self.pricing.value is not None
            date = (self.today or dt.date.today()).isoformat()
            return self._quote(profile, "fixed", self.pricing.value, date, f"--pricing {self.pricing.value:g}", None)
        if self.prices is not None:
            if kind is None:
                kinds = self.prices.kinds(name)
                if len(kinds) > 1:
                    raise CloudnoiseError(
                        f"{self.prices.path} has {', '.join(kinds)} prices for {name}: pick one with "
                        f"--pricing {kinds[0]} --prices {self.prices.path}"
                    )
                if kinds:
                    kind = kinds[0]
            row = self.prices.get(name, kind) if kind is not None else None
            if row is not None:
                src = f"{row.source} ({self.prices.path}:{row.line})"
                return self._quote(profile, kind, row.usd_per_node_hour, row.date.isoformat(), src, row.billing)  # type: ignore[arg-type]
            if kind == "spot" and self.pricing is not None and (od := self.prices.get(name, "on-demand")) is not None:
                frac = float(self.pricing.value or 1.0)
                src = f"{frac:g} x on-demand from {od.source} ({self.prices.path}:{od.line})"
                return self._quote(profile, "spot", frac * od.usd_per_node_hour, od.date.isoformat(), src, od.billing)
            if kind is None:  # not in the file at all: the profile's on-demand price
                kind = "on-demand"
        pricing = self.pricing if self.pricing is not None and self.pricing.kind == kind else Pricing(kind or "on-demand")
        price = pricing.price_per_node_hour(profile)
        if price is None:
            return None
        src = profile.prices.provenance.source
        if pricing.kind == "spot":
            src = f"{pricing.value:g} x on-demand: {src}"
        return self._quote(profile, pricing.kind, price, profile.prices.as_of, src, None)

    def _quote(self, profile: SystemProfile, kind: str, price: float, date: str | None, source: str,
               row_billing: Billing | None) -> Quote:
        billing = self.billing or row_billing or provider_billing(profile, kind)
        return Quote(profile.name, kind, price, date, source, billing)

    def kind_label(self) -> str:
        """The pricing kind alone: `on-demand`, `spot (0.3 x on-demand)`, `price file`."""
        return self.pricing.label() if self.pricing is not None else "price file"

    def label(self) -> str:
        """The pricing as the output names it."""
        parts = [self.pricing.label() if self.pricing is not None else "the price file's"]
        if self.prices is not None:
            parts.append(f"from {self.prices.path} where listed")
        parts.append("each provider's billing" if self.billing is None else f"billing {self.billing.label()}")
        return ", ".join(parts)


def price_book(pricing: str = "on-demand", prices: str | Path | None = None, billing: str = "provider",
               today: dt.date | None = None) -> PriceBook:
    """A PriceBook from option values: `--pricing on-demand|committed|spot:F|PRICE|FILE`,
    `--prices FILE`, `--billing provider|exact|STEP[:MINIMUM]`."""
    text = str(pricing).strip()
    price_file: PriceFile | None = None
    kind: Pricing | None
    if text.lower().endswith(".csv") or (text and Path(text).is_file()):
        if prices is not None:
            raise CloudnoiseError("give the price file once: --pricing FILE, or --pricing KIND --prices FILE")
        price_file = load_price_file(text, today)
        kind = None
    else:
        kind = parse_pricing(text)
        if prices is not None:
            if kind.kind == "fixed":
                raise CloudnoiseError("--pricing PRICE sets one price for every system: drop --prices FILE, or give a kind")
            price_file = load_price_file(prices, today)
    return PriceBook(kind, price_file, parse_billing(billing), today)
