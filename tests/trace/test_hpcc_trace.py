"""HPC Challenge (Debian's hpcc 1.5.0, Open MPI 4.1.4) on 4 ranks, recorded by
the recorder: tests/trace/data/hpcc-4 (its README says how; HPCC need not be
installed). RandomAccess polls its receives with MPI_Testany and cancels its
outstanding MPI_ANY_SOURCE/MPI_ANY_TAG receive when a phase ends: the
trace keeps the polling as folded records and each cancel's wait says the
receive was cancelled; it converts, and simulates with and without noise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from measure_support import run

from cloudnoise import _engine
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.reader import open_trace

HPCC = Path(__file__).resolve().parent / "data" / "hpcc-4"
CANCELLED = -3

keeps_mpi_order = pytest.mark.skipif(
    not hasattr(_engine.Schedule, "in_order"),
    reason="this engine does not keep MPI's non-overtaking order under latency noise",
)


def test_hpcc_trace_holds_its_cancels_and_polls() -> None:
    trace = open_trace(HPCC)
    assert trace.format == "native" and trace.num_ranks == 4
    for rank in range(4):
        cancels, pending, polled, records, calls = [], set(), 0, 0, 0
        for c in trace.calls(rank):
            records += 1
            calls += c.repeat
            if c.kind == "poll":
                polled += c.repeat
            if c.kind == "cancel":
                cancels += c.requests
                pending.update(c.requests)
            for req, src, _, _ in c.completions or ():
                if req in pending:  # the completion of a cancelled request says it was cancelled
                    assert src == CANCELLED
                    pending.discard(req)
        assert len(cancels) == 4 and not pending
        # nine in ten calls are unsuccessful polls, one in ten records
        assert polled > 0.85 * calls and records < 0.15 * calls


def test_hpcc_converts_without_warnings() -> None:
    schedule, conv = to_schedule(open_trace(HPCC))
    assert conv.warnings == [] and conv.unsupported == {}
    assert conv.calls_by_name["MPI_Cancel"] == 16 and conv.calls_by_name["MPI_Testany"] > 500_000
    assert 4.0e9 < conv.recorded_runtime_ns < 4.5e9


def test_hpcc_simulates_noiseless() -> None:
    proc = run("simulate", "--trace", str(HPCC), "--profile", "aws-hpc", "--noise", "none", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    simulated, trace = doc["runtime_ns"][0], doc["trace"]
    # the compute is replayed as recorded, so no rank ends before its compute; the recording ran 4 ranks
    # on 2 busy cores, where ranks lost time descheduled inside MPI that no network model replays
    assert max(trace["compute_ns"]) < simulated < trace["recorded_runtime_ns"]


@keeps_mpi_order
def test_hpcc_simulates_under_noise() -> None:
    proc = run("simulate", "--trace", str(HPCC), "--profile", "aws-hpc", "--noise", "both", "--reps", "10",
               "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
