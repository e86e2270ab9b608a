"""A latency noise state that persists in time (model/latency_state.py), against known answers:
series whose per-message draws follow a known state per host (a renewal in round trips: a new
state with probability 1 - rho each round trip, weight w in each draw's normal score); the state
and the levels profile parts (model/latency_levels.py) and their way to the engine."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.latency_levels import parse_latency_levels
from cloudnoise.model.latency_state import MIN_RATIO_20, fit_state, parse_latency_state

MEDIAN = 20_000.0


def _states(rng: np.random.Generator, n: int, rho: float) -> np.ndarray:
    new = rng.random(n) < 1.0 - rho
    new[0] = True
    index = np.cumsum(new) - 1
    return rng.standard_normal(index[-1] + 1)[index]


def _messages(rng: np.random.Generator, n: int, rho: float, w: float) -> np.ndarray:
    """One host's per-message excesses: normal(300, 200) ns drawn at the quantile the state moves."""
    z = math.sqrt(w) * _states(rng, n, rho) + math.sqrt(1.0 - w) * rng.standard_normal(n)
    return 300.0 + 200.0 * z  # the normal's quantile of Phi(z)


def _batches(values: np.ndarray, per: int = 50_000):
    def gen():
        for i in range(0, values.size, per):
            v = values[i:i + per]
            yield np.arange(i, i + v.size, dtype=np.int64), v, np.zeros(v.size, np.int64)
    return gen


def _fit(x: np.ndarray):
    values, counts = np.unique(x, return_counts=True)
    return fit_state(_batches(x), values, counts)


@pytest.mark.parametrize("rho,w", [(0.99, 0.3), (0.95, 0.6)])
def test_a_known_state_is_given_back(rho, w):
    rng = np.random.default_rng(5)
    n = 600_000
    x = np.rint(MEDIAN + _messages(rng, n, rho, w) + _messages(rng, n, rho, w))
    fit = _fit(x)
    assert fit.state is not None, fit.why
    assert fit.state.weight == pytest.approx(w, abs=0.06)
    assert fit.hold_round_trips() == pytest.approx(1 / (1 - rho), rel=0.25)
    # the hold in time: the series' mean round trip per round trip
    assert fit.state.hold_ns == pytest.approx(-np.mean(x) / math.log(fit.rho), rel=1e-5)
    assert fit.ratio_at(20) > MIN_RATIO_20
    assert max(abs(math.log(a / b)) for a, b in zip(fit.model_ratio, fit.measured_ratio)) < 0.15
    again = parse_latency_state(fit.state.spec())
    assert again.hold_ns == pytest.approx(fit.state.hold_ns, rel=1e-5) and again.weight == fit.state.weight


def test_independent_round_trips_have_no_state():
    rng = np.random.default_rng(7)
    x = np.rint(MEDIAN + rng.gamma(2.0, 300.0, 300_000))
    fit = _fit(x)
    assert fit.state is None and "no state that persists" in fit.why
    assert fit.ratio_at(20) == pytest.approx(1.0, abs=0.05)


def test_alternating_round_trips_have_no_state():
    rng = np.random.default_rng(8)
    n = 200_000
    x = np.rint(MEDIAN + np.where(np.arange(n) % 2 == 0, 1_000.0, -1_000.0) + rng.normal(0, 100.0, n))
    fit = _fit(x)
    assert fit.state is None and fit.ratio_at(20) < 1.0


def test_a_series_too_short_for_sums_of_20_is_judged_at_its_largest_k():
    """979 round trips (Azure F72s's test run) hold 48 sums of 20, too few to fit: the persistence is
    judged at k = 10, where a known state (rho 0.86, weight 0.7) already shows, not missed."""
    rng = np.random.default_rng(11)
    n = 979
    x = np.rint(MEDIAN + _messages(rng, n, 0.86, 0.7) + _messages(rng, n, 0.86, 0.7))
    fit = _fit(x)
    assert 20 not in fit.ks and fit.ks[-1] == 10
    assert fit.state is not None, fit.why
    assert "sums of 10 consecutive round trips" in fit.why
    # and independent round trips as short still have none
    y = np.rint(MEDIAN + rng.gamma(2.0, 300.0, n))
    assert _fit(y).state is None


