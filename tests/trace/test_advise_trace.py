"""A recorded trace as `advise`'s WORKLOAD: advised at the trace's rank count
by default, at any --nodes extrapolated, and resumable from its --sweep folder."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from native_writer import finalize, recv, send, write_trace


def _advise(*args: object) -> tuple[int, str]:
    from cloudnoise.cli import main

    buf = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(buf):
        try:
            main(["advise", *map(str, args)])
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, buf.getvalue()


def test_a_trace_is_advised_at_its_rank_count(tmp_path: Path) -> None:
    # rank 0 sends 1 KiB to rank 1 and back: init, two messages and finalize per rank (8 calls)
    trace = write_trace(tmp_path / "pp", [
        [send(1_000, 2_000, 1, 1024), recv(3_000, 9_000, 1, 1024), finalize(10_000)],
        [recv(1_000, 4_000, 0, 1024), send(5_000, 6_000, 0, 1024), finalize(10_000)],
    ])
    runs = tmp_path / "runs"
    # aws-hpc: the text reconstruction, whose noise only adds (the data-built
    # profiles draw L around its median, below it half the time)
    code, out = _advise(trace, "--profile", "aws-hpc", "--reps", "5", "--in-process", "--sweep", runs, "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["nodes"] == [2] and doc["workload"]["kind"] == "trace"
    assert "MPI trace pp (2 ranks, 8 MPI calls" in doc["workload"]["description"]
    # two messages of 1 KiB in turn: at least two of AWS HPC's latencies (L = 13.4 us) end to end
    assert all(p["noiseless_runtime_ns"] > 2 * 13_000 for p in doc["points"])
    assert all(p["runtime_p50_ns"] >= p["noiseless_runtime_ns"] for p in doc["points"])
    # the same advice again, from the folder: nothing new to simulate, the same numbers
    code2, out2 = _advise(trace, "--profile", "aws-hpc", "--reps", "5", "--in-process", "--sweep", runs, "--json")
    assert code2 == 0, out2
    assert json.loads(out2)["points"] == doc["points"]
