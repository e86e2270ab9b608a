"""Ctrl-C during a noisy simulation stops the engine's worker threads promptly and exits
130 with one line (never a SIGABRT with `terminate called without an active exception`,
nor a run to the end before noticing)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from hostile_support import sandbox


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_noisy_simulation(tmp_path):
    box = sandbox(tmp_path)
    # About a minute of work on two threads: the interrupt must not wait for it.
    proc = subprocess.Popen(
        [sys.executable, "-m", "cloudnoise", "simulate", "--pattern", "dissemination", "--ranks", "16384",
         "--size", "16B", "--profile", "azure-hpc", "--noise", "both", "--reps", "10000", "--threads", "2",
         "--out", "runs.parquet"],
        cwd=box.work, env=box.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # As a terminal's Ctrl-C finds it: a test run started in the background of a
        # non-interactive shell (`cmd &`) inherits SIGINT ignored, and Python keeps an
        # ignored SIGINT ignored (as `nohup` relies on), so the child would never see it.
        preexec_fn=_sigint_default)
    try:
        time.sleep(2.0)  # past start-up: the engine's threads are running
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.startswith("cloudnoise:")]
    assert lines == ["cloudnoise: interrupted"], err
    assert "terminate called" not in err and "Traceback" not in err
    assert not (box.work / "runs.parquet").exists()  # nothing half-written
    assert [p.name for p in box.work.iterdir()] == []


def test_sigterm_stops_a_command_as_ctrl_c_does(tmp_path):
    """`kill` (SIGTERM) is an interrupt for every command, not only `measure`: one line,
    exit 130, nothing half-written (it ended with status 143 and no word, and an import
    left its temporary folder beside --out)."""
    box = sandbox(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "cloudnoise", "simulate", "--pattern", "dissemination", "--ranks", "16384",
         "--size", "16B", "--profile", "azure-hpc", "--noise", "both", "--reps", "10000", "--threads", "2",
         "--out", "runs.parquet"],
        cwd=box.work, env=box.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.0)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.startswith("cloudnoise:")]
    assert lines == ["cloudnoise: interrupted"], err
    assert "Traceback" not in err
    assert [p.name for p in box.work.iterdir()] == []
