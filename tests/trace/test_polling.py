"""Polling loops: a run of unsuccessful MPI_Test*/MPI_Iprobe calls is one
CN_POLL record (how many calls, first entry, last exit). Converted, it is
the same as the calls it stands for: compute, counted by name; the schedule
from the folded record equals the one from the full record."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.reader import open_trace

from native_writer import (failed_test, finalize, iprobe_nothing, irecv, poll, record, recv, send, waitall,
                           write_trace)

ANY = -1


def polling_program(fold: bool) -> list[list[bytes]]:
    """Two ranks. Rank 0 posts a receive and polls it with MPI_Test, alternating with MPI_Testany over
    (its receive, a send) and an MPI_Iprobe, 40 times each, until the message is there; then it sends
    and polls that send with MPI_Testall 25 times. Rank 1 computes, sends, then polls one MPI_Iprobe
    (a run of one) and receives. `fold` writes what the recorder writes by default (CN_POLL records);
    otherwise every call is its own record (CN_TRACE_POLLING=every)."""
    r0: list[bytes] = [irecv(100, 110, 1, 64, req=0xA, tag=3), send(120, 130, 1, 8, tag=9, name="MPI_Isend", req=0xB)]
    t = 200
    full, runs = [], {}  # runs: key -> [record name, first entry, last exit, calls, fields]
    for _ in range(40):
        for name, count, extra in (("MPI_Test", 1, (0xA,)), ("MPI_Testany", 2, (0xA, 0xB)), ("MPI_Iprobe", 0, ())):
            t0, t1 = t, t + 7
            t += 10
            full.append(iprobe_nothing(t0, t1, 1, ANY) if name == "MPI_Iprobe" else failed_test(t0, t1, count, name))
            key = (name, extra)
            run = runs.setdefault(key, [name, t0, t1, 0, extra])
            run[2], run[3] = t1, run[3] + 1
    folded = [poll(name, t0, t1, n, reqs, peer=1 if name == "MPI_Iprobe" else 0, tag=ANY if name == "MPI_Iprobe" else 0)
              for name, t0, t1, n, reqs in runs.values()]
    r0 += full if not fold else folded
    done = waitall(t, t + 10, [(0xA, 1, 3, 64)], "MPI_Test")
    r0 += [done, waitall(t + 20, t + 30, [(0xB, 0, 0, 0)], "MPI_Wait"), send(t + 40, t + 50, 1, 8, tag=4, name="MPI_Isend", req=0xC)]
    t += 100
    tests = [failed_test(t + 10 * k, t + 10 * k + 5, 1, "MPI_Testall") for k in range(25)]
    r0 += tests if not fold else [poll("MPI_Testall", t, t + 245, 25, (0xC,))]
    t += 300
    r0 += [waitall(t, t + 10, [(0xC, 0, 0, 0)], "MPI_Testall"), finalize(t + 100)]
    r1 = [recv(50, 150, 0, 8, tag=9), send(800, 810, 0, 64, tag=3), iprobe_nothing(900, 905, 0, 4),
          recv(1000, 1500, 0, 8, tag=4), finalize(t + 100)]
    return [r0, r1]


def test_folded_record_converts_as_the_full_record(tmp_path: Path) -> None:
    full = open_trace(write_trace(tmp_path / "full", polling_program(fold=False)))
    folded = open_trace(write_trace(tmp_path / "folded", polling_program(fold=True)))
    assert sum(1 for c in full.calls(0)) == 2 + 3 * 40 + 3 + 25 + 2 + 1
    assert [c.kind for c in folded.calls(0)].count("poll") == 4
    s_full, c_full = to_schedule(full)
    s_folded, c_folded = to_schedule(folded)
    assert schedule_goal_text(s_folded) == schedule_goal_text(s_full)
    keep = ("source", "convert_seconds", "calls_per_second")
    d_full = {k: v for k, v in c_full.to_dict().items() if k not in keep}
    d_folded = {k: v for k, v in c_folded.to_dict().items() if k not in keep}
    assert d_folded == d_full
    assert d_full["calls_by_name"]["MPI_Test"] == 41 and d_full["calls_by_name"]["MPI_Testany"] == 40
    assert d_full["calls_by_name"]["MPI_Iprobe"] == 41 and d_full["calls_by_name"]["MPI_Testall"] == 26


def test_poll_record_reads_as_one_call_standing_for_many(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[
        poll("MPI_Testany", 100, 900, 321, (0xA, 0xB), inside_ns=500),
        poll("MPI_Iprobe", 150, 950, 7, peer=3, tag=11, comm=0),
        finalize(1000)]])
    calls = list(open_trace(folder).calls(0))
    assert [(c.index, c.name, c.kind, c.repeat) for c in calls] == [
        (0, "MPI_Init", "init", 1), (1, "MPI_Testany", "poll", 321), (322, "MPI_Iprobe", "poll", 7),
        (329, "MPI_Finalize", "finalize", 1)]
    assert calls[1].requests == [0xA, 0xB] and (calls[1].t_entry_ns, calls[1].t_exit_ns) == (100, 900)
    assert (calls[2].peer, calls[2].tag) == (3, 11)


@pytest.mark.parametrize("polled, calls, what", [
    ("MPI_Send", 5, "a polling record of MPI_Send, which is not a test or MPI_Iprobe"),
    ("MPI_Test", 0, "CN_POLL record has the wrong length"),
])
def test_damaged_poll_record_is_one_line(tmp_path: Path, polled: str, calls: int, what: str) -> None:
    folder = write_trace(tmp_path / "t", [[poll(polled, 100, 200, calls, (0xA,)), finalize(300)]])
    with pytest.raises(CloudnoiseError) as err:
        to_schedule(open_trace(folder))
    assert err.value.exit_code == 2 and f"rank 0, call 1: {what}" in str(err.value)


def test_poll_record_with_a_count_past_its_end_is_damaged(tmp_path: Path) -> None:
    rec = poll("MPI_Testany", 100, 200, 9, (0xA, 0xB))
    # nreq says 3 requests, the record holds 2
    bad = rec[:24] + struct.pack("<II", 30, 3) + rec[32:]
    folder = write_trace(tmp_path / "t", [[bad, finalize(300)]])
    with pytest.raises(CloudnoiseError, match="CN_POLL record has the wrong length"):
        to_schedule(open_trace(folder))
