"""`cloudnoise cost`: price a job's runtime on a system, or compare systems."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table

from cloudnoise.costs.billing import Billing, parse_billing
from cloudnoise.costs.configs import config_costs
from cloudnoise.console import stdout_console
from cloudnoise.console import write_csv
from cloudnoise.costs.model import (
    Pricing,
    RunCost,
    billing_label,
    cheapest,
    compare_systems,
    costs_at_scales,
    parse_pricing,
)
from cloudnoise.costs.money import format_usd
from cloudnoise.comma_lists import parse_counts, parse_items
from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.placement import one_host_name, one_host_systems
from cloudnoise.options import accepts_aliases, csv_option, json_option, one_of_json_csv, profile_option
from cloudnoise.profiles.registry import resolve_profile
from cloudnoise.units import format_time_ps, parse_time_ps


def parse_positive_duration_s(text: str, what: str = "runtime") -> float:
    """A positive simulated runtime, in seconds: `1.5s`, `200ms`, `3us`; a plain
    number is nanoseconds, as every simulated time is (docs/reference/conventions.md)."""
    seconds = parse_time_ps(text.strip(), what, default_unit="ns", limit_ps=limits.MAX_COST_RUNTIME_S * 10**12) / 1e12
    if not seconds > 0:
        raise CloudnoiseError(f"{what} must be positive, got {text!r}")
    return seconds


def _note_plain_numbers(*texts: Any) -> None:
    """A plain number is nanoseconds here as everywhere; say so once, since it
    read as seconds in earlier versions (a silent change of unit is a wrong number)."""
    import re

    items: list[str] = []
    for t in texts:
        if not t:
            continue
        for part in ([t] if isinstance(t, str) else list(t)):
            items += [x for x in re.split(r"[,=/]", part) if x.strip()]
    plain = [x.strip() for x in items if re.fullmatch(r"\s*[0-9.eE+_-]+\s*", x)]
    if plain:
        click.echo(f"cloudnoise: note: a runtime given as a plain number ({plain[0]}) is nanoseconds, as every simulated "
                   f"time is; write {plain[0]}s for seconds", err=True)


def format_duration_s(seconds: float) -> str:
    return format_time_ps(seconds * 1e12)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.1f}%"


def _table(rows: list[RunCost], title: str, best: str | None) -> Table:
    """Rows as a rich table; the noiseless columns appear only when some row has a noiseless runtime."""
    with_base = any(r.noiseless_runtime_s is not None for r in rows)
    t = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, caption="noiseless: runtime without noise; noise +: the cost increase it causes"
              if with_base else None)
    t.add_column("system", no_wrap=True)
    headers = ["nodes", "runtime", "$/node-h", "billed", "cost $"] + (["noiseless", "noise +"] if with_base else [])
    for col in headers:
        t.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        mark = " *" if best is not None and r.system == best else ""
        cells = [
            r.system + mark,
            str(r.nodes),
            format_duration_s(r.runtime_s),
            format_usd(r.price_per_node_hour),
            r.billing or "-",
            format_usd(r.cost_usd),
        ]
        if with_base:
            has = r.noiseless_runtime_s is not None
            cells += [
                format_duration_s(r.noiseless_runtime_s) if has else "-",
                _pct(r.noise_increase),
            ]
        t.add_row(*cells)
    return t


RUN_COLUMNS = ("system", "nodes", "runtime_s", "price_per_node_hour", "billing", "cost_usd", "noiseless_runtime_s",
               "noiseless_cost_usd", "noise_increase")


@click.command("cost")
@profile_option(old=["--system"])
@click.option("--nodes", "nodes", metavar="N[,N...]", help="Node count(s); one per runtime.")
@click.option("--runtime", "runtime", metavar="T[,T...]", help="Runtime(s) per run (simulated time): 1.5s, 200ms, 3us; plain = ns.")
@click.option("--noiseless-runtime", "noiseless", metavar="T[,T...]", help="Noiseless runtime(s), for the cost of noise.")
@click.option(
    "--pricing",
    default="on-demand",
    show_default=True,
    metavar="on-demand|committed|spot:F|PRICE",
    help="Table I price, a spot fraction of on-demand, or USD per node-hour.",
)
@click.option("--billing", default="provider", show_default=True, metavar="provider|exact|STEP[:MIN]",
              help="How runtime is billed: each provider's rule (rounding, minimum charge; as `advise` and the report), "
                   "pro rata, or e.g. 1s:60s, 1h for every system.")
@click.option(
    "--compare",
    "compare",
    multiple=True,
    metavar="NAME=T[/T0]",
    help="Compare systems: runtime T (and noiseless T0) of the job on NAME; repeat per system.",
)
@click.option("--sweep", "sweep_dir", metavar="DIR", type=click.Path(path_type=Path),
              help="Price every system, node count and noise variant of a `cloudnoise sweep` output folder.")
@click.option("--all", "show_all", is_flag=True, help="With --sweep: print every system, node count and variant, not only the summary.")
@json_option("Print JSON instead of a table.")
@csv_option("Print every row as CSV (with --sweep: every system, node count and variant) for pandas or a spreadsheet.")
@accepts_aliases
def cost(
    profile: str | None,
    nodes: str | None,
    runtime: str | None,
    noiseless: str | None,
    pricing: str,
    billing: str,
    compare: tuple[str, ...],
    sweep_dir: Path | None,
    show_all: bool,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Price runs: runtime x nodes x hourly price, the cost increase due to noise,
    and the cheapest system for a job at a scale (--compare), or a whole
    sweep (--sweep DIR: median runtime per system, nodes and noise variant).

    Runs are billed as each provider bills them (per-second or per-hour
    rounding and minimum charges, the rule `advise` and the report apply;
    --billing exact for pro rata); every output's title says which rule.
    Runtimes are simulated time: a plain number is ns. Money is in US
    dollars (docs/reference/conventions.md, Money).

    \b
    Examples:
      cloudnoise cost --profile daint --nodes 64 --runtime 1.5s
      cloudnoise cost --profile gcp-hpc --nodes 16,256 --runtime 200ms,300ms --noiseless-runtime 180ms,210ms
      cloudnoise cost --nodes 64 --compare aws-hpc=2s/1.8s --compare daint=3s/2.9s
      cloudnoise cost --sweep fig14/ --pricing spot:0.3          # summary; --all or --csv for every row
    """
    one_of_json_csv(as_json, as_csv)
    system = profile
    price = parse_pricing(pricing)
    rule = parse_billing(billing)
    _note_plain_numbers(runtime, noiseless, compare)
    if show_all and sweep_dir is None:
        raise CloudnoiseError("--all goes with --sweep DIR (the other forms print every row already)")
    if sweep_dir is not None:
        if system or nodes or runtime or noiseless or compare:
            raise CloudnoiseError("--sweep prices a sweep folder; drop --profile/--nodes/--runtime/--noiseless-runtime/--compare")
        _cost_sweep(sweep_dir, price, as_json, as_csv, show_all, rule)
        return
    if not nodes:
        raise CloudnoiseError("give --nodes N (with --profile/--runtime or --compare), or --sweep DIR")
    if compare:
        if system or runtime or noiseless:
            raise CloudnoiseError("--compare takes runtimes per system; drop --profile/--runtime/--noiseless-runtime")
        node_list = parse_counts(nodes, "--nodes")
        if len(node_list) != 1:
            raise CloudnoiseError("--compare prices one scale at a time: give a single --nodes value")
        runs = []
        for item in compare:
            name, eq, times = item.partition("=")
            if not eq or not name.strip():
                raise CloudnoiseError(f"--compare takes NAME=RUNTIME[/NOISELESS], got {item!r}")
            noisy_text, _, base_text = times.partition("/")
            base = parse_positive_duration_s(base_text, "noiseless runtime") if base_text else None
            runs.append((resolve_profile(name.strip()), parse_positive_duration_s(noisy_text), base))
        rows = compare_systems(runs, node_list[0], price, rule)
        priced = [r for r in rows if r.cost_usd is not None]
        best = cheapest(rows).system if priced else None
        if as_json:
            click.echo(json.dumps({"pricing": price.label(), "billing": billing_label(rule), "nodes": node_list[0],
                                   "cheapest": best, "rows": [r.to_dict() for r in rows]}, indent=2))
            return
        if as_csv:
            write_csv(RUN_COLUMNS, ([r.to_dict()[c] for c in RUN_COLUMNS] for r in rows))
            return
        con = stdout_console()
        con.print(_table(rows, f"Cost per run on {node_list[0]} nodes, {price.label()} pricing, {billing_label(rule)}", best))
        if best is not None:
            con.print(f"cheapest: [bold]{best}[/bold] (*)")
        unpriced = [r.system for r in rows if r.cost_usd is None]
        if unpriced:
            con.print(f"no {price.kind} price published for: {', '.join(unpriced)} (use --pricing PRICE)")
        return

    if not system or not runtime:
        raise CloudnoiseError("give --profile NAME --nodes N --runtime T, or --compare NAME=T ... --nodes N")
    profile_ = resolve_profile(system)
    node_list = parse_counts(nodes, "--nodes")
    times = [parse_positive_duration_s(t) for t in parse_items(runtime, "--runtime")]
    bases = [parse_positive_duration_s(t, "noiseless runtime") for t in (parse_items(noiseless, "--noiseless-runtime") if noiseless else [])]
    if len(times) != len(node_list) or (bases and len(bases) != len(node_list)):
        raise CloudnoiseError("give one --runtime (and --noiseless-runtime) per --nodes value, comma-separated")
    if len(set(node_list)) != len(node_list):
        raise CloudnoiseError("--nodes values must differ")
    rows = costs_at_scales(
        profile_, dict(zip(node_list, times)), price, dict(zip(node_list, bases)) if bases else None, rule
    )
    if as_json:
        click.echo(json.dumps({"system": profile_.name, "pricing": price.label(), "billing": billing_label(rule),
                               "rows": [r.to_dict() for r in rows]}, indent=2))
        return
    if as_csv:
        write_csv(RUN_COLUMNS, ([r.to_dict()[c] for c in RUN_COLUMNS] for r in rows))
        return
    stdout_console().print(_table(rows, f"Cost per run on {profile_.name}, {price.label()} pricing, {billing_label(rule)}",
                                  None))


