"""From raw probe files to per-sample Parquet and to summary rows.

Ping-pong rows hold statistics of RTT/2 (the paper's latency) per message
size, and the bandwidth as size over the minimum RTT/2. With several
concurrent pairs (connections), the k-th ping-pongs of all pairs started
together after a barrier, so one iteration lasts as long as its slowest pair:
an iteration's RTT is the maximum over pairs, and the bandwidth is the whole
message (all pairs' parts) over that.

The campaign summary follows the paper's Table II (minimum and mean latency,
maximum and mean bandwidth) plus the tail of the latency normalised to its
minimum (p50, p99, p99.9, max; what Fig. 9-10 plot) and of the bandwidth
normalised to its maximum (Fig. 11-12).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.measure.campaign import Campaign
from cloudnoise.measure.experiments import Run
from cloudnoise.measure.samples import KIND_NAMES, KIND_RTT, count_records, read_info, read_records, rank_files

COLUMNS = ("run", "part", "rank", "pairs", "kind", "size_bytes", "param", "stream",
           "iteration", "t_ns", "wall_ns", "value_ns")


def _group_codes(*columns: np.ndarray) -> np.ndarray:
    """Dense group ids 0..k-1 of the rows' combined key (fast: 1-D uniques)."""
    code = np.zeros(len(columns[0]), np.int64)
    for col in columns:
        uniq, inv = np.unique(col, return_inverse=True)
        code = code * len(uniq) + inv.reshape(-1)
    return np.unique(code, return_inverse=True)[1].reshape(-1)


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
            inv = _group_codes(*keys)
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


def iteration_rtts(data: dict[str, np.ndarray], mode: str) -> dict[str, np.ndarray]:
    """RTT samples reduced to one per ping-pong iteration (max over pairs;
    for bidirectional runs, per direction)."""
    sel = data["kind"] == KIND_RTT
    columns = {k: v for k, v in data.items() if k not in ("host", "host_names")}
    d = columns if sel.all() else {k: v[sel] for k, v in columns.items()}  # no copy when all are RTTs
    if len(d["value_ns"]) == 0 or d["pairs"].max() <= 1:
        return d
    # bidirectional: streams 2p and 2p+1 are pair p's two directions; reduce per direction
    direction = [d["stream"] % 2] if mode == "bidir" else []
    codes = _group_codes(d["run"], d["part"], d["size_bytes"], d["param"], d["iteration"], *direction)
    _, first, inv = np.unique(codes, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    worst = np.zeros(len(first), np.int64)
    np.maximum.at(worst, inv, d["value_ns"])
    out = {k: v[first] for k, v in d.items()}
    out["value_ns"] = worst
    return out


def _stats(half_ns: np.ndarray, size: int) -> dict[str, Any]:
    us = half_ns / 1000.0
    bw = size * 8.0 / half_ns  # bits per ns = Gb/s
    return {
        "samples": int(len(us)),
        "min_us": float(us.min()),
        "median_us": float(np.median(us)),
        "mean_us": float(us.mean()),
        "max_us": float(us.max()),
        "std_us": float(us.std()),
        "p99_us": float(np.percentile(us, 99)),
        "p999_us": float(np.percentile(us, 99.9)),
        "bandwidth_gbps": float(size * 8.0 / half_ns.min()),
        "mean_bandwidth_gbps": float(bw.mean()),
    }


def _measuring(d: dict[str, np.ndarray], measuring: list[int]) -> dict[str, np.ndarray]:
    """The samples of the measuring runs (not the size sweeps before them)."""
    keep = np.isin(d["run"], measuring)
    return d if keep.all() else {k: v[keep] for k, v in d.items()}


def pingpong_rows(data: dict[str, np.ndarray], runs: list[Run], experiment: str) -> list[dict[str, Any]]:
    """One row per (pairs, size, interval) of the measuring runs."""
    measuring = [i for i, r in enumerate(runs) if r.role == "measure"]
    mode = runs[measuring[0]].mode if measuring else "pingpong"
    d = _measuring(iteration_rtts(data, mode), measuring)
    rows: list[dict[str, Any]] = []
    if len(d["value_ns"]) == 0:
        return rows
    codes = _group_codes(d["pairs"], d["size_bytes"], d["param"])
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    for sel in np.split(order, bounds):
        pairs, size, param = d["pairs"][sel[0]], d["size_bytes"][sel[0]], d["param"][sel[0]]
        row: dict[str, Any] = {"size_bytes": int(size)}
        if experiment in ("connections", "bandwidth-noise") or pairs > 1:
            row["connections"] = int(pairs)
        if experiment == "burst":
            row["interval_s"] = float(param) / 1e9
        row.update(_stats(d["value_ns"][sel] / 2.0, int(size)))
        if mode == "bidir":
            row["aggregate_bandwidth_gbps"] = 2 * row["bandwidth_gbps"]
        rows.append(row)
    return rows


def _tail(values: np.ndarray, base: float) -> dict[str, float]:
    return {
        "p50": float(np.percentile(values, 50) / base),
        "p99": float(np.percentile(values, 99) / base),
        "p99.9": float(np.percentile(values, 99.9) / base),
        "max": float(values.max() / base),
    }


def table2(data: dict[str, np.ndarray], runs: list[Run], experiment: str) -> dict[str, Any]:
    """The paper's Table II quantities from one experiment's samples."""
    measuring = [i for i, r in enumerate(runs) if r.role == "measure"]
    if not measuring:
        return {}
    d = _measuring(iteration_rtts(data, runs[measuring[0]].mode), measuring)
    if len(d["value_ns"]) == 0:
        return {}
    out: dict[str, Any] = {}
    smallest = d["size_bytes"].min()
    lat = d["value_ns"][d["size_bytes"] == smallest] / 2000.0
    if experiment != "bandwidth-noise":
        out["latency_size_bytes"] = int(smallest)
        out["min_latency_us"] = float(lat.min())
        out["mean_latency_us"] = float(lat.mean())
        out["latency_normalized"] = _tail(lat, lat.min())
    if experiment in ("bandwidth", "bandwidth-noise", "connections", "bidirectional", "latency"):
        best_size, best_bw = None, -1.0
        for size in np.unique(d["size_bytes"]):
            half = d["value_ns"][d["size_bytes"] == size] / 2.0
            peak = size * 8.0 / half.min()
            if peak > best_bw:
                best_size, best_bw = int(size), float(peak)
        if best_size is not None and (experiment != "latency" or best_size >= 65536):
            half = d["value_ns"][d["size_bytes"] == best_size] / 2.0
            bw = best_size * 8.0 / half
            out["bandwidth_size_bytes"] = best_size
            out["max_bandwidth_gbps"] = best_bw
            out["mean_bandwidth_gbps"] = float(bw.mean())
            out["bandwidth_normalized"] = {
                "p50": float(np.percentile(bw, 50) / best_bw),
                "p1": float(np.percentile(bw, 1) / best_bw),
                "p0.1": float(np.percentile(bw, 0.1) / best_bw),
                "min": float(bw.min() / best_bw),
            }
    return out
