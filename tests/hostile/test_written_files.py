"""What cloudnoise writes gets the permissions any program's new file gets under the
user's umask (campaign, sweep and report outputs too, never 0600)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hostile_support import sandbox
from report_support import write_known_campaign


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")]}


def _run_with_umask(box, mask: int, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cloudnoise", *map(str, args)], cwd=box.work, env=box.env(),
                          capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.umask(mask))


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_simulate_report_and_sweep_outputs_follow_the_umask(tmp_path, mask):
    box = sandbox(tmp_path)
    file_mode, dir_mode = 0o666 & ~mask, 0o777 & ~mask
    proc = _run_with_umask(box, mask, "simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "16B",
                           "--reps", "2", "--out", "runs.parquet", "-q")
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE((box.work / "runs.parquet").stat().st_mode) == file_mode

    campaign = write_known_campaign(box.work / "camp")
    proc = _run_with_umask(box, mask, "report", "--campaign", campaign, "--profile", "aws-hpc-metal", "-o", "rep")
    assert proc.returncode == 0, proc.stderr
    modes = _modes(box.work / "rep")
    assert modes and all(m == (dir_mode if (box.work / "rep" / k).is_dir() else file_mode) for k, m in modes.items()), modes

    proc = _run_with_umask(box, mask, "sweep", "--pattern", "dissemination", "--size", "16B", "--profile", "daint",
                           "--nodes", "4", "--reps", "2", "--workers", "1", "--out", "sw", "--quiet")
    assert proc.returncode == 0, proc.stderr
    modes = _modes(box.work / "sw")
    files = {k: m for k, m in modes.items() if (box.work / "sw" / k).is_file()}
    assert files and set(files.values()) == {file_mode}, modes
