"""advice/table.py: the recommendation never names a row the table lacks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from cloudnoise.advice.api import advice_from_runtimes, quotes_for
from cloudnoise.advice.table import shown
from cloudnoise.costs.model import Pricing
from cloudnoise.costs.price_book import PriceBook
from cloudnoise.sweep.request import system_from


def test_the_point_compared_with_joins_the_front_in_the_table() -> None:
    # daint at 16 nodes is both faster and cheaper than gcp-hpc at 16 nodes (20 us billed one
    # second at 1.73 against 100 us billed one minute at 4.03): gcp-hpc is off the front,
    # yet the recommendation compares daint with it, the only other system.
    runtimes = {(s, 16, v): np.full(5, t) for s, t in (("daint", 20e3), ("gcp-hpc", 100e3)) for v in ("none", "both")}
    quotes = quotes_for((system_from("daint"), system_from("gcp-hpc")), PriceBook(Pricing("on-demand")))
    points, rec = advice_from_runtimes(runtimes, quotes)
    front = sorted((p for p in points if p.on_front), key=lambda p: p.p50_cost or 0.0)
    assert [(p.system, p.nodes) for p in front] == [("daint", 16)]
    assert rec.point.system == "daint" and rec.compared_with.system == "gcp-hpc" and "gcp-hpc" in rec.why
    advice = SimpleNamespace(front=front, points=points, recommendation=rec)
    listed = [(p.system, p.nodes) for p in shown(advice, "front")]
    assert listed == [("daint", 16), ("gcp-hpc", 16)]
    assert [(p.system, p.nodes) for p in shown(advice, "all")] == [(p.system, p.nodes) for p in points]
