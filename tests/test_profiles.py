"""Built-in profiles: the paper's numbers exactly, labelled reconstructions, the file format, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from cloudnoise.cli import cli
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.os_noise import OSNoiseTrace, SyntheticOSNoise, write_trace
from cloudnoise.model.profile import (
    Hardware,
    LogGOPS,
    NoiseModel,
    OSNoiseModel,
    Prices,
    Provenance,
    SystemProfile,
    load_profile,
    save_profile,
)
from cloudnoise.profiles.reconstruct import build_profile
from cloudnoise.profiles.registry import DATA_DIR, builtin_names, load_builtin, resolve_profile

ALL = [
    "alps", "aws-hpc", "aws-hpc-metal", "aws-normal", "azure-hpc", "azure-hpc-200", "azure-normal",
    "daint", "deep-est", "gcp-hpc", "gcp-normal", "oracle-hpc-metal", "oracle-normal",
]

# Table II of the paper, typed in again from the text (not imported from paper.py):
# (min lat us, mean lat us, max bw Gb/s, mean bw Gb/s) same rack, then different racks.
TABLE_II = {
    "aws-normal": ((19.28, 23.11, 27.32, 27.02), (22.46, 27.57, 30.52, 30.14)),
    "aws-hpc-metal": ((16.79, 18.97, 78.74, 70.84), (17.20, 19.26, 77.72, 67.02)),
    "azure-normal": ((26.11, 29.59, 7.42, 7.28), None),
    "azure-hpc": ((1.50, 1.65, 93.92, 93.51), None),
    "azure-hpc-200": ((1.70, 1.84, 194.48, 194.25), None),
    "gcp-normal": ((9.42, 10.64, 45.45, 38.82), (12.39, 15.02, 34.84, 30.67)),
    "gcp-hpc": ((8.46, 9.98, 75.75, 68.45), (14.90, 16.66, 70.11, 65.71)),
    "oracle-normal": ((24.68, 26.43, 11.20, 8.39), None),
    "oracle-hpc-metal": ((1.66, 1.72, 97.53, 97.50), None),
    "alps": ((2.13, 3.01, 97.14, 96.32), (2.66, 2.90, 96.15, 96.00)),
    "daint": ((1.19, 2.39, 74.37, 73.93), (1.19, 3.33, 75.24, 74.59)),
    "deep-est": ((1.19, 1.70, 90.46, 90.27), (1.41, 1.93, 90.49, 90.26)),
}

# Table I prices (committed, on-demand), USD per hour; None = N.A.
PRICES = {
    "aws-normal": (1.34, 3.06), "aws-hpc-metal": (1.475, 3.88), "aws-hpc": (1.475, 3.88),
    "azure-normal": (1.116, 3.045), "azure-hpc": (2.218, 3.168), "azure-hpc-200": (1.8, 3.6),
    "gcp-normal": (1.25, 3.1321), "gcp-hpc": (2.148, 4.03), "oracle-normal": (None, 1.188),
    "oracle-hpc-metal": (None, 2.712), "daint": (1.02, 1.73), "alps": (None, None), "deep-est": (None, None),
}


def _figures(f):
    return (f.min_latency_us, f.mean_latency_us, f.max_bandwidth_gbit_s, f.mean_bandwidth_gbit_s)


def test_all_table_i_systems_are_built_in():
    assert builtin_names() == ALL


@pytest.mark.parametrize("name", sorted(TABLE_II))
def test_table_ii_exactly_as_published(name):
    p = load_builtin(name)
    same, different = TABLE_II[name]
    assert _figures(p.table2.same_rack) == same
    assert _figures(p.table2.different_racks) == (different or (None, None, None, None))
    assert p.table2.provenance.kind == "measured"
    assert "Table II" in p.table2.provenance.source


def test_some_table_ii_numbers_spelled_out():
    assert load_builtin("alps").table2.same_rack.mean_latency_us == 3.01
    assert load_builtin("daint").table2.different_racks.mean_latency_us == 3.33
    assert load_builtin("azure-hpc-200").table2.same_rack.max_bandwidth_gbit_s == 194.48
    assert load_builtin("oracle-normal").table2.same_rack.mean_bandwidth_gbit_s == 8.39
    assert load_builtin("gcp-hpc").table2.different_racks.min_latency_us == 14.90
    assert load_builtin("deep-est").table2.different_racks.max_bandwidth_gbit_s == 90.49
    assert load_builtin("aws-hpc").table2 is None  # no column for c5n.18xlarge


@pytest.mark.parametrize("name", ALL)
def test_table_i_prices_and_hardware(name):
    p = load_builtin(name)
    assert (p.prices.committed_per_node_hour, p.prices.on_demand_per_node_hour) == PRICES[name]
    assert p.hardware.provenance.kind == "published"
    assert p.hardware.cpu and p.hardware.network and p.hardware.nominal_bandwidth_gbit_s


def test_table_i_details():
    aws = load_builtin("aws-hpc-metal").hardware
    assert (aws.instance_type, aws.cores, aws.memory_gb, aws.routing, aws.transport) == (
        "c5n.metal", 36, 192, "ECMP", "SRD")
    gcp = load_builtin("gcp-normal").hardware
    assert gcp.network == "Jupiter (3:1 Blocking Fat Tree)" and gcp.nominal_bandwidth_gbit_s == 32
    daint = load_builtin("daint").hardware
    assert daint.topology == "dragonfly" and daint.nominal_bandwidth_gbit_s == 82 and daint.memory_gb == 64
    assert load_builtin("oracle-normal").hardware.routing is None  # N.A.


@pytest.mark.parametrize("name", ALL)
def test_reconstructions_are_labelled_and_consistent(name):
    p = load_builtin(name)
    for part in (p.loggops, p.latency_noise, p.bandwidth_noise, p.os_noise):
        assert part.provenance.kind == "reconstructed"
        assert len(part.provenance.source) > 40
    column = TABLE_II.get(name, TABLE_II["aws-hpc-metal"])[0]
    min_lat, mean_lat, max_bw, mean_bw = column
    lg = p.loggops
    assert lg.L + 2 * lg.o == pytest.approx(min_lat * 1000)
    assert lg.G == pytest.approx(8 / max_bw, rel=1e-8)
    assert p.latency_distribution().mean() == pytest.approx((mean_lat - min_lat) * 1000, rel=1e-6)
    assert p.bandwidth_distribution().mean() == pytest.approx(mean_bw / max_bw, rel=1e-6)
    assert isinstance(p.os_noise_source(), SyntheticOSNoise)


@pytest.mark.parametrize("name", ALL)
def test_engine_tables_keep_the_table_ii_means(name):
    """What the engine draws from (the quantile tables) has Table II's mean excess and mean bandwidth."""
    from cloudnoise.model.distributions import QuantileTable

    p = load_builtin(name)
    for dist in (p.latency_distribution(), p.bandwidth_distribution()):
        table = QuantileTable(*dist.to_quantile_table())
        assert table.mean() == pytest.approx(dist.mean(), rel=5e-3)


