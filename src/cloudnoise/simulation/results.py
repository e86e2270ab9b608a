"""Every repetition of a simulation as a table users load in pandas:
one row per (variant, repetition) with its completion time."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError
from cloudnoise.output_files import atomic_write
from cloudnoise.simulation.api import SimulationResult

# --out's suffix chooses the format (docs/cli.md): anything else is an error.
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def check_out(path: Path) -> str:
    """The format `path`'s suffix names, or an error before anything is simulated."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CloudnoiseError(
            f"--out {path}: unknown suffix {path.suffix or '(none)'!r}; name a .parquet or .csv file"
        )
    if path.is_dir():
        raise CloudnoiseError(f"--out {path}: is a directory; name a .parquet or .csv file")
    if not path.parent.is_dir():
        raise CloudnoiseError(f"--out {path}: directory {path.parent} does not exist")
    return fmt


def repetitions_table(results: dict[str, SimulationResult]) -> pa.Table:
    variants, reps, ends, seeds = [], [], [], []
    # applications (simulate --app) add their compute/communication split
    app_cols: dict[str, list] = {"compute_ns": [], "communication_ns": [], "cm_cp_ratio": []}
    is_app = all("communication_ns" in r.extra for r in results.values())
    for name, r in results.items():
        n = len(r.runtime_ns)
        variants += [name] * n
        reps += list(range(n))
        ends += [float(x) for x in r.runtime_ns]
        seeds += [r.seed] * n
        if is_app:
            app_cols["compute_ns"] += [float(r.extra["compute_ns"])] * n
            app_cols["communication_ns"] += [float(x) for x in r.extra["communication_ns"]]
            app_cols["cm_cp_ratio"] += [None if x is None else float(x) for x in r.extra["cm_cp_ratio"]]
    first = next(iter(results.values()))
    meta = {
        "source": first.source,
        "ranks": str(first.ranks),
        "params_ns": json.dumps(first.params.as_ns()),
    }
    return pa.table(
        {
            "variant": pa.array(variants, pa.string()),
            "rep": pa.array(reps, pa.int64()),
            "runtime_ns": pa.array(ends, pa.float64()),
            "seed": pa.array(seeds, pa.uint64()),
            **({k: pa.array(v, pa.float64()) for k, v in app_cols.items()} if is_app else {}),
        },
        metadata={f"cloudnoise.{k}": v for k, v in meta.items()},
    )




def write_repetitions(path: Path, results: dict[str, SimulationResult]) -> None:
    """Writes Parquet or CSV (by suffix), atomically: an interrupted or failed
    write leaves the file an earlier run wrote as it was."""
    fmt = check_out(path)
    table = repetitions_table(results)
    try:
        if fmt == "csv":
            atomic_write(path, lambda tmp: pacsv.write_csv(table, tmp))
        else:
            atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    except OSError as err:
        raise CloudnoiseError(f"--out {path}: cannot write ({err.strerror or err})") from None
