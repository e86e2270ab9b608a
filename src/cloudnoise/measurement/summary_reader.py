"""Read a measured experiment back for the later stages (model build, report), in bounded memory.

The statistics come from the experiment's streaming summaries
(``stream.json``, see ``cloudnoise.measurement.stream``); a campaign measured
before they existed (one ``samples.parquet`` file) is summarised the same way
from its Parquet, one batch of rows at a time. Sample-level views go through
:func:`iter_samples`, which yields the Parquet a row group at a time: no
reader ever holds a whole column of an hour-long run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.arrow_columns import to_int64
from cloudnoise.measurement.campaign import Campaign
from cloudnoise.measurement.experiments import Run
from cloudnoise.measurement.rows import measuring_groups
from cloudnoise.measurement.samples import KIND_RTT
from cloudnoise.measurement.stream import PARQUET_DIR, STATE, Stream
from cloudnoise.measurement.summaries import StreamStats

BATCH_ROWS = 1 << 20


@dataclass
class ExperimentStats:
    """One experiment's plan and its ping-pong summaries per (pairs, size, param) of the measuring runs."""

    root: Path
    experiment: str
    runs: list[Run]
    groups: dict[tuple[int, int, int], StreamStats]
    slices: list[tuple[int, int, int, int, StreamStats]] = field(default_factory=list)
    slice_s: float | None = None
    origins: dict[str, int] = field(default_factory=dict)

    @property
    def parquet(self) -> Path:
        return self.root / self.experiment / PARQUET_DIR

    def by_size(self) -> dict[int, StreamStats]:
        """Size -> stats merged over pairs and intervals."""
        out: dict[int, StreamStats] = {}
        for (_, size, _), s in self.groups.items():
            out.setdefault(size, StreamStats()).merge(s)
        return out

    @property
    def mode(self) -> str:
        measuring = [r for r in self.runs if r.role == "measure"]
        return measuring[0].mode if measuring else "pingpong"


def _plan(root: Path, experiment: str) -> list[Run]:
    try:
        meta = json.loads((root / "metadata.json").read_text())
        plan = meta["experiments"][experiment]["plan"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CloudnoiseError(f"{root}: cannot read the {experiment} plan from metadata.json ({err})") from None
    if not isinstance(plan, list):
        raise CloudnoiseError(f"{root}/metadata.json: the {experiment} plan is not a list")
    return [Run.from_dict(r) for r in plan]


def experiment_stats(root: Path, experiment: str) -> ExperimentStats | None:
    """The experiment's summaries, or None when it has no samples."""
    exp_dir = root / experiment
    if not (exp_dir / PARQUET_DIR).exists():
        return None
    runs = _plan(root, experiment)
    if (exp_dir / STATE).is_file():
        stream = Stream(Campaign(root), experiment)
        return ExperimentStats(root, experiment, runs, measuring_groups(stream.pingpong_groups(), runs),
                               stream.slice_groups(), stream.slice_s, dict(stream.origins))
    return ExperimentStats(root, experiment, runs, _groups_from_parquet(exp_dir / PARQUET_DIR, runs))


def _groups_from_parquet(path: Path, runs: list[Run]) -> dict[tuple[int, int, int], StreamStats]:
    """Summaries of a campaign written before streaming summaries (one value per sample)."""
    groups: dict[tuple[int, int, int], StreamStats] = {}
    measuring = {i for i, r in enumerate(runs) if r.role == "measure"}
    for batch in iter_samples(path, ("run", "size_bytes", "param", "value_ns")):
        keep = np.isin(batch["run"], list(measuring))
        for (run, size, param) in {(int(a), int(b), int(c)) for a, b, c in
                                   zip(batch["run"][keep], batch["size_bytes"][keep], batch["param"][keep])}:
            sel = keep & (batch["run"] == run) & (batch["size_bytes"] == size) & (batch["param"] == param)
            groups.setdefault((runs[run].pairs, size, param), StreamStats()).add(batch["value_ns"][sel])
    return dict(sorted(groups.items()))


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.glob("*.parquet") if not p.name.startswith("."))


def iter_samples(path: Path, columns: tuple[str, ...], rtt_only: bool = True) -> Iterator[dict[str, np.ndarray]]:
    """Ping-pong samples of a Parquet file or folder, a row group (or batch) at a time, as int64
    numpy columns (``time`` as ns since the epoch, whatever its stored unit; dictionary
    columns as their codes; ``param`` also read from ``interval_ns``)."""
    for f in _files(path):
        try:
            pf = pq.ParquetFile(f, read_dictionary=["kind"])
            names = pf.schema_arrow.names
            source = {"param": "param" if "param" in names else "interval_ns"}
            want = [source.get(c, c) for c in columns] + (["kind"] if rtt_only and "kind" not in columns else [])
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=want):
                out: dict[str, np.ndarray] = {c: to_int64(batch.column(source.get(c, c))) for c in columns}
                if rtt_only:
                    kinds = batch.column("kind")
                    code = KIND_RTT
                    if pa.types.is_dictionary(kinds.type):
                        names_ = kinds.dictionary.to_pylist()
                        code = names_.index("rtt") if "rtt" in names_ else -1
                    rtt = to_int64(kinds.indices if pa.types.is_dictionary(kinds.type) else kinds) == code
                    if not rtt.all():
                        out = {k: v[rtt] for k, v in out.items()}
                yield out
        except (OSError, pa.ArrowException) as err:
            raise CloudnoiseError(f"{f}: cannot read samples ({err})") from None
