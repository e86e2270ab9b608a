"""Built-in profiles: the paper's numbers exactly, labelled reconstructions, the file format, the CLI."""

from __future__ import annotations

import dataclasses
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
    SystemProfile,
    load_profile,
    save_profile,
)
from cloudnoise.model.provenance import Provenance
from cloudnoise.profiles.registry import DATA_DIR, builtin_names, load_all_builtin, load_builtin, resolve_profile

def text_profile(name: str) -> SystemProfile:
    """The text-based reconstruction of a system: what `profiles build`
    starts from (the calibration record's noise for the systems it models,
    no noise for the others, which take the artifact's)."""
    from cloudnoise.profiles.artifact.build import text_base
    from cloudnoise.profiles.calibrate.assemble import read_params

    return text_base(name, read_params(DATA_DIR / "calibration.json"))


# The systems whose built-in profile is the text-based one as a whole (the
# authors did not simulate them, so there are no parameters of theirs).
TEXT_ONLY = ["aws-hpc", "oracle-normal"]
# The systems the calibration models: those whose built-in noise is the text's
# (the above and Oracle HPC, whose network run the stored artifact lacks) and
# AWS c5n.metal, whose fitted tail and long detours AWS HPC takes.
CALIBRATED = ["aws-hpc", "aws-hpc-metal", "oracle-hpc-metal", "oracle-normal"]

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
    assert p.table2.provenance.kind == "published"
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


@pytest.mark.parametrize("name", CALIBRATED)
def test_noise_models_are_labelled_and_keep_table_ii(name):
    """Each model is `reconstructed` (its assumption stated) or `calibrated`
    (the targets it was fitted to cited); all keep Table II's means. (The
    calibration's text-based profiles; the built-ins with artifact data
    replace these parts.)"""
    from cloudnoise.profiles.authors_parameters import WITHOUT_STORED_RUN

    p = text_profile(name)
    for part in (p.latency_noise, p.bandwidth_noise, p.os_noise):
        assert part.provenance.kind in ("reconstructed", "calibrated")
        assert len(part.provenance.source) > 40
        if part.provenance.kind == "calibrated":
            assert "Fitted:" in part.provenance.source and "calibration.json" in part.provenance.source
    column = TABLE_II.get(name, TABLE_II["aws-hpc-metal"])[0]
    min_lat, mean_lat, max_bw, mean_bw = column
    lg = p.loggops
    if name in WITHOUT_STORED_RUN:
        # the authors' rows (Oracle HPC: 2o + L = 1.9 us and 80 Gb/s, not Table II's 1.66 us and 97.53 Gb/s)
        assert lg.provenance.kind == "published" and "loggp_params.py" in lg.provenance.source
    else:
        assert lg.provenance.kind == "reconstructed"
        assert lg.L + 2 * lg.o == pytest.approx(min_lat * 1000)
        assert lg.G == pytest.approx(8 / max_bw, rel=1e-8)
    assert p.latency_distribution().mean() == pytest.approx((mean_lat - min_lat) * 1000, rel=1e-3)
    # Table II averages a measurement's samples: drops held in episodes count by their share of samples
    assert p.bandwidth_sample_distribution().mean() == pytest.approx(mean_bw / max_bw, rel=1e-4)
    assert isinstance(p.os_noise_source(), SyntheticOSNoise)


def test_fitted_models_are_labelled_calibrated():
    assert text_profile("aws-hpc-metal").latency_noise.provenance.kind == "calibrated"
    assert "fig14-aws-network-50" in text_profile("aws-hpc-metal").latency_noise.provenance.source
    # AWS HPC takes c5n.metal's fitted tail and long detours, and says so
    aws = text_profile("aws-hpc")
    assert "as aws-hpc-metal: fig14-aws-network-50" in aws.latency_noise.provenance.source
    assert "as aws-hpc-metal: fig14-aws-os-2x" in aws.os_noise.provenance.source
    assert text_profile("oracle-hpc-metal").os_noise.provenance.kind == "calibrated"
    assert text_profile("oracle-normal").latency_noise.provenance.kind == "reconstructed"
    # Daint's noise comes from its measurements: its text base has none
    daint = text_profile("daint")
    assert (daint.latency_noise, daint.bandwidth_noise, daint.os_noise) == (None, None, None)


