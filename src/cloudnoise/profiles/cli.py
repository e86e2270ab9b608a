"""`cloudnoise profiles list|show|diff|copy`: browse the built-in system profiles, compare two, copy one to edit."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from cloudnoise.console import stdout_console, write_csv
from cloudnoise.model.profile import VIEW_KEY, SystemProfile
from cloudnoise.model.provenance import Provenance
from cloudnoise.options import csv_option, json_option, one_of_json_csv
from cloudnoise.profiles.registry import load_all_builtin, resolve_profile

DIFF_WIDTH = 60  # characters of a value per line in `profiles diff` (a source wraps)
_KIND_STYLE = {"measured": "green", "published": "cyan", "reconstructed": "yellow", "edited": "magenta"}


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
@json_option('Print one JSON object {"profiles": [...]}, a row per profile, instead of the table.')
@csv_option("Print the rows as CSV (labels joined by ';').")
def list_cmd(as_json: bool, as_csv: bool) -> None:
    """List the built-in profiles with their headline figures (Table I-II:
    nominal and measured bandwidth in Gb/s, minimum latency in us, prices in
    USD per node-hour)."""
    one_of_json_csv(as_json, as_csv)
    rows = [_summary(p) for p in load_all_builtin()]
    if as_json:
        click.echo(json.dumps({"profiles": rows}, indent=2))
        return
    if as_csv:
        columns = list(rows[0])
        write_csv(columns, ([";".join(v) if isinstance(v, list) else v for v in r.values()] for r in rows))
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
    stdout_console().print(table)


def _prov(p: Provenance) -> str:
    from rich.markup import escape

    style = _KIND_STYLE.get(p.kind, "white")
    return f"[{style}]{p.kind}[/{style}]: {escape(p.source)}"  # sources hold brackets ("[b, 1]")


@profiles.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True,
              help="Print the whole profile as JSON to read: a view, not a loadable copy (its side files stay beside "
                   "the original; `cloudnoise profiles copy NAME DIR` makes a copy to edit).")
def show_cmd(name: str, as_json: bool) -> None:
    """Show one profile: NAME is a built-in name or a profile file path.

    --json prints the profile file's content with a "view_of" key first: it
    names the original, whose side files (noise samples, traces) stay beside
    it, so the printout loads nowhere (loading it says so). To make a variant
    of a profile, copy it whole and edit the copy:

    \b
      cloudnoise profiles copy aws-hpc-metal mine/
      (edit mine/aws-hpc-metal.json)
      cloudnoise simulate --profile mine/aws-hpc-metal.json ...
    """
    p = resolve_profile(name)
    if as_json:
        view = {VIEW_KEY: {"file": p.origin or name, "note": (
            "a view of the profile, not a loadable copy: its side files stay beside the original; "
            f"make a copy to edit with `cloudnoise profiles copy {name} DIR`")}}
        click.echo(json.dumps({**view, **p.to_dict()}, indent=2, ensure_ascii=False))
        return
    con = stdout_console()
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
        for label, f in p.table2.rows():
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

    if p.compute is not None:
        c = p.compute
        detail = ""
        if c.peak is not None and c.efficiency is not None:
            detail = f" = peak {c.peak.flops().gflops:g} x efficiency {c.efficiency.value:g}"
        con.print(f"[bold]Compute[/bold]: {c.gflops:g} GFLOP/s per node (DGEMM){detail}")
        con.print(_prov(c.provenance) + "\n")

    _noise_table(con, p, "Noise models" + ("" if p.different_racks is None else " (same rack)"))
    _closure_table(con, p)
    _campaign_lines(con, p)
    dr = p.different_racks
    if dr is not None:
        con.print()
        q = p.at("different-racks")
        t = Table(title="Different racks (--placement different-racks): LogGOPS parameters")
        for col in ("L (ns)", "o (ns)", "g (ns)", "G (ns/B)"):
            t.add_column(col, justify="right")
        t.add_row(f"{q.loggops.L:g}", f"{q.loggops.o:g}", f"{q.loggops.g:g}", f"{q.loggops.G:.6g}")
        con.print(t)
        con.print(_prov(q.loggops.provenance) + "\n")
        _noise_table(con, q, "Noise models (different racks)", os_noise=False)


def _noise_table(con: Console, p, title: str, os_noise: bool = True) -> None:
    """The noise models of `p`, each with its provenance kind, then the sources."""
    t = Table(title=title)
    t.add_column("noise", style="bold")
    t.add_column("model")
    t.add_column("mean", justify="right")
    t.add_column("provenance")
    lat, bw = p.latency_distribution(), p.bandwidth_distribution()
    if p.latency_noise is not None and lat is not None:
        t.add_row("latency (excess ns)", _model_text(p.latency_noise), f"{lat.mean():.4g} ns",
                  p.latency_noise.provenance.kind)
        levels = p.latency_levels()
        if levels is not None:
            t.add_row("latency levels in time", levels.describe(), f"{levels.level.mean():+.3g} ns",
                      p.latency_noise.provenance.kind)
        state = p.latency_state()
        if state is not None:
            t.add_row("latency state in time", state.describe(), "-", p.latency_noise.provenance.kind)
    if p.bandwidth_noise is not None and bw is not None:
        episodes = p.bandwidth_episodes()
        # with episodes, the mean a measurement's samples have (Table II's), drops included
        mean = f"{bw.mean():.5g}" if episodes is None else f"{p.bandwidth_sample_distribution().mean():.5g} with drops"
        t.add_row("bandwidth (fraction)", _model_text(p.bandwidth_noise), mean, p.bandwidth_noise.provenance.kind)
        if episodes is not None:
            t.add_row("bandwidth drops in time", p.bandwidth_noise.episodes,
                      f"{100 * episodes.time_share():.3g}% of the time", p.bandwidth_noise.provenance.kind)
    sd = p.switch_draws
    if sd is not None:
        t.add_row("network (switch draws)",
                  f"L and G per message from near/far sets, {sd.nodes_per_switch} nodes per switch"
                  + (f", samples {sd.samples}" if sd.samples else ", no samples"), "", sd.provenance.kind)
    if os_noise and p.os_noise is not None:
        t.add_row("OS", p.os_noise.synthetic or f"trace {p.os_noise.trace}", "", p.os_noise.provenance.kind)
    con.print(t)
    shadowed = [name for name, part in (("latency", p.latency_noise), ("bandwidth", p.bandwidth_noise))
                if part is not None]
    if sd is not None and shadowed:
        con.print(f"the switch draws take precedence: the {' and '.join(shadowed)} noise above is checked but not "
                  "used in simulations")
    for label, part in (("latency", p.latency_noise), ("bandwidth", p.bandwidth_noise),
                        ("network (switch draws, docs/profile-format.md)", sd),
                        ("OS", p.os_noise if os_noise else None)):
        if part is not None:
            con.print(f"{label} noise - " + _prov(part.provenance))


def _closure_table(con: Console, p) -> None:
    """The profile's replays of its own measurements (model/closure.py, model/bandwidth_closure.py), row by row."""
    for c in (p.closure, p.bandwidth_closure):
        if c is not None:
            _one_closure(con, c)


