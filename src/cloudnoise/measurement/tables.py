"""From 48-byte raw records (``cn_samples.h``: the loggp mode) to per-sample Parquet.

The LogGP experiment is bounded (a fixed count per size), so its records
are collected in memory and written as one ``samples.parquet`` file. Every
other experiment streams its chunk files instead (``cloudnoise.measurement.stream``)
and is summarised by ``cloudnoise.measurement.rows``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.measurement.campaign import Campaign
from cloudnoise.measurement.experiments import Run
from cloudnoise.measurement.samples import KIND_NAMES, KIND_RTT, count_records, read_info, read_records, rank_files
from cloudnoise.measurement.stream import group_codes

COLUMNS = ("run", "part", "rank", "pairs", "kind", "size_bytes", "param", "stream",
           "iteration", "t_ns", "wall_ns", "value_ns")


# Column dtypes as stored: a one-minute latency-noise run on shared memory
# holds tens of millions of samples, so every byte per sample counts.
DTYPES = {"run": np.int32, "part": np.int32, "rank": np.int32, "pairs": np.int32, "kind": np.int8,
          "size_bytes": np.int64, "param": np.int64, "stream": np.int32, "iteration": np.int64,
          "t_ns": np.int64, "wall_ns": np.int64, "value_ns": np.int64, "host": np.int32}


def collect(campaign: Campaign, name: str, runs: list[Run]) -> dict[str, np.ndarray]:
    """Every sample of an experiment as numpy columns (see COLUMNS), plus
    ``host`` (an index into ``host_names``, a 1-element-per-host array).

    Columns are allocated once at their final size and filled file by file,
    so the peak is the samples once plus one file's records."""
    files = []
    for i, run in enumerate(runs):
        for part_no, prefix in enumerate(campaign.parts(name, i)):
            infos = rank_files(prefix, "info")
            for rank, path in rank_files(prefix, "bin").items():
                files.append((i, run, part_no, rank, path, infos.get(rank, Path("/nonexistent")), count_records(path)))
    total = sum(f[6] for f in files)
    out = {c: np.empty(total, DTYPES[c]) for c in (*COLUMNS, "host")}
    host_names: list[str] = []
    at = 0
    for i, run, part_no, rank, path, info_path, counted in files:
        rec = read_records(path)[:counted]  # a probe still writing may have added records since
        n = len(rec)
        if n == 0:
            continue
        info = read_info(info_path)
        offset = int(info.get("clock_wall_ns", 0)) - int(info.get("clock_monotonic_ns", 0))
        host = info.get("host", "unknown")
        if host not in host_names:
            host_names.append(host)
        # iteration number within each (kind, size, param, stream) of this file
        window = slice(at, at + n)
        keys = (rec["kind"], rec["size_bytes"], rec["param"], rec["stream"])
        if all(k.min() == k.max() for k in keys):  # one group (a noise run): no sorting
            out["iteration"][window] = np.arange(n)
        else:
            inv = group_codes(*keys)
            order = np.argsort(inv, kind="stable")
            counts = np.bincount(inv)
            starts = np.repeat(np.cumsum(counts) - counts, counts)
            out["iteration"][window][order] = np.arange(n) - starts
            del inv, order, counts, starts
        out["run"][window] = i
        out["part"][window] = part_no
        out["rank"][window] = rank
        out["pairs"][window] = run.pairs
        out["host"][window] = host_names.index(host)
        for col in ("kind", "size_bytes", "param", "stream", "t_ns", "value_ns"):
            out[col][window] = rec[col]
        out["wall_ns"][window] = rec["t_ns"]
        out["wall_ns"][window] += offset
        at += n
    data = {c: v[:at] for c, v in out.items()}
    data["host_names"] = np.array(host_names or ["unknown"], dtype=object)
    return data


def write_parquet(data: dict[str, np.ndarray], path: Path, experiment: str) -> None:
    """One row per sample. RTT samples also get latency_us (RTT/2)."""
    kind = data["kind"]
    table = {
        "run": pa.array(data["run"], pa.int32()),
        "part": pa.array(data["part"], pa.int32()),
        "rank": pa.array(data["rank"], pa.int32()),
        "host": pa.DictionaryArray.from_arrays(pa.array(data["host"], pa.int32()),
                                               pa.array(list(data["host_names"]), pa.string())),
        "pairs": pa.array(data["pairs"], pa.int32()),
        "kind": pa.DictionaryArray.from_arrays(
            pa.array(kind.astype(np.int8), pa.int8()),
            pa.array([KIND_NAMES.get(k, str(k)) for k in range(max(KIND_NAMES) + 1)], pa.string())),
        "size_bytes": pa.array(data["size_bytes"], pa.int64()),
        ("interval_ns" if experiment == "burst" else "param"): pa.array(data["param"], pa.int64()),
        "stream": pa.array(data["stream"], pa.int32()),
        "iteration": pa.array(data["iteration"], pa.int64()),
        "t_ns": pa.array(data["t_ns"], pa.int64()),
        "time": pa.array(data["wall_ns"], pa.timestamp("ns", tz="UTC")),
        "value_ns": pa.array(data["value_ns"], pa.int64()),
    }
    if experiment != "os-noise":
        latency = np.where(kind == KIND_RTT, data["value_ns"] / 2000.0, np.nan)
        table["latency_us"] = pa.array(latency, pa.float64(), mask=kind != KIND_RTT)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(pa.table(table), tmp, compression="zstd")
    tmp.replace(path)
