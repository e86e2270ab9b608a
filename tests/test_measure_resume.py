"""A killed measurement keeps what it measured, its probes stop on their own, and
--resume completes it. That a campaign's metadata never chooses the code run
or the process signalled is in tests/hostile/test_foreign_campaigns.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from measure_support import cloudnoise_cmd, env, mpi_or_skip, probe_processes, run_json


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(cloudnoise_cmd(*args), env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_samples(raw: Path, samples: int, timeout: float = 60.0) -> None:
    """Until the probes have written `samples` (raw chunks plus converted Parquet)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        chunks = 0
        for p in raw.glob("*.cnk"):
            try:
                chunks += p.stat().st_size // 8
            except FileNotFoundError:
                pass
        parquet = raw.parent / "samples.parquet"
        if chunks >= samples or (parquet.is_dir() and any(parquet.glob("*.parquet"))):
            return
        time.sleep(0.05)
    raise AssertionError(f"no samples appeared in {raw}")


def _last_sample_wall_ns(exp: Path) -> int:
    """The wall-clock start of the newest sample kept, raw or converted."""
    from cloudnoise.measurement.chunks import read_chunk
    from cloudnoise.measurement.samples import read_info

    last = 0
    for path in (exp / "raw").glob("*.cnk"):
        c = read_chunk(path)
        if len(c):
            info = read_info(path.parent / (path.name.split(".c0")[0] + ".info"))
            offset = int(info["clock_wall_ns"]) - int(info["clock_monotonic_ns"])
            last = max(last, int(c.t_ns.max()) + offset)
    if (exp / "samples.parquet").is_dir() and any((exp / "samples.parquet").glob("*.parquet")):
        t = pq.read_table(exp / "samples.parquet", columns=["time"]).column("time")
        last = max(last, int(t.cast(pa.timestamp("ns", tz="UTC")).cast(pa.int64()).to_numpy().max()))
    return last