def test_paper_tails_are_in_the_models():
    oracle = load_builtin("oracle-hpc-metal").latency_distribution()
    p, v = oracle.to_quantile_table()
    assert v[-1] == 59e6  # the 59 ms sample (Sec. IV-B)
    alps = load_builtin("alps").latency_distribution()
    min_ns = 2.13 * 1000
    assert alps.quantile(np.array([1 - 5e-5]))[0] > 127 * min_ns  # > 128x min latency in total
    drops = load_builtin("oracle-normal").bandwidth_distribution()
    assert drops.cdf(np.array([0.45]))[0] == pytest.approx(0.2, abs=1e-9)  # many samples at 40% of max


def test_data_files_are_generated_from_the_paper_tables():
    for name in ALL:
        on_disk = json.loads((DATA_DIR / f"{name}.json").read_text())
        assert on_disk == build_profile(name).to_dict(), f"regenerate: python -m cloudnoise.profiles.reconstruct"


def _minimal(**kw) -> SystemProfile:
    prov = Provenance("measured", "my campaign, 2026-11-01")
    base = dict(
        name="mine",
        description="my cluster",
        loggops=LogGOPS(prov, L=1000.0, o=100.0, g=100.0, G=0.08, O=0.0, S=65536),
        hardware=Hardware(prov, cpu="x"),
        prices=Prices(Provenance("published", "price list"), on_demand_per_node_hour=2.0),
    )
    base.update(kw)
    return SystemProfile(**base)


