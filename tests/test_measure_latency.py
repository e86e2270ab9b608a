"""The latency experiment end to end on 2 ranks: the JSON contract that
automated checks rely on, and the campaign directory it leaves."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

from measure_support import mpi_or_skip, run_json

KEYS = ("size_bytes", "min_us", "median_us", "mean_us", "max_us", "bandwidth_gbps")


def test_latency_json_contract(tmp_path):
    mpi_or_skip()
    out = tmp_path / "campaign"
    doc = run_json("measure", "latency", "--ranks", "2", "--sizes", "1,1024", "--iterations", "20000",
                   "--out", str(out), "--label", "system=test", "--label", "distance=same-rack")
    rows = doc["results"]
    assert [r["size_bytes"] for r in rows] == [1, 1024]
    for row in rows:
        for key in KEYS:
            assert isinstance(row[key], (int, float)), key
        assert 0 < row["min_us"] <= row["median_us"] <= row["max_us"]
        assert row["min_us"] <= row["mean_us"] <= row["max_us"]
        assert row["samples"] == 20000
        # bandwidth is the size over the minimum RTT/2, in Gb/s
        assert np.isclose(row["bandwidth_gbps"], row["size_bytes"] * 8 / (row["min_us"] * 1e3))
    assert doc["complete"] is True
    assert doc["labels"] == {"system": "test", "distance": "same-rack"}

    meta = json.loads((out / "metadata.json").read_text())
    assert meta["complete"] is True
    for key in ("hosts", "cpu_model", "mpi", "timer", "cloudnoise_version", "labels"):
        assert meta[key], key
    exp = meta["experiments"]["latency"]
    assert exp["start_time"] and exp["end_time"] and exp["launches"][0]["command"]
    assert meta["timer"]["name"] == "CLOCK_MONOTONIC_RAW"
    assert 0 < meta["timer"]["overhead_ns"] < 1000
    assert meta["mpi"]["library"]

    table = pq.read_table(out / "latency" / "samples.parquet")
    assert table.num_rows == 40000
    lat = table.column("value_ns").to_numpy() / 2000.0  # RTT/2 in us
    assert np.isclose(lat.min(), min(r["min_us"] for r in rows))
    summary = json.loads((out / "summary.json").read_text())
    t2 = summary["table2"]
    assert t2["min_latency_us"] == rows[0]["min_us"]
    assert t2["latency_normalized"]["p50"] >= 1.0


def test_other_pingpongs_keep_the_contract(tmp_path):
    mpi_or_skip()
    for experiment in ("bandwidth", "bidirectional", "connections"):
        doc = run_json("measure", experiment, "--ranks", "2", "--sizes", "1,65536",
                       "--iterations", "200", "--out", str(tmp_path / experiment))
        assert [r["size_bytes"] for r in doc["results"]] == [1, 65536], experiment
        assert all(r["bandwidth_gbps"] > 0 for r in doc["results"])
    burst = run_json("measure", "burst", "--intervals", "0,0.001", "--iterations", "5",
                     "--sizes", "64K", "--out", str(tmp_path / "burst"))
    assert [r["interval_s"] for r in burst["results"]] == [0.0, 0.001]


def test_bandwidth_noise_with_two_pairs_streams_one_value_per_iteration(tmp_path):
    """Concurrent pairs: every pair's sample in Parquet, one (the slowest pair's) per
    iteration in the summaries, chunk by chunk."""
    mpi_or_skip()
    out = tmp_path / "c"
    doc = run_json("measure", "bandwidth-noise", "--ranks", "4", "--connections", "2", "--sizes", "64K",
                   "--duration", "2", "--out", str(out))
    table = pq.read_table(out / "bandwidth-noise" / "samples.parquet", columns=["rank", "iteration", "value_ns"])
    rank, it, v = (table.column(c).to_numpy() for c in ("rank", "iteration", "value_ns"))
    assert set(rank.tolist()) == {0, 1}
    (row,) = doc["results"]
    assert row["connections"] == 2 and row["samples"] == len(np.unique(it))
    worst = np.maximum(v[rank == 0][np.argsort(it[rank == 0])], v[rank == 1][np.argsort(it[rank == 1])])
    assert row["min_us"] == worst.min() / 2000 and row["max_us"] == worst.max() / 2000
    assert not list((out / "bandwidth-noise" / "raw").glob("*.cnk"))