@pytest.mark.parametrize("name", sorted(set(ALL) - set(TEXT_ONLY)))
def test_builtins_carry_the_authors_parameters_and_their_data(name):
    """The built-ins the authors simulated: their LogGOPS rows at both
    placements (published, cited) and nodes per switch, every one of them;
    where the stored artifact has a network run, its samples and OS trace
    (measured) in the authors' semantics; Oracle HPC, without one, the text's
    noise (calibrated around the authors' rows)."""
    from cloudnoise.profiles.authors_parameters import SOURCE, authors_parameters

    p = load_builtin(name)
    for placement, lg in (("same-rack", p.loggops), ("different-racks", p.different_racks.loggops)):
        a = authors_parameters(name, placement)
        assert (round(lg.L * 1000), round(lg.o * 1000), round(lg.g * 1000), round(lg.G * 1000), lg.S) == (
            a.L_ps, a.o_ps, a.g_ps, a.G_ps_per_byte, a.S_bytes)
        assert lg.provenance.kind == "published" and SOURCE in lg.provenance.source
    if name == "oracle-hpc-metal":
        # No network run stored: the text's noise, at both placements.
        text = text_profile(name)
        assert (p.loggops, p.latency_noise, p.bandwidth_noise, p.os_noise) == (
            text.loggops, text.latency_noise, text.bandwidth_noise, text.os_noise)
        assert p.latency_noise.provenance.kind == "calibrated"
        dr = p.at("different-racks")
        assert (dr.latency_noise, dr.os_noise) == (text.latency_noise, text.os_noise)
        assert p.switch_draws is None and p.compute == text.compute
        return
    if name in ("alps", "oracle-hpc-metal"):  # their DGEMM files reach 1-3% of the node's peak: the text's rate
        assert p.compute == text_profile(name).compute
    else:
        assert p.compute.provenance.kind == "measured" and "DGEMM" in p.compute.provenance.source
    sd = p.switch_draws
    assert sd.nodes_per_switch == authors_parameters(name).nodes_per_switch and sd.provenance.kind == "measured"
    assert p.latency_noise is None and p.bandwidth_noise is None
    assert p.os_noise.provenance.kind == "measured" and p.os_noise.trace == f"{name}-os.npz"
    starts, durations = p.os_noise_source()
    assert starts.size > 10_000 and np.all(np.diff(starts) >= 0)


@pytest.mark.parametrize("name", TEXT_ONLY)
def test_systems_without_the_authors_parameters_stay_the_text_reconstruction(name):
    assert load_builtin(name) == text_profile(name)


@pytest.mark.parametrize("name", CALIBRATED)
def test_engine_tables_keep_the_table_ii_means(name):
    """What the engine draws from (the quantile tables) has Table II's mean
    latency (to 0.5%) and mean bandwidth."""
    from cloudnoise.model.distributions import QuantileTable

    p = text_profile(name)
    min_lat, mean_lat = TABLE_II.get(name, TABLE_II["aws-hpc-metal"])[0][:2]
    lat = QuantileTable(*p.latency_distribution().to_quantile_table())
    # 0.5%: Alps's tail (Pareto alpha 1.05) holds part of its mean beyond the table's last point
    assert (min_lat * 1000 + lat.mean()) == pytest.approx(mean_lat * 1000, rel=5e-3)
    bw = p.bandwidth_distribution()
    assert QuantileTable(*bw.to_quantile_table()).mean() == pytest.approx(bw.mean(), rel=5e-3)


class _OutsideTheCalibration(Exception):
    pass


class _TextModels:
    """The calibration's text-based profiles, as the statements read them."""

    def profile(self, system, placement="same-rack"):
        if system not in CALIBRATED:
            raise _OutsideTheCalibration(system)
        return text_profile(system).at(placement)


def test_calibration_record_matches_the_built_in_profiles():
    """Every statement about the calibration's models themselves (Table II
    cells, Sec. III-IV prose: the 59 ms Oracle sample, Oracle normal at 40%
    of max...) has the value the record says, recomputed from the files; the
    record holds exactly those that read no other system."""
    from cloudnoise.paper import statements as T
    from cloudnoise.paper.statements import check

    record = json.loads((DATA_DIR / "calibration.json").read_text())
    recorded = {t["id"]: t for t in record["targets"]}
    models = _TextModels()
    checked = 0
    for s in T.TABLE_2 + T.PROSE:
        if s.measure is None:  # not represented in the model: not a target of it
            assert s.id not in recorded, s.id
            continue
        try:
            o = check(s, models).to_dict()
        except _OutsideTheCalibration:
            assert s.id not in recorded, s.id
            continue
        r = recorded[s.id]
        checked += 1
        assert o["agrees"] == r["agrees"], s.id
        if r["ours"] is not None:
            assert o["ours"] == pytest.approx(r["ours"], rel=1e-5), s.id
    assert checked > 20
    assert record["summary"]["all"]["agree"] == sum(t["agrees"] for t in record["targets"])


