"""The paper artifact's per-rank CSVs: names, runtimes, and every way a file
can be damaged (each refused with one line naming it, the others still read)."""

from __future__ import annotations

import io
import lzma
import tarfile
from pathlib import Path

import numpy as np
import pytest

from cloudnoise.validation.artifact_csv import MeasuredFileError, parse_name, read_runtimes
from cloudnoise.validation.measured import read_runs


def csv_text(rows: list[list[float]], size: int = 16) -> str:
    ranks = len(rows[0])
    head = "#MessageSize " + "".join(f"Rank{r}Time(us) " for r in range(ranks))
    # the programs print a space after every field, as goal2mpi.py writes them
    return head + "\n" + "".join(f"{size} " + "".join(f"{t:f} " for t in row) + "\n" for row in rows)


@pytest.mark.parametrize(("name", "pattern", "nocompute", "mpi", "nodes", "size"), [
    ("nwaydissemination_16_16.csv", "nwaydissemination", False, "", 16, 16),
    ("nwaydissemination_nocompute_4_16384.csv", "nwaydissemination", True, "", 4, 16384),
    ("nwaydissemination_nocompute_nbsend_8_16.csv", "nwaydissemination", True, "nbsend", 8, 16),
    ("nwaydissemination_nocompute_test_32_16777216.csv", "nwaydissemination", True, "test", 32, 16777216),
    ("nwaydissemination_test_4_16.csv", "nwaydissemination", False, "test", 4, 16),
    ("pipelinedring_nbsend_16_16777216.csv", "pipelinedring", False, "nbsend", 16, 16777216),
    ("pipelinedring_test_8_16384.csv", "pipelinedring", False, "test", 8, 16384),
    ("linear_alltoall_4_16.csv", "linear_alltoall", False, "", 4, 16),
    ("binarytreebcast_8_16384.csv", "binarytreebcast", False, "", 8, 16384),
    ("binomialtreebcast_16_16777216.csv", "binomialtreebcast", False, "", 16, 16777216),
])
def test_every_variant_name_is_split(name: str, pattern: str, nocompute: bool, mpi: str, nodes: int, size: int) -> None:
    run = parse_name(name)
    assert (run.pattern, run.nocompute, run.mpi_variant, run.nodes, run.size) == (pattern, nocompute, mpi, nodes, size)
    assert f"{run.program}_{nodes}_{size}.csv" == name


@pytest.mark.parametrize("name", ["coord.txt", "nwaydissemination_16.csv", "nwaydissemination_x_16.csv",
                                  "_4_16.csv", "nwaydissemination_0_16.csv", "ng_loggp.out"])
def test_other_names_are_refused(name: str) -> None:
    with pytest.raises(MeasuredFileError, match="^" + name.replace(".", r"\.")):
        parse_name(name)


def test_a_repetitions_runtime_is_its_slowest_rank_in_ns() -> None:
    rows = [[4.25, 4.0, 7.875, 5.5], [9.0, 3.5, 8.75, 4.0], [1.0, 2.0, 3.0, 4.5]]
    got = read_runtimes(io.StringIO(csv_text(rows)), "f.csv", 4, 16)
    np.testing.assert_array_equal(got, [7875.0, 9000.0, 4500.0])


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("\n\n", "empty"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n", "a header and no repetition"),
    ("MessageSize Rank0Time(us) Rank1Time(us) \n16 1 2\n", "does not start with '#MessageSize'"),
    ("#MessageSize Rank0Time(us) Rank2Time(us) \n16 1 2\n", "not Rank0, Rank1"),
    ("#MessageSize Rank0Time(us) Rank1Time \n16 1 2\n", "not RankNTime"),
    ("#MessageSize Rank0Time(us) \n16 1\n", "the header has 1 ranks, the file's name says 2"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 1 2\n16 1\n", ":3: 2 columns where the header has 3"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 1 2\n16 1 2 3\n", ":3: 4 columns"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 1 2\n16 1.5 nan\n", ":3: a rank time that is negative, NaN"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 inf 2\n", ":2: a rank time that is negative, NaN"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 -1 2\n", ":2: a rank time that is negative"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 1 two\n", ":2: a rank time that is not a number"),
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n32 1 2\n", ":2: message size '32', the file's name says 16"),
    # a file cut in the middle of its last row
    ("#MessageSize Rank0Time(us) Rank1Time(us) \n16 1.000 2.000 \n16 1.0", ":3: 2 columns where the header has 3"),
])
def test_damaged_files_are_refused_with_one_line(text: str, message: str) -> None:
    with pytest.raises(MeasuredFileError) as err:
        read_runtimes(io.StringIO(text), "f.csv", 2, 16)
    line = str(err.value)
    assert line.startswith("f.csv") and message in line and "\n" not in line


def write_tar_xz(path: Path, members: dict[str, bytes], dirs: tuple[str, ...] = ()) -> None:
    with tarfile.open(path, "w:xz") as tar:
        for d in dirs:
            info = tarfile.TarInfo(d)
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


GOOD = csv_text([[1.0, 2.0, 3.0, 4.0], [5.0, 1.0, 1.0, 1.0]]).encode()


