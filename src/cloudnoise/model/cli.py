"""`cloudnoise model`: turn measurements into a system profile."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def model() -> None:
    """Build system profiles (LogGOPS parameters, noise models) from measurements."""


@model.command("build")
@click.argument("campaign", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Profile file to write (JSON); its noise data files go next to it.")
@click.option("--name", help="Profile name (default: the system label, else the campaign folder).")
@click.option("--on-demand-price", type=click.FloatRange(0, 1e6), help="USD per node-hour, on demand.")
@click.option("--committed-price", type=click.FloatRange(0, 1e6), help="USD per node-hour, committed use.")
@click.option("--allow-missing", is_flag=True,
              help="Build the profile even when an experiment the campaign lists has no data (a warning names "
                   "what was left out); without it, that is an error.")
def build(campaign: Path, out: Path, name: str | None, on_demand_price: float | None,
          committed_price: float | None, allow_missing: bool) -> None:
    """Write the system profile of CAMPAIGN (a `cloudnoise measure --out` directory).

    The profile and its data files are written only once all of it is built
    and loads back, so a failed build leaves an earlier profile as it was.
    """
    from cloudnoise.model.build import build_profile

    profile = build_profile(campaign, out, name, on_demand_price, committed_price, allow_missing)
    for part in profile["missing"]:
        click.echo(f"cloudnoise: warning: left out of the profile: {part}", err=True)
    parts = [k for k in ("loggops", "latency_noise", "bandwidth_noise", "os_noise") if k in profile]
    click.echo(f"wrote {out} ({', '.join(parts)}; LogGOPS {profile['loggops']['provenance']['kind']})")
