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
@click.option("--on-demand-price", type=float, help="USD per node-hour, on demand.")
@click.option("--committed-price", type=float, help="USD per node-hour, committed use.")
def build(campaign: Path, out: Path, name: str | None, on_demand_price: float | None,
          committed_price: float | None) -> None:
    """Write the system profile of CAMPAIGN (a `cloudnoise measure --out` directory)."""
    from cloudnoise.model.build import build_profile

    profile = build_profile(campaign, out, name, on_demand_price, committed_price)
    parts = [k for k in ("loggops", "latency_noise", "bandwidth_noise", "os_noise") if k in profile]
    click.echo(f"wrote {out} ({', '.join(parts)}; LogGOPS {profile['loggops']['provenance']['kind']})")
