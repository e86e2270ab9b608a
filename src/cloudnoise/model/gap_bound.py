"""The gap g a latency series allows: no more than the spacing of one host's sends it shows.

In a back-to-back ping-pong series a host sends once per round trip, so its consecutive sends
are one round trip apart, and the engine spaces a host's sends at least g apart (LogGP's gap).
A round trip shorter than g is one the profile cannot give: with g above the series' median
round trip, the replay's pings leave g apart and its median is g. Netgauge's LogGP table fits g
from trains of messages at another moment; on Daint (where its L is 0) it puts g at 2.3-6.1 us,
above the first percentile of the same campaign's 1 B round trips on 7 runs (2.4-3.4 us) and
above their median on two (March rush hours: 6.1 and 5.8 us against medians of 5.2 and 4.3 us,
whose replay had every round trip more than 1 us late).

`model build` takes g at most the series' first percentile round trip: the spacing the series
shows a host's sends at, read where 99 % of them lie above it (the least one is a single reading,
where a misread tick or a glitch decides). Messages are spaced g apart in trains as before,
where a train is what the fit measured; the provenance says what moved. The paper's semantics
(`model build --as-paper`) keep the fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cloudnoise.model.round_trips import RoundTrips

PERCENT = 1.0  # the series' round trip at this percentile bounds g


@dataclass(frozen=True)
class GapBound:
    """The fitted g against the latency series' bound on it (ns)."""

    fitted_ns: float
    bound_ns: float  # the series' PERCENT-th percentile round trip

    @property
    def capped(self) -> bool:
        return self.fitted_ns > self.bound_ns

    @property
    def g_ns(self) -> float:
        """The profile's g: the fitted one, at most the bound."""
        return min(self.fitted_ns, self.bound_ns)

    def describe(self) -> str:
        return (f"g = {self.g_ns:.5g} ns, the latency series' {PERCENT:g}st-percentile round trip (the fit's "
                f"{self.fitted_ns:.5g} ns is more than the spacing the series shows one host's sends at: "
                "model/gap_bound.py)")


def gap_bound(g_ns: float, trips: RoundTrips) -> GapBound:
    """The bound the back-to-back series `trips` puts on the fitted `g_ns`."""
    return GapBound(float(g_ns), float(trips.quantiles([PERCENT])[0]))
