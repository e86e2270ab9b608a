"""Every command follows docs/reference/conventions.md: walks the whole command tree (as `--help`
shows it) and checks option names, the shared options, --json where results are
printed, and that old spellings are hidden aliases that still work."""

from __future__ import annotations

import json
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from cloudnoise.cli import cli

# Spellings docs/reference/conventions.md retired: never shown in --help (hidden aliases at most).
RETIRED = {"--system", "--systems", "--profiles", "--output", "--outdir", "--output-dir", "--format"}
# Commands that only print help-like text, run a user's program, or build a library: no results to print as JSON.
NO_RESULTS = {"trace lib"}
# Commands that print a table (OSU-like or a list): --csv too.
TABLES = {"simulate", "sweep", "cost", "advise", "profiles list", "schedule list",
          *(f"measure {e}" for e in ("latency", "bandwidth", "connections", "bidirectional", "burst", "latency-noise",
                                     "bandwidth-noise", "os-noise", "loggp"))}


def commands() -> Iterator[tuple[str, click.Command]]:
    """(path, command) for every command and group that runs something, as `cloudnoise --help` lists them."""

    def walk(cmd: click.Command, path: list[str], ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
        if isinstance(cmd, click.Group):
            if cmd.invoke_without_command:
                yield " ".join(path), cmd
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None, f"{' '.join(path)} lists {name} but cannot load it"
                yield from walk(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))
        else:
            yield " ".join(path), cmd

    yield from walk(cli, [], click.Context(cli, info_name="cloudnoise"))


ALL = dict(commands())


def visible(cmd: click.Command) -> dict[str, click.Option]:
    return {o: p for p in cmd.params if isinstance(p, click.Option) and not p.hidden for o in (*p.opts, *p.secondary_opts)}


def test_the_tree_is_what_the_docs_name() -> None:
    assert {"simulate", "sweep", "cost", "advise", "report", "demo", "validate", "measure latency", "model build",
            "profiles list", "profiles show", "schedule generate", "trace record"} <= set(ALL)


@pytest.mark.parametrize("path", sorted(ALL))
def test_option_names_follow_docs_cli(path: str) -> None:
    cmd = ALL[path]
    opts = visible(cmd)
    assert not (RETIRED & set(opts)), f"{path}: retired spelling shown: {sorted(RETIRED & set(opts))}"
    if "--out" in opts:
        assert "-o" in opts["--out"].opts, f"{path}: --out without -o"
    if "--quiet" in opts:
        assert "-q" in opts["--quiet"].opts, f"{path}: --quiet without -q"
    if "--seed" in opts:
        seed = opts["--seed"]
        assert isinstance(seed.type, click.IntRange) and seed.type.min == 0, f"{path}: --seed is not an integer >= 0"
    for name in ("--threads", "--workers", "--reps"):
        if name in opts:
            assert isinstance(opts[name].type, click.IntRange), f"{path}: {name} takes any integer"
    if path not in NO_RESULTS:
        assert "--json" in opts, f"{path}: prints results but has no --json"
    if path in TABLES:
        assert "--csv" in opts, f"{path}: prints a table but has no --csv"
    for name, opt in opts.items():
        if name.startswith("--") and name not in ("--help",):
            assert opt.help, f"{path}: {name} has no help text"


@pytest.mark.parametrize("path", sorted(ALL))
def test_help_says_what_and_exits_0(path: str) -> None:
    result = CliRunner().invoke(cli, [*path.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: " in result.output and len(result.output.splitlines()) > 3


@pytest.mark.parametrize(("args", "note"), [
    (["cost", "--system", "daint", "--nodes", "4", "--runtime", "1s", "--json"], "--system is deprecated"),
    (["schedule", "generate", "--pattern", "dissemination", "--ranks", "4", "--size", "8", "--output", "{tmp}/d.goal",
      "--json"], "--output is deprecated"),
])
def test_old_spellings_work_with_a_note(args: list[str], note: str, tmp_path, capsys) -> None:
    from cloudnoise.cli import main

    main([a.replace("{tmp}", str(tmp_path)) for a in args])
    captured = capsys.readouterr()
    json.loads(captured.out)
    assert note in captured.err and captured.err.count("\n") == 1


@pytest.mark.parametrize("args", [["simulate", "--no-such-option"], ["cost", "--profile", "daint", "--nodes", "x"],
                                  ["sweep", "--preset", "nope"], ["profiles", "show", "no-such-system"],
                                  ["measure", "no-such-experiment"], ["nonsense"],
                                  # a required --out that also has an old spelling: neither given
                                  ["schedule", "generate", "--pattern", "gather", "--ranks", "2", "--size", "8"],
                                  ["schedule", "app", "compute:1us", "--ranks", "2"],
                                  ["model", "build", "campaign-that-does-not-matter"]])
def test_wrong_arguments_exit_2_with_one_line(args: list[str], capsys) -> None:
    from cloudnoise.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2, (args, err)
    assert "Traceback" not in err


def test_piped_profile_show_keeps_long_lines_whole() -> None:
    """docs/reference/conventions.md: off a terminal, tables and notes are as wide as they need (no 80-column folding)."""
    import subprocess
    import sys

    from cloudnoise.profiles.registry import resolve_profile

    source = resolve_profile("daint").loggops.provenance.source
    assert len(source) > 120
    out = subprocess.run([sys.executable, "-m", "cloudnoise", "profiles", "show", "daint"], capture_output=True,
                         text=True, check=True).stdout
    assert source[:120] in out