def test_sigkill_stops_the_probes_and_resume_completes(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency-noise", "--duration", "10", "--out", str(out))
    proc = _start(*args)
    _wait_for_samples(out / "latency-noise" / "raw", 100)
    time.sleep(1.5)
    assert proc.poll() is None, "the measurement ended before it could be killed"
    assert probe_processes(str(out)), "no probe is running"
    killed_wall = time.time_ns()
    killed = time.monotonic()
    proc.kill()  # -9: cloudnoise gets no chance to stop its launch
    proc.communicate(timeout=10)
    while probe_processes(str(out)) and time.monotonic() - killed < 5:
        time.sleep(0.02)
    # Gone within the 5 s waited is the watch working (unwatched they would run the 10 s out);
    # how fast is not asserted: the machine is shared.
    assert not probe_processes(str(out)), "the probes outlived cloudnoise"
    # at most 1 s of samples is lost: the newest one kept started less than 1 s before the kill
    lost_s = (killed_wall - _last_sample_wall_ns(out / "latency-noise")) / 1e9
    assert lost_s <= 1.0, f"{lost_s:.2f} s of samples lost"

    doc = run_json(*args, "--resume", timeout=60)
    assert doc["complete"] is True
    exp = out / "latency-noise"
    assert not list((exp / "raw").glob("*.cnk")), "raw chunks left after the run"
    table = pq.read_table(exp / "samples.parquet", columns=["part", "time"])
    part = table.column("part").to_numpy()
    t = table.column("time").cast(pa.timestamp("ns", tz="UTC")).cast(pa.int64()).to_numpy()
    assert set(part.tolist()) == {0, 1}
    covered = sum((t[part == p].max() - t[part == p].min()) / 1e9 for p in (0, 1))
    assert 9.0 <= covered <= 11.0
    assert doc["samples"] == table.num_rows == doc["results"][0]["samples"]


def test_sigterm_keeps_samples_and_resume_finishes_the_duration(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency-noise", "--duration", "8", "--out", str(out))
    proc = _start(*args)
    _wait_for_samples(out / "latency-noise" / "raw", 100)
    time.sleep(1.0)
    assert proc.poll() is None, "the measurement ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "--resume" in err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["complete"] is False and meta["experiments"]["latency-noise"]["complete"] is False
    kept = pq.read_table(out / "latency-noise" / "samples.parquet")
    assert kept.num_rows >= 100
    assert not list((out / "latency-noise" / "raw").glob("*.cnk"))

    doc = run_json(*args, "--resume", timeout=60)
    assert doc["complete"] is True
    assert doc["samples"] > kept.num_rows


def test_sigkill_then_resume_completes_the_counts(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency", "--sizes", "1,2", "--iterations", "100000", "--out", str(out))
    proc = _start(*args)
    _wait_for_samples(out / "latency" / "raw", 5000)
    proc.kill()
    proc.communicate(timeout=10)
    doc = run_json(*args, "--resume", timeout=90)
    assert doc["complete"] is True
    assert [r["samples"] for r in doc["results"]] == [100000, 100000]
    table = pq.read_table(out / "latency" / "samples.parquet", columns=["part", "size_bytes"])
    assert 0 in np.unique(table.column("part").to_numpy())
    assert table.num_rows == 200000


def test_streaming_percentiles_agree_with_the_stored_samples(tmp_path):
    """The summary's percentiles (HDR histogram) against exact percentiles of every sample
    in the Parquet (the round(p/100 x count)-th smallest): exact <= reported <= exact x
    (1 + stated precision)."""
    mpi_or_skip()
    out = tmp_path / "c"
    doc = run_json("measure", "latency-noise", "--duration", "2", "--slice", "0.5", "--out", str(out))
    precision = json.loads((out / "latency-noise" / "summary.json").read_text())["precision"]["relative"]
    assert precision <= 0.001
    v = pq.read_table(out / "latency-noise" / "samples.parquet", columns=["value_ns"]).column("value_ns").to_numpy()
    t2 = doc["table2"]
    assert len(v) == doc["samples"] == doc["results"][0]["samples"]
    # The summary divides the least round trip (ns) by 2000; multiplying back is not
    # exact in floating point (2034 ns gives 1.017 us, and 1.017 * 2000 = 2033.9999999999998).
    assert t2["min_latency_us"] == v.min() / 2000
    assert np.isclose(t2["mean_latency_us"] * 2000, v.mean(), rtol=1e-12)
    for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("p99.99", 99.99), ("p99.999", 99.999)):
        rank = max(1, int(p / 100 * len(v) + 0.5))  # the stated definition: the rank-th smallest
        exact = float(np.partition(v, rank - 1)[rank - 1])
        # Compared in us, as reported: division by 2000 is correctly rounded and so keeps the
        # order, where multiplying back does not (4007 ns gives 2.0035 us, and 2.0035 * 2000 =
        # 4006.9999999999995).
        got = t2["latency_percentiles_us"][name]
        assert exact / 2000 <= got <= exact * (1 + precision) / 2000 + 1e-12, (name, exact, got)
    # --slice: per-slice summaries that add up to the whole
    slices = json.loads((out / "latency-noise" / "summary.json").read_text())["slices"]
    assert len(slices) >= 3
    assert sum(s["samples"] for s in slices) == len(v)
    assert min(s["min_us"] for s in slices) == t2["min_latency_us"]


def test_sigkill_stops_the_loggp_probe_too(tmp_path):
    """cn_loggp watches cloudnoise like the noise probes (checked between units, each far
    under a second). The launcher here is a shell that leaves mpiexec running in the
    background when it dies, as launchers that do not follow their parent do: only the
    probe's own watch of cloudnoise's pid stops it."""
    mpi_or_skip()
    from cloudnoise.measurement.mpi import find_mpi

    out = tmp_path / "c"
    launcher = f"sh -c '{find_mpi().mpiexec} -n {{ranks}} {{cmd}} & wait'"
    proc = _start("measure", "loggp", "--sizes", "1,1KiB,64KiB", "--iterations", "1000000", "--rounds", "1000",
                  "--launcher", launcher, "--out", str(out))
    deadline = time.monotonic() + 60
    while not probe_processes(str(out)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert probe_processes(str(out)), "no probe is running"
    time.sleep(1.0)
    assert proc.poll() is None, "the measurement ended before it could be killed"
    killed = time.monotonic()
    proc.kill()
    proc.communicate(timeout=10)
    while probe_processes(str(out)) and time.monotonic() - killed < 10:
        time.sleep(0.02)
    survivors = probe_processes(str(out))
    for pid in survivors:  # leave nothing running if the assertion below fails
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass
    # Unwatched, the probes would run for hours (10^6 iterations x 1,000 rounds); gone within
    # the 10 s waited above is the watch working. How fast is not asserted: the machine is shared.
    assert not survivors, "the loggp probes outlived cloudnoise"
