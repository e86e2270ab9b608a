"""`cloudnoise report`: one self-contained HTML page, with every figure also
as PNG and PDF, from measurement campaigns, sweep results and profiles."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cloudnoise.options import accepts_aliases, json_option, out_option, profile_names, profile_option


@click.command("report")
@click.option("--campaign", "campaigns", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="A measurement campaign (`cloudnoise measure --out DIR`); repeatable.")
@click.option("--sweep", "sweeps", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Sweep results (`cloudnoise sweep`); repeatable.")
@click.option("--paper", type=click.Path(path_type=Path), metavar="DIR",
              help="A `cloudnoise paper --out DIR` folder: its table of the paper's Sec. V statements as a section.")
@profile_option(multiple=True, old=["--profiles"],
                help="Systems for the Table II rows (built-in names or profile files; repeat or comma list) [default: every built-in].")
@click.option("--pricing", default="on-demand", show_default=True, metavar="on-demand|committed|spot:F|PRICE",
              help="Price per node-hour for the cost of runs.")
@click.option("--billing", default="provider", show_default=True, metavar="provider|exact|STEP[:MIN]",
              help="How runtime is billed: each provider's rule (rounding, minimum charge; as `advise` and `cost`), "
                   "pro rata, or e.g. 1s:60s for every system.")
@click.option("--title", default="cloudnoise report", show_default=True, help="Title of the page.")
@click.option("--log-y", is_flag=True, help="Scalability runtimes on a logarithmic axis [default: linear per panel, as the paper].")
@click.option("--explain", "explain_nodes", metavar="NODES",
              help="Add where the time goes along the critical path (cloudnoise explain): a 16 B dissemination on every "
              "--profile system at these node counts (a comma list: 64,1024), 30 repetitions with the noise each "
              "profile carries, and a timeline of the median and p99 repetition of its 16-rank run.")
@out_option(required=True, dir_okay=True, file_okay=False, help="Folder where report.html and figures/ go (created if missing).")
@json_option("Print one JSON object: report, figures, observations.")
@accepts_aliases
def report(campaigns: tuple[Path, ...], sweeps: tuple[Path, ...], paper: Path | None, profile: tuple[str, ...], pricing: str,
           billing: str, title: str, log_y: bool, explain_nodes: str | None, out: Path, as_json: bool) -> None:
    """Write OUTDIR/report.html (self-contained: inline CSS, embedded figures)
    and OUTDIR/figures/NAME.png + NAME.pdf: the Table II-style table, latency
    and bandwidth versus size, latency, bandwidth and OS noise over time,
    scalability boxplots (Fig. 14-15), the cost increase due to noise
    (Fig. 16-17), the paper's Sec. V statements checked (`cloudnoise paper`),
    where the time goes along the critical path (--explain), and
    observations computed from the data.

    \b
    Examples:
      cloudnoise report --campaign camp/ -o out/
      cloudnoise report --sweep sweeps/fig14 --pricing spot:0.3 -o out/ --json
      cloudnoise report --paper cloudnoise-paper -o out/
      cloudnoise report --profile daint,alps,azure-hpc --explain 64,1024 -o out/
    """
    from cloudnoise.comma_lists import parse_counts
    from cloudnoise.report.build import ReportOptions, build_report, document
    from cloudnoise.report.html import write

    outdir = out
    nodes = tuple(parse_counts(explain_nodes, "--explain", minimum=2)) if explain_nodes else ()
    opts = ReportOptions(outdir=outdir, campaigns=campaigns, sweeps=sweeps, profiles=tuple(profile_names(profile)) or None,
                         pricing=pricing, billing=billing, title=title, log_y=log_y, paper=paper,
                         explain_nodes=nodes)
    rep = build_report(opts)
    path = write(rep)
    if as_json:
        click.echo(json.dumps(document(rep, path), indent=2))
        return
    for gap in rep.gaps:
        click.echo(f"cloudnoise: note: {gap.text}", err=True)
    click.echo(f"report: {path}")
    click.echo(f"figures: {len(rep.figures)} in {outdir / 'figures'} (PNG and PDF)")
    for obs in rep.observations:
        click.echo(f"  - {obs.text}")
