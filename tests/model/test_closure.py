"""The closure replay (model/closure.py): the engine's departures, the ping-pong chain it runs,
the clock a measurement reads through, the table and its tolerances; and the stalls that only a
share of the hosts have (the engine's per-host draw)."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.model.closure import (
    MIN_ROUND_TRIPS, Measured, clock_step, compare, pingpong_goal, read_through_clock, replay_round_trips,
)
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS


def _params() -> LogGOPS:
    return LogGOPS.parse(L="1000", o="300", g="500", G="0.1", O="0", S="8192")


def test_a_noiseless_chain_of_ping_pongs_is_2_times_2o_plus_L_each():
    trips = replay_round_trips(_params(), None, "none", 1, 1_000, segment=300)
    assert np.all(trips == 2 * (2 * 300 + 1000))  # 1 B: (size - 1) G = 0


def test_departures_are_the_sends_start_times_in_every_loop():
    schedule = _engine.parse_goal(pingpong_goal(4, 1))
    params = _params().to_engine()
    noise = _engine.NoiseModel()
    got = [_engine.run(schedule, params, noise, departures=True, general=general)["departures_ps"]
           for general in (False, True)]
    assert np.array_equal(got[0], got[1])
    # rank 0's sends (ops 0, 2, 4, 6) leave every 3.2 us; rank 1's 1.6 us after each; receives: -1
    assert got[0][0:8:2].tolist() == [0, 3_200_000, 6_400_000, 9_600_000]
    assert got[0][1:8:2].tolist() == [-1] * 4 and got[0][8:16:2].tolist() == [-1] * 4
    assert got[0][9:16:2].tolist() == [1_600_000, 4_800_000, 8_000_000, 11_200_000]
    assert "departures_ps" not in _engine.run(schedule, params, noise)


def test_a_stall_in_time_delays_one_round_trip_of_a_back_to_back_series():
    """A 100 us stall on both hosts (one clock) every 10 ms: one round trip in ~3,000 waits for
    it, while a single ping-pong at a random moment meets it 1 % of the time: why the replay runs
    back to back."""
    from cloudnoise.model.latency_episodes import StallTable

    table = StallTable(np.array([1_000_000], np.int64), np.array([1_100_000], np.int64), 10_000_000)
    noise = NoiseSetup(latency_stalls=table, latency_stalls_shared=True)
    trips = replay_round_trips(_params(), noise, "network", 1, 20_000, segment=4_096)
    late = trips > 3_200 + 1_000
    assert 0.8 * 20_000 * 3_200 / 10_000_000 <= late.sum() <= 1.3 * 20_000 * 3_200 / 10_000_000
    assert np.all(trips[late] > 90_000)


def test_stalls_on_a_share_of_the_hosts():
    """latency_stalls_hosts: each host stalls with this probability per repetition, the others never."""
    spec = "rate=2000,duration=0,stall=50us,gap=1us"
    from cloudnoise.model.latency_episodes import parse_latency_episodes
    from cloudnoise.simulation.api import run_variant

    schedule = _engine.generate("dissemination", 64, 16)
    medians = {}
    for share in (1.0, 0.25, 0.0001):
        ep = parse_latency_episodes(f"{spec},hosts={share}")
        setup = NoiseSetup(latency_stalls=ep, latency_stalls_hosts=ep.hosts)
        medians[share] = float(np.median(run_variant(schedule, params=_params(), noise=setup, variant="network",
                                                     reps=300, seed=3, threads=1).runtime_ns))
    noiseless = float(np.median(run_variant(schedule, params=_params(), reps=1).runtime_ns))
    assert medians[1.0] > medians[0.25] > medians[0.0001] == noiseless


def test_clock_step_reads_the_tick_of_a_coarse_timer_and_none_of_a_fine_one():
    rng = np.random.default_rng(1)
    true = 3_500 + rng.gamma(2.0, 150.0, 200_000)
    coarse = read_through_clock(true, 238.40625, 2)
    values, counts = np.unique(np.rint(coarse), return_counts=True)
    assert clock_step(values, counts) == pytest.approx(238.40625, rel=1e-3)
    values, counts = np.unique(np.rint(true), return_counts=True)
    assert clock_step(values, counts) == 1.0
    # a clock reading is right on average (the difference of two floored readings)
    assert np.mean(coarse) == pytest.approx(np.mean(true), abs=2.0)


def test_clock_step_reads_a_tick_whose_values_are_not_all_taken_alike():
    """GCP 2022-07-02's series (its commonest round trips, ns, and how many of each, as measured):
    a 238.4 ns clock whose values come in pairs of neighbouring ticks about every fourth tick,
    so that the gaps between the values taken are 238, 715 and 953 ns and their median, 477 ns,
    is no tick."""
    values = np.array([17881, 18119, 18835, 19073, 19788, 20027, 20980, 21219, 21934, 22172, 22888, 23126,
                       23841, 24080, 24795, 25033, 25987, 26226, 26941, 27179, 27894, 28133, 28848, 29087,
                       30040, 30994], np.float64)
    counts = np.array([7997, 7880, 38587, 86977, 27464, 211436, 218149, 18934, 123693, 46540, 50841, 44594,
                       15175, 29883, 2771, 17028, 9888, 585, 4612, 1502, 2204, 1676, 924, 1695, 1358, 1047],
                      np.int64)
    assert clock_step(values, counts) == pytest.approx(238.43, rel=1e-3)
    # the same values moved off that comb (a fine clock) read as no clock
    jitter = np.random.default_rng(4).integers(-40, 41, size=values.size)
    assert clock_step(values + jitter, counts) == 1.0
    # a fine clock's few values, 5 to 60 ns apart: no comb of their least gap (any values lie
    # within 3 ns of a 5 ns comb's teeth)
    rng = np.random.default_rng(5)
    sparse = 3_000.0 + np.cumsum(rng.integers(5, 61, size=80))
    assert clock_step(sparse, rng.integers(100, 1_000, size=sparse.size)) == 1.0


def test_the_table_judges_quantiles_and_late_shares_with_their_tolerances():
    rng = np.random.default_rng(2)
    measured = 3_000 + rng.exponential(300.0, 50_000)
    m = Measured.of(measured)
    same = compare(m, 3_000 + rng.exponential(300.0, 50_000), "x", 1, 0)
    assert same.closes and same.misses == [] and same.summary().startswith("closes")
    # a replay with twice as many round trips more than 1 us late misses that row, and says so
    worse = measured.copy()
    worse[: int(0.03 * worse.size)] += 3_000
    bad = compare(m, worse, "x", 1, 0)
    assert not bad.closes and "late > 1 us" in bad.misses and "misses" in bad.summary()
    # too few round trips: shown, nothing judged
    few = compare(Measured.of(measured[: MIN_ROUND_TRIPS - 1]), worse, "x", 1, 0)
    assert not few.closes and not few.judged and few.misses == [] and "too few" in few.summary()


def test_sums_of_consecutive_round_trips_are_shown_beside_the_table_and_not_judged():
    from cloudnoise.model.closure import SUMS_K, sums_distance, sums_spreads

    rng = np.random.default_rng(3)
    n = 40_000
    # a level that holds 200 round trips: sums of 20 spread far more than independent round trips'
    level = np.repeat(rng.normal(0.0, 200.0, n // 200), 200)
    measured = 3_000 + level + rng.exponential(300.0, n)
    independent = 3_000 + rng.permutation(level) + rng.exponential(300.0, n)
    sums = measured.reshape(-1, SUMS_K).sum(axis=1)
    m = Measured.of(measured).with_sums(sums)
    table = compare(m, independent, "x", 1, 0, replay_sums_ns=independent.reshape(-1, SUMS_K).sum(axis=1))
    rows = {r.statistic: r for r in table.rows}
    assert {"sums of 20 p50", "sums of 20 p90 - p50", "sums of 20 p99 - p50"} <= set(rows)
    assert not any(r.judged for name, r in rows.items() if name.startswith("sums"))
    # the same distribution of round trips closes; its sums, the level drawn anew for each round
    # trip, spread less (the level's sd of 200 ns adds 20 x 200 ns to a sum of 20 that holds it)
    assert table.closes
    spread = rows["sums of 20 p90 - p50"]
    assert spread.replay < 0.6 * spread.measured and not spread.within
    # the distance, in tolerances (25 % or 300 ns) of the spreads p90 - p50 and p99 - p50
    assert sums_spreads((100.0, 1100.0, 2100.0)) == (1000.0, 2000.0)
    assert sums_distance((0.0, 1000.0, 2000.0), (0.0, 1000.0, 2000.0)) == 0.0
    assert sums_distance((0.0, 4000.0, 8000.0), (0.0, 5000.0, 8000.0)) == pytest.approx(1.0)
    assert sums_distance((0.0, 400.0, 800.0), (0.0, 700.0, 800.0)) == pytest.approx(1.0)  # the 300 ns slack
    # without the series' sums (no order to read), no sums rows
    assert not any(r.statistic.startswith("sums") for r in compare(Measured.of(measured), measured, "x", 1, 0).rows)


def test_one_table_shows_a_closure_for_model_build_and_profiles_show():
    from rich.console import Console

    from cloudnoise.model.closure_table import closure_rows_table

    rows = [{"statistic": "p50", "measured": 3576.0, "replay": 3576.1, "judged": True, "within": True},
            {"statistic": "late > 2 us", "measured": 0.0141, "replay": 0.03, "judged": True, "within": False},
            {"statistic": "sums of 20 p50", "measured": -717.0, "replay": -886.7, "judged": False, "within": True},
            {"statistic": "sums of 20 p99 - p50", "measured": 33851.0, "replay": 50100.0, "judged": False,
             "within": False}]
    con = Console(width=200, record=True)
    con.print(closure_rows_table("Closure", rows, miss="MISS"))
    lines = {ln.split("│")[1].strip(): ln for ln in con.export_text().splitlines() if ln.count("│") >= 4}
    assert "3.576 us" in lines["p50"] and "within" in lines["p50"]
    assert "1.41%" in lines["late > 2 us"] and "3%" in lines["late > 2 us"] and "MISS" in lines["late > 2 us"]
    assert "-0.717 us" in lines["sums of 20 p50"] and "(within, not judged)" in lines["sums of 20 p50"]
    assert "(outside, not judged)" in lines["sums of 20 p99 - p50"]
    assert "95 % interval" not in con.export_text()  # a profile built before the intervals has none


def test_the_table_shows_each_judged_quantile_s_interval():
    from rich.console import Console

    from cloudnoise.model.closure_table import closure_rows_table

    rows = [{"statistic": "p50", "measured": 3814.0, "replay": 3576.0, "judged": True, "within": True,
             "interval_95": [3814.0, 3814.0]},
            {"statistic": "p90", "measured": 8106.0, "replay": 9298.0, "judged": True, "within": False,
             "interval_95": [6198.0, 10013.0]},
            {"statistic": "late > 2 us", "measured": 0.102, "replay": 0.102, "judged": True, "within": True}]
    con = Console(width=200, record=True)
    con.print(closure_rows_table("Closure", rows))
    text = con.export_text()
    lines = {ln.split("│")[1].strip(): ln for ln in text.splitlines() if ln.count("│") >= 5}
    assert "measured, 95 % interval" in text
    assert "6.198 us to 10.01 us" in lines["p90"] and "miss" in lines["p90"]
    assert lines["p50"].count("3.814 us") == 2 and " to " not in lines["p50"]  # one value where both ends agree
    assert " to " not in lines["late > 2 us"]
