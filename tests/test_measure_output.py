"""What `measure` prints: no progress bar with `--quiet`, the table as CSV with `--csv`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from measure_support import mpi_or_skip


def _measure(tmp_path: Path, name: str, *extra: str) -> subprocess.CompletedProcess:
    # TTY_COMPATIBLE=1 makes rich treat stderr as a terminal, where the bar is drawn.
    env = {**os.environ, "TTY_COMPATIBLE": "1", "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    return subprocess.run(
        [sys.executable, "-m", "cloudnoise", "measure", "latency", "--sizes", "1", "--iterations", "3000",
         "--out", str(tmp_path / name), *extra],
        capture_output=True, text=True, env=env, timeout=180)


def test_quiet_hides_the_progress_bar(tmp_path: Path) -> None:
    mpi_or_skip()
    loud = _measure(tmp_path, "loud")
    assert loud.returncode == 0, loud.stderr
    assert "latency run 1/1" in loud.stderr  # the bar is drawn on a terminal
    quiet = _measure(tmp_path, "quiet", "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr.strip() == ""
    assert "median" in quiet.stdout.lower()


def test_csv_is_the_table_for_pandas(tmp_path: Path) -> None:
    import csv
    import io

    mpi_or_skip()
    proc = _measure(tmp_path, "csv", "--csv", "--quiet")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [int(r["size_bytes"]) for r in rows] == [1] and int(rows[0]["samples"]) == 3000
    assert float(rows[0]["min_us"]) <= float(rows[0]["median_us"]) <= float(rows[0]["max_us"])


def test_loggp_csv_is_the_per_size_table(tmp_path: Path) -> None:
    import csv
    import io

    mpi_or_skip()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "cloudnoise", "measure", "loggp", "--sizes", "1,1KiB", "--iterations", "60",
         "--rounds", "3", "--out", str(tmp_path / "lg"), "--csv"],
        capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [int(r["size_bytes"]) for r in rows] == [1, 1024]
    assert all(float(r["pingpong_ns"]) > 0 for r in rows) and "recv_late_residual" in rows[0]
