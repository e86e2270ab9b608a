"""`cloudnoise model`: turn measurements into a system profile."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from cloudnoise.options import accepts_aliases, json_option, out_option, quiet_option


@click.group()
def model() -> None:
    """Build system profiles (LogGOPS parameters, noise models) from measurements."""


@model.command("build")
@click.argument("campaign", type=click.Path(exists=True, file_okay=False, path_type=Path))
@out_option(required=True, help="Profile file to write (JSON); its noise data files go next to it.", old=["--output"])
@click.option("--name", help="Profile name (default: the system label, else the campaign folder).")
@click.option("--on-demand-price", type=click.FloatRange(0, 1e6), help="USD per node-hour, on demand.")
@click.option("--committed-price", type=click.FloatRange(0, 1e6), help="USD per node-hour, committed use.")
@click.option("--check", is_flag=True,
              help="Then run a short `cloudnoise validate --suite` (2 ranks, --check-reps each) on this machine "
                   "with the new profile and store its errors in the profile (key `check`, with what it ran on). "
                   "Needs MPI, and the machine the campaign measured. On an imported campaign (measured "
                   "elsewhere): print the profile's predicted collective medians with its noise beside "
                   "noiseless ones instead (--check-reps repetitions each).")
@click.option("--check-reps", type=click.IntRange(min=1), default=100, show_default=True,
              help="With --check: repetitions per suite configuration.")
@click.option("--mpicc", help="With --check: MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel).")
@click.option("--mpiexec", help="With --check: MPI launcher binary (default: next to mpicc).")
@click.option("--allow-missing", is_flag=True,
              help="Build the profile even when an experiment the campaign lists has no data (a warning names "
                   "what was left out); without it, that is an error.")
@click.option("--latency-model", type=click.Choice(["auto", "stalls", "iid"]), default="auto", show_default=True,
              help="auto: where the latency series' order shows stalls that come in time (bursty or periodic), "
                   "model them as stalls in time that hold the host's sends, unless their profile misses its own "
                   "latency closure where per-message draws close it (then per-message draws), or the bandwidth "
                   "series refutes them (its large transfers do not wait for them: then they hold messages up to the "
                   "eager limit only); each alternative builds the profile again, and the closure's stall model says "
                   "which was kept and why; where its "
                   "sums of consecutive round trips persist, add the state in time (of the whole distribution, its "
                   "body or its tail, or none) whose replay gives them back (docs/profile-format.md); where it "
                   "stands at two levels a round trip's two messages share and per-message draws miss its closure, "
                   "build again with levels on one clock for every host, kept where they give the series back more "
                   "closely; where its long round trips are one stall each that another rarely follows and the "
                   "profile still misses its closure, build again with stalls that recur on one clock "
                   "(model/recurring_stalls.py), kept on the same rule (held to messages up to the eager limit where "
                   "the bandwidth series refutes them); "
                   "stalls: stalls in time for every message wherever the series shows them, without that choice "
                   "or levels; "
                   "iid: draw every sample per message (the paper's semantics).")
@click.option("--bandwidth-model", type=click.Choice(["auto", "iid"]), default="auto", show_default=True,
              help="auto: where the bandwidth series' order shows drops that persist in time, model them as "
                   "bandwidth episodes per sending host and draw the rest per message (docs/explanation/measurement.md); "
                   "iid: draw every sample per message (the paper's semantics).")
@click.option("--as-paper", is_flag=True,
              help="Build the latency and bandwidth noise as the paper's authors did: every sample a per-message "
                   "draw of the round trip's excess, halved (RTT/2 over the median RTT/2), with the OS noise the "
                   "round trips hold counted again by the OS-noise trace (implies --latency-model iid "
                   "--bandwidth-model iid). Without it, the noise is counted once: the per-message latency noise "
                   "of which two draws and the OS noise give back the measured round trips (docs/profile-format.md).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
              help="Seed of the engine's replays (the OS part counted against, the latency state's choice, "
                   "and the closure).")
@json_option("Print one JSON object: the profile file written, its parts, its closure and what the campaign "
             "measured (and the check).")
@quiet_option("No notes on stderr (a second build and why; with --check, no progress bar); warnings and errors "
              "still print.")
@accepts_aliases
def build(campaign: Path, out: Path, name: str | None, on_demand_price: float | None,
          committed_price: float | None, allow_missing: bool, check: bool, check_reps: int, mpicc: str | None,
          mpiexec: str | None, latency_model: str, bandwidth_model: str, as_paper: bool, seed: int, as_json: bool,
          quiet: bool) -> None:
    """Write the system profile of CAMPAIGN (a `cloudnoise measure --out` directory).

    The profile and its data files are written only once all of it is built
    and loads back, so a failed build leaves an earlier profile as it was.
    Then the profile replays its own latency series (back-to-back ping-pongs
    through the engine, as many as measured) and prints how the replay's
    round trips compare with the measured ones (`closure` in the profile),
    and what the campaign measured: its pairs of hosts, its duration, its
    time in stalls, its load, with flags where the profile should not be
    trusted as a whole.

    \b
    Examples:
      cloudnoise model build here -o here.json
      cloudnoise model build here -o here.json --check
      cloudnoise model build here -o paper-way.json --as-paper
    """
    from cloudnoise.model.build import build_profile

    def say(text: str) -> None:
        click.echo(f"model build: {text}", err=True)

    profile = build_profile(campaign, out, name, on_demand_price, committed_price, allow_missing, latency_model,
                            bandwidth_model, as_paper=as_paper, seed=seed,
                            say=None if quiet or as_json else say)
    for part in profile["missing"]:
        click.echo(f"cloudnoise: warning: left out of the profile: {part}", err=True)
    parts = [k for k in ("loggops", "latency_noise", "bandwidth_noise", "os_noise") if k in profile]
    doc: dict = {"out": str(out), "name": profile.get("name"), "parts": parts}
    if profile.get("compared_with_tool"):
        doc["compared_with_tool"] = profile["compared_with_tool"]
    split = profile.get("latency_split")
    if split is not None:
        doc["latency_split"] = split
    bw_split = profile.get("bandwidth_split")
    if bw_split is not None:
        doc["bandwidth_split"] = bw_split
    for key in ("gap_bound", "latency_level", "bandwidth_level", "latency_state", "shared_levels", "recurring_stalls",
                "counted_once",
                "closure", "bandwidth_closure", "stall_choice", "campaign"):
        if profile.get(key) is not None:
            doc[key] = profile[key]
    if not as_json:
        click.echo(f"wrote {out} ({', '.join(parts)}; LogGOPS {profile['loggops']['provenance']['kind']})")
        if split is not None:
            what = (f"stalls in time + per-message remainder: {split['why']}" if split["used"]
                    else f"per-message draws: {split['why']}")
            click.echo(f"latency noise: {what}")
        state = profile.get("latency_state")
        if state is not None:
            click.echo(f"latency state: {'in time, per sending host' if state['used'] else 'none'}: {state['why']}")
        levels = profile.get("shared_levels")
        if levels is not None and levels["found"]:
            click.echo(f"latency levels: {'in time, shared by every host' if levels['used'] else 'none'}: "
                       f"{levels['lower_ns'] / 1e3:.4g} and {levels['upper_ns'] / 1e3:.4g} us "
                       f"({100 * levels['upper_share']:.3g}% at the upper); {levels['why']}")
        recurring = profile.get("recurring_stalls")
        if recurring is not None and recurring["found"]:
            click.echo(f"recurring stalls: {'in time, on one clock for every host' if recurring['used'] else 'none'}: "
                       f"{100 * recurring['stall_share']:.3g}% of round trips, one every "
                       f"{recurring['cycle_ns'] / 1e3:.3g} us; {recurring['why']}")
        gap = profile.get("gap_bound")
        if gap is not None and gap["capped"]:
            click.echo(f"gap: g {gap['fitted_g_ns']:.5g} -> {gap['g_ns']:.5g} ns, the latency series' first-percentile "
                       "round trip (its back-to-back pings show one host's sends that close; model/gap_bound.py)")
        level = profile.get("latency_level")
        if level is not None and level["L_moved_by_ns"]:
            click.echo(f"latency level: every L moved by {level['L_moved_by_ns']:+.5g} ns, so that the noiseless round "
                       f"trip is the latency series' median {level['median_round_trip_ns']:.5g} ns (the fitted "
                       f"{level['fitted_noiseless_round_trip_ns']:.5g} ns ran at another level)")
        if bw_split is not None:
            what = (f"drops in time + per-message remainder: {bw_split['why']}" if bw_split["used"]
                    else f"per-message draws: {bw_split['why']}")
            click.echo(f"bandwidth noise: {what}")
        bw_level = profile.get("bandwidth_level")
        if bw_level is not None and (bw_level["G_moved"], bw_level["O_moved"]) != (bw_level["G_fitted"],
                                                                              bw_level["O_fitted"]):
            line = (f"bandwidth level: G {bw_level['G_fitted']:.6g} -> {bw_level['G_moved']:.6g} ns/B, O "
                    f"{bw_level['O_fitted']:.6g} -> {bw_level['O_moved']:.6g} ns/B for {bw_level['size_bytes']} B "
                    f"messages, so that their noiseless round trip at the median bandwidth is the series' median "
                    f"{bw_level['median_round_trip_ns']:.6g} ns (the fitted "
                    f"{bw_level['fitted_noiseless_round_trip_ns']:.6g} ns ran at another level)")
            if bw_level["residual_ns"] < -max(1.0, 1e-3 * bw_level["median_round_trip_ns"]):
                line += (f"; with no per-byte cost it is {bw_level['moved_noiseless_round_trip_ns']:.6g} ns: the "
                         "overheads alone exceed the median")
            click.echo(line)
        if profile.get("compared_with_tool"):
            from cloudnoise.model.tool_table import print_compared

            print_compared(profile["compared_with_tool"])
        from cloudnoise.model.closure_table import print_closure, print_campaign

        for key in ("closure", "bandwidth_closure"):
            if profile.get(key) is not None:
                print_closure(profile[key])
        print_campaign(profile.get("campaign"))
    if check and "source=netgauge" in profile.get("labels", []):
        # Measured elsewhere: nothing to run here; what its noise predicts instead.
        from cloudnoise.validation.predicted_collectives import predicted_collectives, print_predicted

        rows = predicted_collectives(out, reps=check_reps)
        doc["predicted"] = rows
        if not as_json:
            print_predicted(rows, str(profile.get("name")))
    elif check:
        # The check runs the validate stage on the new profile; the stage
        # itself stores the result through the profile format's API.
        from cloudnoise.validation.suite import check_profile, print_suite

        result = check_profile(out, reps=check_reps, mpicc=mpicc, mpiexec=mpiexec,
                               quiet=quiet or as_json or not sys.stderr.isatty())
        doc["check"] = {k: result[k] for k in ("median_abs_error", "worst_abs_error", "worst", "machine_state")}
        if not as_json:
            print_suite(result)
            click.echo(f"stored the check in {out}: median |error| {result['median_abs_error']:.1%}, "
                       f"worst {result['worst_abs_error']:.1%} ({result['worst']})")
    if as_json:
        click.echo(json.dumps(doc))
