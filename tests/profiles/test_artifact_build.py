"""`cloudnoise profiles build` on a small artifact made here (runs and
DGEMM files with known contents), and the built-in profiles being its output
on the real artifact (where the machine has it)."""

from __future__ import annotations

import filecmp
import os
from pathlib import Path

import numpy as np
import pytest

from archives import tar_xz
from cloudnoise import simulate
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import load_profile
from cloudnoise.profiles.artifact.build import build_profiles, default_record
from cloudnoise.profiles.artifact.compute import compute_rate
from cloudnoise.profiles.artifact.runs import choose_run

REPO = Path(__file__).resolve().parents[2]
ARTIFACT = Path(os.environ.get("CLOUDNOISE_SHARED", REPO.parent / "shared")) / "paper-artifact"


def write_run(path: Path, files: dict[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # padded past the size a network run has
    path.write_bytes(tar_xz(files, path.name.removesuffix(".tar.xz")) + b"\0" * 100_001)


def noise_file(size: int, rtts_us: list[float]) -> bytes:
    return ("#size\trtt\n" + "".join(f"{size}\t{r:.6f}\n" for r in rtts_us)).encode()


def fake_artifact(root: Path) -> None:
    (root / "description.csv").write_text(
        "Daint,HPC (Metal),Same Rack,Day,daint_sr/2022_01_01_00_00_00\n"
        "Daint,HPC (Metal),Different Racks,Day,daint_dr/2022_02_02_00_00_00\n"  # missing: another run stands in
        "Daint,HPC (Metal),Compute,,compute/gemm_daint/gemm_daint_\n"
    )
    lat = [2.0] * 21 + [1.0, 2.0, 3.0, 4.0]   # kept: 1..4 us
    bw = [1000.0] * 21 + [1677.7216, 3355.4432]  # kept: 100 and 200 ps/B at 16 MiB
    os_noise = b"# run 1\n0.00\t100.5\n1000.00\t200.0\n5000.0\t50\n# run 2\n0.00\t7\n3000.0\t8\n"
    write_run(root / "daint_sr" / "2022_01_01_00_00_00.tar.xz", {
        "ng_netnoise_mpi_lat.out": noise_file(1, lat), "ng_netnoise_mpi_bw.out": noise_file(16777216, bw),
        "ng_osnoise.out": os_noise})
    write_run(root / "daint_dr" / "2022_03_03_00_00_00.tar.xz", {
        "ng_netnoise_mpi_lat.out": noise_file(1, [5.0] * 21 + [10.0, 30.0]),
        "ng_netnoise_mpi_bw.out": noise_file(16777216, bw), "ng_osnoise.out": b""})
    gemm = "#N\tTIME(s)\tGFLOPs/s\tTHEO_PEAK\n" + "".join(f"8192\t0.9\t{g}\t1209.6\n" for g in (1190, 1200, 1195))
    small = "#N\tTIME(s)\tGFLOPs/s\tTHEO_PEAK\n128\t0.00001\t400\t1209.6\n"
    (root / "compute").mkdir()
    (root / "compute" / "gemm_daint.tar.xz").write_bytes(
        tar_xz({"gemm_daint_8192.dat": gemm.encode(), "gemm_daint_128.dat": small.encode()}))


def test_runs_named_or_substituted(tmp_path):
    fake_artifact(tmp_path)
    sr = choose_run(tmp_path, "daint", "same-rack")
    assert not sr.substituted and "the run description.csv names" in sr.provenance(tmp_path)
    dr = choose_run(tmp_path, "daint", "different-racks")
    assert dr.substituted and "substituting daint_dr/2022_02_02_00_00_00" in dr.provenance(tmp_path)
    assert choose_run(tmp_path, "alps", "same-rack").used is None


def test_compute_rate_is_the_median_of_the_largest_n(tmp_path):
    fake_artifact(tmp_path)
    c = compute_rate(tmp_path, "daint")
    assert c is not None and c.gflops == 1195.0 and c.provenance.kind == "measured" and "N = 8192" in c.provenance.source
    assert compute_rate(tmp_path, "alps") is None


def test_build_from_a_small_artifact(tmp_path):
    art, out = tmp_path / "art", tmp_path / "out"
    art.mkdir()
    fake_artifact(art)
    done = {b.name: b.parts for b in build_profiles(art, out, default_record())}
    assert done["daint"]["noise"].startswith("data:")
    # alps has no run in this artifact and the calibration has no model of its
    # noise (its built-in noise is the paper artifact's): not written, said why
    assert done["alps"]["noise"].startswith("none:") and "not written" in done["alps"]["noise"]
    assert not list(out.glob("alps*"))
    # c5n.metal has no run here either, but the calibration models it (AWS HPC
    # borrows its tail): the authors' rows all the same, the text's noise said
    # to be around others
    aws = load_profile(out / "aws-hpc-metal.json")
    assert aws.loggops.L == 28000.0 and aws.different_racks.loggops.G == 0.3
    assert "not these rows" in aws.different_racks.note and aws.latency_noise.provenance.kind == "calibrated"
    assert done["aws-hpc"]["loggops"].startswith("text:")  # the authors did not simulate it
    p = load_profile(out / "daint.json")
    assert p.loggops.L == 500.0 and p.loggops.G == 0.11 and p.loggops.provenance.kind == "published"
    assert p.different_racks is not None and p.different_racks.loggops.G == 0.14
    assert p.switch_draws is not None and p.switch_draws.nodes_per_switch == 16
    assert p.latency_noise is None and p.compute is not None and p.compute.gflops == 1195.0
    with np.load(out / "daint.npz") as z:
        assert z["same_rack_latency_ps"].tolist() == [1000000, 2000000, 3000000, 4000000]
        assert z["same_rack_gap_ps"].tolist() == [100, 200]
        assert z["different_racks_latency_ps"].tolist() == [10000000, 30000000]
    # The OS trace: the first run's detours before the last row's start
    # (3000 ns; run 2's first row settles at 0), in ns.
    starts, durations = p.os_noise_source()
    assert starts.tolist()[:2] == [0, 1000] and starts[-1] == 3000 and durations.tolist()[:2] == [100, 200]
    # Simulates, and near the same rack's L noiselessly.
    r = simulate(pattern="dissemination", ranks=4, size="16B", profile=p.at("different-racks"), noise="none")
    assert r.runtime_ns[0] > 0
    # Rebuilt: the same bytes.
    again = tmp_path / "again"
    build_profiles(art, again, default_record())
    for f in sorted(out.iterdir()):
        assert filecmp.cmp(f, again / f.name, shallow=False), f.name


def test_a_system_with_an_empty_os_trace_and_no_text_model_is_not_written(tmp_path, run_cli):
    """Alps's run here has network samples but an empty ng_osnoise.out, and the
    calibration has no OS noise model of Alps: no profile (and no side file)
    rather than one without OS noise; the command says why."""
    art, out = tmp_path / "art", tmp_path / "out"
    art.mkdir()
    fake_artifact(art)
    with open(art / "description.csv", "a") as f:
        f.write("Alps,HPC (Metal),Same Rack,Day,alps_sr/2022_01_01_00_00_00\n")
    write_run(art / "alps_sr" / "2022_01_01_00_00_00.tar.xz", {
        "ng_netnoise_mpi_lat.out": noise_file(1, [2.0] * 21 + [3.0, 4.0]),
        "ng_netnoise_mpi_bw.out": noise_file(16777216, [1000.0] * 21 + [1677.7216]), "ng_osnoise.out": b""})
    res = run_cli("profiles", "build", "--artifact", art, "--out", out)
    assert res.returncode == 0, res.stderr
    line = next(x for x in res.stdout.splitlines() if x.startswith("alps:"))
    assert "ng_osnoise.out are empty" in line and "not written" in line
    assert not list(out.glob("alps*")) and (out / "daint.json").is_file()


def test_build_needs_an_artifact(tmp_path):
    with pytest.raises(CloudnoiseError, match="description.csv"):
        build_profiles(tmp_path, tmp_path / "out", default_record())


@pytest.mark.skipif(not (ARTIFACT / "description.csv").is_file(), reason="the paper artifact is not on this machine")
def test_builtin_profiles_are_the_build_output(tmp_path):
    from cloudnoise.profiles.registry import DATA_DIR

    build_profiles(ARTIFACT, tmp_path, default_record())
    built = sorted(p.name for p in tmp_path.iterdir())
    shipped = sorted(p.name for p in DATA_DIR.iterdir() if p.suffix in (".json", ".npz") and p.name != "calibration.json")
    assert built == shipped
    for name in built:
        assert filecmp.cmp(tmp_path / name, DATA_DIR / name, shallow=False), name
