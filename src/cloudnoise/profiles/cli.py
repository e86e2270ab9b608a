"""`cloudnoise profiles list|show`: browse the built-in system profiles."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from cloudnoise.model.profile import Provenance, SystemProfile
from cloudnoise.profiles.registry import load_all_builtin, resolve_profile

_KIND_STYLE = {"measured": "green", "published": "cyan", "reconstructed": "yellow"}


def _num(x: float | None, fmt: str = "{:g}") -> str:
    return "N.A." if x is None else fmt.format(x)


def _summary(p: SystemProfile) -> dict:
    """The one-row JSON summary `profiles list --json` prints per profile."""
    same = p.table2.same_rack if p.table2 else None
    return {
        "name": p.name,
        "description": p.description,
        "labels": list(p.labels),
        "instance_type": p.hardware.instance_type,
        "nominal_bandwidth_gbit_s": p.hardware.nominal_bandwidth_gbit_s,
        "min_latency_us": same.min_latency_us if same else None,
        "max_bandwidth_gbit_s": same.max_bandwidth_gbit_s if same else None,
        "committed_per_node_hour": p.prices.committed_per_node_hour,
        "on_demand_per_node_hour": p.prices.on_demand_per_node_hour,
    }


@click.group("profiles")
def profiles() -> None:
    """List and show built-in system profiles (the paper's Table I systems)."""


@profiles.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
def list_cmd(as_json: bool) -> None:
    """List the built-in profiles with their headline figures."""
    rows = [_summary(p) for p in load_all_builtin()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="Built-in system profiles (De Sensi et al., SC22, Tables I-II; USD per node-hour)")
    table.add_column("name", no_wrap=True)
    table.add_column("instance", overflow="fold")
    for header in ("Gb/s", "min lat\nus", "max bw\nGb/s", "committed\n$/h", "on-demand\n$/h"):
        table.add_column(header, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(
            r["name"],
            r["instance_type"] or "-",
            _num(r["nominal_bandwidth_gbit_s"]),
            _num(r["min_latency_us"], "{:.2f}"),
            _num(r["max_bandwidth_gbit_s"], "{:.2f}"),
            _num(r["committed_per_node_hour"]),
            _num(r["on_demand_per_node_hour"]),
        )
    Console().print(table)


def _prov(p: Provenance) -> str:
    style = _KIND_STYLE.get(p.kind, "white")
    return f"[{style}]{p.kind}[/{style}]: {p.source}"


@profiles.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the whole profile as JSON (the file format).")
def show_cmd(name: str, as_json: bool) -> None:
    """Show one profile: NAME is a built-in name or a profile file path."""
    p = resolve_profile(name)
    if as_json:
        click.echo(json.dumps(p.to_dict(), indent=2, ensure_ascii=False))
        return
    con = Console()
    con.print(f"[bold]{p.name}[/bold] - {p.description}")
    con.print(f"labels: {', '.join(p.labels) or '-'}\n")

    hw = p.hardware
    t = Table(title="Hardware", show_header=False)
    t.add_column("", style="bold")
    t.add_column("")
    for label, value in (
        ("instance type", hw.instance_type),
        ("CPU", hw.cpu),
        ("cores", hw.cores),
        ("memory (GB)", hw.memory_gb),
        ("network (Gb/s)", hw.nominal_bandwidth_gbit_s),
        ("topology", hw.network or hw.topology),
        ("routing", hw.routing),
        ("transport", hw.transport),
        ("OS", hw.os),
    ):
        t.add_row(label, "N.A." if value is None else str(value))
    con.print(t)
    con.print(_prov(hw.provenance) + "\n")

    pr = p.prices
    t = Table(title=f"Price per node-hour ({pr.currency})")
    t.add_column("committed", justify="right")
    t.add_column("on-demand", justify="right")
    t.add_column("as of / region")
    t.add_row(
        _num(pr.committed_per_node_hour), _num(pr.on_demand_per_node_hour), f"{pr.as_of or '-'} {pr.region or ''}"
    )
    con.print(t)
    if pr.note:
        con.print(f"note: {pr.note}")
    con.print(_prov(pr.provenance) + "\n")

    if p.table2 is not None:
        t = Table(title="Table II figures")
        for col in ("", "min lat (us)", "mean lat (us)", "max bw (Gb/s)", "mean bw (Gb/s)"):
            t.add_column(col, justify="right" if col else "left")
        for label, f in (("same rack", p.table2.same_rack), ("different racks", p.table2.different_racks)):
            t.add_row(
                label,
                _num(f.min_latency_us, "{:.2f}"),
                _num(f.mean_latency_us, "{:.2f}"),
                _num(f.max_bandwidth_gbit_s, "{:.2f}"),
                _num(f.mean_bandwidth_gbit_s, "{:.2f}"),
            )
        con.print(t)
        con.print(_prov(p.table2.provenance) + "\n")

    lg = p.loggops
    t = Table(title="LogGOPS parameters")
    cols = ["L (ns)", "o (ns)", "g (ns)", "G (ns/B)", "O (ns/B)", "S (B)"]
    row = [f"{lg.L:g}", f"{lg.o:g}", f"{lg.g:g}", f"{lg.G:.6g}", f"{lg.O:g}", str(lg.S)]
    if lg.O_rendezvous is not None:
        cols.append("O above S (ns/B)")
        row.append(f"{lg.O_rendezvous:g}")
    if lg.o_s is not None and lg.o_r is not None:
        cols += ["o_s (ns)", "o_r (ns)"]
        row += [f"{lg.o_s:g}", f"{lg.o_r:g}"]
    for col in cols:
        t.add_column(col, justify="right")
    t.add_row(*row)
    con.print(t)
    if lg.size_classes:
        c = Table(title="Size classes (the engine's L, G, O for messages from a size on)")
        for col in ("from (B)", "L (ns)", "G (ns/B)", "O (ns/B)"):
            c.add_column(col, justify="right")
        for k in lg.size_classes:
            c.add_row(str(k.min_bytes), f"{k.L:.4g}", f"{k.G:.6g}", f"{k.O:.6g}")
        con.print(c)
    con.print(_prov(lg.provenance) + "\n")

    t = Table(title="Noise models")
    t.add_column("noise", style="bold")
    t.add_column("model")
    t.add_column("mean", justify="right")
    lat, bw = p.latency_distribution(), p.bandwidth_distribution()
    if p.latency_noise is not None and lat is not None:
        t.add_row("latency (excess ns)", _model_text(p.latency_noise), f"{lat.mean():.4g} ns")
    if p.bandwidth_noise is not None and bw is not None:
        t.add_row("bandwidth (fraction)", _model_text(p.bandwidth_noise), f"{bw.mean():.5g}")
    if p.os_noise is not None:
        t.add_row("OS", p.os_noise.synthetic or f"trace {p.os_noise.trace}", "")
    con.print(t)
    for label, part in (("latency", p.latency_noise), ("bandwidth", p.bandwidth_noise), ("OS", p.os_noise)):
        if part is not None:
            con.print(f"{label} noise - " + _prov(part.provenance))


def _model_text(model) -> str:
    if model.spec is not None:
        return model.spec
    if model.samples is not None:
        return f"samples {model.samples}" + (f" [{model.column}]" if model.column else "")
    return f"quantile table ({len(model.quantiles['p'])} points)"
