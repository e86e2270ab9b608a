"""`cloudnoise.measure(...)`: run one measurement experiment from Python.

The command line (`cloudnoise measure EXPERIMENT ...`) is a thin layer over
this function: both check their arguments in `measure.arguments`, run the
probes through `measure.runner` and describe the campaign with
`measure.report.document`, so `MeasurementResult.to_dict()` is what
`--json` prints.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise import limits
from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement import arguments
from cloudnoise.measurement.experiments import LOGGP_ROUNDS, LOGGP_TRAIN
from cloudnoise.units import parse_size_bytes, parse_wall_seconds

EXPERIMENTS = ("latency", "bandwidth", "connections", "bidirectional", "burst", "latency-noise", "bandwidth-noise",
               "os-noise", "loggp")


@dataclass(frozen=True)
class MeasurementResult:
    """What one measurement left in its campaign folder, summarised.

    `results` holds one row per message size (ping-pongs: `size_bytes`,
    `samples`, `min_us`, `median_us`, `mean_us`, `p99_us`, `max_us`,
    `bandwidth_gbps`; `connections`/`interval_s` where the experiment varies
    them) or per rank (`os-noise`: detours and noise fraction); `loggp` the
    fitted parameters of the `loggp` experiment; every sample stays in
    `campaign` (a folder `cloudnoise model build` reads)."""

    experiment: str
    campaign: Path
    complete: bool
    samples: int
    results: list[dict[str, Any]]
    document: dict[str, Any] = field(repr=False)

    @property
    def loggp(self) -> dict[str, Any] | None:
        """The `loggp` experiment's fit (parameters per size class, spread over rounds), else None."""
        return self.document.get("loggp")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object `cloudnoise measure EXPERIMENT --json` prints."""
        return dict(self.document)

    def to_pandas(self) -> Any:
        """`results` as a pandas DataFrame, one row per size (or rank), the columns named as in the JSON.
        Needs pandas (pip install pandas): without it, a CloudnoiseError says so."""
        from cloudnoise.optional import import_pandas

        return import_pandas().DataFrame(self.results)


def measure(
    experiment: str,
    *,
    out: str | os.PathLike[str] | None = None,
    ranks: int | None = None,
    sizes: Iterable[int | str] | str | None = None,
    iterations: int | None = None,
    warmup: int | None = None,
    duration: float | str | None = None,
    connections: Iterable[int] | str | None = None,
    intervals: Iterable[float] | str | None = None,
    detours: int | None = None,
    per_core: bool = False,
    slice: float | str | None = None,  # noqa: A002 - the command line's --slice
    train: int = LOGGP_TRAIN,
    rounds: int = LOGGP_ROUNDS,
    labels: Mapping[str, str] | Iterable[str] | None = None,
    resume: bool = False,
    mpicc: str | None = None,
    mpiexec: str | None = None,
    launcher: str = "mpiexec",
    hosts: Iterable[str] | str | None = None,
    hostfile: str | os.PathLike[str] | None = None,
    ppn: int | None = None,
    timeout: float | str | None = None,
    min_free: int | str = "1GiB",
    quiet: bool = True,
    inject_detour: tuple[float, float] | None = None,
) -> MeasurementResult:
    """Runs one measurement `experiment` with the MPI probes and returns its summary.

    `experiment` is one of latency, bandwidth, connections, bidirectional,
    burst, latency-noise, bandwidth-noise, os-noise, loggp (as `cloudnoise
    measure --help` lists them); the keywords are the command's options.
    Sizes are bytes or quantities ("16MiB"; "1MB" is 10^6); `duration`,
    `slice` and `timeout` seconds or durations ("10m", "1h"); None means the
    experiment's default. Every sample stays in the campaign folder `out`
    (default: a new `cloudnoise-campaign-<time>` here), which
    `build_profile` reads; `resume=True` continues an interrupted
    measurement in `out`. `hosts`/`hostfile`/`launcher` ("srun", or a
    template "mpirun -np {ranks} {cmd}") measure between nodes; one machine
    measures shared memory. `quiet=False` draws a progress bar.

    Returns a MeasurementResult: `campaign`, `complete`, `samples`,
    `results` (the printed table's rows), `loggp` (the loggp fit),
    `to_dict()` (what `--json` prints), `to_pandas()`.

    Raises CloudnoiseError on bad arguments (`exit_code` 2, before anything
    runs), a missing MPI or a failed launch (4); an interrupted run raises
    after keeping what it measured in `out` (continue it with `resume=True`).

    `inject_detour` (period, duration in seconds) makes the OS-noise probe
    add a synthetic detour of its own: a test of the probe, not a measurement.
    """
    from cloudnoise.measurement.experiments import Options
    from cloudnoise.measurement.launcher import LaunchSpec
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.measurement.report import document
    from cloudnoise.measurement.runner import Request, execute

    if experiment not in EXPERIMENTS:
        from difflib import get_close_matches

        close = get_close_matches(str(experiment), EXPERIMENTS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (one of {', '.join(EXPERIMENTS)})"
        raise CloudnoiseError(f"unknown experiment {experiment!r}{hint}")
    host_list = arguments.hosts_in(hosts)
    n_hosts = arguments.hostfile_hosts(hostfile) if hostfile else len(host_list)
    if ranks is not None:
        limits.check_count(ranks, "ranks", 1, limits.MAX_RANKS)
    if iterations is not None:
        limits.check_count(iterations, "iterations", 1, arguments.MAX_ITERATIONS)
    if warmup is not None:
        limits.check_count(warmup, "warmup", 0, arguments.MAX_ITERATIONS)
    if ppn is not None:
        limits.check_count(ppn, "ppn", 1, 2**20)
    if detours is not None:
        limits.check_count(detours, "detours", 0, 2**62)
    limits.check_count(train, "train", 2, 64)
    limits.check_count(rounds, "rounds", 1, 1000)
    inject = None
    if inject_detour is not None:
        period, dur = inject_detour
        inject = (limits.check_range(float(period), "inject_detour period", 0, 1e9, low_open=True),
                  limits.check_range(float(dur), "inject_detour duration", 0, 1e9))
    options = Options(
        ranks=ranks,
        sizes=arguments.parse_sizes(sizes),
        iterations=iterations,
        warmup=warmup,
        duration_s=parse_wall_seconds(duration, "--duration") if duration is not None else None,
        connections=arguments.parse_whole(connections, "--connections", arguments.MAX_CONNECTIONS),
        intervals_s=arguments.parse_floats(intervals, "--intervals"),
        detours=detours,
        per_core=bool(per_core),
        ppn=ppn,
        hosts=max(1, n_hosts),
        host_names=host_list,
        inject=inject,
        train=train,
        rounds=rounds,
    )
    timeout_s = parse_wall_seconds(timeout, "--timeout") if timeout is not None else None
    slice_s = parse_wall_seconds(slice, "--slice") if slice is not None else None
    free = parse_size_bytes(min_free, "--min-free")
    if out is None and resume:
        raise CloudnoiseError("--resume needs --out CAMPAIGN_DIR")
    label_map = arguments.parse_labels(labels or ())
    mpi = find_mpi(mpicc, mpiexec)
    folder = Path(out) if out is not None else arguments.unique_campaign_dir(Path.cwd())
    request = Request(
        experiment=experiment,
        options=options,
        launch=LaunchSpec(launcher or "mpiexec", host_list, str(hostfile) if hostfile else None, ppn),
        out=folder,
        labels=label_map,
        resume=bool(resume),
        timeout_s=timeout_s,
        slice_s=slice_s,
        min_free=free,
        quiet=bool(quiet),
    )
    try:
        campaign, summary = execute(request, mpi)
    except OSError as err:
        raise CloudnoiseError(
            f"cannot write the campaign in {folder}: {err.strerror or err} (disk full or read-only?)",
            EXIT_RUNTIME) from err
    doc = document(experiment, campaign, summary)
    return MeasurementResult(
        experiment=experiment,
        campaign=Path(doc["campaign"]),
        complete=bool(doc["complete"]),
        samples=int(doc["samples"]),
        results=list(doc["results"]),
        document=doc,
    )
