"""Two latency levels a round trip's two messages share (model/shared_levels.py): read from a
series with known levels, left alone where a series has none, and kept by `model build` where
per-message draws miss the series' closure."""

from __future__ import annotations

import json

import numpy as np
import pytest
from synthetic_campaign import in_batches, os_trace, round_trips_of, series, write_campaign

from cloudnoise.model.latency_levels import parse_latency_levels
from cloudnoise.model.shared_levels import find_shared_levels, levelled, otsu_threshold


def _two_levels(rng: np.random.Generator, n: int, lower: int, gap: int, hold_lower: float, hold_upper: float,
                tail: float = 0.0) -> np.ndarray:
    """Round trips alternating between runs at `lower` and at `lower + gap` (run lengths geometric,
    means `hold_lower`, `hold_upper` round trips), a body of +-80 ns, and a `tail` share of 20 us
    round trips."""
    state = np.empty(n, np.int64)
    i, s = 0, 0
    while i < n:
        run = rng.geometric(1.0 / (hold_upper if s else hold_lower))
        state[i:i + run] = s
        i += run
        s = 1 - s
    values = lower + gap * state + rng.integers(-80, 81, n)
    values[rng.random(n) < tail] = 20_000
    return values


def test_two_levels_in_runs_are_read_back_with_their_time_share_and_hold():
    rng = np.random.default_rng(3)
    values = _two_levels(rng, 200_000, 2_600, 1_200, 8.0, 6.0, tail=0.05)
    got = find_shared_levels(in_batches(values), round_trips_of(values))
    assert got.found, got.why
    assert got.lower_ns == pytest.approx(2_600, abs=20) and got.upper_ns == pytest.approx(3_800, abs=20)
    assert got.gap_ns == pytest.approx(1_200, abs=30)
    # runs of 8 and 6 round trips (a stall keeps the level it came in)
    assert got.run_lower == pytest.approx(8.0, rel=0.05) and got.run_upper == pytest.approx(6.0, rel=0.05)
    # the upper level's share of the time: 6 x 3.8 us against 8 x 2.6 us
    t_lower, t_upper = 8.0 * 2_600, 6.0 * 3_800
    assert got.time_share == pytest.approx(t_upper / (t_lower + t_upper), abs=0.01)
    assert got.upper_share == pytest.approx(6.0 / 14.0, abs=0.01)
    assert got.hold_ns == pytest.approx(t_lower * t_upper / (t_lower + t_upper), rel=0.06)
    # the engine's model: D/2 per message, one clock for every host
    model = got.levels()
    assert model.shared and model.hold_ns == pytest.approx(got.hold_ns, rel=1e-5)
    assert set(np.round(model.level.quantile(np.array([0.01, 0.99])))) == {0.0, round(got.gap_ns / 2)}
    assert "two levels a round trip's two messages share" in got.describe()


def test_levelled_takes_the_gap_off_the_upper_level_and_a_stall_keeps_its_level():
    rng = np.random.default_rng(4)
    values = _two_levels(rng, 50_000, 2_600, 1_200, 8.0, 6.0)
    values[1000] = 20_000
    got = find_shared_levels(in_batches(values), round_trips_of(values))
    out = np.concatenate([v for _, v, _ in levelled(in_batches(values), got)()])
    assert out.size == values.size
    assert np.abs(out[values < 10_000] - 2_600).max() <= 80 + 1  # every body round trip at the lower level
    assert out[1000] == 20_000 - round(got.gap_ns) * (values[999] > got.threshold_ns)


