"""Trace -> GOAL conversion on small traces with known answers: what each
call becomes, the dependencies, the compute between calls, collectives
expanded by the chosen algorithm, and the simulated runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.collectives import parse_algorithms
from cloudnoise.trace.convert import ConvertOptions, to_goal, to_schedule
from cloudnoise.trace.reader import open_trace

from native_writer import coll, finalize, irecv, record, recv, send, waitall, write_trace

PARAMS = dict(L=1000, o=100, g=0, G=0, O=0, S=65536)


def blocks(goal: str) -> dict[int, list[str]]:
    """GOAL text -> {rank: [its lines]}."""
    out: dict[int, list[str]] = {}
    rank = None
    for line in goal.splitlines():
        line = line.strip()
        if line.startswith("rank "):
            rank = int(line.split()[1])
            out[rank] = []
        elif line and line != "}" and rank is not None:
            out[rank].append(line)
    return out


def test_blocking_pair_known_answer(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [send(1000, 1100, 1, 8), finalize(1500)],
        [recv(200, 1500, 0, 8), finalize(1600)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    b = blocks(schedule_goal_text(schedule))
    assert b[0][:3] == ["l1: calc 1000", "l2: send 8b to 1 tag 0", "l3: calc 400"]
    assert "l2 requires l1" in b[0] and "l3 requires l2" in b[0]
    assert b[1][:3] == ["l1: calc 200", "l2: recv 8b from 0 tag 0", "l3: calc 100"]
    assert conv.recorded_runtime_ns == 1600
    assert conv.compute_ns == [1400, 300] and conv.mpi_ns == [100, 1300]
    # rank 0 sends at 1000 (o until 1100); the message lands at 1000 + o + L = 2100,
    # rank 1 spends o receiving it (2200) and computes 100 more: 2300
    r = simulate(schedule, **PARAMS)
    assert int(r.runtime_ns[0]) == 2300
    assert list(r.host_end_ns) == [1500, 2300]


def test_nonblocking_completes_at_its_wait(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [send(100, 110, 1, 8, name="MPI_Isend", req=0xA), waitall(5000, 5010, [(0xA, 0, 0, 0)], "MPI_Wait"),
         finalize(5100)],
        [irecv(100, 110, 0, 8, req=0xB), waitall(4000, 4010, [(0xB, 0, 0, 8)]), finalize(4100)],
    ])
    schedule, _ = to_schedule(open_trace(folder))
    b = blocks(schedule_goal_text(schedule))
    # rank 1: calc 100; calc 3890 (110 -> 4000) overlaps the receive; the receive (emitted at
    # the wait) waits only for the first calc; the wait joins both
    assert b[1][:4] == ["l1: calc 100", "l2: calc 3890", "l3: recv 8b from 0 tag 0", "l4: calc 0"]
    assert "l3 requires l1" in b[1] and "l4 requires l2" in b[1] and "l4 requires l3" in b[1]
    assert "l2 requires l1" in b[1]
    r = simulate(schedule, **PARAMS)
    # rank 0: calc 100, the send's o (100-200), calc 4890, the wait, calc 90: 5180.
    # rank 1: the message lands at 1200, but the CPU computes until 3990; o to 4090, calc 90: 4180
    assert list(r.host_end_ns) == [5180, 4180]


def test_any_source_replays_the_recorded_match(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [finalize(100)],
        [send(10, 20, 2, 16, tag=5), finalize(100)],
        [recv(10, 90, -1, 64, tag=-1, status=(1, 5, 16)), finalize(100)],
    ])
    schedule, _ = to_schedule(open_trace(folder))
    assert "l2: recv 16b from 1 tag 5" in blocks(schedule_goal_text(schedule))[2]


def test_proc_null_peers_make_no_ops(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [send(10, 20, -2, 16), recv(30, 40, -2, 16, status=(-2, -1, 0)), finalize(100)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    text = schedule_goal_text(schedule)
    assert "send" not in text and "recv" not in text
    # their 20 ns in the library are local work, replayed as compute: all 100 ns
    assert conv.compute_ns == [100] and conv.mpi_ns == [0]
    assert int(simulate(schedule, **PARAMS).runtime_ns[0]) == 100


def test_proc_null_nonblocking_is_local_and_its_wait_a_no_op(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [send(10, 20, -2, 16, name="MPI_Isend", req=0xA), irecv(30, 45, -2, 16, req=0xB),
         waitall(60, 70, [(0xA, 0, 0, 0), (0xB, -2, -1, 0)]), finalize(100)],
    ])
    schedule, conv = to_schedule(open_trace(folder))
    text = schedule_goal_text(schedule)
    assert "send" not in text and "recv" not in text
    # Isend 10 ns and Irecv 15 ns are compute; only the Waitall (10 ns) was time in MPI
    assert conv.compute_ns == [90] and conv.mpi_ns == [10]


@pytest.mark.parametrize("algorithms, ops_per_rank", [("mpich", 4), ("allreduce=allreduce_ring", 12)])
def test_allreduce_expanded_by_the_chosen_algorithm(tmp_path: Path, algorithms: str, ops_per_rank: int) -> None:
    folder = write_trace(tmp_path / "t", [[coll("MPI_Allreduce", 10, 90, 64), finalize(100)] for _ in range(4)])
    options = ConvertOptions(parse_algorithms(algorithms))
    schedule, conv = to_schedule(open_trace(folder), options)
    b = blocks(schedule_goal_text(schedule))
    comm_ops = [ln for ln in b[0] if " send " in ln or " recv " in ln]
    assert len(comm_ops) == ops_per_rank
    # every rank's collective messages carry the same tag, apart from point-to-point tags
    tags = {ln.split()[-1] for r in b for ln in b[r] if " send " in ln or " recv " in ln}
    assert len(tags) == 1 and int(tags.pop()) >= 1 << 30
    r = simulate(schedule, **PARAMS, ready_order="program")
    # dissemination on 4 ranks: 2 rounds of o + L + o after the first calc
    if algorithms == "mpich":
        assert int(r.runtime_ns[0]) == 10 + 2 * (100 + 1000 + 100) + 10


def test_rooted_collective_rotates_to_its_root(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[coll("MPI_Bcast", 10, 90, 32, root=2), finalize(100)] for _ in range(4)])
    schedule, _ = to_schedule(open_trace(folder))
    b = blocks(schedule_goal_text(schedule))
    # a binomial broadcast from rank 2: rank 2 only sends, every other rank receives once
    assert not any(" recv " in ln for ln in b[2])
    assert all(sum(" recv " in ln for ln in b[r]) == 1 for r in (0, 1, 3))


def test_compute_scale_scales_only_compute(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[send(1000, 1100, 1, 8), finalize(1500)], [recv(200, 1500, 0, 8), finalize(1600)]])
    _, conv = to_schedule(open_trace(folder), ConvertOptions(compute_scale=0.5))
    assert conv.compute_ns == [700, 150]


def test_goal_file_round_trip(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[send(1000, 1100, 1, 8), finalize(1500)], [recv(200, 1500, 0, 8), finalize(1600)]])
    out = tmp_path / "app.goal.gz"
    to_goal(open_trace(folder), out)
    r = simulate(out, **PARAMS)
    assert int(r.runtime_ns[0]) == 2300
    with pytest.raises(CloudnoiseError, match="must end in .goal"):
        to_goal(open_trace(folder), tmp_path / "app.txt")


def test_persistent_requests_start_each_time(tmp_path: Path) -> None:
    def rank(peer: int) -> list[bytes]:
        recs = [record("MPI_Send_init", 5, 6, peer, 3, 0, 0, 8, 0x51),
                record("MPI_Recv_init", 7, 8, peer, 3, 0, 0, 8, 0x52)]
        t = 10
        for _ in range(3):
            recs.append(record("MPI_Startall", t, t + 1, 2, 0, tail=(0x51).to_bytes(8, "little") + (0x52).to_bytes(8, "little")))
            recs.append(waitall(t + 50, t + 60, [(0x51, 0, 0, 0), (0x52, peer, 3, 8)]))
            t += 100
        return recs + [finalize(t)]

    folder = write_trace(tmp_path / "t", [rank(1), rank(0)])
    schedule, conv = to_schedule(open_trace(folder))
    text = blocks(schedule_goal_text(schedule))[0]
    assert sum(" send " in ln for ln in text) == 3 and sum(" recv " in ln for ln in text) == 3
    simulate(schedule, **PARAMS)  # completes


def test_call_copy_is_a_shallow_copy_of_every_field() -> None:
    # Call.copy replaces dataclasses.replace on the replication path: a field it forgot would be lost there
    import dataclasses

    from cloudnoise.trace.events import Call, CommInfo

    values = {f.name: i + 3 for i, f in enumerate(dataclasses.fields(Call))}
    values.update(name="MPI_Isend", kind="isend", status=(1, 2, 3), vec=(4, 5), completions=[(6, 7, 8, 9)],
                  requests=[10], comm_info=CommInfo(2, ("k",), 2, 1), names=["MPI_X"])
    c = Call(**values)
    d = c.copy()
    assert d is not c and dataclasses.asdict(d) == dataclasses.asdict(c) == dataclasses.asdict(dataclasses.replace(c))
    assert all(getattr(d, f.name) is getattr(c, f.name) for f in dataclasses.fields(Call))
