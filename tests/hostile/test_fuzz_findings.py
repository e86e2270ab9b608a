"""Inputs bench/bench_fuzz.py found to upset the readers, each kept as a case: one line,
exit 2, at once (never an internal error or an out-of-memory)."""

from __future__ import annotations

import sys
from pathlib import Path

from hostile_support import refused_without_side_effects, sandbox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trace"))
import native_writer as w  # noqa: E402

HEAD = "# htor's PMPI Tracer 1.0 Output File\n# hostname: node0.\n\n"


def _liballprof(root: Path, count: str) -> None:
    root.mkdir()
    for rank, p2p in ((0, "MPI_Send:1000010.000000:6610272:4:2,4,4:1:9:0,0,2:1000012.000000"),
                      (1, "MPI_Recv:1000005.000000:6610272:4:2,4,4:0:9:0,1,2:1:1000013.000000")):
        (root / f"pmpi-trace-rank-{rank}.txt").write_text(
            HEAD + "MPI_Init:-:1:2:1000000.000000\n" + p2p + "\n"
            f"MPI_Allreduce:1000100.000000:1:2:{count if rank == 0 else 1}:11,8,8:3:0,{rank},2:1000110.000000\n"
            "MPI_Finalize:1000200.000000:1000201.000000\n")


def test_a_collective_count_beyond_64_bits(tmp_path):
    """Was: TypeError from the collective generator's binding (internal error)."""
    box = sandbox(tmp_path)
    _liballprof(box.work / "t", "184467440737095516161")
    refused_without_side_effects(box, "trace", "convert", "t", "-o", "x.goal",
                                 says=("rank 0, call", "MPI_Allreduce", "2^53"))


def test_a_header_claiming_two_billion_ranks(tmp_path):
    """Was: a list of every missing rank, 2^31 of them (out of memory)."""
    box = sandbox(tmp_path)
    root = w.write_trace(box.work / "t", [[w.finalize(3000)], [w.finalize(3000)]])
    data = bytearray((root / "rank-000000.cntr").read_bytes())
    good = w.header(0, 2)
    data[: len(good)] = w.header(0, 2**31 - 1)
    (root / "rank-000000.cntr").write_bytes(bytes(data))
    proc = refused_without_side_effects(box, "trace", "show", "t", says="2147483647 ranks")
    assert proc.returncode == 2


def test_a_liballprof_time_of_nan(tmp_path):
    """Was: ValueError converting NaN to an integer (float('nan') reads a time)."""
    box = sandbox(tmp_path)
    _liballprof(box.work / "t", "1")
    rank0 = box.work / "t" / "pmpi-trace-rank-0.txt"
    rank0.write_text(rank0.read_text().replace("MPI_Send:1000010.000000", "MPI_Send:nan"))
    refused_without_side_effects(box, "trace", "convert", "t", "-o", "x.goal", says=("'nan'", "damaged"))


def test_a_liballprof_init_ending_beyond_any_time(tmp_path):
    """Was: OverflowError rounding MPI_Init's end (its start is '-', so the end alone is
    read: 1e306 us is finite, x 1000 ps is not) - found reading the C++ converter's fallbacks."""
    box = sandbox(tmp_path)
    _liballprof(box.work / "t", "1")
    rank0 = box.work / "t" / "pmpi-trace-rank-0.txt"
    rank0.write_text(rank0.read_text().replace("MPI_Init:-:1:2:1000000.000000", "MPI_Init:-:1:2:1e306"))
    refused_without_side_effects(box, "trace", "convert", "t", "-o", "x.goal", says=("'1e306'", "damaged"))
