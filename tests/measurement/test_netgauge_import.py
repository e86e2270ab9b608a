"""`cloudnoise measure import netgauge`: a Netgauge run becomes an ordinary campaign,
and damaged input is one line naming file and line, exit 2, nothing written."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge import import_netgauge
from cloudnoise.measurement.imports.netgauge_pingpong import WARMUP_DROPPED

from netgauge_synthetic import pingpong_text, write_run


def _values(campaign: Path, experiment: str) -> np.ndarray:
    table = pq.read_table(campaign / experiment / "samples.parquet", columns=["value_ns", "size_bytes"])
    return np.asarray(table.column("value_ns").to_numpy(), np.int64)


def test_import_keeps_the_authors_samples_and_builds_a_profile(tmp_path, run_cli):
    run = write_run(tmp_path / "2022_05_19_13_03_39")
    result = import_netgauge(run, tmp_path / "camp", {"system": "synthetic"})
    camp = result.campaign
    # samples 21..999 of each 1000-sample run, as the authors' index % 1000 > 20; RTT = 2 x RTT/2
    lat = np.sort(_values(camp, "latency-noise"))
    expect = np.sort(np.concatenate([np.rint([2000 * (2.0 + r + i / 1000.0) for i in range(WARMUP_DROPPED, 1000)])
                                     for r in range(3)]).astype(np.int64))
    assert np.array_equal(lat, expect)
    summary = json.loads((camp / "summary.json").read_text())["table2"]
    assert summary["min_latency_us"] == pytest.approx(2.021, abs=1e-3)
    assert summary["latency_from"] == "latency-noise" and summary["bandwidth_from"] == "bandwidth-noise"
    meta = json.loads((camp / "metadata.json").read_text())
    assert meta["import"]["files"]["ng_netnoise_mpi_lat.out"]["kept"] == 3 * (1000 - WARMUP_DROPPED)
    assert meta["import"]["versions"] == ["2.4.6"] and meta["import"]["run"] == "2022_05_19_13_03_39"
    assert meta["compute"]["gflops"] == pytest.approx(210.0)
    assert meta["labels"]["system"] == "synthetic" and meta["hosts"] == []
    # the OS-noise calls laid end to end: the second call's detour at 100 ns starts 1 s later
    trace = np.loadtxt(camp / "os-noise" / "os_noise.trace", comments="#", dtype=np.int64)
    assert trace.tolist() == [[0, 1000], [5000, 2000], [10**9 + 100, 3000]]
    # the sweep: latency, and connections with one pair
    sizes = sorted(set(pq.read_table(camp / "latency" / "samples.parquet").column("size_bytes").to_pylist()))
    assert sizes == [1, 1024, 1048576]
    built = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"))
    assert built.returncode == 0, built.stderr
    profile = json.loads((tmp_path / "p.json").read_text())
    assert {"latency_noise", "bandwidth_noise", "os_noise", "compute"} <= set(profile)
    assert "Netgauge's own figures from the same table" in profile["loggops"]["provenance"]["source"]
    assert "Netgauge's own" in built.stdout and "cloudnoise fit" in built.stdout
    as_json = run_cli("model", "build", str(camp), "-o", str(tmp_path / "q.json"), "--json")
    compared = json.loads(as_json.stdout)["compared_with_tool"]
    # the synthetic table: o_s 0.3 us, o_r 0.4 us, L 1.0 us; Netgauge's L is the one-way 1.7 us
    assert compared["netgauge"]["L"] == 1700.0 and compared["fit"]["L"] == 1000.0
    rep = run_cli("report", "--campaign", str(camp), "-o", str(tmp_path / "rep"), "--profile", str(tmp_path / "p.json"))
    assert rep.returncode == 0, rep.stderr
    assert (tmp_path / "rep" / "report.html").is_file()


def test_a_tarball_imports_as_its_folder(tmp_path):
    run = write_run(tmp_path / "src" / "2022_01_01_00_00_00")
    tar = tmp_path / "2022_01_01_00_00_00.tar.xz"
    with tarfile.open(tar, "w:xz") as t:
        t.add(run, arcname=run.name)
    a = import_netgauge(run, tmp_path / "a")
    b = import_netgauge(tar, tmp_path / "b")
    assert a.experiments == b.experiments
    for exp in ("latency-noise", "bandwidth-noise", "latency", "os-noise"):
        assert np.array_equal(_values(a.campaign, exp), _values(b.campaign, exp))


def test_a_single_header_over_many_runs_drops_the_same_warmup(tmp_path):
    """One artifact file (Azure's bandwidth noise) has one header over 161 runs: the
    authors' index % 1000 still drops 21 of each 1000."""
    run = write_run(tmp_path / "r")
    (run / "ng_netnoise_mpi_bw.out").write_text(
        pingpong_text([16777216], 3, lambda r, i: 1000.0 + i, header_every_run=False))
    camp = import_netgauge(run, tmp_path / "c").campaign
    v = np.sort(_values(camp, "bandwidth-noise"))
    assert len(v) == 3 * (1000 - WARMUP_DROPPED) and v[0] == 2000 * (1000 + WARMUP_DROPPED)


def _lines(n: int, size: int = 1, value: str = "2.000000") -> list[str]:
    return ["#size\trtt"] + [f"{size}\t{value}"] * n


DAMAGED = {
    "cut short in a line": ("ng_netnoise_mpi_lat.out", "\n".join(_lines(1000)) + "\n1\t2.0", "line 1002"),
    "cut short in a run": ("ng_netnoise_mpi_lat.out", "\n".join(_lines(1000) + _lines(500)) + "\n", "line 1502"),
    "NaN": ("ng_netnoise_mpi_lat.out", "\n".join(_lines(10) + ["1\tnan"] + _lines(989)[1:]) + "\n", "line 12"),
    "text among numbers": ("ng_netnoise_mpi_lat.out",
                           "\n".join(_lines(10) + ["Segmentation fault"] + _lines(990)[1:]) + "\n", "line 12"),
    "size changes inside a run": ("ng_netnoise_mpi_bw.out",
                                  "\n".join(_lines(500, 16777216) + _lines(500, 8388608)[1:]) + "\n", "line 502"),
    "empty": ("ng_netnoise_mpi_lat.out", "", "no samples"),
    "headers only": ("ng_osnoise.out", "# Benchmark Method: selfish\n# Nodename: n\n", "no detours"),
    "detours out of order": ("ng_osnoise.out", "# Benchmark Method: selfish\n5.0\t1.0\n3.0\t1.0\n", "line 3"),
    "LogGP table without rows": ("ng_loggp.out", "# size n PRTT(1,0,s)\n", "no rows"),
    "LogGP table with a negative round trip": ("ng_loggp.out", "# size n PRTT(1,0,s)\n1 10 -1 2 3 1 1 1 -nan -nan -nan\n",
                                               "line 2"),
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_damaged_input_is_one_line_naming_file_and_line_and_writes_nothing(tmp_path, case):
    name, text, where = DAMAGED[case]
    run = write_run(tmp_path / "r")
    (run / name).write_text(text)
    out = tmp_path / "out" / "camp"
    with pytest.raises(CloudnoiseError) as err:
        import_netgauge(run, out)
    message = str(err.value)
    assert name in message and where in message and "\n" not in message
    assert err.value.exit_code == 2
    assert not out.exists() and list((tmp_path / "out").iterdir()) == []


def _refused_as_folder_and_tarball(tmp_path: Path, run: Path, folder_match: str, tar_match: str) -> None:
    with pytest.raises(CloudnoiseError, match=folder_match):
        import_netgauge(run, tmp_path / "camp")
    tar = tmp_path / "r.tar.xz"
    with tarfile.open(tar, "w:xz") as t:
        t.add(run, arcname="r")
    with pytest.raises(CloudnoiseError, match=tar_match):
        import_netgauge(tar, tmp_path / "camp")
    assert not (tmp_path / "camp").exists()


def test_a_directory_where_a_file_is_expected(tmp_path):
    run = write_run(tmp_path / "r")
    (run / "ng_loggp.out").unlink()
    (run / "ng_loggp.out").mkdir()
    _refused_as_folder_and_tarball(tmp_path, run, "ng_loggp.out: is a directory", "ng_loggp.out: is a directory")


def test_not_a_tarball_and_an_existing_out(tmp_path, run_cli):
    junk = tmp_path / "run.tar.xz"
    junk.write_bytes(b"this is not xz data at all" * 10)
    with pytest.raises(CloudnoiseError, match="not a Netgauge run folder nor a readable .tar.xz"):
        import_netgauge(junk, tmp_path / "camp")
    run = write_run(tmp_path / "r")
    (tmp_path / "taken").mkdir()
    with pytest.raises(CloudnoiseError, match="already exists"):
        import_netgauge(run, tmp_path / "taken")
    cli = run_cli("measure", "import", "netgauge", str(junk), "--out", str(tmp_path / "camp"))
    assert cli.returncode == 2 and cli.stderr.count("\n") == 1 and "error" in cli.stderr
    assert not (tmp_path / "camp").exists()


def test_no_netgauge_output_at_all(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "notes.txt").write_text("hello\n")
    with pytest.raises(CloudnoiseError, match="no Netgauge output found"):
        import_netgauge(tmp_path / "r", tmp_path / "camp")


def test_salvage_imports_what_is_whole_and_says_what_it_dropped(tmp_path):
    """The artifact has such runs (an AWS bandwidth-noise file cut inside a line, AWS OS-noise
    files without a detour): --salvage reads them as the authors' scripts did, and says so."""
    run = write_run(tmp_path / "r")
    (run / "ng_netnoise_mpi_lat.out").write_text("\n".join(_lines(1000) + _lines(500)) + "\n1\t2.0")
    (run / "ng_osnoise.out").write_text("# Benchmark Method: selfish\n# Nodename: n\n")
    with pytest.raises(CloudnoiseError):
        import_netgauge(run, tmp_path / "strict")
    result = import_netgauge(run, tmp_path / "camp", salvage=True)
    assert result.experiments["latency-noise"] == (1000 - WARMUP_DROPPED) + (500 - WARMUP_DROPPED)
    assert "os-noise" not in result.experiments and not (tmp_path / "camp" / "os-noise").exists()
    notes = json.loads((tmp_path / "camp" / "metadata.json").read_text())["import"]["salvaged"]
    assert any("line 1503" in n and "cut short" in n for n in notes)
    assert any("ng_osnoise.out" in n and "left out" in n for n in notes)


def test_a_link_in_a_run_is_refused(tmp_path):
    """A run folder is data: it never points elsewhere (a link to /etc/passwd is not read)."""
    run = write_run(tmp_path / "r")
    (run / "ng_loggp.out").unlink()
    (run / "ng_loggp.out").symlink_to("/etc/passwd")
    _refused_as_folder_and_tarball(tmp_path, run, "a link", "a link or special file")