def test_a_short_series_says_so():
    fit = _fit(np.full(120, MEDIAN))
    assert fit.state is None and "too few round trips" in fit.why


def test_trains_of_stalls_do_not_read_as_a_state():
    """Stalls in trains (50 consecutive round trips of 40 us every 5,000), modelled as stalls in
    time on their own: the round trips the per-message noise is made of are the others, and a
    stall scores 0."""
    rng = np.random.default_rng(9)
    n = 400_000
    x = np.rint(MEDIAN + rng.normal(0.0, 300.0, n))
    train = (np.arange(n) % 5_000) < 50
    x[train] = MEDIAN + 40_000.0
    values, counts = np.unique(x[~train], return_counts=True)
    fit = fit_state(_batches(x), values, counts)
    assert fit.state is None, fit.why


def test_the_specs_and_their_bad_forms():
    st = parse_latency_state("hold=40us,weight=0.25")
    assert (st.hold_ns, st.weight) == (40_000.0, 0.25) and "40 us" in st.describe()
    for bad, said in (("hold=40us", "missing weight"), ("weight=0.2", "missing hold"),
                      ("hold=0us,weight=0.2", "hold= is one time above 0"),
                      ("hold=1us,weight=1", r"a number in \(0, 1\)"), ("hold=1us,weight=x", "weight="),
                      ("hold=1us,weight=0.5,shared=1", "unknown shared"), ("hold=1us,weight=0.5,weight=0.6", "weight= given twice"), ("hold", "write hold=TIME,weight=W")):
        with pytest.raises(CloudnoiseError, match=said):
            parse_latency_state(bad)
    lv = parse_latency_levels("hold=40us,level=uniform(low=-200,high=200)")
    assert lv.hold_ns == 40_000.0 and lv.level.support() == (-200.0, 200.0) and "40 us" in lv.describe()
    for bad, said in (("hold=40us", "missing level"), ("level=uniform(low=-1,high=1)", "missing hold"),
                      ("hold=uniform(low=1,high=2),level=uniform(low=-1,high=1)", "hold= is one time"),
                      ("hold=1us,level=pareto(scale=1,alpha=1)", r"within \+-1 ms")):
        with pytest.raises(CloudnoiseError, match=said):
            parse_latency_levels(bad)


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


def test_a_state_reaches_the_engine(tmp_path):
    """A profile's state goes to simulate as the engine's state process: the round trips'
    distribution stays, and consecutive round trips of a chain move together (their lag-1
    rank correlation, near 0 without the state, well above it with it)."""
    import json

    from scipy.stats import spearmanr

    from cloudnoise.model.closure import replay_round_trips
    from cloudnoise.model.profile import load_profile
    from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
    from cloudnoise.simulation.params import LogGOPS

    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "with-a-state"
    data["latency_noise"]["state"] = "hold=5ms,weight=0.8"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    assert profile.latency_state() == parse_latency_state("hold=5ms,weight=0.8")
    setup = noise_from_profile(profile, seed=1)
    assert setup.latency_state is not None and setup.describe()["latency_state"].endswith("weight=0.8")
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
    plain = NoiseSetup(latency=setup.latency)
    moved = NoiseSetup(latency=setup.latency, latency_state=setup.latency_state)
    a = replay_round_trips(params, plain, "network", 8, 40_000, segment=2_000)
    b = replay_round_trips(params, moved, "network", 8, 40_000, segment=2_000)
    # the same distribution: each quantile within a tenth of the body's spread (the moved series'
    # round trips are not independent, so no test of independent samples applies)
    qa, qb = np.percentile(a, [10, 50, 90, 99]), np.percentile(b, [10, 50, 90, 99])
    assert np.all(np.abs(qa - qb) <= 0.1 * (qa[2] - qa[0])), (qa, qb)
    assert abs(spearmanr(a[:-1], a[1:]).statistic) < 0.05
    assert spearmanr(b[:-1], b[1:]).statistic > 0.3
    # a state on bandwidth noise is a mistake; a bad spec names the part
    data["bandwidth_noise"]["state"] = "hold=5ms,weight=0.8"
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="states delay messages; move them to latency_noise"):
        load_profile(str(path))
    del data["bandwidth_noise"]["state"]
    data["latency_noise"]["state"] = "hold=5ms,weight=2"
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="state"):
        load_profile(str(path))