@pytest.mark.parametrize("case", ["one level", "per-message levels", "no persistence", "rare upper level"])
def test_a_series_without_two_shared_levels_has_none(case):
    rng = np.random.default_rng(5)
    n = 100_000
    if case == "one level":
        values = 2_600 + rng.integers(-300, 301, n)
    elif case == "per-message levels":  # each message at 0 or 600 on its own: a third mode between
        values = 2_600 + 600 * rng.integers(0, 2, n) + 600 * rng.integers(0, 2, n) + rng.integers(-80, 81, n)
    elif case == "no persistence":  # two levels, each round trip drawn on its own
        values = 2_600 + 1_200 * rng.integers(0, 2, n) + rng.integers(-80, 81, n)
    else:
        values = _two_levels(rng, n, 2_600, 1_200, 200.0, 4.0)
    got = find_shared_levels(in_batches(values), round_trips_of(values))
    assert not got.found
    why = {"one level": "apart", "per-message levels": "a level's spread", "no persistence": "does not persist",
           "rare upper level": "at one level"}[case]
    assert why in got.why, got.why


def test_otsu_splits_two_clusters_between_them():
    values = np.array([100, 110, 120, 300, 310, 320])
    counts = np.array([5, 10, 5, 5, 10, 5])
    assert 120 < otsu_threshold(values, counts) < 300


@pytest.fixture(scope="module")
def two_level_campaign(tmp_path_factory):
    """An engine-made 1 B series with shared levels of 0 or 600 ns per message (a round trip 1.2 us
    apart) holding 100 us on average, per-message draws of 50-250 ns and detours at 300 Hz."""
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.simulation.noise import NoiseSetup

    trace = os_trace(np.random.default_rng(11), rate_hz=300.0)
    levels = parse_latency_levels("hold=100us,level=mixture(0.5*constant(value=0)+0.5*constant(value=600)),shared=1")
    truth = NoiseSetup(os_trace=trace, latency=parse_distribution("uniform:low=50,high=250"), latency_levels=levels)
    folder = tmp_path_factory.mktemp("levels")
    return write_campaign(folder, series(truth, 120_000, 9), trace, "levels")


def test_model_build_keeps_shared_levels_where_per_message_draws_miss(two_level_campaign, tmp_path):
    from cloudnoise.model.build import build_profile

    notes: list[str] = []
    built = build_profile(two_level_campaign, tmp_path / "p.json", say=notes.append)
    assert len(notes) == 1 and "model/shared_levels.py" in notes[0]  # built again, with the levels
    levels = built["shared_levels"]
    assert levels["found"] and levels["used"], levels
    assert levels["upper_ns"] - levels["lower_ns"] == pytest.approx(1_200, abs=120)
    assert levels["time_share"] == pytest.approx(0.5, abs=0.1)
    assert levels["hold_ns"] == pytest.approx(100_000, rel=0.3)
    # every L moved so that the noiseless round trip is the lower level's (the series less the gap)
    assert built["latency_level"]["median_round_trip_ns"] == pytest.approx(levels["lower_ns"], abs=100)
    assert "less its upper level's gap" in built["loggops"]["provenance"]["source"]
    assert built["closure"]["closes"], built["closure"]["rows"]
    written = json.loads((tmp_path / "p.json").read_text())
    spec = parse_latency_levels(written["latency_noise"]["levels"])
    assert spec.shared and "two levels in time" in written["closure"]["stall_model"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "p.os_noise.trace"]


def test_as_paper_leaves_the_levels_out(two_level_campaign, tmp_path):
    from cloudnoise.model.build import build_profile

    built = build_profile(two_level_campaign, tmp_path / "p.json", as_paper=True)
    assert built["shared_levels"] is None
    assert "levels" not in json.loads((tmp_path / "p.json").read_text())["latency_noise"]


def test_model_build_says_what_it_read_and_builds_again(two_level_campaign, tmp_path, run_cli):
    out = run_cli("model", "build", str(two_level_campaign), "-o", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    assert "building the profile again, with the two levels its latency series stands at" in out.stderr
    assert "latency levels: in time, shared by every host:" in out.stdout, out.stdout
    doc = run_cli("model", "build", str(two_level_campaign), "-o", str(tmp_path / "q.json"), "--json")
    assert doc.returncode == 0 and "building the profile again" not in doc.stderr
    levels = json.loads(doc.stdout)["shared_levels"]
    assert levels["found"] and levels["used"] and levels["lag1"] > 0.2
