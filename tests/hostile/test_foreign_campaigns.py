"""A campaign folder from someone else is data: its metadata never
chooses the code compiled and run, nor the process signalled; a campaign another measure is
writing is not written twice."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time

from measure_support import mpi_or_skip, run, run_json

def test_resume_refuses_a_plan_naming_foreign_code(tmp_path):
    """plan[].probe from the metadata is never compiled or run."""
    mpi_or_skip()
    out = tmp_path / "c"
    out.mkdir()
    evil = {"probe": "../../evil", "mode": "pingpong", "ranks": 2, "units": [{"size": 1, "interval_ns": 0,
                                                                              "iterations": 10}]}
    (out / "metadata.json").write_text(json.dumps({
        "labels": {}, "complete": False,
        "experiments": {"latency": {"plan": [evil], "launches": [], "complete": False}},
    }))
    cache = tmp_path / "cache"
    proc = run("measure", "latency", "--out", str(out), "--resume", CLOUDNOISE_CACHE_DIR=str(cache))
    assert proc.returncode == 2, proc.stderr
    assert "not one of cloudnoise's probes" in proc.stderr and "Traceback" not in proc.stderr
    # nothing compiled: no probe in the cache (the check that mpicc compiles at all leaves only its marker)
    assert not cache.exists() or not [p for p in cache.iterdir() if not p.name.startswith("mpicc-ok-")]


def test_resume_never_signals_a_process_group_from_the_metadata(tmp_path):
    """An `active_pgid` in the metadata (here: an innocent process's
    group) is never signalled; the stale-run check uses locks the processes hold."""
    mpi_or_skip()
    out = tmp_path / "c"
    args = ("measure", "latency", "--sizes", "1", "--iterations", "100", "--out", str(out))
    run_json(*args)
    innocent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        meta = json.loads((out / "metadata.json").read_text())
        meta["experiments"]["latency"]["active_pgid"] = innocent.pid
        meta["experiments"]["latency"]["complete"] = False
        (out / "metadata.json").write_text(json.dumps(meta))
        doc = run_json(*args, "--resume")
        assert doc["complete"] is True
        time.sleep(0.2)
        assert innocent.poll() is None, "cloudnoise signalled a process group named in the metadata"
    finally:
        innocent.kill()
        innocent.wait()


def test_a_campaign_being_measured_is_not_measured_twice(tmp_path):
    out = tmp_path / "c"
    out.mkdir()
    (out / "metadata.json").write_text(json.dumps({"labels": {}, "experiments": {}, "complete": False}))
    fd = os.open(out / ".measure.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        proc = run("measure", "latency", "--sizes", "1", "--iterations", "10", "--out", str(out), "--resume")
    finally:
        os.close(fd)
    if "no MPI" in proc.stderr:
        return
    assert proc.returncode == 2 and "another cloudnoise measure is writing" in proc.stderr, proc.stderr
