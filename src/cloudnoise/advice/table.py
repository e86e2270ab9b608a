"""Printing an Advice: the table of the front (or every point), the
recommendation, the prices with their dates and billing, as text or CSV."""

from __future__ import annotations


from rich import box
from rich.table import Table

from cloudnoise.advice.api import Advice
from cloudnoise.advice.points import AdvicePoint
from cloudnoise.console import stdout_console, write_csv
from cloudnoise.costs.billing import Billing
from cloudnoise.costs.money import RunsUnit, per_runs_unit
from cloudnoise.measurement.placement import one_host_name
from cloudnoise.units import format_time_ps


def _time(ns: float | None) -> str:
    return "-" if ns is None else format_time_ps(ns * 1000)




def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:+.1f}%"


def _prob(p: object) -> str:
    value = getattr(p, "value", None)
    return "-" if value is None else f"{100 * value:.3g}%"


def _billing(b: Billing) -> str:
    """`per-second, 1 min minimum (Google Compute Engine, as of 2017-09-26)`."""
    about = [b.provider] if b.provider != b.label() else []
    if b.as_of:
        about.append(f"as of {b.as_of}")
    return b.label() + (f" ({', '.join(about)})" if about else "")


def shown(advice: Advice, which: str) -> list[AdvicePoint]:
    """The points the table lists: the front (cheapest first) or all (grid order).
    The front is joined by every point the recommendation names (the one it
    chose, the one it compares with) that is not on it, so the line under the
    table never names a row the table lacks."""
    if which != "front":
        return list(advice.points)
    rows = list(advice.front)
    rec = advice.recommendation
    for extra in (rec.point, rec.compared_with):
        if extra is not None and all((p.system, p.nodes) != (extra.system, extra.nodes) for p in rows):
            rows.append(extra)
    return rows


def _one_host(advice: Advice) -> set[str]:
    """Systems whose profile was measured on one host: shared memory, not a network."""
    return {s.name for s in advice.request.systems if s.profile.one_host()}


def _shown(system: str, one_host: set[str]) -> str:
    return one_host_name(system) if system in one_host else system


def table(advice: Advice, which: str = "front") -> Table:
    r = advice.request
    one_host = _one_host(advice)
    pick = advice.recommendation.point
    title = (f"{'Pareto front' if which == 'front' else 'Every point'}: {r.workload.description}, {r.noise} noise; "
             f"{r.prices.label()}")
    rows = shown(advice, which)
    # one unit for every cost in the table (per run, or per 1,000 / million runs when a run costs
    # under a cent), so the columns compare at a glance and no cell is a run of zeros
    unit: RunsUnit = per_runs_unit(v for p in rows for v in (p.cost_usd or {}).values())
    t = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False,
              caption=f"{min((p.reps for p in advice.points), default=0)}+ repetitions per point; cost in USD per "
              f"{unit.label} as billed; noise +: cost over the noiseless run; * recommended, "
              + ("c compared with (off the front)" if which == "front" else "f on the front"))
    t.add_column("system", no_wrap=True)
    cols = ["nodes", "p50", "p95", "p99", "cost p50 $", "p95 $", "p99 $", "noise +"]
    if r.deadline_ns is not None:
        cols.append("P(late)")
    if r.budget_usd is not None:
        cols.append("P(over $)")
    for c in cols:
        t.add_column(c, justify="right", no_wrap=True)
    alt = advice.recommendation.compared_with
    for p in rows:
        mark = " *" if pick is not None and (p.system, p.nodes) == (pick.system, pick.nodes) else ""
        if alt is not None and (p.system, p.nodes) == (alt.system, alt.nodes) and not p.on_front and which == "front":
            mark += " c"
        if which != "front" and p.on_front:
            mark += " f"
        cost = p.cost_usd or {}
        cells = [_shown(p.system, one_host) + mark, str(p.nodes), _time(p.runtime_ns["p50"].value), _time(p.runtime_ns["p95"].value),
                 _time(p.runtime_ns["p99"].value), unit.amount(cost.get("p50")), unit.amount(cost.get("p95")), unit.amount(cost.get("p99")),
                 _pct(p.noise_cost_percent)]
        if r.deadline_ns is not None:
            cells.append(_prob(p.deadline_miss))
        if r.budget_usd is not None:
            cells.append(_prob(p.over_budget))
        t.add_row(*cells)
    return t


def print_advice(advice: Advice, which: str = "front") -> None:
    """The table, the recommendation, the prices (with dates and billing) and notes, on stdout."""
    con = stdout_console()
    con.print(table(advice, which))
    rec = advice.recommendation
    con.print(f"[bold]Recommendation:[/bold] {rec.why}" if rec.point is not None else f"[bold]No recommendation:[/bold] {rec.why}")
    con.print(f"Prices ({advice.request.prices.label()}):")
    one_host = _one_host(advice)
    for system, q in advice.quotes.items():
        if q is None:
            con.print(f"  {_shown(system, one_host)}: no price")
            continue
        date = q.date or "undated"
        con.print(f"  {system}: {q.usd_per_node_hour:.4g} USD/node-hour {q.pricing}, as of {date} ({q.source}); "
                  f"billed {_billing(q.billing)}",
                  highlight=False, soft_wrap=True)
    others = len(advice.points) - len(shown(advice, which))
    if which == "front" and others:
        con.print(f"{others} other point{'s are' if others > 1 else ' is'} dominated or unpriced: --points all lists them, --json gives every number")
    if advice.sweep_dir is not None:
        con.print(f"Simulations: {advice.sweep_dir} ({advice.reps_simulated} repetitions simulated, {advice.reps_reused} reused)")
    for note in advice.notes:
        con.print(f"note: {note}", highlight=False, soft_wrap=True)


def print_csv(advice: Advice, which: str = "front") -> None:
    """The listed points as CSV on stdout, every column of the JSON rows."""
    rows = [p.to_dict() for p in shown(advice, which)]
    if rows:
        write_csv(list(rows[0]), [list(r.values()) for r in rows])
