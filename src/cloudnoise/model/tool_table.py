"""Print the LogGP(S) estimate beside the measuring tool's own figures (an imported Netgauge run)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from cloudnoise.console import stdout_console

ROWS = (("L", "ns"), ("o", "ns"), ("o_s", "ns"), ("o_r", "ns"), ("g", "ns"), ("G", "ns/B"), ("S", "B"))


def _cell(value: Any, unit: str) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    if unit == "B":
        return f"{int(value)}"
    return f"{value:.4g}"


def print_compared(compared: dict[str, Any]) -> None:
    """One row per parameter: Netgauge's own, the fit of its table, the profile (after noise scaling)."""
    table = Table("parameter", "unit", "Netgauge's own", "cloudnoise fit", "profile",
                  title="LogGP(S): Netgauge's figures and cloudnoise's estimate from the same table")
    for key, unit in ROWS:
        table.add_row(key, unit, _cell(compared["netgauge"].get(key), unit), _cell(compared["fit"].get(key), unit),
                      _cell(compared["profile"].get(key), unit))
    console = stdout_console()
    console.print(table)
    if compared.get("how"):
        console.print(f"# Netgauge's own: {compared['how']}")