def sweep_costs(directory: Path, price: Pricing, billing: Billing | None = None) -> dict[str, Any]:
    """Cost per run of a sweep: per system x nodes x variant, the median runtime,
    its cost (billed by `billing`; None: each provider's rule), and the cost
    increase over the `none` variant (same system and nodes); per node count
    and variant, the cheapest priced system."""
    import numpy as np

    from cloudnoise.sweep.store import SweepStore, by_config, load_results

    meta = SweepStore(directory).read_meta()
    if meta is None:
        raise CloudnoiseError(f"{directory}: not a sweep folder (no sweep.json); give the --out folder of `cloudnoise sweep`")
    table = load_results(directory)
    if table.num_rows == 0:
        raise CloudnoiseError(f"{directory}: the sweep has no results yet; run or resume it first")
    runtimes = by_config(table)
    if any(float(np.median(v)) <= 0 for v in runtimes.values()):
        s, n, _ = next(k for k, v in runtimes.items() if float(np.median(v)) <= 0)
        raise CloudnoiseError(f"{directory}: {s} at {n} nodes has a zero runtime; nothing to price")
    profiles = {}
    for name in meta["systems"]:
        source = meta.get("profiles", {}).get(name, {}).get("source", name)
        profiles[name] = resolve_profile(source)
    rows = [{**c.cost.to_dict(), "variant": c.variant, "reps": c.reps}
            for c in config_costs(runtimes, profiles, price, billing) if c.cost is not None]
    best = []
    for n in meta["nodes"]:
        for v in meta["variants"]:
            priced = [r for r in rows if r["nodes"] == n and r["variant"] == v and r["cost_usd"] is not None]
            if priced:
                b = min(priced, key=lambda r: (r["cost_usd"], r["system"]))
                best.append({"nodes": n, "variant": v, "system": b["system"], "cost_usd": b["cost_usd"]})
    unpriced = sorted({r["system"] for r in rows if r["cost_usd"] is None})
    # Profiles measured on one host (the demo's this-machine): shared memory, not a network.
    one_host = sorted(one_host_systems(meta))
    return {"sweep": str(directory), "experiment": meta["experiment"], "complete": meta.get("complete", False),
            "pricing": price.label(), "billing": billing_label(billing), "rows": rows, "cheapest": best, "unpriced": unpriced, "one_host": one_host}


