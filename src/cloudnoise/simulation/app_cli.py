"""`cloudnoise simulate --app` and `validate --app`: the options, and the
compute/communication lines of the text summary (the application itself is
built by simulate.inputs and its split attached by the API)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import format_time_ps

def app_options(func):  # type: ignore[no-untyped-def]
    """Adds --app, --iterations, --gflops and --scaling."""
    options = [
        click.option(
            "--app",
            metavar="SPEC|FILE",
            help="Simulate an application: phases joined by '+', e.g. 'gemm:128 + dissemination:128KiB' "
            "(gemm:N, compute:T, PATTERN:SIZE[:nway=K,segmentsize=B,nb=T]), or a TOML app file. Needs --ranks.",
        ),
        click.option("--iterations", type=click.IntRange(min=1), help="Iterations of the application's phases [default: 1, or the app file's]."),
        click.option(
            "--gflops",
            type=click.FloatRange(min=0, min_open=True),
            help="Flop rate (GFLOP/s) for gemm:N phases (2N^3/rate) instead of the --profile's node rate "
            "(its CPU's peak x a stated efficiency, or the DGEMM rate measured there), or DGEMM timed on this machine without one.",
        ),
        click.option(
            "--scaling", type=click.Choice(["weak", "strong"]),
            help="weak: an --app's phases are each rank's work, a --trace extrapolated with --ranks keeps its "
            "compute and message sizes; strong: the app's compute phases are the whole job's, divided over "
            "--ranks, and a trace's compute is divided by N/P, its halo messages sized by its grid's faces "
            "(docs/how-to/traces.md). [default: weak]",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def summary_lines(results: dict[str, Any]) -> list[str]:
    """Compute vs communication, per variant, for the text summary."""
    first = next(iter(results.values()))
    if "compute_ns" not in first.extra:
        return []
    app = first.extra["application"]
    f = lambda ns: format_time_ps(float(ns) * 1000)  # noqa: E731
    lines = []
    for ph in app["phases"]:
        if ph["kind"] == "compute":
            lines.append(f"  {ph['phase']}: {f(ph['duration_ns'])} ({ph['detail'] or ph['method']})")
    lines.append(
        f"Compute on the critical path: {f(first.extra['compute_ns'])} "
        f"({app['iterations']} x {f(first.extra['compute_ns'] / app['iterations'])}); communication = completion - compute:"
    )
    for name, r in results.items():
        ratio = r.extra["cm_cp_ratio_median"]
        lines.append(
            f"  {name}: communication {f(r.extra['communication_median_ns'])}"
            + (f", Cm/Cp {ratio:.3g}" if ratio is not None else "")
            + (" (medians)" if r.reps > 1 else "")
        )
    return lines
