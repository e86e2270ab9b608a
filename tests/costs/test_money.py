"""Money formatting: known amounts, never an exponent."""

from __future__ import annotations

import pytest

from cloudnoise.costs.money import format_usd


@pytest.mark.parametrize(("amount", "text"), [
    (8e-08, "0.00000008"),
    (8.5123e-05, "0.00008512"),
    (0.0123456, "0.01235"),
    (0.5, "0.5"),
    (1.0, "1.00"),
    (4.224, "4.22"),
    (1234.567, "1,234.57"),
    (0.0, "0"),
    (None, "N.A."),
    (float("nan"), "N.A."),
])
def test_known_amounts(amount: float | None, text: str) -> None:
    assert format_usd(amount) == text
    assert "e" not in format_usd(amount).lower().replace("n.a.", "")
