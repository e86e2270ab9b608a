"""The liballprof reader on files written by hand from the format's
description (src/cloudnoise/trace/liballprof.py): one line per call,
NAME:T_START(us):ARGS...:T_END(us), arguments in prototype order with
datatypes as ID,SIZE,EXTENT and communicators as HANDLE,RANK,SIZE."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import ConvertOptions, to_schedule
from cloudnoise.trace.reader import open_trace

# Rank 0 sends 4 ints (16 B) to rank 1 with tag 9, then receives 2 doubles
# (16 B) with MPI_Irecv + MPI_Waitall (requests 4 bytes apart, as MPICH's),
# then both ranks allreduce one double and meet at a barrier.
RANK0 = """# htor's PMPI Tracer 1.0 Output File
# time: Thu Jan  1 00:00:00 2009
# hostname: node0.
# clockdiff: 0.000000 s (relative to rank 0)

MPI_Init:-:140737488343500:140737488344604:1000000.000000
MPI_Comm_rank:1000001.000000:0,0,2:6741352:1000001.000000
MPI_Send:1000010.000000:6610272:4:2,4,4:1:9:0,0,2:1000012.000000
MPI_Irecv:1000020.000000:6610400:2:11,8,8:1:3:0,0,2:7000000:1000021.000000
MPI_Waitall:1000050.000000:1:7000000:7000100:1000060.000000
MPI_Allreduce:1000100.000000:140737488342264:140737488341160:1:11,8,8:3:0,0,2:1000110.000000
MPI_Barrier:1000200.000000:0,0,2:1000205.000000
MPI_Finalize:1000300.000000:-
"""
RANK1 = """# htor's PMPI Tracer 1.0 Output File