def _part_messages(rng: np.random.Generator, n: int, rho: float, w: float, part: str, q: float = 0.9,
                   tail_w: float = 0.5) -> np.ndarray:
    """One host's per-message excesses under a state of the body, of the tail, or of both (each
    its own, the tail's of weight `tail_w`; the engine's draw, NoiseModel.latency_state_part): a
    body of normal(300, 50) ns below the quantile q, a tail of 3-6 us above it."""
    z, u0 = _states(rng, n, rho), rng.random(n)
    if part == "body":
        inner = norm.cdf(math.sqrt(w) * z + math.sqrt(1 - w) * norm.ppf(np.minimum(u0 / q, 1 - 1e-12)))
        u = np.where(u0 <= q, q * inner, u0)
    elif part == "tail":
        a = norm.cdf((norm.ppf(q) - math.sqrt(w) * z) / math.sqrt(1 - w))
        u = np.where(u0 <= a, q * u0 / a, q + (1 - q) * (u0 - a) / (1 - a))
    else:
        zt = _states(rng, n, rho)
        a = norm.cdf((norm.ppf(q) - math.sqrt(tail_w) * zt) / math.sqrt(1 - tail_w))
        inner = norm.cdf(math.sqrt(w) * z + math.sqrt(1 - w) * norm.ppf(np.minimum(u0 / a, 1 - 1e-12)))
        u = np.where(u0 <= a, q * inner, q + (1 - q) * (u0 - a) / (1 - a))
    return np.where(u <= q, 300 + 50 * norm.ppf(np.clip(u / q, 1e-9, 1 - 1e-9)), 3000 + 3000 * (u - q) / (1 - q))


@pytest.mark.parametrize("part,w", [("body", 0.6), ("tail", 0.5)])
def test_a_state_of_the_body_or_of_the_tail_is_given_back_as_an_alternative(part, w):
    # round trips of two hosts' messages, each host's state holding ~100 round trips; the
    # alternative of that part comes back with its weight and hold (the state of the whole
    # distribution is fitted too, first: model/state_choice.py picks among them by replay)
    rng = np.random.default_rng(5)
    n = 600_000
    x = np.rint(MEDIAN + _part_messages(rng, n, 0.99, w, part) + _part_messages(rng, n, 0.99, w, part))
    fit = _fit(x)
    assert fit.state is not None and fit.state.part == "all"
    got = {a.part: a for a in fit.alternatives}
    assert part in got, [a.spec() for a in fit.alternatives]
    assert got[part].weight == pytest.approx(w, abs=0.06) and got[part].split == 0.9
    assert got[part].hold_ns == pytest.approx(-np.mean(x) / math.log(0.99), rel=0.25)
    again = parse_latency_state(got[part].spec())
    assert (again.part, again.split, again.weight) == (part, 0.9, got[part].weight)
    assert fit.to_json()["alternatives"] == [a.spec() for a in fit.alternatives]


