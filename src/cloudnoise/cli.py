"""The `cloudnoise` command line: one subcommand per stage of
measure -> model -> simulate -> cost -> report.

Subcommands are imported lazily so `cloudnoise --help` stays fast and a
stage's heavy imports (pyarrow, matplotlib, MPI discovery) happen only when
that stage runs.
"""

from __future__ import annotations

import importlib
import sys

import click

from cloudnoise import __version__
from cloudnoise.errors import EXIT_INTERRUPTED, CloudnoiseError

# name -> (module, attribute, one-line help shown in `cloudnoise --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "simulate": ("cloudnoise.simulate.cli", "simulate", "Simulate a GOAL schedule with LogGOPS."),
    "profiles": ("cloudnoise.profiles.cli", "profiles", "List and show built-in system profiles."),
    "cost": ("cloudnoise.cost.cli", "cost", "Price runs, the cost of noise, and the cheapest system."),
    "schedule": ("cloudnoise.schedules.cli", "schedule", "Generate collective schedules (Schedgen patterns) as GOAL."),
    "measure": ("cloudnoise.measure.cli", "measure", "Measure latency, bandwidth and noise with MPI probes."),
    "model": ("cloudnoise.model.cli", "model", "Build a system profile from a measurement campaign."),
    "demo": ("cloudnoise.demo.cli", "demo", "Measure this machine, simulate it beside the paper's systems at scale, price it, report."),
    "validate": ("cloudnoise.validate.cli", "validate", "Run a schedule on real MPI and compare it with the simulation."),
    "report": ("cloudnoise.report.cli", "report", "Write an HTML report with figures (PNG, PDF) and observations."),
    "sweep": ("cloudnoise.sweep.cli", "sweep", "Scalability sweeps: systems x nodes x noise x repetitions, on Dask."),
    "advise": ("cloudnoise.advise.cli", "advise", "Which system, how many nodes, at what cost and risk: Pareto front, p99, deadline odds."),
    "trace": ("cloudnoise.trace.cli", "trace", "Record an MPI application's calls; convert, show and extrapolate traces."),
    "paper": ("cloudnoise.paper.cli", "paper", "Reproduce the paper's Sec. V statements with the built-in profiles."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cloudnoise")
def cli() -> None:
    """cloudnoise: how far will a tightly coupled job scale on this cloud or
    supercomputer, and what will it cost, once network and OS noise count?

    Stages: measure -> model -> simulate -> cost -> report.
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point: runs the CLI and turns known errors into one line."""
    try:
        cli.main(args=argv, prog_name="cloudnoise", standalone_mode=False)
    except CloudnoiseError as err:
        click.echo(f"cloudnoise: error: {err}", err=True)
        sys.exit(err.exit_code)
    except click.exceptions.Abort:
        click.echo("cloudnoise: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("cloudnoise: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as err:
        err.show()
        sys.exit(err.exit_code)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
