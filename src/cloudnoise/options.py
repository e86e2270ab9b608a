"""The options every command shares, spelled one way (docs/reference/conventions.md).

Each stage's `cli.py` takes its system, output, JSON, CSV, quiet, seed and
thread options from here, so `--profile`, `--out/-o`, `--json`, `--csv`,
`--quiet/-q`, `--seed` and `--threads` mean the same in every command. Old
spellings (`--system`, `--systems`, `--profiles`, `--output`) stay for one
release as hidden aliases: `accepts_aliases` folds them into the new option
and says on stderr that they are deprecated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from cloudnoise.comma_lists import parse_items, profile_names  # noqa: F401  (the commands' --profile)
from cloudnoise.cores import available_cores
from cloudnoise.errors import CloudnoiseError

F = TypeVar("F", bound=Callable[..., Any])

# Keyword names of alias options: ALIAS_PREFIX + the new option's keyword.
ALIAS_PREFIX = "deprecated_alias__"


def deprecated_alias(old: str, new: str, dest: str, *, multiple: bool = False, **kwargs: Any) -> Callable[[F], F]:
    """A hidden option `old` that stands for `new` (keyword `dest`) for one release."""

    def note(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value not in (None, ()) and not ctx.resilient_parsing:
            click.echo(f"cloudnoise: note: {old} is deprecated and will go; use {new}", err=True)
        return value

    return click.option(old, ALIAS_PREFIX + dest, hidden=True, multiple=multiple, callback=note, expose_value=True, **kwargs)


def accepts_aliases(func: F) -> F:
    """Folds the values of `deprecated_alias` options into their new option's keyword.

    Apply it below the options (closest to the function), so it wraps the
    function itself and the options are registered on the wrapper."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for key in [k for k in kwargs if k.startswith(ALIAS_PREFIX)]:
            value = kwargs.pop(key)
            dest = key[len(ALIAS_PREFIX):]
            if value in (None, ()):
                continue
            current = kwargs.get(dest)
            if isinstance(value, tuple) and isinstance(current, tuple):
                kwargs[dest] = current + value
            elif current not in (None, ()):
                raise CloudnoiseError(f"give the option once: its old and new spellings were both given ({dest})")
            else:
                kwargs[dest] = value
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def require_new_or_old(dest: str, spelling: str) -> Callable[[F], F]:
    """Makes option `dest` required when it has deprecated aliases.

    Click cannot mark the new spelling required (the old one alone must do),
    so the check runs before `accepts_aliases` folds the alias in: one of
    the two must carry a value."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get(dest) in (None, ()) and kwargs.get(ALIAS_PREFIX + dest) in (None, ()):
                raise click.UsageError(f"Missing option '{spelling}'.", click.get_current_context(silent=True))
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def profile_option(*, multiple: bool = False, required: bool = False, help: str | None = None,
                   old: Iterable[str] = ()) -> Callable[[F], F]:
    """`--profile NAME|FILE`: a built-in profile name or a profile file.

    With `multiple`, the option repeats and takes comma lists
    (`--profile aws-hpc,daint --profile alps`); `profile_names` flattens it.
    `old` are deprecated spellings kept as hidden aliases."""
    text = help or (
        "System profiles: built-in names (see `cloudnoise profiles list`) or profile files; repeat the option or give a comma list."
        if multiple else "System profile: a built-in name (see `cloudnoise profiles list`) or a profile file."
    )

    def decorate(func: F) -> F:
        old_spellings = list(old)
        if required and old_spellings:
            func = require_new_or_old("profile", "--profile")(func)
        for spelling in old_spellings:
            func = deprecated_alias(spelling, "--profile", "profile", multiple=multiple, metavar="NAME|FILE")(func)
        return click.option("--profile", "profile", metavar="NAME|FILE", multiple=multiple,
                            required=required and not old_spellings, help=text)(func)

    return decorate


def out_option(*, help: str, required: bool = False, dir_okay: bool = False, file_okay: bool = True,
               default: Any = None, show_default: bool | str = False, old: Iterable[str] = ()) -> Callable[[F], F]:
    """`--out PATH` / `-o PATH`: where results go (a folder or a file; docs/reference/conventions.md)."""
    from pathlib import Path

    kind = click.Path(dir_okay=dir_okay, file_okay=file_okay, path_type=Path)

    def decorate(func: F) -> F:
        old_spellings = list(old)
        if required and old_spellings:
            func = require_new_or_old("out", "--out' / '-o")(func)
        for spelling in old_spellings:
            func = deprecated_alias(spelling, "--out", "out", type=kind)(func)
        # Click 8.3+ treats an explicit default=None as a value, which would
        # silently satisfy required=True: pass a default only when there is one.
        extra = {} if default is None else {"default": default}
        return click.option("--out", "-o", "out", type=kind, required=required and not old_spellings,
                            show_default=show_default, help=help, **extra)(func)

    return decorate


def json_option(help: str = "Print one JSON object on stdout instead of the table (docs/reference/conventions.md).") -> Callable[[F], F]:
    """`--json`: results as one JSON object, nothing else on stdout."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def csv_option(help: str = "Print the table as CSV on stdout.") -> Callable[[F], F]:
    """`--csv`: the printed table as CSV."""
    return click.option("--csv", "as_csv", is_flag=True, help=help)


def quiet_option(help: str = "No progress or notes on stderr (errors still print).") -> Callable[[F], F]:
    """`--quiet` / `-q`."""
    return click.option("--quiet", "-q", is_flag=True, help=help)


def seed_option(help: str = "Seed of every random draw: the same seed gives the same results bit for bit.",
                default: int | None = 0) -> Callable[[F], F]:
    """`--seed N`, an integer in [0, 2^64)."""
    return click.option("--seed", default=default, show_default=default is not None,
                        type=click.IntRange(0, 2**64 - 1), help=help)


def threads_option(help: str = "Threads running repetitions (results do not depend on it).") -> Callable[[F], F]:
    """`--threads N`, default: the cores this process may use."""
    return click.option("--threads", default=available_cores, show_default="the cores this process may use",
                        type=click.IntRange(min=1), help=help)


SCHEDGEN_HELP = ("Whose Schedgen generates the collectives (--pattern, and --app's phases that name none): public "
                 "(spcl's, the default) or paper (the paper authors' modified one: closed pipelinedring, serialised "
                 "binomialtreebcast; `cloudnoise schedule list` shows what differs).")


def schedgen_option(help: str = SCHEDGEN_HELP) -> Callable[[F], F]:
    """`--schedgen public|paper` (keyword `schedgen`, None when not given): whose
    Schedgen generates the collectives (see cloudnoise.schedules.patterns)."""
    return click.option("--schedgen", default=None, metavar="public|paper", help=help)


def one_of_json_csv(as_json: bool, as_csv: bool) -> None:
    """--json and --csv exclude each other."""
    if as_json and as_csv:
        raise CloudnoiseError("give --json or --csv, not both")
