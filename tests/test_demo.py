"""`cloudnoise demo`, the README's main job: the whole pipeline end to end."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from measure_support import mpi_or_skip, run


@pytest.fixture(scope="module")
def quick_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """One `cloudnoise demo --quick --json` run, shared by the tests below."""
    mpi_or_skip()
    out = tmp_path_factory.mktemp("demo") / "out"
    proc = run("demo", "--quick", "--out", str(out), "--workers", "2", "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out, json.loads(proc.stdout)


def test_quick_demo_measures_models_simulates_and_reports(quick_demo: tuple[Path, dict]) -> None:
    out, doc = quick_demo
    assert Path(doc["report"]) == out / "report.html"
    html = (out / "report.html").read_text()
    assert "<html" in html.lower() and "this-machine" in html
    # every stage left its output where the pipeline says
    meta = json.loads((out / "campaign" / "metadata.json").read_text())
    for experiment in ("latency", "latency-noise", "bandwidth-noise", "os-noise", "loggp"):
        assert meta["experiments"][experiment]["complete"], experiment
        assert (out / "campaign" / experiment / "samples.parquet").exists()  # a file (loggp) or a folder
    profile = json.loads((out / "profile" / "this-machine.json").read_text())
    assert profile["name"] == "this-machine" and profile["loggops"]["provenance"]["kind"] == "measured"
    # the measured machine is simulated beside the built-ins, with every noise variant
    import pyarrow.parquet as pq

    for sweep in doc["sweeps"]:
        sweep_meta = json.loads((Path(sweep) / "sweep.json").read_text())
        assert sweep_meta["complete"]
        table = pq.read_table(Path(sweep) / "results.parquet").to_pandas()
        assert "this-machine" in set(table["system"]) and {"aws-hpc-metal", "azure-hpc"} <= set(table["system"])
        assert set(table["variant"]) == {"none", "os", "network", "both"}
        counts = table.groupby(["system", "nodes", "variant"]).size()
        assert (counts == sweep_meta["reps"]).all()
    # figures as PNG and PDF, and the headline numbers
    figures = sorted((out / "figures").glob("*.png"))
    assert len(figures) == doc["figures"] >= 5
    for png in figures:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    assert doc["this_machine"]["min_latency_us"] > 0 and doc["this_machine"]["max_bandwidth_gbps"] > 0
    assert doc["observations"]


def test_demo_again_keeps_what_was_done(quick_demo: tuple[Path, dict]) -> None:
    """The same --out again: measurements and sweeps are reused, not redone."""
    out, first = quick_demo
    stamps = {p: p.stat().st_mtime_ns for p in (out / "campaign").rglob("*.parquet")}
    proc = run("demo", "--quick", "--out", str(out), "--in-process", "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    assert {p: p.stat().st_mtime_ns for p in (out / "campaign").rglob("*.parquet")} == stamps
    assert again["this_machine"] == first["this_machine"]
    assert again["seconds"]["measure"] < 5
    # and it says so: every measurement and sweep reused, on stderr and in the JSON
    experiments = ("latency", "latency-noise", "bandwidth-noise", "os-noise", "loggp")
    assert again["reused"] == [f"measure {e}" for e in experiments] + [
        "sweep fig14-dissemination", "sweep fig16-gemm-dissemination"]
    assert first["reused"] == []
    assert proc.stderr.count(": reused, measured by an earlier run in ") == 5
    assert proc.stderr.count("reused all ") == 2 and "estimate" not in proc.stderr


def test_demo_says_which_mpi_and_stores_it(quick_demo: tuple[Path, dict]) -> None:
    out, doc = quick_demo
    assert doc["mpi"]["mpicc"] and doc["mpi"]["flavor"] in ("mpich", "openmpi", "intel", "unknown")
    assert doc["mpi"]["reason"]
    meta = json.loads((out / "campaign" / "metadata.json").read_text())
    assert meta["mpi"]["reason"] == doc["mpi"]["reason"] and meta["mpi"]["mpicc"] == doc["mpi"]["mpicc"]


def test_demo_without_mpi_says_what_to_do(tmp_path: Path) -> None:
    bare_path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "mpicc").exists())
    proc = run("demo", "--quick", "--out", str(tmp_path / "d"), CLOUDNOISE_IGNORE_PIP_MPICH="1", PATH=bare_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no MPI found" in lines[0] and "--no-measure" in lines[0]


def test_demo_bad_out_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = run("demo", "--quick", "--no-measure", "--out", str(blocker / "sub"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--out" in proc.stderr


def test_demo_quiet_with_a_seed(tmp_path: Path) -> None:
    """The shared options: -o, --seed (recorded by every sweep), -q (only the outcome)."""
    out = tmp_path / "d"
    proc = run("demo", "--quick", "--no-measure", "--in-process", "-o", str(out), "--seed", "3", "-q", timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "report: " in proc.stdout and "] simulate " not in proc.stdout  # the outcome, no stage lines
    # piped: an observation is one line, not wrapped at 80 columns
    assert any("raises the median runtime" in line and "nodes on" in line and len(line) > 80
               for line in proc.stdout.splitlines())
    for sweep_json in (out / "sweeps").glob("*/sweep.json"):
        assert json.loads(sweep_json.read_text())["seed"] == 3
    assert list((out / "sweeps").glob("*/sweep.json"))
