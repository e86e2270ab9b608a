"""Cancelled requests and empty statuses (MPI_Cancel, MPI_Test_cancelled,
MPI_Request_free), in every reader: a cancelled receive matches no message,
a cancelled send sends none, a cancel that comes too late changes nothing,
a freed send still goes out; a cancel naming no pending request is one
line, exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from measure_support import run

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace

from native_writer import cancel, finalize, irecv, record, recv, request_free, send, waitall, write_trace
from test_convert import PARAMS, blocks

CANCELLED, ANY = -3, -1


def ops(goal_lines: list[str], word: str) -> list[str]:
    return [ln.split(": ", 1)[1] for ln in goal_lines if f": {word} " in ln]


def wait(t0: int, t1: int, req: int, src: int, tag: int, nbytes: int) -> bytes:
    return waitall(t0, t1, [(req, src, tag, nbytes)], "MPI_Wait")


def test_cancelled_wildcard_receive_matches_nothing(tmp_path: Path) -> None:
    # HPCC's RandomAccess: an MPI_ANY_SOURCE/MPI_ANY_TAG receive left posted at the end of a phase
    # is cancelled; its wait says so. The only message rank 0 gets is the later blocking one.
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, ANY, 64, req=0xA, tag=ANY), cancel(200, 210, 0xA), wait(300, 310, 0xA, CANCELLED, ANY, 0),
         recv(400, 500, 1, 8, tag=2), finalize(600)],
        [send(400, 410, 0, 8, tag=2), finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    b = blocks(schedule_goal_text(schedule))
    assert ops(b[0], "recv") == ["recv 8b from 1 tag 2"]
    assert conv.warnings == [] and conv.calls_by_name["MPI_Cancel"] == 1
    # the cancel is local (compute); the Irecv, the wait and the receive are MPI time
    assert conv.compute_ns[0] == 100 + 190 + 90 + 100 and conv.mpi_ns[0] == 10 + 10 + 100
    # rank 1 sends at 400 (o until 500; calc 190): the message lands at 400 + o + L = 1500, rank 0
    # (waiting since 380) spends o on it and computes 100 more: 1700
    assert list(simulate(schedule, **PARAMS).host_end_ns) == [1700, 690]


def test_empty_status_on_a_receive_is_no_message(tmp_path: Path) -> None:
    # A completion with MPI's empty status (source and tag wildcards, 0 bytes) received nothing,
    # even without the cancel record (a trace from a recorder that did not flag cancellations)
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, ANY, 64, req=0xA, tag=ANY), wait(300, 310, 0xA, ANY, ANY, 0), finalize(600)],
        [finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == [] and conv.warnings == []


def test_cancel_too_late_receive_still_matches(tmp_path: Path) -> None:
    # the receive had matched before MPI_Cancel: the wait names what arrived, and it is received
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, 1, 64, req=0xA, tag=5), cancel(200, 210, 0xA), wait(300, 310, 0xA, 1, 5, 48),
         finalize(600)],
        [send(50, 60, 0, 48, tag=5), finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == ["recv 48b from 1 tag 5"]
    simulate(schedule, **PARAMS)


def test_cancel_too_late_wildcard_receive_takes_what_arrived(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, ANY, 64, req=0xA, tag=ANY), cancel(200, 210, 0xA), wait(300, 310, 0xA, 1, 7, 16),
         finalize(600)],
        [send(50, 60, 0, 16, tag=7), finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == ["recv 16b from 1 tag 7"]
    assert conv.warnings == []


def cancelled_send(tmp_path: Path) -> Path:
    """Rank 0 cancels its first Isend (the wait says cancelled) and sends again; rank 1 receives one message."""
    return write_trace(tmp_path / "t", [
        [send(100, 110, 1, 16, tag=1, name="MPI_Isend", req=0x51), cancel(120, 130, 0x51),
         wait(140, 150, 0x51, CANCELLED, ANY, 0),
         send(200, 210, 1, 16, tag=1, name="MPI_Isend", req=0x51), wait(220, 230, 0x51, 0, 0, 0), finalize(600)],
        [recv(100, 400, 0, 16, tag=1), finalize(600)],
    ])


def test_cancelled_send_sends_nothing(tmp_path: Path) -> None:
    schedule, conv = to_schedule(open_trace(cancelled_send(tmp_path)))
    b = blocks(schedule_goal_text(schedule))
    assert ops(b[0], "send") == ["send 16b to 1 tag 1"]  # the cancelled one is a calc 0 now
    assert conv.warnings == []
    simulate(schedule, **PARAMS)


def test_cancelled_requests_survive_replication(tmp_path: Path) -> None:
    # copies of the traced ranks keep the cancellation (else 2 sends would meet 1 receive per copy)
    trace = extrapolated(open_trace(cancelled_send(tmp_path)), 4)
    schedule, _ = to_schedule(trace)
    assert all(len(ops(lines, "send")) == 1 for r, lines in blocks(schedule_goal_text(schedule)).items() if r % 2 == 0)


def test_request_free_on_a_send_still_sends(tmp_path: Path) -> None:
    # MPI_Request_free on an active send: the message goes out, nobody waits for it, and the
    # handle can come back from the next MPI_Isend at once
    folder = write_trace(tmp_path / "t", [
        [send(100, 110, 1, 32, tag=3, name="MPI_Isend", req=0x77), request_free(120, 125, 0x77),
         send(200, 210, 1, 8, tag=4, name="MPI_Isend", req=0x77), wait(300, 310, 0x77, 0, 0, 0), finalize(600)],
        [recv(100, 400, 0, 32, tag=3), recv(400, 450, 0, 8, tag=4), finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    b = blocks(schedule_goal_text(schedule))
    assert ops(b[0], "send") == ["send 32b to 1 tag 3", "send 8b to 1 tag 4"]
    assert conv.calls_by_name["MPI_Request_free"] == 1 and conv.warnings == []
    simulate(schedule, **PARAMS)


def test_freed_cancelled_receive_is_cancelled(tmp_path: Path) -> None:
    # MPI_Cancel then MPI_Request_free: nobody learns the outcome; taken as cancelled (no message)
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, 1, 64, req=0xA, tag=5), cancel(200, 210, 0xA), request_free(220, 230, 0xA), finalize(600)],
        [finalize(600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == [] and conv.warnings == []


@pytest.mark.parametrize("req, what", [(0xBAD, "not pending"), (0xA, "not pending")])
def test_cancel_of_an_unknown_request_is_one_line(tmp_path: Path, req: int, what: str) -> None:
    # 0xBAD was never started; 0xA completed already when it is cancelled
    folder = write_trace(tmp_path / "t", [
        [irecv(100, 110, 1, 8, req=0xA), wait(150, 160, 0xA, 1, 0, 8), cancel(200, 210, req), finalize(600)],
        [send(50, 60, 0, 8), finalize(600)],
    ])
    with pytest.raises(CloudnoiseError) as err:
        to_schedule(open_trace(folder))
    assert err.value.exit_code == 2
    assert f"rank 0, call 3 (MPI_Cancel): MPI_Cancel of request {req:#x}, which is {what}" in str(err.value)
    proc = run("trace", "show", str(folder))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "MPI_Cancel of request" in lines[0], proc.stderr


def test_cancel_of_a_collective_is_refused(tmp_path: Path) -> None:
    ibarrier = record("MPI_Ibarrier", 100, 110, 0, -1, 0, 0, 0x99, 0, 0)
    folder = write_trace(tmp_path / "t", [[ibarrier, cancel(200, 210, 0x99), finalize(600)],
                                          [ibarrier, finalize(600)]])
    with pytest.raises(CloudnoiseError, match="MPI cannot cancel collectives"):
        to_schedule(open_trace(folder))


# -- liballprof: the format does not say whether a cancel succeeded; a cancelled request is cancelled

LAP_RANK0 = """# htor's PMPI Tracer 1.0 Output File
# clockdiff: 0.000000 s (relative to rank 0)