def test_data_files_are_the_calibration_records_parameters(tmp_path):
    """The committed text-only profiles are what the committed calibration
    record's parameters give, bit for bit (the others are `profiles build`'s
    output: tests/profiles/test_artifact_build.py)."""
    import filecmp

    from cloudnoise.profiles.calibrate.run import assemble_only

    written = assemble_only(tmp_path, DATA_DIR / "calibration.json")
    assert sorted(p.stem for p in written) == CALIBRATED
    for path in written:
        if path.stem in TEXT_ONLY:
            assert filecmp.cmp(path, DATA_DIR / path.name, shallow=False), f"regenerate: cloudnoise profiles build"
    assert "calibration" not in builtin_names()


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
    rows = json.loads(out.output)["profiles"]
    assert [r["name"] for r in rows] == ALL
    assert next(r for r in rows if r["name"] == "daint")["min_latency_us"] == 1.19
    out = runner.invoke(cli, ["profiles", "show", "oracle-hpc-metal", "--json"])
    assert out.exit_code == 0, out.output
    view = json.loads(out.output)
    assert view.pop("view_of")["file"].endswith("oracle-hpc-metal.json")  # a view: it says so first
    assert view == load_builtin("oracle-hpc-metal").to_dict()
    out = runner.invoke(cli, ["profiles", "list"])
    assert out.exit_code == 0 and "deep-est" in out.output
    out = runner.invoke(cli, ["profiles", "list", "--csv"])
    lines = out.output.splitlines()
    assert out.exit_code == 0 and lines[0].startswith("name,description,labels,instance_type") and len(lines) == 1 + len(ALL)
    assert any(line.startswith("daint,") and ",1.19," in line for line in lines)
    out = runner.invoke(cli, ["profiles", "show", "alps"])
    assert out.exit_code == 0 and "measured" in out.output and "97.14" in out.output and "switch draws" in out.output
    out = runner.invoke(cli, ["profiles", "show", "oracle-normal"])
    assert out.exit_code == 0 and "reconstructed" in out.output


def test_O_rendezvous_round_trips_and_reaches_the_engine(tmp_path):
    data = load_builtin("daint").to_dict()
    data["loggops"]["O"] = 0.05
    data["loggops"]["O_rendezvous"] = 0.001
    for part in ("os_noise", "switch_draws"):  # their side files stay beside the built-in
        data.pop(part)
    data["different_racks"].pop("os_noise")  # so does the different-racks run's OS-noise trace
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(path)
    assert profile.loggops.O_rendezvous == 0.001 and profile.to_dict()["loggops"]["O_rendezvous"] == 0.001
    from cloudnoise.simulation.params import LogGOPS as EngineParams

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


