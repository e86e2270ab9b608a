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
    line = _one_line(proc.stderr)
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
