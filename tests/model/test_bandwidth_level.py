"""The bandwidth's level (model/bandwidth_level.py): the large message's noiseless round trip at
the bandwidth series' median. Known answers: a round trip linear in the per-byte costs, whose
factor is solved by hand; a Netgauge run whose bandwidth series runs at twice the LogGP table's
level, built as a user builds it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cloudnoise.model.bandwidth_level import level_costs, size_class_of, with_costs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "measurement"))

from netgauge_synthetic import loggp_table, pingpong_text, write_run  # noqa: E402

SIZE = 16 * 1024 * 1024


def _loggops() -> dict:
    return {"L": 1000.0, "o": 500.0, "g": 600.0, "G": 0.1, "O": 0.2, "S": 65536,
            "size_classes": [{"min_bytes": 0, "L": 1000.0, "G": 0.5, "O": 0.01},
                             {"min_bytes": 65537, "L": 5000.0, "G": 0.1, "O": 0.2}]}


def _linear(lg: dict) -> float:
    """A round trip that grows with both costs: 2 (o + L + size (G + O)) for the class's."""
    c = size_class_of(lg, SIZE)
    return 2.0 * (lg["o"] + c["L"] + SIZE * (c["G"] + c["O"]))


def test_the_factor_puts_the_round_trip_at_the_median() -> None:
    lg = _loggops()
    lg["size_classes"][1]["O"] = lg["O"] = 0.05  # the CPU's per-byte time below the wire's
    f = 0.5  # the median fraction: G / f on the wire at the median
    target = 4.0e6
    got = level_costs(lg, SIZE, f, target, _linear)
    # 2 (500 + 5000 + SIZE k (0.1 / 0.5 + 0.05)) = target: k = (target / 2 - 5500) / (SIZE x 0.25)
    k = (target / 2 - 5500.0) / (SIZE * 0.25)
    assert got.factor == pytest.approx(k, rel=1e-4)  # costs in whole fs per byte
    assert (got.G_moved, got.O_moved) == (pytest.approx(0.1 * k, abs=1e-6), pytest.approx(0.05 * k, abs=1e-6))
    assert got.moved_ns == pytest.approx(target, rel=1e-5)
    assert got.fitted_ns == pytest.approx(_linear(with_costs(lg, SIZE, 0.1 / f, 0.05)))
    assert "costs of 16777216 B messages moved" in got.describe() and "alone exceed" not in got.describe()
    assert not got.O_capped and "O taken at G" not in got.describe()


def _slower_of_cpu_and_wire(lg: dict, fraction: float = 1.0) -> float:
    """The engine's large message: the slower of the CPU (O) and the wire (G / fraction) per byte."""
    c = size_class_of(lg, SIZE)
    return 2.0 * (lg["o"] + c["L"] + SIZE * max(c["O"], c["G"] / fraction))


def test_an_o_above_g_is_taken_at_g_so_that_the_wire_decides_the_round_trip() -> None:
    """O 0.2 above G 0.1 at the peak: every fraction above 1/2 gives the same round trip (the
    CPU's), none faster than the median. O is taken at G before the move: the round trip then
    moves with every fraction, and the median still lands where the series' is."""
    lg = _loggops()
    f, target = 0.8, 4.0e6
    got = level_costs(lg, SIZE, f, target, _slower_of_cpu_and_wire)
    assert got.O_capped and got.O_fitted == 0.2 and got.O_moved == got.G_moved
    # 2 (5500 + SIZE k 0.1 / 0.8) = target
    k = (target / 2 - 5500.0) / (SIZE * 0.1 / f)
    assert got.factor == pytest.approx(k, rel=1e-4) and got.moved_ns == pytest.approx(target, rel=1e-5)
    moved = with_costs(lg, SIZE, got.G_moved, got.O_moved)
    assert _slower_of_cpu_and_wire(moved, 1.0) < _slower_of_cpu_and_wire(moved, f) < _slower_of_cpu_and_wire(moved, 0.5)
    assert "O taken at G before the move" in got.describe()