def test_the_choice_of_state_takes_the_closest_sums_among_replays_that_close_and_leaves_ties_to_none(monkeypatch):
    """model/state_choice.py's rule on replays made to order (the engine's own are in
    tests/model/test_counted_once.py): a replay that misses the round trips' closure is out; a
    state must bring the sums of 20 closer than the best before it by MARGIN tolerances."""
    from cloudnoise.model import state_choice
    from cloudnoise.model.chain_sums import segment_sums
    from cloudnoise.model.closure import SEGMENT, SUMS_K, Measured

    rng = np.random.default_rng(3)
    n = 1 << 20
    level = np.repeat(rng.normal(0.0, 300.0, n // 512), 512)  # held 512 round trips: sums of 20 spread
    series = 20_000.0 + level + rng.exponential(200.0, n)
    measured = Measured.of(series).with_sums(segment_sums(series, SUMS_K, SEGMENT))
    whole = parse_latency_state("hold=10ms,weight=0.5")
    body = parse_latency_state("hold=10ms,weight=0.5,part=body,split=0.9")
    tail = parse_latency_state("hold=10ms,weight=0.5,part=tail,split=0.9")
    replays = {None: rng.permutation(series),  # closes; its sums too narrow
               whole.spec(): series, body.spec(): series.copy(),  # close; the series' own sums
               tail.spec(): series + 5_000.0}  # the same sums, 5 us slower: misses the closure
    monkeypatch.setattr(state_choice, "replay_of", lambda profile, count, size, seed: replays[profile])
    fit = _fit(series[:200_000])
    fit = type(fit)(**{**fit.__dict__, "state": whole, "alternatives": (body, tail)})
    got, replay = state_choice.judge_state(fit, measured, lambda st: None if st is None else st.spec(), 1)
    check = got.sums_check
    assert got.state == whole and replay is series, check  # the body's equal sums are no closer by MARGIN
    assert [c["replay_closes"] for c in check["candidates"]] == [True, True, True, False]
    assert check["candidates"][1]["distance"] < 0.05 < 1.0 < check["candidates"][0]["distance"]
    # without the whole distribution's replay closing, the body's (as close) is taken
    replays[whole.spec()] = series + 5_000.0
    got, _ = state_choice.judge_state(fit, measured, lambda st: None if st is None else st.spec(), 1)
    assert got.state == body and "a state of its body" in got.why
    # where only per-message draws close, they are kept, however far their sums
    replays[body.spec()] = series + 5_000.0
    got, _ = state_choice.judge_state(fit, measured, lambda st: None if st is None else st.spec(), 1)
    assert got.state is None and "no state chosen by the replay" in got.why
    # a series with no order to read (sorted values, no times: no sums of consecutive round trips) gets none
    got, replay = state_choice.judge_state(fit, Measured.of(series), lambda st: None if st is None else st.spec(), 1)
    assert got.state is None and "no order" in got.why and replay is replays[None]


def test_states_of_the_body_and_of_the_tail_at_once_are_given_back_as_both():
    # each host: a state of its body (weight 0.6) and one of its tail (weight 0.5), independent,
    # both holding ~100 round trips; the body's and the tail's alternatives come back with their
    # weights, and `both` carries the two
    rng = np.random.default_rng(6)
    n = 600_000
    x = np.rint(MEDIAN + _part_messages(rng, n, 0.99, 0.6, "both") + _part_messages(rng, n, 0.99, 0.6, "both"))
    got = {a.part: a for a in _fit(x).alternatives}
    assert set(got) == {"body", "tail", "both"}, [a.spec() for a in got.values()]
    assert got["body"].weight == pytest.approx(0.6, abs=0.08) and got["tail"].weight == pytest.approx(0.5, abs=0.08)
    both = got["both"]
    assert (both.hold_ns, both.weight) == (got["body"].hold_ns, got["body"].weight)
    assert (both.tail_hold_ns, both.tail_weight) == (got["tail"].hold_ns, got["tail"].weight)
    assert parse_latency_state(both.spec()) == both
