"""`cloudnoise model`: turn measurements into a system profile."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cloudnoise.options import accepts_aliases, json_option, out_option


@click.group()
def model() -> None:
    """Build system profiles (LogGOPS parameters, noise models) from measurements."""


@model.command("build")
@click.argument("campaign", type=click.Path(exists=True, file_okay=False, path_type=Path))
@out_option(required=True, help="Profile file to write (JSON); its noise data files go next to it.", old=["--output"])
@click.option("--name", help="Profile name (default: the system label, else the campaign folder).")
@click.option("--on-demand-price", type=float, help="USD per node-hour, on demand.")
@click.option("--committed-price", type=float, help="USD per node-hour, committed use.")
@json_option("Print one JSON object: the profile file written and its parts.")
@accepts_aliases
def build(campaign: Path, out: Path, name: str | None, on_demand_price: float | None,
          committed_price: float | None, as_json: bool) -> None:
    """Write the system profile of CAMPAIGN (a `cloudnoise measure --out` directory)."""
    from cloudnoise.model.build import build_profile

    profile = build_profile(campaign, out, name, on_demand_price, committed_price)
    parts = [k for k in ("loggops", "latency_noise", "bandwidth_noise", "os_noise") if k in profile]
    if as_json:
        click.echo(json.dumps({"out": str(out), "name": profile.get("name"), "parts": parts}))
    else:
        click.echo(f"wrote {out} ({', '.join(parts)}; LogGOPS {profile['loggops']['provenance']['kind']})")
