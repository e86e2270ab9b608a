"""Money formatting: known amounts, never an exponent of Python's, never a run of zeros."""

from __future__ import annotations

import re

import pytest

from cloudnoise.costs.money import format_usd, per_runs_unit


def _no_run_of_zeros(text: str) -> bool:
    return re.search(r"0{4,}", text) is None and "e-0" not in text and "e+" not in text


@pytest.mark.parametrize(("amount", "text"), [
    (1e-7, "1e-7"),
    (1.027e-7, "1.03e-7"),
    (8e-08, "8e-8"),
    (8.5123e-05, "8.51e-5"),
    (0.0123456, "0.0123"),
    (0.5, "0.5"),
    (1.0, "1.00"),
    (4.224, "4.22"),
    (999.994, "999.99"),
    (1234.567, "1,235"),
    (1e5, "100,000"),
    (1.5e6, "1.5 million"),
    (2.25e9, "2.25 billion"),
    (-3e-6, "-3e-6"),
    (0.0, "0"),
    (None, "N.A."),
    (float("nan"), "N.A."),
])
def test_known_amounts(amount: float | None, text: str) -> None:
    assert format_usd(amount) == text
    assert _no_run_of_zeros(format_usd(amount))


def test_a_tenth_of_a_microdollar_per_run_reads_per_million_runs() -> None:
    """The report's range "0.0000001027 to 0.0000241 USD per run", as a reader takes it in (cents from a dollar up)."""
    unit = per_runs_unit([1.027e-7, 2.41e-5])
    assert unit.runs == 1_000_000 and unit.text(1.027e-7, 2.41e-5) == "0.103 to 24.10 USD per million runs"
    assert _no_run_of_zeros(unit.text(1.027e-7, 2.41e-5))


def test_a_hundred_thousand_dollars_per_run_stays_per_run() -> None:
    unit = per_runs_unit([1e5])
    assert unit.runs == 1 and unit.text(1e5) == "100,000 USD per run" and _no_run_of_zeros(unit.text(1e5))


@pytest.mark.parametrize(("smallest", "runs"), [(0.05, 1), (0.01, 1), (0.009, 1000), (2e-5, 1000), (1e-9, 10**9),
                                                (1e-13, 10**9)])
def test_the_unit_is_the_fewest_runs_that_reach_a_cent(smallest: float, runs: int) -> None:
    assert per_runs_unit([smallest, 3.0, None]).runs == runs


def test_no_cost_at_all_is_per_run() -> None:
    assert per_runs_unit([None, 0.0]).runs == 1