def _one_closure(con: Console, c) -> None:
    from cloudnoise.model.closure_table import closure_rows_table

    con.print()
    con.print(closure_rows_table(
        f"Closure: {c.replayed or c.round_trips:,} round trips of {c.experiment} replayed with this profile "
        f"({'closes' if c.closes else 'misses ' + ', '.join(c.misses()) if c.misses() else 'not judged'})",
        list(c.rows), miss="[bold red]miss[/bold red]"))
    if c.tolerance:
        con.print(f"tolerance: {c.tolerance}")
    if c.stall_model:
        con.print(f"stall model: {c.stall_model}")
    for note in c.notes:
        con.print(f"note: {note}")
    con.print(_prov(c.provenance))


def _campaign_lines(con: Console, p) -> None:
    """What the campaign measured, so what the profile can vouch for (model/vouching.py)."""
    m = p.campaign
    if m is None:
        return
    pairs = ", ".join(f"{a}-{b}" for a, b in m.pairs) if m.pairs else "not recorded"
    bits = [f"pairs {pairs}"]
    if m.round_trips is not None:
        bits.append(f"{m.round_trips:,} round trips")
    if m.duration_s is not None:
        bits.append(f"over {m.duration_s:.3g} s")
    if m.stall_time_share is not None:
        bits.append(f"{100 * m.stall_time_share:.3g}% of that time in stalls")
    if m.episode_time_share:
        bits.append(f"bandwidth drops {100 * m.episode_time_share:.3g}% of the bandwidth series' time")
    con.print(f"\n[bold]Measured[/bold]: {'; '.join(bits)}")
    for flag in m.flags:
        con.print(f"[yellow]flag[/yellow]: {flag}")


