"""The recorder on a real polling loop (examples/trace/polling.c), recorded
both ways: folded (the default: one CN_POLL record per run of unsuccessful
MPI_Test/MPI_Testany/MPI_Iprobe calls) and with --every-poll (every call its
own record). Each way the trace counts exactly the polls the program counted
itself, the folded one in a number of records bounded by the iterations,
not the polls; both convert to the same messages. The program also cancels
a wildcard receive (MPI_Cancel, MPI_Wait, MPI_Test_cancelled) and frees an
active send (MPI_Request_free)."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from measure_support import mpi_or_skip, run

from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.reader import open_trace

from test_convert import blocks

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "trace" / "polling.c"
ITERATIONS = 40


@pytest.fixture(scope="module")
def polling(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    mpi_or_skip()
    from cloudnoise.measurement.launcher import LaunchSpec, build_command
    from cloudnoise.measurement.mpi import find_mpi

    mpi = find_mpi()
    exe = tmp_path_factory.mktemp("polling") / "polling"
    proc = subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(EXAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe, build_command(mpi, LaunchSpec(), 2, [str(exe), str(ITERATIONS), "300"])


def record(tmp_path: Path, command: list[str], *flags: str) -> tuple[Path, dict[int, Counter]]:
    """Records the program; returns the trace and each rank's own count of unsuccessful polls."""
    out = tmp_path / ("every" if flags else "folded")
    proc = run("trace", "record", "--out", str(out), *flags, "--", *command, timeout=180)
    assert proc.returncode == 0, proc.stderr
    counted = {}
    for m in re.finditer(r"rank (\d+): polls test (\d+) testany (\d+) iprobe (\d+) cancelled (-?\d+)", proc.stdout):
        counted[int(m.group(1))] = Counter({"MPI_Test": int(m.group(2)), "MPI_Testany": int(m.group(3)),
                                            "MPI_Iprobe": int(m.group(4)), "cancelled": int(m.group(5))})
    assert sorted(counted) == [0, 1], proc.stdout
    return out, counted


def unsuccessful(trace_dir: Path, rank: int) -> tuple[Counter, int, int]:
    """(unsuccessful polls by name, records, CN_POLL records) in a rank's trace."""
    polls, records, folded = Counter(), 0, 0
    for c in open_trace(trace_dir).calls(rank):
        records += 1
        if c.kind == "poll":
            polls[c.name] += c.repeat
            folded += 1
        elif c.name in ("MPI_Test", "MPI_Testany") and not c.completions:
            polls[c.name] += 1
        elif c.name == "MPI_Iprobe" and not c.root:  # (root holds Iprobe's flag)
            polls[c.name] += 1
    return polls, records, folded


def messages(trace_dir: Path) -> dict[int, list[str]]:
    schedule, _ = to_schedule(open_trace(trace_dir))
    return {r: [ln.split(": ", 1)[1] for ln in lines if ": send " in ln or ": recv " in ln]
            for r, lines in blocks(schedule_goal_text(schedule)).items()}


def test_polling_loop_recorded_both_ways(tmp_path: Path, polling: tuple[Path, list[str]]) -> None:
    _, command = polling
    folded, counted_f = record(tmp_path, command)
    every, counted_e = record(tmp_path, command, "--every-poll")
    for rank in (0, 1):
        polls_f, records_f, poll_records = unsuccessful(folded, rank)
        polls_e, _, none = unsuccessful(every, rank)
        for name in ("MPI_Test", "MPI_Testany", "MPI_Iprobe"):
            assert polls_f[name] == counted_f[rank][name], (rank, name)
            assert polls_e[name] == counted_e[rank][name], (rank, name)
        assert none == 0
        # folded: at most one record per polled set and iteration, however many polls
        assert records_f <= 8 * ITERATIONS + 20, records_f
        if rank == 0:
            assert poll_records > 0
    assert messages(folded) == messages(every)
    # the cancelled wildcard receive: its wait says so (when MPI cancelled it), and it is no message
    calls = list(open_trace(folded).calls(0))
    assert [c.name for c in calls].count("MPI_Cancel") == 1 and [c.name for c in calls].count("MPI_Test_cancelled") == 1
    cancel_at = next(i for i, c in enumerate(calls) if c.name == "MPI_Cancel")
    wait = calls[cancel_at + 1]
    assert wait.name == "MPI_Wait" and len(wait.completions) == 1
    assert (wait.completions[0][1] == -3) == (counted_f[0]["cancelled"] == 1)
    # MPI_Request_free on rank 1's last send: the message still goes out
    assert "send 8b to 0 tag 2" in messages(folded)[1] and "recv 8b from 1 tag 2" in messages(folded)[0]
