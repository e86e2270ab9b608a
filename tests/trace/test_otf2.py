"""The OTF2 reader (src/cloudnoise/trace/otf2.py) on small archives written
with the otf2 package's writer (tests/trace/otf2_writer.py), laid out as
Score-P writes an MPI trace, with known timestamps: what each call becomes,
the GOAL it converts to (hand-computed), the runtime from the first
MPI_Init exit to the last MPI_Finalize entry, the CLI on the archive, and
damaged or inconsistent archives (one line, exit status 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

otf2 = pytest.importorskip("otf2")

from measure_support import env, run  # noqa: E402
from otf2.enums import CollectiveOp  # noqa: E402
from otf2_writer import Archive, undefined_comm  # noqa: E402

from cloudnoise.errors import CloudnoiseError  # noqa: E402
from cloudnoise.schedules.patterns import schedule_goal_text  # noqa: E402
from cloudnoise.simulation.api import simulate  # noqa: E402
from cloudnoise.trace.convert import to_schedule  # noqa: E402
from cloudnoise.trace.reader import open_trace  # noqa: E402

# A timer of 1 MHz (1 tick = 1 us) whose clock starts at T: times below are
# ticks after T, and come out in ns after the first MPI_Init exit (T + 10).
T = 5_000_000


def ping_pong(folder: Path, extra_send: bool = False, comm: object = None) -> Path:
    """Rank 0 sends 64 B (tag 7) to rank 1, which answers with 64 B (tag 8)."""
    with Archive(folder, 2, resolution=1_000_000) as a:
        w = a.world
        a.call(0, "MPI_Init", T + 0, T + 10)
        a.call(0, "MPI_Comm_rank", T + 15, T + 15)
        a.call(0, "MPI_Send", T + 20, T + 21, ("mpi_send", T + 20, 1, comm or w, 7, 64))
        a.call(0, "MPI_Recv", T + 30, T + 35, ("mpi_recv", T + 34, 1, w, 8, 64))
        if extra_send:
            a.call(0, "MPI_Send", T + 40, T + 41, ("mpi_send", T + 40, 1, w, 9, 8))
        a.call(0, "MPI_Finalize", T + 50, T + 60)
        a.call(1, "MPI_Init", T + 0, T + 12)
        a.call(1, "MPI_Recv", T + 15, T + 23, ("mpi_recv", T + 22, 0, w, 7, 64))
        a.call(1, "MPI_Send", T + 28, T + 29, ("mpi_send", T + 28, 0, w, 8, 64))
        a.call(1, "MPI_Finalize", T + 40, T + 45)
    return folder


def nonblocking(folder: Path) -> Path:
    """Both ranks post an Irecv (request 1) and an Isend (request 2) of 1 KiB
    with tag 5 to the other, then complete both in one MPI_Waitall (ticks are ns)."""
    with Archive(folder, 2) as a:
        w = a.world
        for r in (0, 1):
            peer = 1 - r
            a.call(r, "MPI_Init", 0, 100)
            a.call(r, "MPI_Irecv", 200, 210, ("mpi_irecv_request", 205, 1))
            a.call(r, "MPI_Isend", 300, 310, ("mpi_isend", 305, peer, w, 5, 1024, 2))
            a.call(r, "MPI_Waitall", 400, 900, ("mpi_isend_complete", 500, 2), ("mpi_irecv", 850, peer, w, 5, 1024, 1))
            a.call(r, "MPI_Finalize", 1000 + 100 * r, 1300)
    return folder


def collectives(folder: Path) -> Path:
    """3 ranks: an Allreduce of 8 B, a Bcast of 100 B from rank 1, and an
    Allreduce of 16 B on a communicator of world ranks 2 and 0 (in that
    order), with the byte totals Score-P records (ticks are ns)."""
    with Archive(folder, 3) as a:
        w = a.world
        pair = a.comm("pair", [2, 0], parent=w)
        for r in range(3):
            a.call(r, "MPI_Init", 0, 1000)
            # Allreduce: every rank sends and receives N blocks
            a.collective(r, "MPI_Allreduce", 2000, 2500, CollectiveOp.ALLREDUCE, w, otf2.Undefined.UINT32, 3 * 8, 3 * 8)
            # Bcast: the root sends N blocks, every rank receives one
            a.collective(r, "MPI_Bcast", 3000, 3400, CollectiveOp.BCAST, w, 1, 3 * 100 if r == 1 else 0, 100)
            if r != 1:
                a.collective(r, "MPI_Allreduce", 4000, 4100, CollectiveOp.ALLREDUCE, pair, otf2.Undefined.UINT32, 2 * 16, 2 * 16)
            a.call(r, "MPI_Finalize", 5000 + r, 5100)
    return folder


def test_ping_pong_calls(tmp_path: Path) -> None:
    t = open_trace(ping_pong(tmp_path / "pp"))
    assert t.format == "otf2" and t.num_ranks == 2
    d = t.describe()
    assert d["timer_resolution_hz"] == 1_000_000 and d["clock_offset_ns"] == T * 1000
    calls = list(t.calls(0))
    assert [c.name for c in calls] == ["MPI_Init", "MPI_Comm_rank", "MPI_Send", "MPI_Recv", "MPI_Finalize"]
    assert [c.kind for c in calls] == ["init", "local", "send", "recv", "finalize"]
    send, recv = calls[2], calls[3]
    # 1 tick = 1 us: times are ns after the first MPI_Init exit (rank 0's, T + 10)
    assert (send.peer, send.tag, send.bytes, send.t_entry_ns, send.t_exit_ns) == (1, 7, 64, 10_000, 11_000)
    assert (recv.peer, recv.tag, recv.bytes, recv.status) == (1, 8, 64, (1, 8, 64))
    assert calls[-1].t_entry_ns == 40_000
    # rank 1 left MPI_Init 2 us after rank 0
    assert next(iter(t.calls(1))).t_exit_ns == 2_000
    # the anchor file opens the same archive
    assert open_trace(tmp_path / "pp" / "traces.otf2").num_ranks == 2


def test_ping_pong_converts_to_known_goal(tmp_path: Path) -> None:
    schedule, conv = to_schedule(open_trace(ping_pong(tmp_path / "pp")))
    text = schedule_goal_text(schedule)
    # rank 0: calc to its send (10 us), between the calls (MPI_Comm_rank's time included), to MPI_Finalize
    assert "l1: calc 10000\nl2: send 64b to 1 tag 7\nl3: calc 9000\nl4: recv 64b from 1 tag 8\nl5: calc 15000" in text
    # rank 1 starts at the first MPI_Init exit: its later exit (2 us) is part of its first calc
    assert "l1: calc 5000\nl2: recv 64b from 0 tag 7\nl3: calc 5000\nl4: send 64b to 0 tag 8\nl5: calc 11000" in text
    assert text.count("l2 requires l1") == 2 and text.count("l5 requires l4") == 2
    assert conv.compute_ns == [34_000, 21_000] and conv.mpi_ns == [6_000, 9_000]
    assert conv.finalize_ns == [40_000, 30_000] and conv.recorded_runtime_ns == 40_000
    assert conv.calls == 9 and conv.calls_by_name["MPI_Comm_rank"] == 1
    # LogP with L = 1 us, o = 100 ns: rank 0 sends at 10 us (+o), computes 9 us, receives rank 1's answer
    # (sent at 16.2 us + o, arrived 17.4 us) at once at 19.1 us (+o), computes 15 us
    r = simulate(schedule, L=1000, o=100, g=0, G=0, O=0, ready_order="program")
    assert r.runtime_ns[0] == 34_200


def test_nonblocking_completes_at_waitall(tmp_path: Path) -> None:
    t = open_trace(nonblocking(tmp_path / "nb"))
    calls = list(t.calls(0))
    assert [c.kind for c in calls] == ["init", "irecv", "isend", "complete", "finalize"]
    irecv, isend, wait = calls[1], calls[2], calls[3]
    # OTF2 says where an MPI_Irecv's message came from at its completion: the reader fills it in
    assert (irecv.peer, irecv.tag, irecv.bytes, irecv.request) == (1, 5, 1024, 2)
    assert (isend.peer, isend.tag, isend.bytes, isend.request) == (1, 5, 1024, 3)
    assert sorted(wait.completions) == [(2, 1, 5, 1024), (3, 0, 0, 0)]
    assert (wait.t_entry_ns, wait.t_exit_ns) == (300, 800)

    schedule, conv = to_schedule(t)
    text = schedule_goal_text(schedule)
    rank0 = text[text.index("rank 0"):text.index("rank 1")]
    # the receive waits for the compute before MPI_Irecv, the send for that before
    # MPI_Isend; the Waitall joins the compute before it and both messages
    assert "l1: calc 100\nl2: calc 90\nl3: send 1024b to 1 tag 5\nl4: calc 90\nl5: recv 1024b from 1 tag 5\nl6: calc 0\nl7: calc 100" in rank0
    for dep in ("l2 requires l1", "l3 requires l2", "l4 requires l2", "l5 requires l1", "l6 requires l4",
                "l6 requires l3", "l6 requires l5", "l7 requires l6"):
        assert dep in rank0, dep
    assert conv.compute_ns == [380, 480] and conv.mpi_ns == [520, 520]
    assert conv.recorded_runtime_ns == 1000


def test_collectives_communicator_root_and_sizes(tmp_path: Path) -> None:
    t = open_trace(collectives(tmp_path / "co"))
    by_rank = [list(t.calls(r)) for r in range(3)]
    colls = [[c for c in calls if c.kind == "coll"] for calls in by_rank]
    for r in range(3):
        allreduce, bcast = colls[r][0], colls[r][1]
        assert (allreduce.name, allreduce.comm, allreduce.bytes, allreduce.recv_bytes, allreduce.root) == ("MPI_Allreduce", 0, 8, 8, -1)
        assert (bcast.name, bcast.bytes, bcast.recv_bytes, bcast.root) == ("MPI_Bcast", 100, 100, 1)
    # the sub-communicator: created on its members only, world ranks 2 and 0 in that order
    created = [c.comm_info for c in by_rank[0] if c.kind == "comm_create"]
    assert len(created) == 1 and created[0].members == (2, 0) and created[0].rank == 1 and created[0].size == 2
    assert not [c for c in by_rank[1] if c.kind == "comm_create"]
    sub = colls[2][2]
    assert (sub.comm, sub.bytes) == (created[0].id, 16)

    schedule, conv = to_schedule(t)
    assert conv.calls_by_name["MPI_Allreduce"] == 5 and conv.calls_by_name["MPI_Bcast"] == 3
    assert conv.calls_by_name["(OTF2 communicator definition)"] == 2 and not conv.unsupported
    assert conv.finalize_ns == [4000, 4001, 4002] and conv.recorded_runtime_ns == 4002
    # rank 1 is in neither message of the pair's allreduce
    text = schedule_goal_text(schedule)
    assert "send 16b to 2" in text and "send 16b to 0" in text and "16b to 1 " not in text and "16b from 1 " not in text
    assert "100b from 1" in text
    r = simulate(schedule, L=1000, o=100, g=0, G=0, O=0, ready_order="program")
    assert r.runtime_ns[0] >= 4002


def test_nonblocking_collective_named_at_its_completion(tmp_path: Path) -> None:
    """An MPI_Iallreduce of 32 B on 2 ranks completed by MPI_Wait: OTF2 says
    which collective it was and its size only at the completion (ticks are ns)."""
    with Archive(tmp_path / "ic", 2) as a:
        for r in (0, 1):
            a.call(r, "MPI_Init", 0, 100)
            a.call(r, "MPI_Iallreduce", 200, 220, ("non_blocking_collective_request", 210, 7))
            a.call(r, "MPI_Wait", 500, 700, ("non_blocking_collective_complete", 690, CollectiveOp.ALLREDUCE, a.world,
                                             otf2.Undefined.UINT32, 2 * 32, 2 * 32, 7))
            a.call(r, "MPI_Finalize", 800, 900)
    t = open_trace(tmp_path / "ic")
    calls = list(t.calls(1))
    icoll, wait = calls[1], calls[2]
    assert (icoll.name, icoll.kind, icoll.bytes, icoll.request, icoll.comm) == ("MPI_Iallreduce", "coll", 32, 8, 0)
    assert wait.kind == "complete" and wait.completions == [(8, 0, 0, 0)]
    schedule, conv = to_schedule(t)
    text = schedule_goal_text(schedule)
    assert "send 32b to 0" in text and "recv 32b from 1" in text
    # from the first MPI_Init exit (100): 100 before MPI_Iallreduce, 280 to MPI_Wait, 100 to MPI_Finalize
    assert conv.compute_ns == [480, 480] and conv.mpi_ns == [220, 220] and conv.recorded_runtime_ns == 700


def test_cli_show_convert_simulate_validate(tmp_path: Path) -> None:
    archive = nonblocking(tmp_path / "nb")
    proc = run("trace", "show", str(archive / "traces.otf2"), "--json")
    assert proc.returncode == 0, proc.stderr
    show = json.loads(proc.stdout)
    assert show["format"] == "otf2" and show["recorded_runtime_ns"] == 1000 and show["calls_by_name"]["MPI_Waitall"] == 2
    goal = tmp_path / "nb.goal"
    proc = run("trace", "convert", str(archive), "-o", str(goal))
    assert proc.returncode == 0, proc.stderr
    assert "send 1024b to 1 tag 5" in goal.read_text()
    proc = run("simulate", "--trace", str(archive), "--profile", "aws-hpc", "--reps", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runtime_ns"][0] > 1000
    proc = run("validate", "--trace", str(archive), "--profile", "aws-hpc", "--reps", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["recorded_runtime_ns"] == 1000



def test_validate_api_on_a_trace_is_what_the_command_prints(tmp_path: Path) -> None:
    """cloudnoise.validate(trace=...): a row per noise variant, the summary `validate --trace --json` prints."""
    import cloudnoise

    archive = nonblocking(tmp_path / "nb")
    proc = run("validate", "--trace", str(archive), "--profile", "aws-hpc", "--reps", "2", "--noise", "none,os", "--json")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    result = cloudnoise.validate(trace=archive, profile="aws-hpc", reps=2, noise=["none", "os"])
    ours = json.loads(json.dumps(result.to_dict(), default=str))
    for summary in (ours, printed):  # how long the conversion took here and there
        del summary["conversion"]["calls_per_second"], summary["conversion"]["convert_seconds"]
    assert result.kind == "trace" and ours == printed
    assert [r["noise"] for r in result.rows] == ["none", "os"]
    assert result.rows[0]["simulated_median_ns"] == printed["variants"]["none"]["simulated_median_ns"]
    assert result.summary["recorded_runtime_ns"] == 1000


# -- bad input: one line naming the rank and what to do, exit status 2


def reading_error(folder: Path) -> str:
    with pytest.raises(CloudnoiseError) as err:
        to_schedule(open_trace(folder))
    assert err.value.exit_code == 2
    msg = str(err.value)
    assert "\n" not in msg
    return msg


def test_truncated_event_file(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    evt = folder / "traces" / "1.evt"
    evt.write_bytes(evt.read_bytes()[: evt.stat().st_size // 2])
    msg = reading_error(folder)
    assert "rank 1, event" in msg and "traces/1.evt" in msg and "again" in msg


def test_corrupted_event_file(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    evt = folder / "traces" / "0.evt"
    data = bytearray(evt.read_bytes())
    for i in range(20, len(data) - 4, 3):
        data[i] ^= 0x5A
    evt.write_bytes(bytes(data))
    msg = reading_error(folder)
    # XOR damage either breaks a record (OTF2 reports an error) or ends the
    # stream early (fewer events than announced): both must say "damaged".
    assert "rank 0, event" in msg and "damaged" in msg


def test_missing_location_file(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    (folder / "traces" / "1.evt").unlink()
    msg = reading_error(folder)
    assert "rank 1, event 0" in msg and "missing" in msg and "copy the whole archive" in msg


def test_damaged_definitions(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    defs = folder / "traces.def"
    defs.write_bytes(defs.read_bytes()[:40])
    with pytest.raises(CloudnoiseError, match="definitions"):
        open_trace(folder)


def test_send_without_receive(tmp_path: Path) -> None:
    msg = reading_error(ping_pong(tmp_path / "pp", extra_send=True))
    assert "rank 0, call 4" in msg and "never receives" in msg and "record the run again" in msg


def test_communicator_never_defined(tmp_path: Path) -> None:
    msg = reading_error(ping_pong(tmp_path / "pp", comm=undefined_comm(77)))
    assert "rank 0, call 2" in msg and "communicator 77" in msg and "cannot be converted" in msg


def test_cli_damaged_archive_one_line_exit_2(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    (folder / "traces" / "1.evt").unlink()
    goal = tmp_path / "x.goal"
    for args in (("trace", "show", str(folder)), ("trace", "convert", str(folder), "-o", str(goal)),
                 ("simulate", "--trace", str(folder / "traces.otf2"))):
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cloudnoise: error:"), proc.stderr
        assert "rank 1, event 0" in lines[0]
    assert not goal.exists()


def test_without_the_otf2_package(tmp_path: Path) -> None:
    folder = ping_pong(tmp_path / "pp")
    # the package hidden from the interpreter, as where the extra is not installed
    code = ("import sys; sys.modules['otf2'] = None; sys.modules['_otf2'] = None; "
            "from cloudnoise.cli import main; sys.argv = ['cloudnoise', 'trace', 'show', sys.argv[1]]; main()")
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, env=env(), timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cloudnoise: error:")
    assert "pip install 'cloudnoise[otf2]'" in lines[0]


def test_a_definition_the_binding_cannot_decode_is_one_line(tmp_path: Path) -> None:
    """Found by bench_fuzz.py: a name in the .def that is not UTF-8 made the otf2 binding
    print its own traceback (13 lines) before our error, and left the library's reader
    open (about 4 MB per damaged archive in a long-lived process)."""
    folder = ping_pong(tmp_path / "pp")
    defs = folder / "traces.def"
    data = defs.read_bytes()
    at = data.find(b"MPI_COMM_WORLD")
    assert at > 0
    defs.write_bytes(data[: at + 1] + b"\xb5" + data[at + 2:])
    proc = run("trace", "show", str(folder))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("cloudnoise: error:") and "definitions" in proc.stderr
