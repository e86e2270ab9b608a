"""`cloudnoise report`: one self-contained HTML page, with every figure also
as PNG and PDF, from measurement campaigns, sweep results and profiles."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cloudnoise.errors import CloudnoiseError


def _split_profiles(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise CloudnoiseError(f"--profiles: no profile name in {text!r}")
    return names


@click.command("report")
@click.option("--campaign", "campaigns", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="A measurement campaign (`cloudnoise measure --out DIR`); repeatable.")
@click.option("--sweep", "sweeps", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Sweep results (`cloudnoise sweep`); repeatable.")
@click.option("--profiles", metavar="A,B,C",
              help="Systems for the Table II rows (built-in names or profile files) [default: every built-in].")
@click.option("--pricing", default="on-demand", show_default=True, metavar="on-demand|committed|spot:F|PRICE",
              help="Price per node-hour for the cost of runs.")
@click.option("--title", default="cloudnoise report", show_default=True, help="Title of the page.")
@click.option("-o", "--out", "outdir", required=True, type=click.Path(path_type=Path), metavar="OUTDIR",
              help="Where report.html and figures/ go (created if missing).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: report, figures, observations.")
def report(campaigns: tuple[Path, ...], sweeps: tuple[Path, ...], profiles: str | None, pricing: str,
           title: str, outdir: Path, as_json: bool) -> None:
    """Write OUTDIR/report.html (self-contained: inline CSS, embedded figures)
    and OUTDIR/figures/NAME.png + NAME.pdf: the Table II-style table, latency
    and bandwidth versus size, latency, bandwidth and OS noise over time,
    scalability boxplots (Fig. 14-15), the cost increase due to noise
    (Fig. 16-17), and observations computed from the data.

    \b
    Examples:
      cloudnoise report --campaign camp/ -o out/
      cloudnoise report --sweep sweeps/fig14 --pricing spot:0.3 -o out/ --json
    """
    from cloudnoise.report.build import ReportOptions, build_report, document
    from cloudnoise.report.html import write

    opts = ReportOptions(outdir=outdir, campaigns=campaigns, sweeps=sweeps, profiles=_split_profiles(profiles),
                         pricing=pricing, title=title)
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
