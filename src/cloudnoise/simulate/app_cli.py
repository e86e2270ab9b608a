"""`cloudnoise simulate --app`: the options and the glue between the app
syntax (cloudnoise.schedules.apps) and the simulate command's output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import format_time_ps

# Keys every variant's result carries for an application (see apps.split_times).
APP_KEYS = ("compute_ns", "communication_ns", "cm_cp_ratio", "communication_median_ns", "cm_cp_ratio_median")


def app_options(func):  # type: ignore[no-untyped-def]
    """Adds --app, --iterations and --gflops."""
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
            help="Flop rate for gemm:N phases (2N^3/rate) instead of DGEMM timed on this machine.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def app_schedule(goal_file: Path | None, opts: dict[str, Any]) -> Any:
    """The application `--app` describes, generated; records it in opts."""
    from cloudnoise.schedules.apps import app_from, resolve

    if goal_file is not None or opts.get("pattern") is not None:
        raise CloudnoiseError("give one of a GOAL file, --pattern or --app")
    for name in ("size", "nb"):
        if opts.get(name) is not None:
            raise CloudnoiseError(f"--{name} goes with --pattern; with --app give it on the phase (e.g. dissemination:128KiB)")
    app = resolve(app_from(opts["app"]), ranks=opts.get("ranks"), iterations=opts.get("iterations"), gflops=opts.get("gflops"))
    opts["application"] = app
    opts["source"] = app.label()
    return app.generate()


def check_no_app_options(opts: dict[str, Any]) -> None:
    for name in ("iterations", "gflops"):
        if opts.get(name) is not None:
            raise CloudnoiseError(f"--{name} goes with --app")


def attach(results: dict[str, Any], opts: dict[str, Any]) -> None:
    """Adds the application and its compute/communication split to every variant's result."""
    app = opts.get("application")
    if app is None:
        return
    from cloudnoise.schedules.apps import split_times

    for r in results.values():
        r.extra["application"] = app.describe()
        r.extra.update(split_times(app, r.runtime_ns))


def variant_keys(result: Any) -> dict[str, Any]:
    """The application keys of one variant, for the JSON `variants` map."""
    return {k: result.extra[k] for k in APP_KEYS if k in result.extra}


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
