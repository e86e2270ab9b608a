"""Tail risk with known answers: quantiles and their order-statistic intervals,
deadline and budget probabilities on hand-made results, the cost quantiles and
the cost of noise under billing, and the recommendation with its line of why."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from cloudnoise.advice.api import advice_from_runtimes
from cloudnoise.advice.points import advice_point
from cloudnoise.advice.recommend import recommend
from cloudnoise.advice.risk import bounded_reps, exceedance, quantile, quantiles
from cloudnoise.costs.billing import EXACT, parse_billing
from cloudnoise.costs.price_book import Quote

H_NS = 3600e9


def q(system: str, price: float, billing=EXACT) -> Quote:
    return Quote(system, "on-demand", price, "2022-07-18", "test", billing)


def test_quantiles_of_one_to_a_hundred() -> None:
    x = np.arange(1, 101, dtype=float)
    got = quantiles(x)
    assert got["p50"].value == 50.5 and got["p95"].value == pytest.approx(95.05) and got["p99"].value == pytest.approx(99.01)
    # the median's 95% interval from order statistics: x(40) .. x(61) for n = 100 (binomial 0.5 quantiles)
    assert (got["p50"].ci_low, got["p50"].ci_high) == (40.0, 61.0)
    # 100 samples cannot bound the p99 from above
    assert got["p99"].ci_high is None and got["p99"].ci_low is not None


def test_reps_that_bound_the_p99() -> None:
    assert bounded_reps(0.99, 0.95) == 368  # 1 - 0.99^n >= 0.975
    x = np.random.default_rng(1).lognormal(size=400)
    assert quantile(x[:367], 0.99).ci_high is None
    assert quantile(x[:368], 0.99).ci_high is not None


def test_deadline_probability_on_hand_made_results() -> None:
    runtimes = np.array([1.0] * 195 + [1.5] * 2 + [3.0] * 3)  # ms
    miss = exceedance(runtimes, 1.5)  # 1.5 exactly meets the deadline
    assert (miss.events, miss.n, miss.value) == (3, 200, 0.015)
    assert miss.ci_low == pytest.approx(beta.ppf(0.025, 3, 198)) and miss.ci_high == pytest.approx(beta.ppf(0.975, 4, 197))
    none = exceedance(runtimes, 10.0)
    assert none.value == 0.0 and none.ci_low == 0.0 and none.ci_high == pytest.approx(1 - 0.025 ** (1 / 200))


def test_cost_quantiles_and_cost_of_noise_under_billing() -> None:
    noisy = np.array([1.0, 1.5, 1.5, 2.0, 4.0]) * H_NS
    base = np.full(5, H_NS)
    exact = advice_point("s", 4, noisy, base, q("s", 2.0))
    assert exact.cost_usd["p50"] == pytest.approx(1.5 * 4 * 2.0)
    assert exact.noiseless_cost_usd == pytest.approx(8.0) and exact.noise_cost_percent == pytest.approx(50.0)
    assert exact.noise_runtime_percent == pytest.approx(50.0)
    hourly = advice_point("s", 4, noisy, base, q("s", 2.0, parse_billing("1h")), budget_usd=16.0)
    assert hourly.cost_usd["p50"] == pytest.approx(2 * 4 * 2.0)  # 1.5 h billed as 2 h
    assert hourly.noise_cost_percent == pytest.approx(100.0) and hourly.noise_runtime_percent == pytest.approx(50.0)
    assert hourly.cost_usd["p99"] == pytest.approx(4 * 4 * 2.0)
    assert hourly.over_budget.events == 1  # only the 4 h run costs more than 16 USD (2 h x 4 nodes x 2 USD = 16 is within)
    unpriced = advice_point("s", 4, noisy, base, None, deadline_ns=1.5 * H_NS)
    assert unpriced.cost_usd is None and unpriced.noise_cost_percent is None
    assert unpriced.deadline_miss.events == 2


def _runs(median_ms: float, late: int = 0, n: int = 100) -> np.ndarray:
    x = np.full(n, median_ms * 1e6)
    x[:late] = 100 * median_ms * 1e6
    return x


def test_front_and_recommendation_on_hand_made_results() -> None:
    # one-hour billing-free runs; prices chosen so costs are easy: cost = runtime[h] x nodes x price
    runtimes = {
        ("cheap", 16, "both"): _runs(10.0), ("cheap", 16, "none"): _runs(8.0),
        ("cheap", 64, "both"): _runs(5.0, late=5), ("cheap", 64, "none"): _runs(4.0),
        ("fast", 16, "both"): _runs(4.0), ("fast", 16, "none"): _runs(4.0),
        ("fast", 64, "both"): _runs(2.5, late=2), ("fast", 64, "none"): _runs(1.5),
        ("free", 16, "both"): _runs(1.0),  # no price: never recommended
    }
    quotes = {"cheap": q("cheap", 1.0), "fast": q("fast", 3.0), "free": None}
    points, rec = advice_from_runtimes(runtimes, quotes, deadline_ns=30e6, confidence=0.97)
    by = {(p.system, p.nodes): p for p in points}
    # median costs in units of ms x node x USD/h: cheap16 10*16*1 = 160, cheap64 5*64*1 = 320,
    # fast16 4*16*3 = 192, fast64 2.5*64*3 = 480; cheap64 is beaten by fast16 on both
    assert {k for k, p in by.items() if p.on_front} == {("cheap", 16), ("fast", 16), ("fast", 64)}
    assert by[("cheap", 64)].deadline_miss.value == 0.05 and by[("fast", 64)].deadline_miss.value == 0.02
    # deadline: the cheapest that is late in at most 3% of runs
    assert (rec.point.system, rec.point.nodes) == ("cheap", 16) and rec.objective == "cheapest"
    assert rec.why.startswith("cheap at 16 nodes: 2.5x slower than fast at 16 nodes at 0.83x the cost")
    assert "misses 30 ms in 0% of runs" in rec.why and "noise adds 25% to its cost" in rec.why
    # a budget alone (200 units): the fastest whose runs stay within it in 99% of runs; fast at 64
    # nodes is over it in every run, cheap at 64 in its 5 late runs, fast at 16 never
    budget = 200 * 1e-3 / 3600
    _, rec = advice_from_runtimes(runtimes, quotes, budget_usd=budget)
    assert (rec.point.system, rec.point.nodes, rec.objective) == ("fast", 16, "fastest")
    # neither: the lowest cost x runtime (fast16 192 x 4; cheap16 160 x 10; fast64 480 x 2.5)
    _, rec = advice_from_runtimes(runtimes, quotes)
    assert (rec.point.system, rec.point.nodes, rec.objective) == ("fast", 16, "best-value")
    # nothing acceptable: no recommendation, and the closest named
    _, rec = advice_from_runtimes(runtimes, quotes, deadline_ns=3e6)
    assert rec.point is None and rec.why.startswith("nothing meets 3 ms with 99% probability; closest: fast at 64 nodes")


def test_recommendation_without_prices() -> None:
    rec = recommend([advice_point("free", 4, _runs(1.0), None, None)])
    assert rec.point is None and "no system has a price" in rec.why


def test_recommendation_says_when_billing_hides_the_noise() -> None:
    # 10 ms noisy vs 8 ms quiet, billed per started minute: both cost one minute, 25% slower for free
    runtimes = {("s", 16, "both"): _runs(10.0), ("s", 16, "none"): _runs(8.0)}
    _, rec = advice_from_runtimes(runtimes, {"s": q("s", 1.0, parse_billing("1min"))})
    assert "noise adds 25% to its runtime but nothing to its bill" in rec.why
    _, rec = advice_from_runtimes(runtimes, {"s": q("s", 1.0)})  # billed exactly: the runtime shows in the bill
    assert "noise adds 25% to its cost" in rec.why
