"""`measure --quiet`: the progress bar, drawn on a terminal, is not drawn."""

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