MPI_Init:-:140737488343500:140737488344604:1000000.000000
MPI_Recv:1000005.000000:11017376:4:2,4,4:0:9:0,1,2:140737488340112:1000015.000000
MPI_Isend:1000020.000000:6610400:2:11,8,8:0:3:0,1,2:7000004:1000021.000000
MPI_Wait:1000030.000000:7000004:7000200:1000031.000000
MPI_Allreduce:1000100.000000:140737488342264:140737488341160:1:11,8,8:3:0,1,2:1000110.000000
MPI_Barrier:1000200.000000:0,1,2:1000205.000000
MPI_Finalize:1000250.000000:-
"""


def write(folder: Path, texts: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r, text in enumerate(texts):
        (folder / f"pmpi-trace-rank-{r}.txt").write_text(text)
    return folder


def test_reads_calls_in_order(tmp_path: Path) -> None:
    t = open_trace(write(tmp_path / "lap", [RANK0, RANK1]))
    assert t.format == "liballprof" and t.num_ranks == 2
    calls = list(t.calls(0))
    assert [c.name for c in calls] == ["MPI_Init", "MPI_Comm_rank", "MPI_Send", "MPI_Irecv", "MPI_Waitall",
                                       "MPI_Allreduce", "MPI_Barrier", "MPI_Finalize"]
    send = calls[2]
    # times are microseconds from MPI_Init's end, in ns here
    assert (send.kind, send.peer, send.tag, send.bytes, send.t_entry_ns, send.t_exit_ns) == ("send", 1, 9, 16, 10_000, 12_000)
    assert calls[3].kind == "irecv" and calls[3].bytes == 16 and calls[3].request == 7000000
    assert calls[4].completions == [(7000000, -1, -1, 0)]
    assert calls[5].kind == "coll" and calls[5].bytes == 8
    assert calls[-1].kind == "finalize" and calls[-1].t_entry_ns == 300_000
    assert "htor's PMPI Tracer 1.0 Output File" in t.describe()["header"]


def test_converts_and_simulates(tmp_path: Path) -> None:
    schedule, conv = to_schedule(open_trace(write(tmp_path / "lap", [RANK0, RANK1])))
    text = schedule_goal_text(schedule)
    assert "send 16b to 1 tag 9" in text and "recv 16b from 0 tag 9" in text
    assert "recv 16b from 1 tag 3" in text and "send 16b to 0 tag 3" in text
    assert conv.recorded_runtime_ns == 300_000 and conv.calls_by_name["MPI_Comm_rank"] == 1
    r = simulate(schedule, L=1000, o=100, g=0, G=0, O=0, ready_order="program")
    assert r.runtime_ns[0] >= max(conv.compute_ns) and conv.compute_ns[0] == 300_000 - conv.mpi_ns[0]


def test_waitall_with_8_byte_requests(tmp_path: Path) -> None:
    rank0 = RANK0.replace("MPI_Irecv:1000020.000000:6610400:2:11,8,8:1:3:0,0,2:7000000:1000021.000000",
                          "MPI_Irecv:1000020.000000:6610400:2:11,8,8:1:3:0,0,2:7000008:1000021.000000")
    rank0 = rank0.replace("MPI_Waitall:1000050.000000:1:7000000:", "MPI_Waitall:1000050.000000:2:7000000:")
    calls = list(open_trace(write(tmp_path / "lap", [rank0, RANK1])).calls(0))
    assert calls[4].completions == [(7000008, -1, -1, 0)]


def test_damaged_lines_are_one_line_errors(tmp_path: Path) -> None:
    bad = RANK0.replace("MPI_Send:1000010.000000:6610272:4:2,4,4:1:9:0,0,2:1000012.000000", "MPI_Send:1000010.000000:oops:1000012.000000")
    with pytest.raises(CloudnoiseError, match=r"pmpi-trace-rank-0.txt:8: rank 0, call 2: MPI_Send has 1 arguments"):
        list(open_trace(write(tmp_path / "a", [bad, RANK1])).calls(0))
    cut = RANK1.split("MPI_Barrier")[0]
    with pytest.raises(CloudnoiseError, match="rank 1: the trace ends after call 4 without MPI_Finalize"):
        to_schedule(open_trace(write(tmp_path / "b", [RANK0, cut])))
    sub = RANK0.replace("MPI_Barrier:1000200.000000:0,0,2:", "MPI_Barrier:1000200.000000:5,0,3:")
    with pytest.raises(CloudnoiseError, match=r"call 6: MPI_Barrier on a communicator of 3 ranks \(handle 5\) that was never created"):
        list(open_trace(write(tmp_path / "c", [sub, RANK1])).calls(0))
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "pmpi-trace-rank-1.txt").write_text(RANK1)
    (tmp_path / "d" / "pmpi-trace-rank-0.txt").write_text(RANK0)
    (tmp_path / "d" / "pmpi-trace-rank-0.txt").unlink()
    with pytest.raises(CloudnoiseError):
        open_trace(tmp_path / "d")


def test_unknown_call_is_reported(tmp_path: Path) -> None:
    odd = RANK0.replace("MPI_Barrier:1000200.000000:0,0,2:1000205.000000\n",
                        "MPI_Barrier:1000200.000000:0,0,2:1000205.000000\nMPI_Win_fence:1000206.000000:0:77:1000207.000000\n")
    with pytest.raises(CloudnoiseError, match=r"call 7 \(MPI_Win_fence\).*--allow-unsupported"):
        to_schedule(open_trace(write(tmp_path / "lap", [odd, RANK1])))


def _pingpong(start_us: float, variant: str = "collprof", skew_us: float = 0.0, extra: bool = False) -> list[str]:
    """Two ranks exchange 8 doubles; rank 1's clock runs skew_us ahead of rank 0's (its clockdiff says so)."""
    from liballprof_writer import RankWriter

    texts = []
    for r in range(2):
        w = RankWriter(r, 2, variant=variant, start_us=start_us + (skew_us if r else 0.0) + 3.0 * r,
                       clockdiff_us=-skew_us if r else 0.0)
        if extra:
            # calls real tracers emit that move no data, and one the reader does not know
            w.call("MPI_Errhandler_create", 4198400, 140737488343200)
            w.call("MPI_Errhandler_set", w.world, 1)
            w.call("MPI_Attr_get", w.world, 1, 140737488343100, 140737488343104)
            w.call("MPI_Wtime")
            w.call("MPI_Type_vector", 4, 1, 8, "11,8,8", 140737488343000)
            w.call("MPI_Type_commit", 140737488343000)
            w.call("MPI_Win_fence", 0, 77)
            w.call("MPI_Win_fence", 0, 77)
        if r == 0:
            w.send(8, 1, 4, w.world)
            w.recv(8, 1, 5, w.world)
        else:
            w.recv(8, 0, 4, w.world)
            w.send(8, 0, 5, w.world)
        texts.append(w.finalize())
    return texts


@pytest.mark.parametrize("variant", ["collprof", "htor"])
def test_absolute_and_relative_times_convert_alike(tmp_path: Path, variant: str) -> None:
    """Wall-clock microseconds (as real tracers stamp) and times near 0 give the same schedule; a rank
    whose clock runs ahead is brought back by its header's clockdiff (us for collprof, s for htor's)."""
    absolute = to_schedule(open_trace(write(tmp_path / "a", _pingpong(1237666046950106.0, variant))))
    relative = to_schedule(open_trace(write(tmp_path / "r", _pingpong(1000.0, variant))))
    skewed = to_schedule(open_trace(write(tmp_path / "s", _pingpong(1237666046950106.0, variant, skew_us=2500.0))))
    texts = [schedule_goal_text(s) for s, _ in (absolute, relative, skewed)]
    assert texts[0] == texts[1] == texts[2]
    assert absolute[1].finalize_ns == relative[1].finalize_ns == skewed[1].finalize_ns
    # rank 1 left MPI_Init 3 us after rank 0: that is its first calc (3 us + the writer's 10 us gap)
    assert texts[0].split("rank 1 {\n")[1].split("\n")[0].endswith(": calc 13000")


def test_calls_that_move_no_data_are_compute_and_unknown_ones_are_named(tmp_path: Path) -> None:
    folder = write(tmp_path / "x", _pingpong(1237666046950106.0, extra=True))
    with pytest.raises(CloudnoiseError, match=r"call 7 \(MPI_Win_fence\): MPI_Win_fence was recorded but cannot be converted.*--allow-unsupported"):
        to_schedule(open_trace(folder))
    _, conv = to_schedule(open_trace(folder), ConvertOptions(allow_unsupported=True))
    assert dict(conv.unsupported) == {"MPI_Win_fence": 4}
    assert conv.calls_by_name["MPI_Errhandler_set"] == 2 and conv.calls_by_name["MPI_Type_commit"] == 2


def test_show_names_each_call_not_understood_once_with_its_count(tmp_path: Path, run_cli) -> None:
    folder = write(tmp_path / "x", _pingpong(1237666046950106.0, extra=True))
    proc = run_cli("trace", "show", folder)
    assert proc.returncode == 0, proc.stderr
    assert "not understood: MPI_Win_fence x4" in proc.stdout and proc.stdout.count("MPI_Win_fence x") == 1
    assert run_cli("trace", "convert", folder, "-o", tmp_path / "x.goal").returncode == 2


@pytest.mark.parametrize("mpich", [False, True])
def test_any_source_receives_become_any_source_receives(tmp_path: Path, mpich: bool) -> None:
    """liballprof does not record whose message an MPI_ANY_SOURCE receive took (-1 in Open MPI, -2 in
    MPICH): it is simulated as an any-source receive, as Schedgen writes it."""
    from liballprof_writer import RankWriter

    any_source = -2 if mpich else -1
    texts = []
    for r in range(3):
        w = RankWriter(r, 3, mpich=mpich)
        if r == 0:
            w.recv(1, any_source, 5, w.world)
            w.recv(1, any_source, 5, w.world)
        else:
            w.send(1, 0, 5, w.world)
        texts.append(w.finalize())
    schedule, conv = to_schedule(open_trace(write(tmp_path / "a", texts)))
    text = schedule_goal_text(schedule)
    assert text.count("recv 8b from -1 tag 5") == 2 and "MPI_ANY_SOURCE" in conv.warnings[0]
    assert simulate(schedule, L=1000, o=100, g=0, G=0, O=0).runtime_ns[0] > 0
    lonely = [texts[0], texts[1], texts[1].replace("MPI_Send", "MPI_Wtime")]
    with pytest.raises(CloudnoiseError, match=r"rank 0, call \d+: 1 receive\(s\) from MPI_ANY_SOURCE"):
        to_schedule(open_trace(write(tmp_path / "b", lonely)))


def test_rank_files_that_all_claim_one_rank_are_damage(tmp_path: Path) -> None:
    """The Schedgen sample `bcast/` is one rank's file copied four times (every file says rank 0)."""
    from liballprof_writer import RankWriter

    w = RankWriter(0, 2)
    w.bcast(3, 0, w.world)
    text = w.finalize()
    with pytest.raises(CloudnoiseError, match=r"rank 1, call 1: MPI_Bcast on a communicator of all 2 ranks where this "
                                              r"rank is rank 0, but the file is rank 1's"):
        to_schedule(open_trace(write(tmp_path / "c", [text, text])))


