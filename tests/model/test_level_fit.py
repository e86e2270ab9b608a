"""Latency levels that persist in time (model/latency_levels.py), against known answers: series
made of a known level process (a renewal in round trips: a new level with probability 1 - rho
each round trip) and known independent per-round-trip noise, the spec, the profile part, and the
per-message deconvolution with the level as a known part."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.latency_deconvolution import deconvolve
from cloudnoise.model.latency_levels import (
    MIN_RATIO_20,
    fit_levels,
    level_sum_samples,
    parse_latency_levels,
)

MEDIAN = 20_000.0


def _levels(rng: np.random.Generator, n: int, rho: float, sd: float) -> np.ndarray:
    new = rng.random(n) < 1.0 - rho
    new[0] = True
    index = np.cumsum(new) - 1
    return rng.normal(0.0, sd, index[-1] + 1)[index]


def _batches(values: np.ndarray, per: int = 50_000, stretch: int | None = None):
    def gen():
        for i in range(0, values.size, per):
            v = values[i:i + per]
            key = (np.arange(i, i + v.size) // stretch) if stretch else np.zeros(v.size, np.int64)
            yield np.arange(i, i + v.size, dtype=np.int64), v, key.astype(np.int64)
    return gen


@pytest.mark.parametrize("rho,c,s2", [(0.99, 400.0 ** 2, 800.0 ** 2), (0.9, 1_000.0 ** 2, 600.0 ** 2)])
def test_a_known_level_process_is_given_back(rho, c, s2):
    rng = np.random.default_rng(5)
    n = 600_000
    # two hosts' levels, each half the variance: the round trip's level part has variance c
    x = (MEDIAN + _levels(rng, n, rho, math.sqrt(c / 2)) + _levels(rng, n, rho, math.sqrt(c / 2))
         + rng.normal(0.0, math.sqrt(s2), n))
    fit = fit_levels(_batches(x), MEDIAN, 1e9)
    assert fit.levels is not None, fit.why
    assert fit.level_var_ns2 == pytest.approx(c, rel=0.2)
    assert fit.remainder_var_ns2 == pytest.approx(s2, rel=0.2)
    assert fit.hold_round_trips() == pytest.approx(1 / (1 - rho), rel=0.25)
    # the hold in time: the series' mean round trip per round trip
    assert fit.levels.hold_ns == pytest.approx(-np.mean(x) / math.log(fit.rho), rel=1e-5)
    # one host's level: half the level part's variance, median (and, symmetric, mean) 0
    draws = level_sum_samples(fit.levels, 400_000, seed=1)
    assert float(np.var(draws)) == pytest.approx(fit.level_var_ns2, rel=0.05)
    assert abs(float(np.mean(draws))) < 0.05 * math.sqrt(c)
    assert fit.ratio_at(20) > MIN_RATIO_20
    # the fit gives back the measured variance ratios
    assert max(abs(math.log(a / b)) for a, b in zip(fit.model_ratio, fit.measured_ratio)) < 0.15
    # and the spec reads back as the same model
    again = parse_latency_levels(fit.levels.spec())
    assert again.hold_ns == pytest.approx(fit.levels.hold_ns, rel=1e-5)


def test_independent_round_trips_have_no_levels():
    rng = np.random.default_rng(7)
    x = MEDIAN + rng.gamma(2.0, 300.0, 300_000)
    fit = fit_levels(_batches(x), MEDIAN, 1e9)
    assert fit.levels is None
    assert "no level that persists" in fit.why
    assert fit.ratio_at(20) == pytest.approx(1.0, abs=0.05)


def test_alternating_round_trips_have_no_levels():
    rng = np.random.default_rng(8)
    n = 200_000
    x = MEDIAN + np.where(np.arange(n) % 2 == 0, 1_000.0, -1_000.0) + rng.normal(0, 100.0, n)
    fit = fit_levels(_batches(x), MEDIAN, 1e9)
    assert fit.levels is None and fit.ratio_at(20) < 1.0


def test_a_short_series_says_so():
    fit = fit_levels(_batches(np.full(120, MEDIAN)), MEDIAN, 1e9)
    assert fit.levels is None and "too few round trips" in fit.why


def test_trains_of_stalls_do_not_read_as_a_level():
    """Stalls that come in trains (50 consecutive round trips of 40 us every 5,000): modelled as
    stalls in time on their own, they must not come back as a level as well."""
    rng = np.random.default_rng(9)
    n = 400_000
    x = MEDIAN + rng.normal(0.0, 300.0, n)
    train = (np.arange(n) % 5_000) < 50
    x[train] = MEDIAN + 40_000.0
    fit = fit_levels(_batches(x), MEDIAN, MEDIAN + 3_000.0)
    assert fit.levels is None, fit.why


def test_the_spec_and_its_bad_forms():
    lv = parse_latency_levels("hold=40us,level=uniform(low=-200,high=200)")
    assert lv.hold_ns == 40_000.0
    assert lv.level.support() == (-200.0, 200.0)
    assert "40 us" in lv.describe()
    for bad, said in (("hold=40us", "missing level"),
                      ("level=uniform(low=-1,high=1)", "missing hold"),
                      ("hold=0us,level=uniform(low=-1,high=1)", "hold= is one time above 0"),
                      ("hold=uniform(low=1,high=2),level=uniform(low=-1,high=1)", "hold= is one time"),
                      ("hold=1us,level=pareto(scale=1,alpha=1)", r"within \+-1 ms"),
                      ("hold=1us,level=uniform(low=-1,high=1),shared=1", "unknown shared"),
                      ("hold", "write hold=TIME,level=DIST")):
        with pytest.raises(CloudnoiseError, match=said):
            parse_latency_levels(bad)


def test_the_deconvolution_counts_a_known_level_part_once():
    """Round trips = two draws of F + a level part: counted against the level part, F comes back
    (not F widened by the level)."""
    rng = np.random.default_rng(11)
    n = 300_000
    lv = parse_latency_levels("hold=1ms,level=uniform(low=-300,high=300)")
    f = lambda k: rng.normal(150.0, 80.0, k)  # noqa: E731
    x = f(n) + f(n) + level_sum_samples(lv, n, seed=3)
    values, counts = np.unique(np.rint(x), return_counts=True)
    known = level_sum_samples(lv, 1 << 18, seed=4)
    shift = -float(known.min())
    got = deconvolve(values + shift, counts, known + shift, floor_ns=-2_000.0)
    probs = np.array([0.1, 0.5, 0.9])
    est = np.interp(probs, got.probabilities, got.values_ns)
    want = 150.0 + 80.0 * np.array([-1.2816, 0.0, 1.2816])
    assert np.all(np.abs(est - want) <= 25.0), (est, want)


DATA = __import__("pathlib").Path(__file__).resolve().parents[2] / "src" / "cloudnoise" / "profiles" / "data"
CONSTANT = "hold=10ms,level=uniform(low=699.999,high=700.001)"


def test_a_profile_part_reaches_the_engine(tmp_path):
    """A profile's levels go to simulate as the engine's level process: a constant level of 700 ns
    per sending host adds 1,400 ns to every round trip of a ping-pong chain, whatever else."""
    import json

    from cloudnoise.model.closure import replay_round_trips
    from cloudnoise.model.profile import load_profile
    from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
    from cloudnoise.simulation.params import LogGOPS

    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "with-levels"
    data["latency_noise"]["levels"] = CONSTANT
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    assert profile.latency_levels() == parse_latency_levels(CONSTANT)
    setup = noise_from_profile(profile, seed=1)
    assert setup.latency_levels is not None and setup.describe()["latency_levels"].endswith(CONSTANT)
    assert setup.draws("network") and not setup.draws("none")
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")  # no round trip waits on g
    quiet = replay_round_trips(params, None, "none", 8, 50)
    levelled = replay_round_trips(params, NoiseSetup(latency_levels=setup.latency_levels), "network", 8, 50)
    assert np.allclose(levelled - quiet, 1_400.0, atol=2.0)
    # the built-ins (the paper's semantics) have none
    assert noise_from_profile(load_profile(str(DATA / "oracle-hpc-metal.json")), seed=1).latency_levels is None
    # on bandwidth noise, levels are a mistake; a bad spec names the part
    data["bandwidth_noise"]["levels"] = CONSTANT
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="levels delay messages; move them to latency_noise"):
        load_profile(str(path))
    del data["bandwidth_noise"]["levels"]
    data["latency_noise"]["levels"] = "hold=1us"
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="levels"):
        load_profile(str(path))


def test_pieces_of_one_value_stay_pieces():
    """Block medians on a coarse clock's ticks give quantiles that repeat (-2,001.89 ns three
    times): each such piece is written 1 ps wide, and reads back as a distribution."""
    from cloudnoise.model.latency_levels import mixture_of_pieces

    edges = np.array([-4_000.0, -2_001.89, -2_001.89, -2_001.89, 0.0, 1_192.0, 1_192.0])
    lv = parse_latency_levels(f"hold=1ms,level={mixture_of_pieces(edges)}")
    assert lv.level.support() == pytest.approx((-4_000.0, 1_192.001))
    assert float(lv.level.quantile(np.array([0.3]))[0]) == pytest.approx(-2_001.89, abs=0.01)
