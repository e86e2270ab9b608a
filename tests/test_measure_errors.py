"""Failures are one clear line and a non-zero exit, never a traceback or a hang."""

from __future__ import annotations

import os
import shutil

import pytest

from measure_support import mpi_or_skip, run


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_no_mpi_says_what_to_install(tmp_path):
    path = os.pathsep.join(["/usr/bin", "/bin"])
    if shutil.which("mpicc", path=path):
        pytest.skip("a system mpicc is installed, so there is no no-MPI situation to test")
    proc = run("measure", "latency", "--sizes", "1", "--iterations", "10", "--out", str(tmp_path / "c"),
               PATH=os.pathsep.join(["/usr/bin", "/bin"]), CLOUDNOISE_IGNORE_PIP_MPICH="1")
    assert proc.returncode == 4
    line = _one_line(proc.stderr)
    assert "pip install 'cloudnoise[mpi]'" in line and "--mpicc" in line


def test_failing_launcher_is_one_line(tmp_path):
    mpi_or_skip()
    proc = run("measure", "latency", "--sizes", "1", "--iterations", "10", "--out", str(tmp_path / "c"),
               "--launcher", "false {cmd}")
    assert proc.returncode == 4
    # the line saying which MPI the measurement started with, then the failure in one line
    said, _, rest = proc.stderr.partition("\n")
    assert said.startswith("cloudnoise: MPI: ")
    line = _one_line(rest)
    assert "launch failed" in line


def test_missing_launcher_binary_is_one_line(tmp_path):
    mpi_or_skip()
    proc = run("measure", "latency", "--sizes", "1", "--out", str(tmp_path / "c"),
               "--launcher", "/nonexistent/mpirun -np {ranks} {cmd}")
    assert proc.returncode == 4
    assert "cannot start the launcher" in proc.stderr and "Traceback" not in proc.stderr


def test_fewer_than_two_ranks(tmp_path):
    proc = run("measure", "latency", "--ranks", "1", "--out", str(tmp_path / "c"))
    assert proc.returncode == 2
    assert "at least 2 ranks" in _one_line(proc.stderr)


def test_bad_mpicc(tmp_path):
    proc = run("measure", "latency", "--mpicc", "/nonexistent/mpicc", "--out", str(tmp_path / "c"))
    assert proc.returncode == 4
    assert "--mpicc" in _one_line(proc.stderr)


def test_existing_campaign_needs_resume(tmp_path):
    mpi_or_skip()
    out = str(tmp_path / "c")
    assert run("measure", "latency", "--sizes", "1", "--iterations", "10", "--out", out).returncode == 0
    proc = run("measure", "latency", "--sizes", "1", "--iterations", "10", "--out", out)
    assert proc.returncode == 2 and "--resume" in _one_line(proc.stderr)


@pytest.mark.parametrize("duration", ["-5", "0", "nan", "inf", "-inf", "1x"])
def test_impossible_durations_are_errors_not_empty_campaigns(tmp_path, duration):
    """An impossible duration: exit 2 with one line, and no campaign made."""
    out = tmp_path / "c"
    proc = run("measure", "latency-noise", f"--duration={duration}", "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "--duration" in _one_line(proc.stderr)
    assert not out.exists()


def test_durations_take_units():
    from cloudnoise.units import parse_wall_seconds

    assert parse_wall_seconds("90") == 90.0
    assert parse_wall_seconds("10m") == parse_wall_seconds("10min") == 600.0
    assert parse_wall_seconds("1h") == 3600.0 and parse_wall_seconds("24h") == 86400.0
    assert parse_wall_seconds("500ms") == 0.5


def test_too_little_free_disk_stops_before_measuring(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    proc = run("measure", "latency-noise", "--duration", "5", "--out", str(out), "--min-free", "1000TiB")
    assert proc.returncode == 2
    assert "free" in _one_line(proc.stderr) and "--min-free" in proc.stderr
    assert not list(out.rglob("*.cnk")) and not list(out.rglob("*.parquet"))


def test_default_campaign_folders_are_unique_within_a_second(tmp_path):
    from cloudnoise.measurement.arguments import unique_campaign_dir

    made = {unique_campaign_dir(tmp_path) for _ in range(5)}
    assert len(made) == 5 and all(p.is_dir() for p in made)


def test_disk_running_low_stops_cleanly_and_keeps_the_samples(tmp_path, monkeypatch):
    """Free space falling under --min-free during the run: stopped like Ctrl-C, with a
    one-line message, everything converted, resumable."""
    mpi_or_skip()
    import json

    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.measurement import diskspace
    from cloudnoise.measurement.experiments import Options
    from cloudnoise.measurement.launcher import LaunchSpec
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.measurement.runner import Request, execute

    calls = {"n": 0}

    def shrinking(path):  # plenty at first, then the disk fills
        calls["n"] += 1
        return 10 << 30 if calls["n"] < 8 else 1 << 20

    monkeypatch.setattr(diskspace, "free_bytes", shrinking)
    out = tmp_path / "c"
    req = Request("latency-noise", Options(duration_s=30.0), LaunchSpec(), out, {})
    with pytest.raises(CloudnoiseError) as err:
        execute(req, find_mpi())
    assert "free" in str(err.value) and "--resume" in str(err.value)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["experiments"]["latency-noise"]["complete"] is False
    assert not list(out.rglob("*.cnk")) and list((out / "latency-noise" / "samples.parquet").glob("*.parquet"))
