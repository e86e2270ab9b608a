"""A killed measurement keeps what it measured and --resume completes it."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from measure_support import cloudnoise_cmd, env, mpi_or_skip, run_json


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(cloudnoise_cmd(*args), env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_samples(path: Path, records: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size >= 48 * records:
            return
        time.sleep(0.05)
    raise AssertionError(f"no samples appeared in {path}")


def test_sigterm_keeps_samples_and_resume_finishes_the_duration(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency-noise", "--duration", "5", "--out", str(out))
    proc = _start(*args)
    _wait_for_samples(out / "latency-noise" / "raw" / "run00-part00.rank0.bin", 1000)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "--resume" in err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["complete"] is False and meta["experiments"]["latency-noise"]["complete"] is False
    kept = pq.read_table(out / "latency-noise" / "samples.parquet")
    assert kept.num_rows > 1000

    doc = run_json(*args, "--resume", timeout=30)
    assert doc["complete"] is True
    table = pq.read_table(out / "latency-noise" / "samples.parquet", columns=["part", "t_ns"])
    assert table.num_rows > kept.num_rows
    part, t = table.column("part").to_numpy(), table.column("t_ns").to_numpy()
    assert set(part.tolist()) == {0, 1}
    covered = sum((t[part == p].max() - t[part == p].min()) / 1e9 for p in (0, 1))
    assert 4.0 <= covered <= 6.5
    assert json.loads((out / "metadata.json").read_text())["complete"] is True


def test_sigkill_keeps_samples_and_resume_completes_the_counts(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency", "--sizes", "1,2", "--iterations", "300000", "--out", str(out))
    proc = _start(*args)
    _wait_for_samples(out / "latency" / "raw" / "run00-part00.rank0.bin", 20000)
    proc.kill()  # -9: no chance to clean up; the probes go on as orphans
    proc.communicate(timeout=10)
    doc = run_json(*args, "--resume", timeout=60)
    assert doc["complete"] is True
    assert [r["samples"] for r in doc["results"]] == [300000, 300000]
    table = pq.read_table(out / "latency" / "samples.parquet", columns=["part", "size_bytes"])
    assert np.unique(table.column("part").to_numpy()).tolist() == [0, 1]
