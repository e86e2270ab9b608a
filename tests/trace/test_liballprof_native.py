"""The C++ liballprof converter (src/engine/traces/, liballprof_native.py)
against the Python converter, the reference: the same GOAL bytes and the
same Conversion on every trace, the same one-line error on damaged ones
(those ranks go back to Python), and known answers for a small trace."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.convert import ConvertOptions, to_goal, to_schedule
from cloudnoise.trace.reader import open_trace

from liballprof_writer import INT, RankWriter, write

SWEEP3D = Path(__file__).parent / "data" / "sweep3d-2x2"


def both(folder: Path, tmp: Path, options: ConvertOptions | None = None) -> tuple[str, int]:
    """Converts with both converters; asserts the same bytes and counts (or the same
    error); returns the GOAL text and how many ranks the C++ converter did."""
    out = {}
    for native in (False, True):
        goal = tmp / f"{folder.name}-{native}.goal"
        try:
            conv = to_goal(open_trace(folder), goal, options, native=native)
        except CloudnoiseError as err:
            out[native] = ("error", str(err).replace(str(goal), "OUT"), 0)
            continue
        doc = conv.to_dict()
        doc.pop("convert_seconds")
        doc.pop("calls_per_second")
        out[native] = (goal.read_text(), doc, conv.native_ranks)
    assert out[True][:2] == out[False][:2]
    assert out[False][2] == 0
    return out[True][0], out[True][2]


def halo(ranks: int, steps: int, *, mpich: bool = False, waits: str = "MPI_Waitall", any_source: bool = False) -> list[str]:
    """A 1-D halo exchange with non-blocking calls, completed by `waits`; with `any_source`
    every receive is from MPI_ANY_SOURCE (its tag says which neighbour sends it)."""
    texts = []
    wildcard = -2 if mpich else -1  # MPI_ANY_SOURCE: MPICH's, Open MPI's
    for r in range(ranks):
        w = RankWriter(r, ranks, mpich=mpich)
        left, right = (r - 1) % ranks, (r + 1) % ranks
        for step in range(steps):
            base = 140737488340000 + 64 * step
            w.call("MPI_Irecv", 32060384, 4, INT, wildcard if any_source else left, 1, w.world, base)
            w.call("MPI_Irecv", 32060384, 4, INT, wildcard if any_source else right, 2, w.world, base + 4)
            w.call("MPI_Isend", 32068576, 4, INT, right, 1, w.world, base + 8)
            w.call("MPI_Isend", 32068576, 4, INT, left, 2, w.world, base + 12)
            if waits == "MPI_Waitall":
                w.call("MPI_Waitall", 4, base, 140737488339000)
            elif waits == "MPI_Wait":
                for k in range(4):
                    w.call("MPI_Wait", base + 4 * k, 140737488339000)
            elif waits == "MPI_Waitany":
                for _ in range(4):
                    w.call("MPI_Waitany", 4, base, 140737488338000, 140737488339000)
            else:
                w.call("MPI_Waitsome", 4, base, 140737488338000, 140737488337000, 140737488339000)
            w.call("MPI_Wtime")
            if step % 3 == 2:
                w.allreduce(2, w.world)
        texts.append(w.finalize())
    return texts


@pytest.mark.parametrize("waits", ["MPI_Waitall", "MPI_Wait", "MPI_Waitany", "MPI_Waitsome"])
@pytest.mark.parametrize("mpich", [False, True])
def test_halo_exchanges_convert_alike(tmp_path: Path, waits: str, mpich: bool) -> None:
    _, native = both(write(tmp_path / "t", halo(4, 7, mpich=mpich, waits=waits)), tmp_path)
    assert native == 4


@pytest.mark.parametrize("waits", ["MPI_Waitall", "MPI_Wait", "MPI_Waitany", "MPI_Waitsome"])
@pytest.mark.parametrize("mpich", [False, True])
def test_any_source_receives_convert_alike_in_cpp(tmp_path: Path, waits: str, mpich: bool) -> None:
    """Every rank receives from MPI_ANY_SOURCE only (as MILC's ranks do): the C++ converter keeps
    every rank, with the same any-source receives, matching and warning as the Python converter."""
    text, native = both(write(tmp_path / "t", halo(4, 7, mpich=mpich, waits=waits, any_source=True)), tmp_path)
    assert native == 4
    assert text.count("recv 16b from -1 tag 1") == 4 * 7 and text.count("recv 16b from -1 tag 2") == 4 * 7


def test_blocking_any_source_receives_and_their_errors_convert_alike(tmp_path: Path) -> None:
    """Blocking MPI_Recv from MPI_ANY_SOURCE beside named ones, with a collective between; then the
    same trace with one message too few (an any-source receive nothing can match: the same error)."""
    texts = []
    for r in range(3):
        w = RankWriter(r, 3)
        if r == 0:
            for _ in range(2):
                w.recv(2, -1, 5, w.world, dtype=INT)
            w.recv(2, 1, 6, w.world, dtype=INT)
            w.allreduce(1, w.world)
            w.recv(2, -1, 5, w.world, dtype=INT)
        else:
            w.send(2, 0, 5, w.world, dtype=INT)
            if r == 1:
                w.send(2, 0, 6, w.world, dtype=INT)
            w.allreduce(1, w.world)
            if r == 2:
                w.send(2, 0, 5, w.world, dtype=INT)
        texts.append(w.finalize())
    text, native = both(write(tmp_path / "t", texts), tmp_path)
    assert native == 3 and text.count("recv 8b from -1 tag 5") == 3
    _, conv = to_schedule(open_trace(tmp_path / "t"))
    assert conv.native_ranks == 3 and conv.warnings == [
        "rank 0: receives from MPI_ANY_SOURCE whose sender the trace does not name (first at call 1) are simulated "
        "as any-source receives"]
    texts[2] = texts[2].replace("MPI_Send", "MPI_Wtime")  # rank 2's messages vanish
    both(write(tmp_path / "short", texts), tmp_path)
    with pytest.raises(CloudnoiseError, match=r"rank 0, call 5: 2 receive\(s\) from MPI_ANY_SOURCE \(tag 5\)"):
        to_schedule(open_trace(tmp_path / "short"))


def test_the_sweep3d_sample_converts_alike_in_cpp(tmp_path: Path) -> None:
    text, native = both(SWEEP3D, tmp_path)
    assert native == 4 and "rank 3 {" in text


def test_sub_communicators_convert_alike(tmp_path: Path) -> None:
    # Comm_split by parity (reversed keys), Comm_dup, Cart_create + Cart_sub, with
    # point-to-point calls and collectives on each
    texts = []
    for r in range(4):
        w = RankWriter(r, 4)
        w.call("MPI_Comm_split", w.world, r % 2, -r, 140737488343400)
        members = [2, 0] if r % 2 == 0 else [3, 1]
        me = members.index(r)
        split = w.comm(w.new_handle(), me, 2)
        w.allreduce(1, split)
        if me == 0:
            w.send(4, 1, 7, split)
        else:
            w.recv(4, 0, 7, split)
        w.call("MPI_Comm_dup", w.world, 140737488343408)
        dup = w.comm(w.new_handle(), r, 4)
        w.bcast(3, 1, dup)
        w.call("MPI_Cart_create", w.world, 2, 140737488343300, 140737488343310, 0, 140737488343416)
        cart = w.comm(w.new_handle(), r, 4)
        w.call("MPI_Cart_sub", cart, 140737488343320, 140737488343424)
        row = w.comm(w.new_handle(), r % 2, 2)
        w.allreduce(1, row)
        peer = r ^ 1
        w.call("MPI_Irecv", 32060384, 2, INT, peer % 2, 3, row, 140737488340000)
        w.call("MPI_Isend", 32068576, 2, INT, peer % 2, 3, row, 140737488340004)
        w.call("MPI_Waitall", 2, 140737488340000, 140737488339000)
        w.barrier(w.world)
        texts.append(w.finalize())
    _, native = both(write(tmp_path / "t", texts), tmp_path)
    assert native == 4


def test_proc_null_and_unsupported_calls_convert_alike(tmp_path: Path) -> None:
    texts = []
    for r in range(2):
        w = RankWriter(r, 2)
        w.call("MPI_Isend", 32068576, 2, INT, -2, 3, w.world, 140737488340000)  # Open MPI's MPI_PROC_NULL
        w.call("MPI_Irecv", 32068576, 2, INT, -2, 3, w.world, 140737488340004)
        w.call("MPI_Waitall", 2, 140737488340000, 140737488339000)
        w.send(1, -2, 4, w.world)
        w.call("MPI_Win_fence", 0, 77)
        w.send(2, 1 - r, 5, w.world) if r == 0 else w.recv(2, 0, 5, w.world)
        texts.append(w.finalize())
    folder = write(tmp_path / "t", texts)
    _, native = both(folder, tmp_path, ConvertOptions(allow_unsupported=True))
    assert native == 2
    _, native = both(folder, tmp_path)  # refused: by the Python converter, naming the call
    assert native == 0


def test_gzip_files_convert_in_cpp_and_damaged_ones_fall_back(tmp_path: Path) -> None:
    texts = halo(3, 4)
    folder = tmp_path / "gz"
    folder.mkdir()
    for r, text in enumerate(texts):
        (folder / f"pmpi-trace-rank-{r}.txt.gz").write_bytes(gzip.compress(text.encode()))
    assert both(folder, tmp_path)[1] == 3
    data = (folder / "pmpi-trace-rank-1.txt.gz").read_bytes()
    (folder / "pmpi-trace-rank-1.txt.gz").write_bytes(data[: len(data) - 12])  # cut short
    assert both(folder, tmp_path)[1] == 0  # the same one-line error (rank 0 never reaches the sink)


@pytest.mark.parametrize("damage", [
    lambda t: t.replace("\n", "\r\n"),                                   # CRLF: Python reads it alike
    lambda t: t.replace("MPI_Isend:", "MPI_Isend: ", 1),                 # a space Python's int() takes
    lambda t: t.replace(":4:2,4,4:", ":4_0:2,4,4:", 1),                  # an underscore int() takes
    lambda t: t.replace(":4:2,4,4:", ":-4:2,4,4:", 1),                   # a negative count
    lambda t: t.replace(":4:2,4,4:", ":4:2,-4,4:", 1),                   # a negative datatype size
    lambda t: t.replace("MPI_Wtime:", "MPI_Wtime:nan:", 1),              # a time that is not finite
    lambda t: t.replace("MPI_Wtime:", "MPI_Wtime:1e300:", 1),            # a time far away
    lambda t: t.replace(":2,4,4:0:1:", ":2,4,4:99:1:", 1),               # a peer outside the communicator
    lambda t: t.replace(":2,4,4:0:1:", ":2,4,4:-1:1:", 1),               # an MPI_ANY_SOURCE receive
    lambda t: t.replace(":2,4,4:0:1:", ":2,4,4:0:-1:", 1),               # an MPI_ANY_TAG receive
    lambda t: t.replace(":2,4,4:0:1:", ":2,4,4:0:16777217:", 1),         # a tag above 2^24 (folded, warned)
    lambda t: t.replace(":1:6611456,", ":99:6611456,", 1),               # a tag no one sends
    lambda t: t.replace(",1,3:", ",0,3:", 1),                            # a communicator rank that is not this rank's
    lambda t: t.replace(":1:6611456,", ":1:6611456:", 1),                # a field too many
    lambda t: t.rsplit("MPI_Finalize", 1)[0],                            # no MPI_Finalize
    lambda t: t + "MPI_Barrier:1237666047000000.0:6611456,1,3:1237666047000001.0\n",  # a call after it
    lambda t: t.replace("MPI_Wtime", "MPI_Wtime\x00", 1),                # a NUL byte
])
def test_damage_and_odd_input_give_the_python_converters_result(tmp_path: Path, damage) -> None:
    texts = halo(3, 4)
    damaged = damage(texts[1])
    assert damaged != texts[1]
    texts[1] = damaged
    folder = tmp_path / "t"
    folder.mkdir()
    for r, text in enumerate(texts):
        (folder / f"pmpi-trace-rank-{r}.txt").write_bytes(text.encode())
    both(folder, tmp_path)


def test_a_small_trace_gives_known_ops(tmp_path: Path) -> None:
    """Two ranks: rank 0 sends 3 ints to rank 1 (tag 9) 10 us after MPI_Init, both then
    call MPI_Wtime and MPI_Finalize 10 us after their last call ended."""
    texts = []
    for r in range(2):
        w = RankWriter(r, 2)
        if r == 0:
            w.send(3, 1, 9, w.world, dtype=INT)
        else:
            w.recv(3, 0, 9, w.world, dtype=INT)
        w.call("MPI_Wtime")
        texts.append(w.finalize())
    text, native = both(write(tmp_path / "t", texts), tmp_path)
    assert native == 2
    # calc 10 us, the message (12 bytes), then calc until MPI_Finalize: 10 + 4 (Wtime) + 10 us
    assert text == ("num_ranks 2\n\nrank 0 {\nl1: calc 10000\nl2: send 12b to 1 tag 9\nl3: calc 24000\n"
                    "l2 requires l1\nl3 requires l2\n}\n\nrank 1 {\nl1: calc 10000\nl2: recv 12b from 0 tag 9\n"
                    "l3: calc 24000\nl2 requires l1\nl3 requires l2\n}\n")


def test_a_long_rank_spills_its_ops_and_reads_them_back_in_order(tmp_path: Path) -> None:
    # > 65,536 ops on a rank: the RankOps store writes its older chunks to a temporary file
    texts = halo(2, 6000)
    folder = write(tmp_path / "t", texts)
    _, native = both(folder, tmp_path)
    assert native == 2
    schedule, conv = to_schedule(open_trace(folder))
    assert conv.native_ranks == 2 and conv.ops > 2 * 65536


def test_rank_ops_store_starts_empty() -> None:
    ops = _engine.RankOps()
    assert ops.ops == 0 and ops.edges == 0


def test_random_damage_gives_the_python_converters_result(tmp_path: Path) -> None:
    """Seeded single-character damage anywhere in a rank file: the C++ converter converts
    it exactly as Python does, or hands the rank back (the same error or result)."""
    import random

    rng = random.Random(38)
    texts = halo(3, 3)
    alphabet = "0123456789:,-.#eE_+ \tMPI_x\r\n"
    for k in range(60):
        text = texts[1]
        at = rng.randrange(len(text))
        how = rng.randrange(3)
        c = rng.choice(alphabet)
        damaged = text[:at] + c + text[at + 1:] if how == 0 else text[:at] + text[at + 1:] if how == 1 else text[:at] + c + text[at:]
        folder = tmp_path / f"t{k}"
        folder.mkdir()
        for r, t in enumerate((texts[0], damaged, texts[2])):
            (folder / f"pmpi-trace-rank-{r}.txt").write_bytes(t.encode())
        both(folder, tmp_path)


def test_a_full_temporary_folder_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The op store spills a long rank to a temporary file; when /tmp is full the C++ side
    throws (SpillError in Python), which must reach the user as one line, not a crash."""
    from cloudnoise.trace import liballprof_native

    def full(*_args: object) -> None:
        raise _engine.SpillError("cannot write a rank's ops to a temporary file (No space left on device)")

    monkeypatch.setattr(liballprof_native._engine, "convert_liballprof_rank", full)
    with pytest.raises(CloudnoiseError, match=r"rank 0: cannot write .* free space in /tmp"):
        to_goal(open_trace(write(tmp_path / "t", halo(2, 2))), tmp_path / "x.goal")

