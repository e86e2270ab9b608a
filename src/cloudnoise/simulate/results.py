"""Every repetition of a simulation as a table users load in pandas:
one row per (variant, repetition) with its completion time."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulate.api import SimulationResult


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


OUT_SUFFIXES = (".parquet", ".csv")


def check_out_path(path: Path) -> None:
    """`--out` names a .parquet or .csv file in an existing folder (docs/cli.md: the suffix is the format)."""
    if path.suffix.lower() not in OUT_SUFFIXES:
        raise CloudnoiseError(f"--out {path}: write .parquet or .csv (the suffix chooses the format)")
    if not path.parent.is_dir():
        raise CloudnoiseError(f"--out {path}: directory {path.parent} does not exist")


def write_repetitions(path: Path, results: dict[str, SimulationResult]) -> None:
    """Writes Parquet or CSV (by suffix), to a temporary name renamed when complete."""
    check_out_path(path)
    table = repetitions_table(results)
    tmp = path.with_name(f".tmp-{path.name}")
    try:
        if path.suffix.lower() == ".csv":
            pacsv.write_csv(table, tmp)
        else:
            pq.write_table(table, tmp)
        tmp.replace(path)
    except OSError as err:
        raise CloudnoiseError(f"--out {path}: cannot write ({err.strerror or err})") from None
    finally:
        tmp.unlink(missing_ok=True)
