"""The gap a latency series allows (model/gap_bound.py): a LogGP table whose g exceeds the round
trips of the campaign's own back-to-back series (Daint March: g 5.8-6.1 us against medians of
4.3-5.2 us) is bounded by the series' first-percentile round trip, and the replay closes."""

from __future__ import annotations

import numpy as np

from synthetic_campaign import os_trace, series, write_campaign


def test_a_bound_from_known_round_trips():
    from cloudnoise.model.gap_bound import gap_bound
    from cloudnoise.model.round_trips import RoundTrips

    # 1 % of the round trips at or below 3000 ns, the rest at 4000
    trips = RoundTrips(np.array([3000.0, 4000.0]), np.array([10, 990]))
    capped = gap_bound(5000.0, trips)
    assert capped.capped and capped.bound_ns == 3000.0 and capped.g_ns == 3000.0
    assert "the fit's 5000 ns" in capped.describe()
    kept = gap_bound(2000.0, trips)
    assert not kept.capped and kept.g_ns == 2000.0


def test_a_table_g_above_the_series_round_trips_is_bounded_and_the_replay_closes(tmp_path):
    from cloudnoise.model.build import build_profile
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.simulation.noise import NoiseSetup

    rng = np.random.default_rng(4)
    trace = os_trace(rng, rate_hz=100.0)
    # the system's g is 0.5 us (a round trip of 3.2 us and its noise); the table says 5 us
    truth = NoiseSetup(os_trace=trace, latency=parse_distribution("uniform:low=50,high=250"))
    camp = write_campaign(tmp_path, series(truth, 40_000, 3), trace, "gap", g_us=5.0)
    built = build_profile(camp, tmp_path / "p.json")
    gap = built["gap_bound"]
    assert gap["capped"] and gap["fitted_g_ns"] > 4000.0 and 3200.0 <= gap["g_ns"] < 3700.0, gap
    assert built["loggops"]["g"] == gap["g_ns"] and "model/gap_bound.py" in built["loggops"]["provenance"]["source"]
    assert built["closure"]["closes"], built["closure"]["rows"]
    # the paper's way keeps the table's g
    paper = build_profile(camp, tmp_path / "paper.json", as_paper=True)
    assert paper["loggops"]["g"] > 4000.0 and paper["gap_bound"] is None
