"""The `cloudnoise` command line: one subcommand per stage of
measure -> model -> simulate -> explain -> cost -> report.

Subcommands are imported lazily so `cloudnoise --help` stays fast and a
stage's heavy imports (pyarrow, matplotlib, MPI discovery) happen only when
that stage runs.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import click

from cloudnoise.version import __version__
from cloudnoise.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, expected_error

# name -> (module, attribute, one-line help shown in `cloudnoise --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "simulate": ("cloudnoise.simulation.cli", "simulate", "Simulate a GOAL schedule with LogGOPS."),
    "explain": ("cloudnoise.explanation.cli", "explain", "Why a run takes its time: its critical path by kind, what each noise costs."),
    "profiles": ("cloudnoise.profiles.cli", "profiles", "List, show, compare and copy system profiles."),
    "cost": ("cloudnoise.costs.cli", "cost", "Price runs, the cost of noise, and the cheapest system."),
    "schedule": ("cloudnoise.schedules.cli", "schedule", "Generate collective schedules (Schedgen patterns) as GOAL."),
    "measure": ("cloudnoise.measurement.cli", "measure", "Measure latency, bandwidth and noise with MPI probes."),
    "model": ("cloudnoise.model.cli", "model", "Build a system profile from a measurement campaign."),
    "demo": ("cloudnoise.demo.cli", "demo", "Measure this machine, simulate it beside the paper's systems at scale, price it, report."),
    "validate": ("cloudnoise.validation.cli", "validate", "Run a schedule on real MPI and compare it with the simulation."),
    "report": ("cloudnoise.report.cli", "report", "Write an HTML report with figures (PNG, PDF) and observations."),
    "sweep": ("cloudnoise.sweep.cli", "sweep", "Scalability sweeps: systems x nodes x noise x repetitions, on Dask."),
    "advise": ("cloudnoise.advice.cli", "advise", "Which system, how many nodes, at what cost and risk: Pareto front, p99, deadline odds."),
    "trace": ("cloudnoise.trace.cli", "trace", "Record an MPI application's calls; convert, show and extrapolate traces."),
    "paper": ("cloudnoise.paper.cli", "paper", "Reproduce the paper's Sec. V statements with the built-in profiles."),
}


class OutputClosed(Exception):
    """The reader of stdout went away (`| head`). Not an OSError, so that
    click, which turns a broken pipe into a silent exit 1, lets it reach main()."""


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as err:
            raise OutputClosed() from err

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
    """Entry point: runs the CLI; the one place every failure becomes one line.

    Expected errors (CloudnoiseError, usage errors, and what any input can
    provoke: see errors.expected_error) print `cloudnoise: error: ...` and
    exit with their status (2 for bad input). Ctrl-C exits 130. Anything else
    is a bug: one line naming it and the file holding its traceback, exit 1.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    # `kill` stops every command as Ctrl-C does: what a command writes through a
    # temporary folder (an import, a profile build, a measurement's chunks) is
    # cleaned up or kept by the same except-paths, instead of dying mid-write.
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        cli.main(args=args, prog_name="cloudnoise", standalone_mode=False)
        sys.stdout.flush()  # here, not at exit, where a closed reader would cost a traceback
    except (KeyboardInterrupt, click.exceptions.Abort):
        _fail("cloudnoise: interrupted", EXIT_INTERRUPTED)
    except (BrokenPipeError, OutputClosed):
        # The reader of our output went away (`| head`): nothing left to say.
        _quiet_stdout()
        sys.exit(0)
    except click.exceptions.UsageError as err:
        where = f" (see `{err.ctx.command_path} --help`)" if err.ctx is not None else ""
        _fail(f"cloudnoise: error: {_one_line(err.format_message())}{where}", EXIT_USAGE)
    except click.ClickException as err:
        _fail(f"cloudnoise: error: {_one_line(err.format_message())}", EXIT_USAGE)
    except Exception as err:  # noqa: BLE001 - the one place that sorts every failure
        expected = expected_error(err)
        if expected is not None:
            _fail(f"cloudnoise: error: {_one_line(str(expected))}", expected.exit_code)
        from cloudnoise.crash_report import write_crash_report

        path = write_crash_report(err, args)
        where = f"the full traceback is in {path}" if path else "no folder could take its traceback"
        _fail(
            f"cloudnoise: internal error: {type(err).__name__}: {_one_line(str(err))[:200]} "
            f"(a bug in cloudnoise; {where}; please report it)",
            EXIT_INTERNAL,
        )


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so Python's exit flush stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _fail(message: str, status: int) -> None:
    try:
        click.echo(message, err=True)
    except OSError:
        pass
    sys.exit(status)


if __name__ == "__main__":
    main()