def test_only_the_class_of_the_size_moves_and_the_plain_costs_where_they_are_its() -> None:
    lg = _loggops()
    moved = with_costs(lg, SIZE, 0.05, 0.1)
    assert moved["size_classes"][1]["G"] == 0.05 and moved["size_classes"][1]["O"] == 0.1
    assert moved["size_classes"][0] == lg["size_classes"][0]  # the small sizes the table measured
    assert (moved["G"], moved["O"]) == (0.05, 0.1)  # the plain costs were the class's
    lg["G"] = 0.3  # a plain G of its own stays
    assert with_costs(lg, SIZE, 0.05, 0.1)["G"] == 0.3
    assert lg["size_classes"][1]["G"] == 0.1  # the input is not changed


def test_overheads_alone_above_the_median_leave_no_per_byte_cost_and_say_so() -> None:
    got = level_costs(_loggops(), SIZE, 1.0, 5000.0, _linear)  # 2 (500 + 5000) = 11 us already
    assert got.factor == 0.0 and got.G_moved == 0.0 and got.O_moved == 0.0
    assert got.moved_ns == pytest.approx(11_000.0)
    assert "alone exceed the median by 6000 ns" in got.describe()


def test_no_median_to_move_to_keeps_the_fit() -> None:
    for fraction, median in ((0.0, 4.0e6), (1.5, 4.0e6), (0.5, 0.0), (0.5, float("nan"))):
        got = level_costs(_loggops(), SIZE, fraction, median, _linear)
        assert got.factor == 1.0 and (got.G_moved, got.O_moved) == (0.1, 0.2)
        assert "stay as fitted" in got.describe()


def _run_twice_as_slow(folder: Path) -> Path:
    """A Netgauge run whose LogGP table says G = 0.1 ns/B and whose 16 MiB series runs at about
    twice the table's transfer time (RT/2 3.4 ms against 1.7 ms)."""
    run = write_run(folder / "2022_05_05_17_00_11", lat_runs=12, bw_runs=3)
    (run / "ng_netnoise_mpi_bw.out").write_text(pingpong_text([SIZE], 3, lambda r, i: 3400.0 + (i % 7)))
    (run / "ng_loggp.out").write_text(loggp_table(L=1.0, o_s=0.3, o_r=0.3, g=0.5, G=0.0001, S=8192))
    return run


@pytest.mark.parametrize("as_paper", [False, True])
def test_a_built_profile_gives_back_its_bandwidth_series_median(tmp_path: Path, as_paper: bool) -> None:
    from cloudnoise.measurement.imports.netgauge import import_netgauge
    from cloudnoise.model.build import build_profile
    from cloudnoise.model.latency_level import noiseless_round_trip
    from cloudnoise.model.profile import load_profile

    campaign = import_netgauge(_run_twice_as_slow(tmp_path), tmp_path / "campaign", {"system": "slow"}).campaign
    out = tmp_path / "p.json"
    built = build_profile(campaign, out, allow_missing=True, as_paper=as_paper)
    profile = load_profile(out)
    noiseless = noiseless_round_trip(profile, SIZE)  # at the peak: the median fraction is about 1 here
    measured_median = 2 * 3403e3
    if as_paper:  # the paper's semantics keep the table's level: about half the series' round trip
        assert built["bandwidth_level"] is None
        assert noiseless < 0.6 * measured_median
    else:
        level = built["bandwidth_level"]
        assert level["median_round_trip_ns"] == pytest.approx(measured_median, rel=0.002)
        assert noiseless == pytest.approx(measured_median, rel=0.003)
        assert "model/bandwidth_level.py" in profile.loggops.provenance.source


def test_model_build_says_where_the_bandwidth_level_moved(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from cloudnoise.cli import cli
    from cloudnoise.measurement.imports.netgauge import import_netgauge

    campaign = import_netgauge(_run_twice_as_slow(tmp_path), tmp_path / "campaign", {"system": "slow"}).campaign
    runner = CliRunner()
    said = runner.invoke(cli, ["model", "build", str(campaign), "-o", str(tmp_path / "p.json"), "--allow-missing"])
    assert said.exit_code == 0, said.output
    assert "bandwidth level: G " in said.output and "for 16777216 B messages" in said.output
    doc = runner.invoke(cli, ["model", "build", str(campaign), "-o", str(tmp_path / "q.json"), "--allow-missing",
                              "--json"])
    assert doc.exit_code == 0, doc.output
    level = json.loads(doc.stdout)["bandwidth_level"]
    assert level["median_round_trip_ns"] == pytest.approx(2 * 3403e3, rel=0.002)
