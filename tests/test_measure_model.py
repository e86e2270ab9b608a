"""LogGP fitting and `cloudnoise model build` from a small real campaign."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from measure_support import mpi_or_skip, run, run_json


def test_loggp_fit_and_profile(tmp_path):
    mpi_or_skip()
    camp = tmp_path / "campaign"
    doc = run_json("measure", "loggp", "--sizes", "1,64,1K,4K,16K,64K,256K", "--iterations", "60", "--rounds", "3",
                   "--out", str(camp), "--label", "system=ci", "--label", "distance=same-rack")
    fit = doc["loggp"]
    for key in ("L", "o", "o_s", "o_r", "g", "G", "O", "S"):
        assert math.isfinite(fit[key]) and fit[key] >= 0, key
    assert fit["o_s"] > 0 and fit["o_r"] > 0 and fit["G"] > 0
    assert fit["size_classes"][0]["min_bytes"] == 0 and fit["rounds"] == 3
    assert fit["spread"]["o_s"]["rounds"] == len(fit["rounds_used"])
    assert len(fit["per_size"]) == 7
    assert all(r["pingpong_ns"] > 0 and r["pingpong_residual"] is not None for r in fit["per_size"])
    # the table printed without --json has the per-size residuals
    text = run("measure", "loggp", "--out", str(camp), "--resume").stdout
    assert "Size classes" in text and "recv early" in text and "%" in text

    assert run("measure", "latency-noise", "--duration", "2", "--out", str(camp)).returncode == 0
    assert run("measure", "os-noise", "--duration", "1", "--out", str(camp)).returncode == 0
    out = tmp_path / "profiles" / "ci.json"
    # the paper's semantics: every sample's one-way time above the median, per message
    proc = run("model", "build", str(camp), "-o", str(out), "--as-paper")
    assert proc.returncode == 0, proc.stderr
    profile = json.loads(out.read_text())
    assert profile["format"] == "cloudnoise-profile/1" and profile["name"] == "ci"
    lg = profile["loggops"]
    assert lg["provenance"]["kind"] == "measured" and "parametrised round trips" in lg["provenance"]["source"]
    assert lg["L"] == fit["L"] and lg["o"] == fit["o"] and lg["size_classes"][0]["min_bytes"] == 0
    # the latency noise is what lies above the median one-way time (the fit keeps the median),
    # at every probability of the quantile table, within the streaming histogram's precision
    import numpy as np
    import pyarrow.parquet as pq

    from cloudnoise.measurement.summaries import RELATIVE_PRECISION

    half = np.sort(pq.read_table(camp / "latency-noise" / "samples.parquet",
                                 columns=["value_ns"]).column("value_ns").to_numpy()) / 2.0
    table = profile["latency_noise"]["quantiles"]
    p, excess = np.array(table["p"]), np.array(table["v"])
    ranks = np.clip(np.floor(p * len(half) + 0.5).astype(int), 1, len(half)) - 1
    median = half[(len(half) + 1) // 2 - 1]
    exact = np.maximum(0.0, half[ranks] - median)
    assert np.all(np.abs(excess - exact) <= RELATIVE_PRECISION * (half[ranks] + median) + 1e-6)
    assert excess.min() == 0.0 and np.all(np.diff(excess) >= -1e-9)
    assert (out.parent / profile["os_noise"]["trace"]).exists()
    assert profile["table2"]["same_rack"]["min_latency_us"] > 0
    assert "distance=same-rack" in profile["labels"]
    # and the profile simulates: its classes reach the engine
    from cloudnoise.model.profile import load_profile
    from cloudnoise.simulation.params import LogGOPS

    params = LogGOPS.from_profile(load_profile(out))
    assert len(params.classes) == len(lg["size_classes"])
    # counted once (the default): the fit with every L moved to the latency series' level (its
    # noiseless round trip the series' median), the latency noise at most L below it, the replay
    # of the series in the profile, and the machine's load at each experiment's start and end
    once = tmp_path / "profiles" / "once.json"
    proc = run("model", "build", str(camp), "-o", str(once))
    assert proc.returncode == 0, proc.stderr
    built = json.loads(once.read_text())
    from cloudnoise.model.latency_level import noiseless_round_trip
    from cloudnoise.model.profile import load_profile as load

    size = built["closure"]["size_bytes"]
    # L and the overheads of the fit (the paper way keeps them), without g
    t0, median = noiseless_round_trip(load(out), size, gapless=True), 2.0 * median
    if "levels" in built["latency_noise"]:
        # a series at two shared levels (model/shared_levels.py; a loaded machine may show them):
        # the level is the median of the series less its upper level's gap
        from cloudnoise.model.build import _latency_stats, _series
        from cloudnoise.model.round_trips import count_round_trips
        from cloudnoise.model.shared_levels import find_shared_levels, levelled

        _, _, exp, series_size = _latency_stats(camp)
        series = _series(camp, exp, series_size, one_pair=True)
        levels = find_shared_levels(series, count_round_trips(series))
        assert levels.found and "model/shared_levels.py" in built["loggops"]["provenance"]["source"]
        median = count_round_trips(levelled(series, levels)).median()
    moved = max((median - t0) / 2.0, -fit["size_classes"][0]["L"])
    assert built["loggops"]["L"] == pytest.approx(max(0.0, fit["L"] + moved), abs=2e-3)
    assert [c["L"] for c in built["loggops"]["size_classes"]] == pytest.approx(
        [max(0.0, c["L"] + moved) for c in fit["size_classes"]], abs=2e-3)
    assert noiseless_round_trip(load(once), size, gapless=True) == pytest.approx(
        max(median, t0 - 2 * fit["size_classes"][0]["L"]), abs=2.0)
    assert ("latency level: every L moved by" in proc.stdout) == (abs(moved) >= 0.001)
    lg = built["loggops"]
    least = min([lg["L"]] + [c["L"] for c in lg["size_classes"]]) + lg.get("o_s", lg["o"])
    assert min(built["latency_noise"]["quantiles"]["v"]) >= -least
    assert "deconvolved" in built["latency_noise"]["provenance"]["source"]
    assert built["closure"]["round_trips"] > 0 and len(built["closure"]["rows"]) == 10
    # the judged rows (p50, p90, p99, late > 1/2/10 us), then the sums of 20, shown
    assert [r["judged"] for r in built["closure"]["rows"]] == [True] * 3 + [False] + [True] * 3 + [False] * 3
    assert {r["when"] for r in built["campaign"]["load"]} == {"start", "end"}
    assert {r["experiment"] for r in built["campaign"]["load"]} >= {"loggp", "latency-noise", "os-noise"}
    assert "Closure" in proc.stdout and "measured: pairs" in proc.stdout


def test_profile_numbers_finer_than_the_engine_are_rounded_not_refused():
    """A fit may give L = 2.6e-6 ns (shared memory on a loaded machine): a profile is
    data, so its numbers are rounded to 1 ps and 1 fs/byte (user text finer than that
    stays an error)."""
    import dataclasses

    from cloudnoise.profiles.registry import resolve_profile
    from cloudnoise.simulation.params import LogGOPS

    base = resolve_profile("daint")
    lg = dataclasses.replace(base.loggops, L=2.636524751909765e-06, o=1500.00049, g=999.9996, G=0.0999994999,
                             O=1.2e-9)
    params = LogGOPS.from_profile(dataclasses.replace(base, loggops=lg))
    assert (params.L_ps, params.o_ps, params.g_ps, params.G_fs, params.O_fs) == (0, 1500000, 1000000, 99999, 0)
    from cloudnoise.errors import CloudnoiseError

    with pytest.raises(CloudnoiseError, match="finer than 1 ps"):
        LogGOPS.parse(L="2.6e-6ns")


def test_consistent_latency_known_answers():
    """2o + L + excess = T exactly when min T >= 2o; T below 2o comes out as 2o."""
    import numpy as np

    from cloudnoise.model.build import consistent_latency

    L, excess = consistent_latency(np.array([1000.0, 1100.0, 1500.0]), o_ns=300.0)
    assert L == 400.0 and excess.tolist() == [0.0, 100.0, 500.0]
    L, excess = consistent_latency(np.array([500.0, 650.0, 900.0]), o_ns=300.0)
    assert L == 0.0 and excess.tolist() == [0.0, 50.0, 300.0]


def test_consistent_gap_known_answer():
    """The median of G / fraction is the fitted G: G = fitted x median fraction."""
    import numpy as np

    from cloudnoise.model.build import consistent_gap

    fraction = np.array([1.0, 0.9, 0.8, 0.5, 0.95])
    G = consistent_gap(0.1, fraction)
    assert G == 0.09 and np.median(G / fraction) == pytest.approx(0.1, rel=1e-12)


def test_bandwidth_fractions_known_answer_never_above_one():
    """min RTT / RTT quantile, non-decreasing, at most 1: the per-message draws' fastest round trips
    may be faster than the summary's minimum (the quick demo's measured campaign failed to load)."""
    import numpy as np

    from cloudnoise.model.build import bandwidth_fractions
    from cloudnoise.model.distributions import QuantileTable

    rtt_at_1_minus_p = np.array([200.0, 150.0, 95.0, 93.0, 90.0])  # RTT quantiles at p = 1, 0.75, ..., 0
    fraction = bandwidth_fractions(100.0, rtt_at_1_minus_p)
    assert fraction.tolist() == pytest.approx([0.5, 100.0 / 150.0, 1.0, 1.0, 1.0])
    QuantileTable(np.linspace(0.0, 1.0, 5), fraction)  # the table the profile stores loads


def test_model_build_needs_a_campaign(tmp_path):
    proc = run("model", "build", str(tmp_path), "-o", str(tmp_path / "p.json"))
    assert proc.returncode == 2
    assert "not a campaign" in proc.stderr and "Traceback" not in proc.stderr


def test_placement_says_one_host_is_shared_memory_not_a_network():
    """Issue 18 item 11: a campaign whose ranks all ran on one host is labelled
    shared memory wherever it is shown, from the hosts the ranks reported."""
    from cloudnoise.measurement.placement import ONE_HOST, placement, single_host
    from cloudnoise.report.data import campaign_name

    one = {"hosts": ["n1"], "labels": {"distance": "same-rack", "system": "mine"}}
    two = {"hosts": ["n1", "n2"], "labels": {"distance": "same-rack", "system": "mine"}}
    assert single_host(one) and placement(one) == ONE_HOST
    assert not single_host(two) and placement(two) == "same-rack"
    assert placement({"hosts": ["a", "b"]}) == "distance unknown" and not single_host({})
    assert "shared memory" in campaign_name(one, Path("x")) and "shared memory" not in campaign_name(two, Path("x"))