MPI_Init:-:140737488343500:140737488344604:1000000.000000
MPI_Irecv:1000020.000000:6610400:8:11,8,8:-1:-1:0,0,2:7000000:1000021.000000
MPI_Cancel:1000030.000000:7000000:1000031.000000
MPI_Wait:1000040.000000:7000000:7000200:1000041.000000
MPI_Test_cancelled:1000042.000000:7000200:7000300:1000043.000000
MPI_Recv:1000050.000000:11017376:2:11,8,8:1:4:0,0,2:140737488340112:1000060.000000
MPI_Finalize:1000300.000000:-
"""
LAP_RANK1 = """# htor's PMPI Tracer 1.0 Output File
# clockdiff: 0.000000 s (relative to rank 0)

MPI_Init:-:140737488343500:140737488344604:1000000.000000
MPI_Send:1000050.000000:6610272:2:11,8,8:0:4:0,1,2:1000052.000000
MPI_Finalize:1000300.000000:-
"""


def test_liballprof_cancelled_wildcard_receive(tmp_path: Path) -> None:
    folder = tmp_path / "lap"
    folder.mkdir()
    (folder / "pmpi-trace-rank-0.txt").write_text(LAP_RANK0)
    (folder / "pmpi-trace-rank-1.txt").write_text(LAP_RANK1)
    trace = open_trace(folder)
    kinds = [c.kind for c in trace.calls(0)]
    assert kinds == ["init", "irecv", "cancel", "complete", "local", "recv", "finalize"]
    schedule, conv = to_schedule(trace)
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == ["recv 16b from 1 tag 4"]
    assert conv.calls_by_name["MPI_Cancel"] == 1


# -- OTF2: Score-P records MpiRequestCancelled where a wait or test finds the request cancelled

def test_otf2_cancelled_receive(tmp_path: Path) -> None:
    pytest.importorskip("otf2")
    from otf2_writer import Archive

    with Archive(tmp_path / "o", 2) as a:
        w = a.world
        a.call(0, "MPI_Init", 0, 100)
        a.call(0, "MPI_Irecv", 200, 210, ("mpi_irecv_request", 205, 1))
        a.call(0, "MPI_Cancel", 220, 230)
        a.call(0, "MPI_Wait", 240, 250, ("mpi_request_cancelled", 245, 1))
        a.call(0, "MPI_Recv", 300, 400, ("mpi_recv", 390, 1, w, 4, 16))
        a.call(0, "MPI_Finalize", 500, 510)
        a.call(1, "MPI_Init", 0, 100)
        a.call(1, "MPI_Send", 300, 310, ("mpi_send", 305, 0, w, 4, 16))
        a.call(1, "MPI_Finalize", 500, 510)
    schedule, conv = to_schedule(open_trace(tmp_path / "o"))
    assert ops(blocks(schedule_goal_text(schedule))[0], "recv") == ["recv 16b from 1 tag 4"]
    assert conv.warnings == []