def _model_text(model) -> str:
    if model.spec is not None:
        return model.spec
    if model.samples is not None:
        return f"samples {model.samples}" + (f" [{model.column}]" if model.column else "")
    return f"quantile table ({len(model.quantiles['p'])} points)"


@profiles.command("diff")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--changed", is_flag=True, help="Only the parameters that differ [default: every parameter].")
@json_option("Print one JSON object: both profiles' names and every row (parameter, a, b, same).")
@csv_option("Print the rows as CSV: parameter, a, b, same.")
def diff_cmd(a: str, b: str, changed: bool, as_json: bool, as_csv: bool) -> None:
    """Two profiles side by side: every parameter (LogGOPS, noise, prices,
    hardware, Table II figures) with its source, A and B built-in names or
    profile files; the rows that differ are marked. A long list (a quantile
    table) shows as its length, range and a short hash.

    \b
    Examples:
      cloudnoise profiles diff aws-hpc aws-hpc-metal
      cloudnoise profiles diff daint mine/daint.json --changed
      cloudnoise profiles diff gcp-hpc azure-hpc --json
    """
    from cloudnoise.profiles.diff import diff_profiles

    one_of_json_csv(as_json, as_csv)
    pa, pb = resolve_profile(a), resolve_profile(b)
    every = diff_profiles(pa, pb)
    differ = sum(not r.same for r in every)
    rows = [r for r in every if not (changed and r.same)]
    if as_json:
        click.echo(json.dumps({"a": a, "b": b, "parameters": len(every), "differ": differ,
                               "rows": [r.to_dict() for r in rows]}, ensure_ascii=False))
        return
    if as_csv:
        write_csv(("parameter", "a", "b", "same"), ((r.parameter, r.a, r.b, r.same) for r in rows))
        return
    con = stdout_console()
    if not rows:
        con.print(f"{a} and {b}: all {len(every)} parameters are the same (side files are compared by name)")
        return
    t = Table(title=f"{a} (A) and {b} (B): {differ} of {len(every)} parameters differ", box=box.SIMPLE_HEAD,
              caption="≠ marks a parameter that differs; the provenance rows are the sources", title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("parameter", no_wrap=True)
    t.add_column("A", overflow="fold", max_width=DIFF_WIDTH)
    t.add_column("B", overflow="fold", max_width=DIFF_WIDTH)
    for r in rows:
        style = None if r.same else "bold"
        t.add_row("" if r.same else "≠", r.parameter, r.a, r.b, style=style)
    con.print(t)


@profiles.command("copy")
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@json_option(help="Print what was written as JSON.")
def copy_cmd(name: str, folder: Path, as_json: bool) -> None:
    """Copy a profile, its JSON and every side file, into FOLDER (made if needed).

    NAME is a built-in name or a profile file. The copy names its side files
    (noise samples, OS-noise traces) relative to its JSON, as every profile
    does, so it loads from anywhere: edit it, send it, simulate with it.
    A file of the same name with other bytes in FOLDER is never overwritten.

    \b
    Example:
      cloudnoise profiles copy aws-hpc-metal mine/
      cloudnoise simulate --profile mine/aws-hpc-metal.json --pattern dissemination --ranks 64 --size 16B
    """
    from cloudnoise.profiles.copy import copy_files

    copied = copy_files(resolve_profile(name), folder)
    if as_json:
        click.echo(json.dumps(copied.to_dict()))
        return
    extra = f" and {len(copied.side_files)} side file{'s' if len(copied.side_files) != 1 else ''} beside it"
    click.echo(f"copied {name} to {copied.profile}{extra if copied.side_files else ''}")


@profiles.command("build")
@click.option("--artifact", required=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="The paper's artifact data folder (the authors' cloud_noise_data: description.csv and runs).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("cloudnoise-profiles"),
              show_default=True, help="Folder for the profile files and their .npz samples.")
@click.option("--record", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Calibration record for the parts without data [default: the built-in data/calibration.json].")
@click.option("--compare", is_flag=True, help="Then compare the written files with the built-in ones (exit 1 if any differs).")
@click.option("--json", "as_json", is_flag=True, help="Print what each profile was built from as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def build_cmd(artifact: Path, out: Path, record: Path | None, compare: bool, as_json: bool, quiet: bool) -> None:
    """Build the paper's systems from the authors' measurements.

    Every built-in profile of a paper system from its artifact run(s): the
    authors' LogGOPS parameters at both placements and nodes per switch,
    their latency and bandwidth samples, the system's OS-noise trace and
    DGEMM rate, simulated with the authors' semantics (docs/profile-format.md,
    Switch draws). What has no data stays the text-based reconstruction
    (`profiles calibrate`). The built-in files are this command's output:
    `--compare` checks that, bit for bit (about a minute).

    \b
    Examples:
      cloudnoise profiles build --artifact ../shared/paper-artifact --out /tmp/p --compare
    """
    import filecmp
    import sys

    from cloudnoise.profiles.artifact.build import build_profiles, default_record
    from cloudnoise.profiles.registry import DATA_DIR

    say = (lambda m: None) if (quiet or as_json) else (lambda m: click.echo(m, err=True))
    done = build_profiles(artifact, out, record or default_record(), log=say)
    differ: list[str] = []
    if compare:
        names = sorted(p.name for p in DATA_DIR.iterdir() if p.suffix in (".json", ".npz") and p.name != "calibration.json")
        written = sorted(p.name for p in out.iterdir() if p.suffix in (".json", ".npz"))
        for name in sorted(set(names) | set(written)):
            if not (out / name).exists() or not (DATA_DIR / name).exists() or \
                    not filecmp.cmp(out / name, DATA_DIR / name, shallow=False):
                differ.append(name)
    if as_json:
        click.echo(json.dumps({"out": str(out), "profiles": {b.name: b.parts for b in done},
                               **({"differ_from_builtin": differ} if compare else {})}))
    else:
        for b in done:
            if not b.written:
                click.echo(f"{b.name}: " + "; ".join(v.split(":", 1)[1].strip() for v in b.parts.values()
                                                     if v.startswith("none:")))
                continue
            click.echo(f"{b.name}: " + "; ".join(f"{k} from {v.split(':', 1)[0]}" for k, v in b.parts.items()))
        click.echo(f"written to {out}")
        if compare:
            click.echo("identical to the built-in files" if not differ else "differ from the built-in files: " + ", ".join(differ))
    if differ:
        sys.exit(1)


@profiles.command("calibrate")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("cloudnoise-calibration"),
              show_default=True, help="Folder for the calibrated systems' profile files and calibration.json.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Seed of the fit [default: 20220718].")
@click.option("--fit-reps", type=click.IntRange(min=1), default=None, help="Repetitions per evaluation while fitting [default: 100].")
@click.option("--check-reps", type=click.IntRange(min=1), default=None,
              help="Repetitions per configuration when checking the simulated targets [default: 200].")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Engine threads [default: the cores this process may use]; results do not depend on it.")
@click.option("--from-record", "record", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Only rewrite the profiles from this calibration.json's parameters (seconds, no simulation).")
@click.option("--compare", is_flag=True, help="Then compare the written files with the built-in ones (exit 1 if any differs).")
@click.option("--json", "as_json", is_flag=True, help="Print the record's summary as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def calibrate_cmd(out: Path, seed: int | None, fit_reps: int | None, check_reps: int | None, threads: int | None,
                  record: Path | None, compare: bool, as_json: bool, quiet: bool) -> None:
    """Fit the noise of the systems without artifact data to the paper's text.

    The built-in noise of most systems is the authors' measurements
    (`cloudnoise profiles build`). This fits the noise of the others to the
    paper's words: AWS HPC c5n.18xlarge and Oracle Normal (the authors did
    not simulate them), Oracle HPC (its network run is missing from the
    stored artifact), and AWS c5n.metal's latency tail and long OS detours,
    which c5n.18xlarge takes. The fits aim at targets of
    cloudnoise/paper/statements.py's TARGETS (Sec. V-B's statements on
    Fig. 14), never at the held-out statements `cloudnoise paper` checks.
    Writes OUT/NAME.json for each of these systems and OUT/calibration.json:
    the parameters, every fit's evaluations, every target that reads only
    these models with our value, the conflicts between the paper's
    statements and the choice made.

    Deterministic: the same options give the same files bit for bit. The
    built-in files were made with the defaults (about 3 minutes on 2 cores);
    `cloudnoise profiles calibrate --out DIR --compare` checks that for the
    profiles the text alone makes (the systems the authors did not simulate)
    and the record; the others are `cloudnoise profiles build`'s, which
    starts from these (`--record DIR/calibration.json`).

    \b
    Examples:
      cloudnoise profiles calibrate --out calib --compare
      cloudnoise profiles calibrate --from-record src/cloudnoise/profiles/data/calibration.json --out /tmp/p --compare
    """
    import filecmp
    import sys

    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.profiles.calibrate import run as calib
    from cloudnoise.profiles.registry import DATA_DIR

    say = (lambda m: None) if (quiet or as_json) else (lambda m: click.echo(m, err=True))
    if record is not None:
        if any(v is not None for v in (seed, fit_reps, check_reps)):
            raise CloudnoiseError("--from-record rewrites the profiles only: drop --seed/--fit-reps/--check-reps")
        paths = calib.assemble_only(out, record)
        summary = {"written": [str(p) for p in paths]}
    else:
        rec = calib.calibrate(
            out, seed=calib.SEED if seed is None else seed, fit_reps=fit_reps or calib.FIT_REPS,
            check_reps=check_reps or calib.CHECK_REPS, threads=threads, log=say,
        )
        summary = {"out": str(out), "summary": rec["summary"],
                   "disagree": [t["id"] for t in rec["targets"] if not t["agrees"]]}
    differ: list[str] = []
    if compare:
        # The built-ins the text alone makes; the others are `profiles build`'s
        # (the artifact's data over this text-based base).
        from cloudnoise.profiles.artifact.build import text_only_names

        names = sorted(f"{n}.json" for n in text_only_names())
        if record is None:
            names.append("calibration.json")
        for name in names:
            if not (out / name).exists() or not filecmp.cmp(out / name, DATA_DIR / name, shallow=False):
                differ.append(name)
        summary["differ_from_builtin"] = differ
    if as_json:
        click.echo(json.dumps(summary))
    else:
        if "summary" in summary:
            for group, n in summary["summary"].items():
                click.echo(f"{group}: {n['agree']} of {n['total']} targets agree")
            if summary["disagree"]:
                click.echo("disagree: " + ", ".join(summary["disagree"]))
        click.echo(f"written to {out}")
        if compare:
            click.echo("identical to the built-in files" if not differ else "differ from the built-in files: " + ", ".join(differ))
    if differ:
        sys.exit(1)