FREED0 = """# htor's PMPI Tracer 1.0 Output File

MPI_Init:-:1:2:1000000.000000
MPI_Isend:1000010.000000:6610272:4:2,4,4:1:1:0,0,2:500:1000011.000000
MPI_Request_free:1000012.000000:500:1000013.000000
MPI_Isend:1000020.000000:6610272:262144:2,4,4:1:2:0,0,2:500:1000021.000000
MPI_Wait:1000030.000000:500:7000200:1000400.000000
MPI_Send:1000500.000000:6610272:4:2,4,4:1:4:0,0,2:1000501.000000
MPI_Finalize:1000600.000000:-
"""
FREED1 = """# htor's PMPI Tracer 1.0 Output File

MPI_Init:-:1:2:1000000.000000
MPI_Irecv:1000005.000000:6610272:4:2,4,4:0:4:0,1,2:600:1000006.000000
MPI_Request_free:1000007.000000:600:1000008.000000
MPI_Recv:1000010.000000:6610272:4:2,4,4:0:1:0,1,2:1:1000015.000000
MPI_Recv:1000020.000000:6610272:262144:2,4,4:0:2:0,1,2:1:1000390.000000
MPI_Finalize:1000600.000000:-
"""


def test_a_freed_request_goes_on_and_its_handle_is_reused(tmp_path: Path) -> None:
    """MPI_Request_free was read as a collective (an internal error, KeyError): the freed
    Isend still sends, the Wait on the reused handle waits for the second Isend (1 MiB,
    tag 2), and a freed Irecv is the posted receive, with no warning."""
    schedule, conv = to_schedule(open_trace(write(tmp_path / "lap", [FREED0, FREED1])))
    text = schedule_goal_text(schedule)
    rank0 = text.split("rank 0 {")[1].split("}")[0]
    labels = {line.split(":")[1].strip(): line.split(":")[0] for line in rank0.splitlines() if ": " in line}
    small, big = labels["send 16b to 1 tag 1"], labels["send 1048576b to 1 tag 2"]
    wait_join = labels["calc 0"]
    assert f"{wait_join} requires {big}" in rank0 and f"{wait_join} requires {small}" not in rank0
    assert "recv 16b from 0 tag 4" in text.split("rank 1 {")[1]
    assert conv.calls_by_name["MPI_Request_free"] == 2 and not conv.warnings
    r = simulate(schedule, L=1000, o=100, g=0, G=0, O=0, ready_order="program")
    assert r.runtime_ns[0] > 0
