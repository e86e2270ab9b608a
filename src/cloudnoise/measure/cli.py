"""`cloudnoise measure <experiment>`: measure a system with MPI probes.

Each experiment of the paper (Sec. III-IV) is a subcommand; every sample is
kept in a campaign directory (``--out``), and the summary is printed as an
OSU-like table or, with ``--json``, as one JSON object whose ``results`` has
one row per message size (``size_bytes``, ``min_us``, ``median_us``,
``mean_us``, ``max_us`` of RTT/2, ``bandwidth_gbps`` = size / min RTT/2).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import click

from cloudnoise import limits
from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError, shown
from cloudnoise.measure.experiments import LOGGP_ROUNDS, LOGGP_TRAIN
from cloudnoise.options import quiet_option
from cloudnoise.units import parse_size_bytes, parse_wall_seconds

DISTANCES = ("same-rack", "different-racks", "unknown")
# What the probes take: an MPI count is a C int; more iterations than this
# would run for weeks; a launch's timeout in seconds (a week).
MAX_PROBE_MESSAGE_BYTES = 2**31 - 1
MAX_ITERATIONS = 10**9
MAX_TIMEOUT_S = 7 * 24 * 3600.0
MAX_INTERVAL_S = 3600.0
MAX_CONNECTIONS = 4096


def parse_size(text: str) -> int:
    """One probe message size in bytes, in the units every command reads
    (docs/cli.md): `1024`, `64KiB`, `64K` (binary), `1MB` (10^6); at most what
    an MPI count holds (2^31-1)."""
    size = parse_size_bytes(text, "message size")
    if size > MAX_PROBE_MESSAGE_BYTES:
        raise CloudnoiseError(f"message size {shown(text)} is too large: the probes send at most 2^31-1 bytes (2 GiB)")
    return size


def parse_sizes(text: str | None) -> list[int] | None:
    if not text:
        return None
    sizes = [parse_size(t) for t in text.split(",") if t.strip()]
    if any(s < 1 for s in sizes):
        raise CloudnoiseError("message sizes must be at least 1 byte")
    return sizes


def parse_floats(text: str | None, what: str, high: float = MAX_INTERVAL_S) -> list[float] | None:
    """Comma-separated finite numbers in [0, high]."""
    if not text:
        return None
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise CloudnoiseError(f"{what} must be comma-separated numbers, got {shown(text)}") from None
    return [limits.check_range(v, what, 0, high) for v in values]


def parse_whole(text: str | None, what: str, high: int) -> list[int] | None:
    """Comma-separated whole numbers in [1, high]."""
    if not text:
        return None
    from cloudnoise.comma_lists import parse_counts

    values = parse_counts(text, what)
    for v in values:
        limits.check_count(v, what, 1, high)
    return values


def parse_labels(pairs: tuple[str, ...]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CloudnoiseError(f"--label {pair!r} must be KEY=VALUE, e.g. --label system=aws")
        labels[key.strip()] = value.strip()
    if labels.get("distance", "unknown") not in DISTANCES:
        raise CloudnoiseError(f"--label distance= must be one of {', '.join(DISTANCES)}")
    return labels


def unique_campaign_dir(parent: Path) -> Path:
    """A new folder ``cloudnoise-campaign-<UTC time>``, created here and now, so two
    runs started in the same second never share one (``-2``, ``-3``, ... follow)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 10000):
        path = parent / (f"cloudnoise-campaign-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
        except OSError as err:
            raise CloudnoiseError(f"cannot create a campaign folder in {parent}: {err.strerror}; pass --out") from err
    raise CloudnoiseError(f"too many campaign folders for {stamp} in {parent}; pass --out")


def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--ranks", type=click.IntRange(1, limits.MAX_RANKS), help="MPI ranks (ping-pongs: 2 per pair)."),
        click.option("--sizes", help="Message sizes, comma separated (1,1K,16M)."),
        click.option("--iterations", type=click.IntRange(1, MAX_ITERATIONS), help="Timed ping-pongs per size."),
        click.option("--warmup", type=click.IntRange(0, MAX_ITERATIONS), help="Untimed ping-pongs before each size."),
        click.option("--duration", help="How long to measure (noise experiments): seconds, or 10m, 1h, 24h."),
        click.option("--out", "-o", "out", type=click.Path(file_okay=False, path_type=Path),
                     help="Campaign directory (default: ./cloudnoise-campaign-<time>)."),
        click.option("--label", "labels", multiple=True,
                     help="KEY=VALUE recorded with the run: system=, instance=, "
                          "distance=same-rack|different-racks|unknown."),
        click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object."),
        quiet_option("No progress bar on stderr (errors and the note on what an interrupted run kept still print)."),
        click.option("--resume", is_flag=True, help="Continue an interrupted measurement in --out."),
        click.option("--mpicc", help="MPI compiler wrapper (default: mpicc on PATH, else the mpich wheel)."),
        click.option("--mpiexec", help="MPI launcher binary (default: next to mpicc)."),
        click.option("--launcher", default="mpiexec", show_default=True,
                     help="mpiexec, srun, or a template like 'mpirun -np {ranks} {cmd}'."),
        click.option("--hosts", help="Comma-separated hosts (two nodes: ranks split evenly)."),
        click.option("--hostfile", type=click.Path(dir_okay=False), help="Hostfile for the launcher."),
        click.option("--ppn", type=click.IntRange(1, 2**20), help="Processes per node."),
        click.option("--timeout", help="Stop a launch after this long (seconds, or 30m, 2h)."),
        click.option("--min-free", default="1GiB", show_default=True,
                     help="Stop cleanly (resumable) before the disk has less than this free."),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def _run(experiment: str, kw: dict[str, Any]) -> None:
    from cloudnoise.measure.experiments import Options
    from cloudnoise.measure.launcher import LaunchSpec
    from cloudnoise.measure.mpi import find_mpi
    from cloudnoise.measure.report import emit
    from cloudnoise.measure.runner import Request, execute

    hosts = [h for h in (kw.get("hosts") or "").split(",") if h.strip()]
    n_hosts = len(hosts)
    if kw.get("hostfile"):
        try:
            lines = Path(kw["hostfile"]).read_text().splitlines()
        except OSError as err:
            raise CloudnoiseError(f"cannot read --hostfile {kw['hostfile']}: {err.strerror}") from err
        n_hosts = len([ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")])
    inject = None
    if kw.get("inject_detour"):
        try:
            period, dur = (float(x) for x in kw["inject_detour"].split(":"))
        except ValueError as err:
            raise CloudnoiseError("--inject-detour takes PERIOD_US:DURATION_US") from err
        inject = (limits.check_range(period, "--inject-detour period", 0, 1e9, low_open=True),
                  limits.check_range(dur, "--inject-detour duration", 0, 1e9))
    for key in ("ranks", "iterations", "ppn"):
        if kw.get(key) is not None and kw[key] < 1:
            raise CloudnoiseError(f"--{key} must be at least 1")
    duration = parse_wall_seconds(kw["duration"], "--duration") if kw.get("duration") is not None else None
    timeout = parse_wall_seconds(kw["timeout"], "--timeout") if kw.get("timeout") is not None else None
    slice_s = parse_wall_seconds(kw["slice"], "--slice") if kw.get("slice") is not None else None
    min_free = parse_size_bytes(kw.get("min_free") or "1GiB", "--min-free")
    options = Options(
        ranks=kw.get("ranks"),
        sizes=parse_sizes(kw.get("sizes")),
        iterations=kw.get("iterations"),
        warmup=kw.get("warmup"),
        duration_s=duration,
        connections=parse_whole(kw.get("connections"), "--connections", MAX_CONNECTIONS),
        intervals_s=parse_floats(kw.get("intervals"), "--intervals"),
        detours=kw.get("detours"),
        per_core=bool(kw.get("per_core")),
        ppn=kw.get("ppn"),
        hosts=max(1, n_hosts),
        inject=inject,
        train=kw.get("train") or LOGGP_TRAIN,
        rounds=kw.get("rounds") or LOGGP_ROUNDS,
    )
    out = kw.get("out")
    if out is None and kw.get("resume"):
        raise CloudnoiseError("--resume needs --out CAMPAIGN_DIR")
    labels = parse_labels(kw.get("labels") or ())
    mpi = find_mpi(kw.get("mpicc"), kw.get("mpiexec"))
    if out is None:
        out = unique_campaign_dir(Path.cwd())
    request = Request(
        experiment=experiment,
        options=options,
        launch=LaunchSpec(kw.get("launcher") or "mpiexec", hosts, kw.get("hostfile"), kw.get("ppn")),
        out=out,
        labels=labels,
        resume=bool(kw.get("resume")),
        timeout_s=timeout,
        slice_s=slice_s,
        min_free=min_free,
        quiet=bool(kw.get("quiet") or kw.get("as_json")),
    )
    try:
        campaign, summary = execute(request, mpi)
    except OSError as err:
        raise CloudnoiseError(
            f"cannot write the campaign in {out}: {err.strerror or err} (disk full or read-only?)",
            EXIT_RUNTIME) from err
    emit(experiment, campaign, summary, as_json=bool(kw.get("as_json")))


@click.group()
def measure() -> None:
    """Measure latency, bandwidth, connections, burstiness, network noise and
    OS noise with MPI probes, keeping every sample in a campaign directory."""


def _command(name: str, help_text: str, extra: list[Callable[..., Any]] | None = None) -> None:
    def run(**kw: Any) -> None:
        _run(name, kw)

    run.__doc__ = help_text
    cmd = _common(run)
    for opt in reversed(extra or []):
        cmd = opt(cmd)
    measure.command(name)(cmd)


_connections = click.option("--connections", help="Concurrent pairs to use, comma separated (1,2,4,8,16).")
_command("latency", "Ping-pong RTT/2 per message size (default 1 B .. 16 MiB, 1000 iterations).")
_command("bandwidth", "Ping-pong bandwidth (size / RTT/2) per message size.")
_command("connections", "N pairs each ping-ponging size/N concurrently (paper Fig. 1).", [_connections])
_command("bidirectional", "Two simultaneous ping-pongs, one started from each side (Fig. 3).")
_command("burst", "1 MiB ping-pongs with inter-message intervals from 0 to 1 s (Fig. 4).",
         [click.option("--intervals", help="Inter-message intervals in seconds, comma separated.")])
_slice = click.option("--slice", help="Also summarise each slice of this length (e.g. 1h with --duration 24h): "
                                    "does the hour of the day matter?")
_command("latency-noise", "1-byte ping-pong for --duration (default 60 s; the paper: 1h), every sample "
         "timestamped, converted to Parquet as it goes (Fig. 9-10).", [_slice])
_command("bandwidth-noise", "Saturating-size ping-pong for --duration (Fig. 11-12).", [_connections, _slice])
_command("os-noise", "Selfish detour: iterations above 9 x t_min, written as an OS-noise trace (Fig. 8).", [
    click.option("--detours", type=click.IntRange(0, 2**62),
                 help="Stop after this many detours (default 100000; 0: no limit)."),
    click.option("--per-core", is_flag=True, help="One rank per core."),
    click.option("--inject-detour", hidden=True, help="Tests: PERIOD_US:DURATION_US of injected noise."),
])
_command("loggp", "Estimate LogGP(S) parameters (L, o_s, o_r, g, S and L, G, O per size class) from "
                  "Netgauge-style parametrised round trips: ping-pongs, exchanges, send trains with and without "
                  "delays, receives posted before and after their message arrived; 1 B .. 16 MiB, repeated in "
                  "rounds. Prints the parameters with their spread over rounds and every operation's residual "
                  "per size.", [
    click.option("--train", type=click.IntRange(2, 64), help=f"Messages per send train, 2-64 (default {LOGGP_TRAIN})."),
    click.option("--rounds", type=click.IntRange(1, 1000), help=f"Repetitions of the whole size sweep, each a short estimate "
                                            f"(default {LOGGP_ROUNDS})."),
])