def test_show_labels_every_part_and_both_placements():
    runner = CliRunner()
    out = runner.invoke(cli, ["profiles", "show", "gcp-hpc"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    text = out.output
    for words in ("published:", "measured:", "Compute:", "Noise models (same rack)", "Noise models (different racks)",
                  "provenance", "switch draws", "[Day]" if False else "(Day)"):  # a source's brackets are text, not markup
        assert words in text, words
    data = json.loads(runner.invoke(cli, ["profiles", "show", "gcp-hpc", "--json"]).output)
    kinds = {data[k]["provenance"]["kind"] for k in ("hardware", "prices", "table2", "loggops", "os_noise", "compute",
                                                   "switch_draws")}
    assert kinds == {"published", "measured"}
    out = runner.invoke(cli, ["profiles", "show", "oracle-hpc-metal"], env={"COLUMNS": "200"})
    assert out.exit_code == 0 and "Uniform body [b, 1]" in out.output and "Noise models (different racks)" in out.output


def test_placement_swaps_the_network_and_keeps_the_node():
    """Different racks: Table II's second block (AWS HPC takes c5n.metal's:
    17.20 us min latency, 77.72 Gb/s, the same drops); OS noise, compute and
    prices are the node's. (A text-based built-in.)"""
    aws = load_builtin("aws-hpc")
    dr = aws.at("different-racks")
    assert dr.loggops.L + 2 * dr.loggops.o == pytest.approx(17.20 * 1000)
    assert dr.loggops.G == pytest.approx(8 / 77.72, rel=1e-8)
    assert dr.latency_distribution().mean() == pytest.approx((19.26 - 17.20) * 1000, rel=1e-3)
    assert dr.bandwidth_distribution().mean() == pytest.approx(67.02 / 77.72, rel=1e-4)
    assert dr.bandwidth_distribution().quantile(np.array([5e-4]))[0] < 0.6  # the drops (Sec. IV-C), 30-60%
    assert (dr.os_noise, dr.compute, dr.prices) == (aws.os_noise, aws.compute, aws.prices)
    assert dr.placement_label() == "different-racks" and aws.placement_label() == "same-rack"
    assert aws.at("same-rack").loggops == aws.loggops
    with pytest.raises(CloudnoiseError, match="no different-racks figures"):
        text_profile("azure-hpc").at("different-racks")
    with pytest.raises(CloudnoiseError, match="no different-racks figures"):
        load_builtin("oracle-normal").at("different-racks")
    # The three the text could not place across racks take the authors' far row.
    for name in ("azure-hpc", "azure-hpc-200", "oracle-hpc-metal"):
        assert load_builtin(name).at("different-racks").placement_label() == "different-racks"
    with pytest.raises(CloudnoiseError, match="--placement"):
        aws.at("next-door")


# The run each built-in's different-racks block takes its OS noise from: its
# own run's trace where that is another run with a trace (the authors'
# scenarios), else the node's (same-rack) one.
DIFFERENT_RACKS_OS_RUN = {
    "daint": "daint/2022_05_19_13_03_39", "alps": "alps/2022_07_14_12_59_18",
}


@pytest.mark.parametrize("name", sorted(set(ALL) - set(TEXT_ONLY) - {"oracle-hpc-metal"}))
def test_each_placement_takes_its_own_runs_os_noise(name):
    p = load_builtin(name)
    dr = p.at("different-racks")
    run = DIFFERENT_RACKS_OS_RUN.get(name)
    if run is None:
        assert p.different_racks.os_noise is None and dr.os_noise == p.os_noise
        return
    assert p.different_racks.os_noise.trace == f"{name}-os-different-racks.npz"
    assert run in dr.os_noise.provenance.source and run not in p.os_noise.provenance.source
    assert dr.os_noise.provenance.kind == "measured"
    near, far = p.os_noise_source(), dr.os_noise_source()
    assert far.starts.size > 1000 and not np.array_equal(near.starts[:1000], far.starts[:1000])


def test_a_different_racks_os_noise_round_trips_and_is_optional(tmp_path):
    base = load_builtin("aws-hpc")
    far_os = OSNoiseModel(Provenance("measured", "another run"), synthetic="periodic:frequency=100,duration=5us")
    p = dataclasses.replace(base, different_racks=dataclasses.replace(base.different_racks, os_noise=far_os))
    save_profile(p, tmp_path / "p.json")
    back = load_profile(tmp_path / "p.json")
    assert back.at("different-racks").os_noise == far_os and back.at("same-rack").os_noise == base.os_noise
    assert base.at("different-racks").os_noise == base.os_noise


def test_every_builtin_says_it_is_the_same_rack():
    # The built-ins are the paper's same-rack figures (Table II's first block,
    # or for aws-hpc, which Table II lacks, its bare-metal twin's); a result
    # run on one must not say its placement is unknown.
    for profile in load_all_builtin():
        assert profile.placement_label() == "same-rack", profile.name
        assert profile.describe_use()["placement"] == "same-rack", profile.name
    aws = load_builtin("aws-hpc")
    assert aws.table2 is None and aws.at("different-racks").placement_label() == "different-racks"


def test_simulate_placement_and_the_profile_it_ran_on(run_cli):
    args = ("simulate", "--pattern", "dissemination", "--ranks", "16", "--size", "16B", "--profile", "daint",
            "--noise", "none", "--json")
    same = json.loads(run_cli(*args).stdout)
    res = run_cli(*args, "--placement", "different-racks")
    assert res.returncode == 0, res.stderr
    diff = json.loads(res.stdout)
    assert same["profile"]["placement"] == "same-rack" and diff["profile"]["placement"] == "different-racks"
    assert diff["profile"]["provenance"]["loggops"] == "published"
    # Daint's rows differ only in G, which the authors' simulator never charges
    # far messages noiselessly (docs/profile-format.md, Switch draws): both
    # take 18506.6 ns, what their simulator gives for 16 nodes
    # (bench/bench_vs_authors.py, nwaydissemination_nocompute: the same noiseless time).
    assert diff["runtime_ns"] == same["runtime_ns"] == [18506.6]
    res = run_cli("simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "16B", "--placement",
                  "different-racks")
    assert res.returncode == 2 and "--placement goes with --profile" in res.stderr
    res = run_cli(*args[:-1], "--placement", "different-racks", "--profile", "oracle-normal")
    assert res.returncode == 2 and "use --placement same-rack" in res.stderr


def test_oracle_hpc_simulates_with_the_authors_row():
    # The authors' row (L 1.6 us, o 0.15, g 5, G 0.1 ns/B, S 4096) makes the
    # noiseless 16 B dissemination on 64 nodes 26.9 us: the row's g of 5 us between a rank's
    # successive sends dominates (6 rounds: 5 gaps, then the last message).
    from cloudnoise.simulation.api import simulate

    r = simulate(pattern="dissemination", ranks=64, size="16B", profile="oracle-hpc-metal", noise="none")
    assert r.runtime_ns.tolist() == [26909]
