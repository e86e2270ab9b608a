"""Billing as users pay it: each provider's rounding and minimum against prices
computed by hand, the command-line rules, and dated quotes (Table I, a price file,
a fixed price)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from cloudnoise.costs.billing import EXACT, Billing, parse_billing, provider_billing
from cloudnoise.costs.price_book import PriceBook, price_book
from cloudnoise.costs.model import Pricing
from cloudnoise.errors import CloudnoiseError
from cloudnoise.profiles.registry import load_builtin

H = 3600.0


def quote(system: str, pricing: str = "on-demand", billing: str = "provider"):
    return price_book(pricing, None, billing).quote(load_builtin(system))


@pytest.mark.parametrize(
    ("system", "runtime_s", "nodes", "usd"),
    [
        # AWS, per second with a 60 s minimum, 3.88 USD/node-hour on-demand (Table I)
        ("aws-hpc", 30.0, 16, 60 / H * 16 * 3.88),
        ("aws-hpc", 3e-6, 16, 60 / H * 16 * 3.88),
        ("aws-hpc", 61.2, 16, 62 / H * 16 * 3.88),
        ("aws-hpc-metal", 7200.0, 2, 2 * 2 * 3.88),
        # Azure, per second with a 5-minute minimum, 3.168 USD/node-hour
        ("azure-hpc", 10.0, 4, 300 / H * 4 * 3.168),
        ("azure-hpc", 301.2, 4, 302 / H * 4 * 3.168),
        # GCP, per second after a 1-minute minimum, 4.03 USD/node-hour
        ("gcp-hpc", 59.5, 8, 60 / H * 8 * 4.03),
        ("gcp-hpc", 60.5, 8, 61 / H * 8 * 4.03),
        # Oracle: VMs per second with a 1-minute minimum, bare metal with a 1-hour minimum
        ("oracle-normal", 10.0, 8, 60 / H * 8 * 1.188),
        ("oracle-hpc-metal", 600.0, 8, 1 * 8 * 2.712),
        ("oracle-hpc-metal", 2 * H + 0.5, 8, 7201 / H * 8 * 2.712),
        # Daint (on premise): node time by the elapsed second, no minimum
        ("daint", 0.4, 32, 1 / H * 32 * 1.73),
        ("daint", 90.0, 32, 90 / H * 32 * 1.73),
    ],
)
def test_provider_billing_against_hand_computed_prices(system: str, runtime_s: float, nodes: int, usd: float) -> None:
    assert quote(system).cost_usd(runtime_s, nodes) == pytest.approx(usd, rel=1e-12)


def test_the_most_specific_rule_wins_and_labels_say_it() -> None:
    metal, vm = load_builtin("oracle-hpc-metal"), load_builtin("oracle-normal")
    assert "bare-metal" in metal.labels and provider_billing(metal, "on-demand").minimum_s == 3600
    assert provider_billing(vm, "on-demand").minimum_s == 60
    assert provider_billing(metal, "on-demand").label() == "per-second, 1 h minimum"
    assert provider_billing(load_builtin("azure-hpc"), "spot").label() == "per-second, 5 min minimum"
    # every rule names where it comes from
    for name in ("aws-hpc", "azure-hpc", "gcp-hpc", "oracle-normal", "daint"):
        rule = provider_billing(load_builtin(name), "on-demand")
        assert rule.provenance in ("published", "reconstructed") and len(rule.source) > 40


def test_committed_capacity_is_pro_rata() -> None:
    q = quote("aws-hpc", "committed")
    assert q.usd_per_node_hour == 1.475 and q.billing.increment_s == 0 and q.billing.minimum_s == 0
    assert q.cost_usd(30.0, 16) == pytest.approx(30 / H * 16 * 1.475)


def test_spot_is_a_fraction_of_on_demand_billed_like_it() -> None:
    q = quote("aws-hpc", "spot:0.3")
    assert q.usd_per_node_hour == pytest.approx(0.3 * 3.88) and q.date == "2022-07-18"
    assert q.cost_usd(10.0, 2) == pytest.approx(60 / H * 2 * 0.3 * 3.88)


def test_command_line_rules() -> None:
    per_hour = parse_billing("1h")
    assert per_hour.billed_seconds(7200.5) == 3 * H and per_hour.billed_seconds(1.0) == H
    # float noise must not cost an extra hour
    assert per_hour.billed_seconds(7200.000000000001) == 2 * H
    minute = parse_billing("1min:10min")
    assert minute.billed_seconds(np.array([1.0, 601.0, 659.0])).tolist() == [600.0, 660.0, 660.0]
    assert parse_billing("1s:60s").billed_seconds(0.001) == 60.0
    assert parse_billing("exact") is EXACT and EXACT.billed_seconds(12.345) == 12.345
    assert parse_billing("provider") is None
    assert quote("azure-hpc", billing="exact").cost_usd(10.0, 4) == pytest.approx(10 / H * 4 * 3.168)
    for bad in ("sometimes", "0s", "1s:-5s", "-1h"):
        with pytest.raises(CloudnoiseError, match="--billing"):
            parse_billing(bad)
    with pytest.raises(CloudnoiseError):
        Billing("x", float("nan"), 0.0, "given", "x")


def test_a_system_no_rule_knows_is_billed_pro_rata_with_a_note() -> None:
    from dataclasses import replace

    mine = replace(load_builtin("daint"), name="my-cluster", labels=["mine"])
    rule = provider_billing(mine, "on-demand")
    assert rule.increment_s == 0 and rule.minimum_s == 0 and "--billing" in rule.source


def test_fixed_price_for_everyone_is_dated_today() -> None:
    book = PriceBook(Pricing("fixed", 2.0), today=dt.date(2025, 1, 2))
    q = book.quote(load_builtin("alps"))  # no published price, but a given one
    assert q is not None and q.usd_per_node_hour == 2.0 and q.date == "2025-01-02" and q.pricing == "fixed"
    assert price_book("on-demand").quote(load_builtin("alps")) is None