def test_save_load_round_trip_with_files(tmp_path):
    prov = Provenance("measured", "my campaign")
    (tmp_path / "lat.txt").write_text("0\n10\n20\n30\n")
    write_trace(tmp_path / "os.txt", OSNoiseTrace(np.array([0, 1000]), np.array([5, 6])))
    profile = _minimal(
        labels=("mine", "test"),
        latency_noise=NoiseModel(prov, samples="lat.txt"),
        bandwidth_noise=NoiseModel(prov, quantiles={"p": [0.0, 0.5, 1.0], "v": [0.5, 0.9, 1.0]}),
        os_noise=OSNoiseModel(prov, trace="os.txt"),
    )
    path = tmp_path / "mine.json"
    save_profile(profile, path)
    again = load_profile(path)
    assert again == profile
    assert again.to_dict() == profile.to_dict()
    assert again.latency_distribution().support() == (0.0, 30.0)
    assert again.bandwidth_distribution().quantile(np.array([0.25]))[0] == pytest.approx(0.7)
    starts, durations = again.os_noise_source()
    np.testing.assert_array_equal(starts, [0, 1000])
    assert resolve_profile(str(path)).name == "mine"


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.update(format="something/2"), "format"),
        (lambda d: d.update(colour="blue"), "unknown key 'colour'"),
        (lambda d: d["loggops"].update(L=-1), "L must be"),
        (lambda d: d["loggops"].pop("provenance"), "missing provenance"),
        (lambda d: d["loggops"]["provenance"].update(kind="guessed"), "provenance.kind must be one of"),
        (lambda d: d.pop("hardware"), "missing hardware"),
        (lambda d: d.update(latency_noise={"provenance": {"kind": "measured", "source": "x"}}), "exactly one of"),
        (lambda d: d.update(os_noise={"provenance": {"kind": "measured", "source": "x"}, "synthetic": "often"}),
         "bad OS noise spec"),
    ],
)
def test_bad_profiles_give_one_line_errors(tmp_path, edit, words):
    data = _minimal().to_dict()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError) as err:
        load_profile(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_bad_json_and_unknown_name(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": \n')
    with pytest.raises(CloudnoiseError, match=r"broken\.json:\d+: not valid JSON"):
        load_profile(path)
    with pytest.raises(CloudnoiseError, match="did you mean 'daint'"):
        load_builtin("diant")


def test_cli_list_and_show():
    runner = CliRunner()
    out = runner.invoke(cli, ["profiles", "list", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert [r["name"] for r in rows] == ALL
    assert next(r for r in rows if r["name"] == "daint")["min_latency_us"] == 1.19
    out = runner.invoke(cli, ["profiles", "show", "oracle-hpc-metal", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == load_builtin("oracle-hpc-metal").to_dict()
    out = runner.invoke(cli, ["profiles", "list"])
    assert out.exit_code == 0 and "deep-est" in out.output
    out = runner.invoke(cli, ["profiles", "show", "alps"])
    assert out.exit_code == 0 and "reconstructed" in out.output and "97.14" in out.output


def test_O_rendezvous_round_trips_and_reaches_the_engine(tmp_path):
    data = load_builtin("daint").to_dict()
    data["loggops"]["O"] = 0.05
    data["loggops"]["O_rendezvous"] = 0.001
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(path)
    assert profile.loggops.O_rendezvous == 0.001 and profile.to_dict()["loggops"]["O_rendezvous"] == 0.001
    from cloudnoise.simulate.params import LogGOPS as EngineParams

    params = EngineParams.from_profile(profile)
    assert params.O_fs == 50_000 and params.O_rendezvous_fs == 1_000
    assert params.to_engine().O_rendezvous_fs == 1_000
    assert EngineParams.from_profile(load_builtin("daint")).to_engine().O_rendezvous_fs == -1
    out = CliRunner().invoke(cli, ["profiles", "show", str(path)])
    assert out.exit_code == 0 and "O above S" in out.output
    data["loggops"]["O_rendezvous"] = -1
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="O_rendezvous must be >= 0"):
        load_profile(path)