def test_a_folder_reads_good_files_and_names_each_bad_one(tmp_path: Path) -> None:
    run = tmp_path / "2022_01_01_00_00_00"
    run.mkdir()
    (run / "nwaydissemination_4_16.csv").write_bytes(GOOD)
    (run / "pipelinedring_4_16.csv").write_text("#MessageSize Rank0Time(us) \n")  # wrong rank count
    (run / "linear_alltoall_4_16.csv").mkdir()  # a directory where a file should be
    (run / "binarytreebcast_4_16.csv").write_bytes(b"")  # empty
    (run / "gather_4_16.csv").write_bytes(b"\xff\xfe\x00")  # not text
    (run / "coord.txt").write_text("Hostname: nid00942\n")  # not a run: not read at all
    got = list(read_runs(tmp_path))
    runs = [g for g in got if not isinstance(g, str)]
    lines = sorted(g for g in got if isinstance(g, str))
    assert [r.name.program for r in runs] == ["nwaydissemination"]
    assert runs[0].run == "2022_01_01_00_00_00"
    np.testing.assert_array_equal(runs[0].runtime_ns, [4000.0, 5000.0])
    assert len(lines) == 4 and all("\n" not in line for line in lines)
    assert "binarytreebcast_4_16.csv: empty" in lines[0]
    assert "gather_4_16.csv: not text" in lines[1]
    assert "linear_alltoall_4_16.csv: not a regular file" in lines[2]
    assert "pipelinedring_4_16.csv:1: the header has 1 ranks" in lines[3]


def test_an_archive_is_streamed_and_a_directory_member_named_like_a_file_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "2022_03_30_00_54_29.tar.xz"
    write_tar_xz(archive, {"2022_03_30_00_54_29/nwaydissemination_nocompute_4_16.csv": GOOD,
                           "2022_03_30_00_54_29/pipelinedring_4_16.csv": GOOD.replace(b"5.000000 ", b"nan ")},
                 dirs=("2022_03_30_00_54_29", "2022_03_30_00_54_29/binarytreebcast_4_16.csv"))
    got = list(read_runs(archive))
    runs = [g for g in got if not isinstance(g, str)]
    lines = [g for g in got if isinstance(g, str)]
    assert [(r.run, r.name.program) for r in runs] == [("2022_03_30_00_54_29", "nwaydissemination_nocompute")]
    assert len(lines) == 2
    assert lines[0].endswith("binarytreebcast_4_16.csv: a directory, not a file")
    assert "pipelinedring_4_16.csv:3: a rank time that is negative, NaN or infinite" in lines[1]


def test_a_truncated_archive_keeps_what_came_before_and_says_so_in_one_line(tmp_path: Path) -> None:
    whole = tmp_path / "whole.tar.xz"
    filler = csv_text([[float(i % 97), 1.0, 2.0, 3.0] for i in range(20000)]).encode()
    write_tar_xz(whole, {"r/nwaydissemination_4_16.csv": GOOD, "r/pipelinedring_4_16384.csv": filler.replace(b"16 ", b"16384 ")})
    data = whole.read_bytes()
    cut = tmp_path / "cut.tar.xz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    got = list(read_runs(cut))
    runs = [g for g in got if not isinstance(g, str)]
    lines = [g for g in got if isinstance(g, str)]
    assert [r.name.program for r in runs] == ["nwaydissemination"]
    assert lines and all("\n" not in line for line in lines)
    assert any("cut.tar.xz" in line for line in lines)


def test_not_an_archive_and_no_runs_are_one_line_errors(tmp_path: Path) -> None:
    from cloudnoise.errors import CloudnoiseError

    bogus = tmp_path / "x.tar.xz"
    bogus.write_bytes(lzma.compress(b"not a tar archive"))
    got = list(read_runs(bogus))
    assert len(got) == 1 and isinstance(got[0], str) and "cannot be read" in got[0]
    (tmp_path / "empty").mkdir()
    with pytest.raises(CloudnoiseError, match="no collective runs"):
        list(read_runs(tmp_path / "empty"))
    with pytest.raises(CloudnoiseError, match="no such file or folder"):
        list(read_runs(tmp_path / "absent"))


def test_links_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "nwaydissemination_4_16.csv").write_bytes(GOOD)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "pipelinedring_4_16.csv").symlink_to(outside / "nwaydissemination_4_16.csv")
    (runs / "elsewhere").symlink_to(outside, target_is_directory=True)
    (runs / "binarytreebcast_4_16.csv").write_bytes(GOOD)
    got = list(read_runs(runs))
    assert [g.name.program for g in got if not isinstance(g, str)] == ["binarytreebcast"]
    assert [g for g in got if isinstance(g, str)] == [f"{runs / 'pipelinedring_4_16.csv'}: a link, not read"]


def test_a_badly_named_run_is_one_line_naming_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "nwaydissemination_16.csv").write_bytes(GOOD)
    (tmp_path / "nwaydissemination_4_16.csv").write_bytes(GOOD)
    got = list(read_runs(tmp_path))
    assert [g for g in got if isinstance(g, str)] == [
        f"{tmp_path / 'nwaydissemination_16.csv'}: not a collective run's name "
        "(PATTERN[_nocompute][_nbsend|_test]_NODES_SIZE.csv)"]
