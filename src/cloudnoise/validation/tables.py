"""Parquet files of a validation: every measured rank x repetition, and every
simulated repetition per noise variant."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from cloudnoise.validation.executor import Measurement


def write_measured(path: Path, measurements: list[Measurement]) -> None:
    """One row per rank and repetition: ranks (configuration), rep, rank, host,
    start_ns (common start, rank 0's CLOCK_MONOTONIC_RAW), start_delay_ns,
    end_ns (this rank's last completion after the start) and runtime_ns (the
    repetition's latest end)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols: dict[str, list[np.ndarray]] = {k: [] for k in
                                         ("ranks", "rep", "rank", "start_ns", "start_delay_ns", "end_ns", "runtime_ns")}
    hosts: list[str] = []
    for m in measurements:
        cols["ranks"].append(np.full(len(m.rep), m.ranks, dtype=np.int32))
        cols["rep"].append(m.rep.astype(np.int64))
        cols["rank"].append(m.rank.astype(np.int32))
        cols["start_ns"].append(m.start_ns)
        cols["start_delay_ns"].append(m.start_delay_ns)
        cols["end_ns"].append(m.end_ns)
        cols["runtime_ns"].append(m.runtime_ns[m.rep])
        hosts.extend(m.host)
    table = {k: pa.array(np.concatenate(v)) for k, v in cols.items()}
    table["host"] = pa.array(hosts, pa.string()).dictionary_encode()
    pq.write_table(pa.table(table), path, compression="zstd")


def write_simulated(path: Path, ranks: list[int], simulations: list[dict[str, np.ndarray]]) -> None:
    """One row per configuration, noise variant and repetition: ranks, noise, rep, runtime_ns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    r_col, v_col, rep_col, t_col = [], [], [], []
    for p, sim in zip(ranks, simulations):
        for variant, values in sim.items():
            r_col.append(np.full(len(values), p, dtype=np.int32))
            v_col.extend([variant] * len(values))
            rep_col.append(np.arange(len(values), dtype=np.int64))
            t_col.append(np.asarray(values, dtype=np.float64))
    pq.write_table(
        pa.table({
            "ranks": pa.array(np.concatenate(r_col)),
            "noise": pa.array(v_col, pa.string()).dictionary_encode(),
            "rep": pa.array(np.concatenate(rep_col)),
            "runtime_ns": pa.array(np.concatenate(t_col)),
        }),
        path,
        compression="zstd",
    )
