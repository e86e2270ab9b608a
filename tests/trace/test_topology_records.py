"""The recorder's topology records, read back: a real run of
examples/trace/topology.c (every topology call the recorder records with
its arguments), and hand-written records for what a damaged or older file
holds."""

from __future__ import annotations

import subprocess
import struct
from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace import native_format as fmt
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace

from measure_support import mpi_or_skip, run, run_json
from native_writer import cart, coll, finalize, record, send, write_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "trace" / "topology.c"


def test_a_recorded_run_holds_every_topology_call(tmp_path: Path) -> None:
    mpi_or_skip()
    from cloudnoise.measurement.mpi import find_mpi

    mpi = find_mpi()
    exe = tmp_path / "topology"
    proc = subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(EXAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    trace = tmp_path / "t"
    launch = [str(mpi.mpiexec), "-n", "4"]
    if mpi.flavor == "openmpi":
        launch += ["--allow-run-as-root", "--oversubscribe", "-x", "LD_PRELOAD", "-x", "CN_TRACE_DIR"]
    proc = run("trace", "record", "--out", str(trace), "--quiet", "--", *launch, str(exe), "2", timeout=300)
    assert proc.returncode == 0, proc.stderr
    calls = list(open_trace(trace).calls(1))
    by = {}
    for c in calls:
        by.setdefault(c.name, []).append(c)
    dims = by["MPI_Dims_create"][0]
    assert dims.bytes == 4 and tuple(dims.vec) == (0, 0, 0, 2, 2, 1)
    grid = by["MPI_Cart_create"][0].comm_info
    assert grid.dims == (2, 2, 1) and grid.periods == (1, 1, 1) and not grid.reorder
    coords = by["MPI_Cart_coords"][0]
    assert coords.peer == 1 and tuple(coords.vec) == (0, 1, 0)
    assert [tuple(c.vec) for c in by["MPI_Cart_rank"]] == [(1, 1, 0), (0, 0, 0), (0, 1, 0)]
    assert [c.peer for c in by["MPI_Cart_rank"]] == [3, 0, 1]
    assert by["MPI_Cart_sub"][0].comm_info.keep[:3] == (0, 0, 1)
    for name in ("MPI_Graph_create", "MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create"):
        srcs, dsts = by[name][0].comm_info.neighbours
        assert sorted(srcs) == sorted(dsts) == [0, 2], name  # a ring of 4: rank 1's neighbours
    # a graph topology's neighbours on more ranks are unknown: replicated, saying so
    ext = extrapolated(open_trace(trace), 16)
    assert "(MPI_Graph_create): a graph topology; where its neighbours go on more ranks is unknown" in ext.why


def test_an_older_named_only_graph_record_reads_as_unsupported(tmp_path: Path) -> None:
    num = next(n for n, (name, _) in fmt.CALLS.items() if name == "MPI_Graph_create")
    old = fmt.PREFIX.pack(num, 0, 16, 10, 20)  # no payload: recorded by name only
    folder = write_trace(tmp_path / "g", [[old, finalize(100)]])
    c = list(open_trace(folder).calls(0))[1]
    assert c.name == "MPI_Graph_create" and c.kind == "unsupported"


def test_a_grid_of_impossible_dims_is_one_line(tmp_path: Path) -> None:
    def rank(r: int) -> list[bytes]:
        return [cart(0, 10, 2, 4, r, (3, 2), (1, 1)), send(20, 30, (r + 1) % 4, 8),
                record("MPI_Recv", 40, 50, (r - 1) % 4, 0, 0, 0, 8, 0, (r - 1) % 4, 0, 8), finalize(100)]

    folder = write_trace(tmp_path / "bad", [rank(r) for r in range(4)])
    with pytest.raises(CloudnoiseError, match=r"call 1 \(MPI_Cart_create\): a grid of dims \(3, 2\) for 4 ranks; "
                                              "the trace is damaged"):
        extrapolated(open_trace(folder), 16)
    dims = record("MPI_Dims_create", 5, 6, 4, 2, tail=struct.pack("<4i", 0, 0, 3, 2))
    folder = write_trace(tmp_path / "bad2", [[dims, coll("MPI_Barrier", 10, 11, 0), finalize(100)] for _ in range(2)])
    with pytest.raises(CloudnoiseError, match=r"MPI_Dims_create\): dims \(3, 2\) for 4 ranks"):
        extrapolated(open_trace(folder), 8)


def test_trace_show_names_the_grid_the_ranks_were_laid_out_on(tmp_path: Path) -> None:
    def rank(r: int, with_grid: bool) -> list[bytes]:
        grid = [cart(0, 10, 2, 4, r, (2, 2), (1, 0))] if with_grid else []
        return grid + [send(20, 30, (r + 1) % 4, 8),
                       record("MPI_Recv", 40, 50, (r - 1) % 4, 0, 0, 0, 8, 0, (r - 1) % 4, 0, 8), finalize(100)]

    gridded = write_trace(tmp_path / "grid", [rank(r, True) for r in range(4)])
    doc = run_json("trace", "show", str(gridded), "--json")
    assert doc["grid"] == {"dims": [2, 2], "periods": [1, 0], "call": "MPI_Cart_create", "index": 1}
    text = run("trace", "show", str(gridded)).stdout
    assert "grid: 2x2 (periodic in dimension 0; MPI_Cart_create, rank 0's call 1)" in text
    plain = write_trace(tmp_path / "plain", [rank(r, False) for r in range(4)])
    assert run_json("trace", "show", str(plain), "--json")["grid"] is None
    assert "grid: none spanning every rank" in run("trace", "show", str(plain)).stdout