def _shown(system: str, data: dict[str, Any]) -> str:
    """A system's name in a table: a one-host profile says so (its figures are not a network's)."""
    return one_host_name(system) if system in data.get("one_host", ()) else system


SWEEP_COLUMNS = ("system", "nodes", "variant", "reps", "runtime_s", "price_per_node_hour", "billing", "cost_usd",
                 "noiseless_runtime_s", "noiseless_cost_usd", "noise_increase")
NOISIEST = ("both", "network", "os")


def sweep_summary(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per node count: the cheapest priced system without noise and with the most
    noise the sweep simulated, and the cost of noise over the priced systems (the
    noisy variant's cost over the same system's noiseless cost, min and max, in %)."""
    variants = {r["variant"] for r in data["rows"]}
    noisy = next((v for v in NOISIEST if v in variants), None)
    out = []
    for n in sorted({r["nodes"] for r in data["rows"]}):
        best = {b["variant"]: b for b in data["cheapest"] if b["nodes"] == n}
        incs = [100.0 * r["noise_increase"] for r in data["rows"]
                if r["nodes"] == n and r["variant"] == noisy and r["noise_increase"] is not None]
        out.append({"nodes": n, "noisy_variant": noisy, "cheapest_noiseless": best.get("none"),
                    "cheapest_noisy": best.get(noisy) if noisy else None,
                    "noise_cost_percent_min": min(incs) if incs else None,
                    "noise_cost_percent_max": max(incs) if incs else None})
    return out


def _cost_sweep(directory: Path, price: Pricing, as_json: bool, as_csv: bool, show_all: bool,
                billing: Billing | None = None) -> None:
    data = sweep_costs(directory, price, billing)
    summary = sweep_summary(data)
    if as_json:
        click.echo(json.dumps({**data, "summary": summary}, indent=2))
        return
    if as_csv:
        write_csv(SWEEP_COLUMNS, ([r.get(c) for c in SWEEP_COLUMNS] for r in data["rows"]))
        return
    con = stdout_console()
    noisy = summary[0]["noisy_variant"] if summary else None
    t = Table(title=f"Cost per run: {data['experiment']['name']}, {price.label()} pricing, {data['billing']}", box=box.SIMPLE_HEAD,
              pad_edge=False, caption="cheapest priced system at each node count (median runtime); cost of noise: "
              f"{noisy or 'noisy'} over the same system without noise, lowest to highest over the systems")
    t.add_column("nodes", justify="right", no_wrap=True)
    t.add_column("cheapest, no noise", no_wrap=True)
    t.add_column("cost $", justify="right", no_wrap=True)
    if noisy:
        t.add_column(f"cheapest, {noisy}", no_wrap=True)
        t.add_column("cost $", justify="right", no_wrap=True)
        t.add_column("cost of noise", justify="right", no_wrap=True)
    for row in summary:
        quiet, loud = row["cheapest_noiseless"], row["cheapest_noisy"]
        cells = [str(row["nodes"]), _shown(quiet["system"], data) if quiet else "-",
                 format_usd(quiet["cost_usd"]) if quiet else "-"]
        if noisy:
            low, high = row["noise_cost_percent_min"], row["noise_cost_percent_max"]
            span = "-" if low is None else (f"{low:+.1f}%" if abs(high - low) < 0.05 else f"{low:+.1f}% to {high:+.1f}%")
            cells += [_shown(loud["system"], data) if loud else "-", format_usd(loud["cost_usd"]) if loud else "-", span]
        t.add_row(*cells)
    con.print(t)
    if show_all:
        full = Table(title="Every system, node count and noise variant", box=box.SIMPLE_HEAD, pad_edge=False,
                     caption="median runtime; noise +: cost increase over the same system without noise")
        full.add_column("system", no_wrap=True)
        for col in ("nodes", "variant", "runtime", "cost $", "noise +"):
            full.add_column(col, justify="right", no_wrap=True)
        for r in data["rows"]:
            full.add_row(_shown(r["system"], data), str(r["nodes"]), r["variant"], format_duration_s(r["runtime_s"]),
                         format_usd(r["cost_usd"]), "-" if r["variant"] == "none" else _pct(r["noise_increase"]))
        con.print(full)
    else:
        con.print(f"{len(data['rows'])} rows in all: --all prints them, --csv writes them for pandas or a spreadsheet")
    if data["unpriced"]:
        con.print(f"no {price.kind} price published for: {', '.join(_shown(u, data) for u in data['unpriced'])} "
                  "(use --pricing PRICE)")
    if not data["complete"]:
        con.print("the sweep is not complete: these are the repetitions saved so far")
