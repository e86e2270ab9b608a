"""`model build`'s printing of a profile's closure and of what its campaign measured.

Beside model/tool_table.py (the LogGP table): the command's cli.py stays thin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cloudnoise.model.closure import shown_value

if TYPE_CHECKING:
    from rich.table import Table


def closure_rows_table(title: str, rows: list[dict[str, Any]], miss: str = "miss") -> Table:
    """A closure's rows as a table: statistic, measured, replay, and whether each is within its
    tolerance (judged) or only shown; `miss` is how a judged miss is written."""
    from rich.table import Table

    t = Table(title=title)
    bounded = any(r.get("interval_95") for r in rows)  # profiles built before the intervals have none
    columns = ("statistic", "measured", *(("measured, 95 % interval",) if bounded else ()), "replay", "")
    for col in columns:
        t.add_column(col, justify="left" if col in ("statistic", "") else "right")
    for r in rows:
        name = str(r["statistic"])
        mark = (("within" if r.get("within") else miss) if r.get("judged")
                else "(within, not judged)" if r.get("within") else "(outside, not judged)")
        interval = r.get("interval_95")
        cells = [name, shown_value(name, float(r["measured"]))]
        if bounded:
            low, high = ((shown_value(name, float(interval[0])), shown_value(name, float(interval[1])))
                         if interval else ("", ""))
            cells.append(low if low == high else f"{low} to {high}")
        t.add_row(*cells, shown_value(name, float(r["replay"])), mark)
    return t


def print_closure(closure: dict[str, Any]) -> None:
    """The replay against the measurement, one line per row, and the verdict."""
    from rich.console import Console

    rows = closure.get("rows") or []
    misses = [r["statistic"] for r in rows if r.get("judged") and not r.get("within")]
    verdict = ("closes" if closure.get("closes") else f"MISSES {', '.join(misses)}" if misses
               else "not judged: too few round trips")
    Console().print(closure_rows_table(
        f"Closure: the profile replays {closure.get('replayed') or closure.get('round_trips', 0):,} round trips of "
        f"{closure.get('experiment')} ({verdict})", rows))
    click.echo(f"# {closure.get('tolerance')}")
    if closure.get("stall_model"):
        click.echo(f"stall model: {closure['stall_model']}")
    for note in closure.get("notes") or []:
        click.echo(f"note: {note}")


def print_campaign(campaign: dict[str, Any] | None) -> None:
    """What the campaign measured, and its flags (warnings on stderr)."""
    if not campaign:
        return
    pairs = campaign.get("pairs") or []
    bits = ["pairs " + (", ".join(f"{a}-{b}" for a, b in pairs) if pairs else "not recorded")]
    if campaign.get("round_trips") is not None:
        bits.append(f"{campaign['round_trips']:,} round trips over {campaign.get('duration_s', 0):.3g} s")
    if campaign.get("stall_time_share") is not None:
        bits.append(f"{100 * campaign['stall_time_share']:.3g}% of that time in stalls")
    click.echo("measured: " + "; ".join(bits))
    for flag in campaign.get("flags") or []:
        click.echo(f"cloudnoise: warning: {flag}", err=True)
