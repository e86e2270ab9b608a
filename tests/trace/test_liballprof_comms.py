"""Sub-communicators in liballprof traces (src/cloudnoise/trace/liballprof_comms.py):
each constructor real codes use, written as the tracer writes it (its new
communicator is only an address there; its handle shows on first use), and
the world ranks its messages and collectives reach once converted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace
from liballprof_writer import DOUBLE, RankWriter, write


def messages(text: str) -> dict[int, list[tuple[str, int, int, int]]]:
    """{rank: [(send|recv, bytes, world peer, tag)]} of a GOAL text."""
    out: dict[int, list[tuple[str, int, int, int]]] = {}
    rank = -1
    for line in text.splitlines():
        m = re.match(r"rank (\d+) \{", line)
        if m:
            rank = int(m.group(1))
            out[rank] = []
            continue
        m = re.search(r"(send|recv) (\d+)b (?:to|from) (\d+) tag (\d+)", line)
        if m:
            out[rank].append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return out


def p2p(text: str) -> dict[int, list[tuple[str, int, int]]]:
    """{rank: [(send|recv, bytes, world peer)]} of user messages (collective tags have bit 30 set)."""
    return {r: [(k, b, p) for k, b, p, t in ms if not t & (1 << 30)] for r, ms in messages(text).items()}


def coll_peers(text: str) -> dict[int, set[int]]:
    """{rank: world ranks it exchanges collective messages with}."""
    return {r: {p for _, _, p, t in ms if t & (1 << 30)} for r, ms in messages(text).items()}


def convert_text(folder: Path) -> str:
    schedule, _ = to_schedule(open_trace(folder))
    return schedule_goal_text(schedule)


@pytest.mark.parametrize("mpich", [False, True])
def test_comm_split_by_parity_with_reversed_keys(tmp_path: Path, mpich: bool) -> None:
    # MPI_Comm_split(world, rank % 2, -rank): {0, 2} -> comm ranks (2, 0), {1, 3} -> (3, 1)
    ranks = []
    for r in range(4):
        w = RankWriter(r, 4, mpich=mpich)
        w.call("MPI_Comm_rank", w.world, 140737488343496)
        w.call("MPI_Comm_split", w.world, r % 2, -r, 140737488343400)
        members = [2, 0] if r % 2 == 0 else [3, 1]
        me = members.index(r)
        sub = w.comm(w.new_handle(), me, 2)
        w.allreduce(1, sub)
        if me == 0:
            w.send(4, 1, 7, sub)     # comm rank 1: world 0 (even) or 1 (odd)
        else:
            w.recv(4, 0, 7, sub)
        ranks.append(w.finalize())
    text = convert_text(write(tmp_path / "t", ranks))
    msgs = p2p(text)
    assert msgs[2] == [("send", 32, 0)] and msgs[0] == [("recv", 32, 2)]
    assert msgs[3] == [("send", 32, 1)] and msgs[1] == [("recv", 32, 3)]
    peers = coll_peers(text)
    assert peers[0] == {2} and peers[2] == {0} and peers[1] == {3} and peers[3] == {1}


def test_comm_dup_keeps_the_parents_ranks(tmp_path: Path) -> None:
    ranks = []
    for r in range(3):
        w = RankWriter(r, 3)
        w.call("MPI_Comm_dup", w.world, 140737488343400)
        dup = w.comm(w.new_handle(), r, 3)
        w.bcast(2, 1, dup)
        if r == 2:
            w.send(1, 0, 5, dup)
        if r == 0:
            w.recv(1, 2, 5, dup)
        w.barrier(w.world)
        ranks.append(w.finalize())
    text = convert_text(write(tmp_path / "t", ranks))
    assert p2p(text)[2] == [("send", 8, 0)] and p2p(text)[0] == [("recv", 8, 2)]
    # the dup's tags differ from MPI_COMM_WORLD's: the bcast (root 1) and the barrier do not mix
    bcast_tags = set(re.findall(r"send 16b to \d+ tag (\d+)", text))
    assert bcast_tags and all(int(t) & (1 << 30) for t in bcast_tags)


def test_cart_create_and_cart_sub_rows_and_columns(tmp_path: Path) -> None:
    # a 3 x 2 grid of 6 ranks (MPI_Dims_create's), rows then columns by MPI_Cart_sub
    ranks = []
    for r in range(6):
        w = RankWriter(r, 6)
        w.call("MPI_Dims_create", 6, 2, 140737488343000)
        w.call("MPI_Cart_create", w.world, 2, 140737488343000, 140737488343008, 0, 140737488343400)
        grid = w.comm(w.new_handle(), r, 6)
        w.call("MPI_Cart_sub", grid, 140737488343016, 140737488343408)   # keep dim 1: a row of 2
        w.call("MPI_Cart_sub", grid, 140737488343024, 140737488343416)   # keep dim 0: a column of 3
        row = w.comm(w.new_handle(), r % 2, 2)
        col = w.comm(w.new_handle(), r // 2, 3)
        w.allreduce(1, row)
        w.bcast(1, 0, col)
        if r // 2 == 0:
            w.send(3, 2, 1, col)   # column rank 2: world r + 4
        elif r // 2 == 2:
            w.recv(3, 0, 1, col)
        ranks.append(w.finalize())
    text = convert_text(write(tmp_path / "t", ranks))
    msgs = p2p(text)
    assert msgs[0] == [("send", 24, 4)] and msgs[1] == [("send", 24, 5)]
    assert msgs[4] == [("recv", 24, 0)] and msgs[5] == [("recv", 24, 1)]
    peers = coll_peers(text)
    # row allreduce with the other rank of the row ({2, 3} for rank 3), column bcast inside the column ({1, 3, 5})
    assert peers[0] <= {1, 2, 4} and 1 in peers[0] and 2 in peers[3] and peers[3] <= {1, 2, 5}


def test_comm_create_from_a_group(tmp_path: Path) -> None:
    # ranks 1..3 in a new communicator (MPI_Group_incl), rank 0 gets MPI_COMM_NULL
    ranks = []
    for r in range(4):
        w = RankWriter(r, 4)
        w.call("MPI_Comm_group", w.world, 140737488343300)
        w.call("MPI_Group_incl", 46912498000000, 3, 140737488343304, 140737488343308)
        w.call("MPI_Comm_create", w.world, 46912498000512, 140737488343400)
        if r > 0:
            sub = w.comm(w.new_handle(), r - 1, 3)
            w.barrier(sub)
            if r == 3:
                w.send(2, 0, 9, sub)  # comm rank 0 = world 1
            if r == 1:
                w.recv(2, 2, 9, sub)
        ranks.append(w.finalize())
    text = convert_text(write(tmp_path / "t", ranks))
    assert p2p(text)[3] == [("send", 16, 1)] and p2p(text)[1] == [("recv", 16, 3)]
    peers = coll_peers(text)
    assert peers[0] == set() and peers[1] and peers[1] <= {2, 3}


def test_a_communicator_the_trace_cannot_place_is_refused_naming_its_constructor(tmp_path: Path) -> None:
    # a size-1 communicator is MPI_COMM_SELF-like; one of 2 ranks that is not the world is not placed
    odd = []
    for r in range(3):
        w = RankWriter(r, 3)
        w.call("MPI_Comm_split_type", w.world, 1, r, 0, 140737488343400)
        w.barrier(w.comm(777, min(r, 1), 2))
        odd.append(w.finalize())
    with pytest.raises(CloudnoiseError, match=r"rank 0, call 2: MPI_Barrier on a communicator of 2 ranks.*MPI_Comm_split_type at call 1"):
        to_schedule(open_trace(write(tmp_path / "odd", odd)))


def test_extrapolating_a_split_trace_replicates_the_split_per_copy(tmp_path: Path) -> None:
    ranks = []
    for r in range(2):
        w = RankWriter(r, 2)
        w.call("MPI_Comm_split", w.world, 0, r, 140737488343400)
        sub = w.comm(w.new_handle(), r, 2)
        if r == 0:
            w.send(1, 1, 3, sub)
        else:
            w.recv(1, 0, 3, sub)
        w.call("MPI_Comm_split", w.world, r, 0, 140737488343408)   # every rank alone
        w.allreduce(1, w.comm(w.new_handle(), 0, 1))
        ranks.append(w.finalize())
    trace = open_trace(write(tmp_path / "t", ranks))
    ext = extrapolated(trace, 6)
    schedule, conv = to_schedule(ext)
    msgs = p2p(schedule_goal_text(schedule))
    assert msgs[4] == [("send", 8, 5)] and msgs[5] == [("recv", 8, 4)] and msgs[2] == [("send", 8, 3)]
    assert conv.ranks == 6 and "replication" in ext.label


def _split_program(tmp_path: Path, color, name: str = "t") -> Path:
    """6 ranks split MPI_COMM_WORLD by color(rank) (key = rank), allreduce there and send to the next rank of it."""
    ranks = []
    for r in range(6):
        w = RankWriter(r, 6)
        w.call("MPI_Comm_split", w.world, color(r), r, 140737488343400)
        group = [q for q in range(6) if color(q) == color(r)]
        me = group.index(r)
        sub = w.comm(w.new_handle(), me, len(group))
        w.allreduce(1, sub)
        w.call("MPI_Sendrecv", 1, 2, DOUBLE, (me + 1) % len(group), 6, 2, 2, DOUBLE, (me - 1) % len(group), 6, sub, 3)
        ranks.append(w.finalize())
    return write(tmp_path / name, ranks)


@pytest.mark.parametrize("color, groups", [
    (lambda r: r % 2, lambda n: [list(range(c, n, 2)) for c in range(2)]),          # every 2nd rank: 2 groups of n / 2
    (lambda r: 0, lambda n: [list(range(n))]),                                      # all: a copy of MPI_COMM_WORLD
    (lambda r: r // 3, lambda n: [list(range(g, g + 3)) for g in range(0, n, 3)]),  # blocks of 3
])
def test_extrapolating_a_split_follows_its_rule(tmp_path: Path, color, groups) -> None:
    trace = open_trace(_split_program(tmp_path, color))
    ext = extrapolated(trace, 12)
    assert "replication" not in ext.label
    text = schedule_goal_text(to_schedule(ext)[0])
    msgs = p2p(text)
    for g in groups(12):
        for i, r in enumerate(g):
            assert ("send", 16, g[(i + 1) % len(g)]) in msgs[r] and ("recv", 16, g[(i - 1) % len(g)]) in msgs[r]


def test_extrapolating_a_split_without_a_rule_is_refused_naming_it(tmp_path: Path) -> None:
    trace = open_trace(_split_program(tmp_path, lambda r: int(r in (0, 4, 5))))
    with pytest.raises(CloudnoiseError, match=r"call 1 \(MPI_Comm_split\): its groups .* follow no rule"):
        extrapolated(trace, 16)


@pytest.mark.parametrize("line, says", [
    ("MPI_Comm_split:{t}:{w}:0:x:140737488343400:{t}", "malformed"),
    ("MPI_Cart_create:{t}:{w}:1000000000:1:2:0:140737488343400:{t}", "1000000000 dimensions"),
    ("MPI_Comm_split:{t}:7,{r}9,2:0:0:140737488343400:{t}", "damaged"),
])
def test_damaged_constructor_arguments_are_one_line_errors(tmp_path: Path, line: str, says: str) -> None:
    ranks = []
    for r in range(2):
        w = RankWriter(r, 2)
        w.lines.append(line.format(t=f"{w.t + 1:.6f}", w=w.world, r=r))
        w.barrier(w.comm(w.new_handle(), r, 2))
        ranks.append(w.finalize())
    with pytest.raises(CloudnoiseError, match=says):
        to_schedule(open_trace(write(tmp_path / "t", ranks)))


def test_communicator_tag_codes_are_the_same_in_every_process() -> None:
    # Python's hash() of a string differs between processes (PYTHONHASHSEED): a code built
    # from it made the GOAL file of a trace with sub-communicators change from run to run.
    prog = ("from cloudnoise.trace.goal_tags import comm_code; "
            "print([comm_code(k) for k in [(0, 1, 'split', 3), (2, 0, 'dup'), ('self', 5), (0, 1, 'sub', 1, 0)]])")
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outs.add(subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True, check=True).stdout)
    assert len(outs) == 1
    assert all(1 <= c <= 62 for c in json.loads(outs.pop()))
