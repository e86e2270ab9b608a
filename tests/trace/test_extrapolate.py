"""Extrapolating a regular trace: a 2 x 2 Cartesian halo exchange traced on
4 ranks, played on 16 (a 4 x 4 grid): neighbours by displacement,
MPI_PROC_NULL at the grid's edges, collectives on all ranks; irregular
traces are refused naming the call."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import ExtrapolatedTrace
from cloudnoise.trace.grid import dims_create
from cloudnoise.trace.reader import open_trace

from native_writer import cart, coll, finalize, irecv, send, waitall, write_trace

DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # north, south, west, east


def grid_rank(r: int) -> list[bytes]:
    """One rank of a 2 x 2 non-periodic grid: 4 Irecv + 4 Isend + Waitall, then an Allreduce."""
    row, col = divmod(r, 2)
    recs = [cart(0, 10, 2, 4, r, (2, 2), (0, 0))]
    peers = []
    for dr, dc in DIRS:
        rr, cc = row + dr, col + dc
        peers.append(rr * 2 + cc if 0 <= rr < 2 and 0 <= cc < 2 else -2)
    t = 100
    done = []
    for k, p in enumerate(peers):
        recs.append(irecv(t, t + 1, p, 64, req=0x100 + k, tag=k, comm=2))
        done.append((0x100 + k, p, k, 64))
        t += 2
    for k, p in enumerate(peers):
        recs.append(send(t, t + 1, p, 64, tag=k ^ 1, comm=2, name="MPI_Isend", req=0x200 + k))
        done.append((0x200 + k, 0, 0, 0))
        t += 2
    recs.append(waitall(t, t + 50, done))
    recs.append(coll("MPI_Allreduce", 1000, 1010, 8, comm=2))
    recs.append(finalize(2000))
    return recs


def test_dims_create_like_mpi() -> None:
    assert dims_create(16, 2) == (4, 4) and dims_create(12, 2) == (4, 3) and dims_create(16384, 2) == (128, 128)
    assert dims_create(7, 2) == (7, 1) and dims_create(8, 3) == (2, 2, 2)


def test_grid_halo_to_16_ranks(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [grid_rank(r) for r in range(4)])
    ext = ExtrapolatedTrace(open_trace(folder), 16)
    assert ext.grid_dims == (4, 4)
    schedule, conv = to_schedule(ext)
    assert conv.ranks == 16
    text = schedule_goal_text(schedule)
    blocks = text.split("rank ")[1:]
    # rank 5 = (1, 1) is inside the grid: 4 sends and 4 receives to 1, 9, 4, 6
    inner = blocks[5]
    for peer in (1, 9, 4, 6):
        assert f"send 64b to {peer} " in inner and f"recv 64b from {peer} " in inner
    # rank 0 = (0, 0) is a corner: only south (4) and east (1)
    corner = blocks[0]
    assert corner.count(" send 64b") == 2 and "to 4 " in corner and "to 1 " in corner
    r = simulate(schedule, L=1000, o=100, g=0, G=0, O=0, ready_order="program")
    assert r.runtime_ns[0] > 2000


def test_irregular_traces_are_refused(tmp_path: Path) -> None:
    # two ranks whose E/W exchanges go to MPI_PROC_NULL everywhere: unknown direction
    def two(r: int) -> list[bytes]:
        other = 1 - r
        return [send(10, 20, -2, 8), send(30, 40, other, 8), coll("MPI_Barrier", 50, 60, 0), finalize(100)]

    folder = write_trace(tmp_path / "a", [two(0), two(1)])
    with pytest.raises(CloudnoiseError, match=r"call 1 \(MPI_Send\): its peer is MPI_PROC_NULL on every traced rank"):
        ExtrapolatedTrace(open_trace(folder), 8)
    # different call sequences
    folder = write_trace(tmp_path / "b", [[coll("MPI_Barrier", 5, 6, 0), finalize(10)], [finalize(10)]])
    with pytest.raises(CloudnoiseError, match="rank 1 makes MPI_Finalize there"):
        ExtrapolatedTrace(open_trace(folder), 8)


def test_ring_offsets(tmp_path: Path) -> None:
    def ring(r: int, p: int = 3) -> list[bytes]:
        return [send(10, 20, (r + 1) % p, 8), irecv(21, 22, (r - 1) % p, 8, req=7),
                waitall(30, 40, [(7, (r - 1) % p, 0, 8)]), finalize(100)]

    folder = write_trace(tmp_path / "r", [ring(r) for r in range(3)])
    schedule, _ = to_schedule(ExtrapolatedTrace(open_trace(folder), 10))
    text = schedule_goal_text(schedule)
    assert "send 8b to 0 " in text.split("rank 9")[1]  # the ring closes on 10 ranks
