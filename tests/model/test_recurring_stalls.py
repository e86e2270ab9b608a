"""Stalls that recur on one clock (model/recurring_stalls.py, the `stall=..,gap=..` episodes of
model/latency_episodes.py): drawn by the engine as stated, read back from a series made with known
ones, left alone where a series has none, and kept by `model build` where per-message draws miss
the series' closure."""

from __future__ import annotations

import json

import numpy as np
import pytest
from synthetic_campaign import in_batches, os_trace, round_trips_of, series, write_campaign

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.latency_episodes import parse_latency_episodes
from cloudnoise.model.recurring_stalls import find_recurring_stalls

TRUTH = "stall=uniform(low=10us,high=14us),gap=uniform(low=10us,high=22us),shared=1"


def test_engine_draws_recurring_stalls_back_to_back_from_zero():
    from cloudnoise.simulation.noise import _engine_stall_process

    ep = parse_latency_episodes("stall=10us,gap=30us,shared=1")
    assert ep.recurring and ep.shared and ep.stall_share() == pytest.approx(0.25)
    assert ep.representative_period_ns() == 500 * 40_000
    table = _engine_stall_process(ep).draw(3, 7, 2)
    starts, ends = np.asarray(table.starts_ps), np.asarray(table.ends_ps)
    assert starts.size == 500 and table.period_ps == 500 * 40_000_000  # ends where the 501st would start
    assert np.array_equal(starts, np.arange(500) * 40_000_000)
    assert np.array_equal(ends - starts, np.full(500, 10_000_000))
    # numpy's table (for estimates and tests) follows the same rule
    mine = ep.table(np.random.default_rng(0))
    assert len(mine) == 500 and mine.period_ns == 20_000_000 and mine.time_share() == pytest.approx(0.25)


def test_engine_draws_each_repetition_its_own_stalls():
    from cloudnoise.simulation.noise import _engine_stall_process

    process = _engine_stall_process(parse_latency_episodes(TRUTH))
    a, b, again = process.draw(0, 0, 2), process.draw(0, 1, 2), process.draw(0, 0, 2)
    assert np.array_equal(a.starts_ps, again.starts_ps)  # a function of (seed, repetition)
    assert not np.array_equal(a.starts_ps[:10], b.starts_ps[:10])
    cycles = np.diff(np.asarray(a.starts_ps)) / 1e6  # us
    lengths = (np.asarray(a.ends_ps) - np.asarray(a.starts_ps)) / 1e6
    assert cycles.mean() == pytest.approx(28.0, rel=0.03) and lengths.mean() == pytest.approx(12.0, rel=0.03)
    assert lengths.min() >= 10.0 and lengths.max() <= 14.0 and (cycles - lengths[:-1]).min() >= 10.0


def test_recurring_spec_round_trips_and_refuses_stalls_half_the_time():
    ep = parse_latency_episodes("stall=12us,gap=20us,shared=1")
    assert parse_latency_episodes(ep.spec()) == ep
    assert "recurring: a 12 us stall (mean) every 32 us" in ep.describe()
    with pytest.raises(CloudnoiseError, match="half the time or more"):
        parse_latency_episodes("stall=20us,gap=12us")
    with pytest.raises(CloudnoiseError, match="the longest simulated time"):
        parse_latency_episodes("stall=40000s,gap=90000s")
    with pytest.raises(CloudnoiseError, match="stall=,gap= alone for recurring"):
        parse_latency_episodes("stall=20us,rate=10")


def _engine_series(spec: str, count: int = 120_000, seed: int = 9) -> tuple[np.ndarray, object]:
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.simulation.noise import NoiseSetup

    trace = os_trace(np.random.default_rng(11), rate_hz=300.0)
    truth = NoiseSetup(os_trace=trace, latency=parse_distribution("uniform:low=50,high=250"),
                       latency_stalls=parse_latency_episodes(spec), latency_stalls_shared=True)
    return series(truth, count, seed), trace


def test_recurring_stalls_read_back_from_an_engine_made_series():
    values, _ = _engine_series(TRUTH, 60_000)
    got = find_recurring_stalls(in_batches(values), round_trips_of(values))
    assert got.found, got.why
    assert got.followed < 0.02 < 0.15 < got.stall_share  # one stall rarely follows another
    assert got.cycle_ns == pytest.approx(28_000, rel=0.03)  # the stalls' mean start to start
    ep = got.episodes()
    assert ep.recurring and ep.shared
    assert ep.stall.mean() == pytest.approx(12_000, rel=0.05)  # each stall's excess and its phase
    assert ep.mean_cycle_ns() == pytest.approx(28_000, rel=0.03)
    # the excess is the stall less a uniform phase: drawn in by the phase's spread, the stalls'
    # spread comes nearer the truth's (uniform over 4 us: 1155 ns) than the excess's
    from cloudnoise.model.series_order import measured_shape

    rng = np.random.default_rng(0)
    truth_sd = 4_000 / np.sqrt(12)
    model_sd = float(np.std(ep.stall.sample(rng, 200_000)))
    excess_sd = float(np.std(measured_shape(got.stall).sample(rng, 200_000)))
    assert 0.8 < got.phase_factor() < 1.0
    assert abs(model_sd - truth_sd) < abs(excess_sd - truth_sd) and model_sd == pytest.approx(truth_sd, rel=0.15)


@pytest.mark.parametrize("case", ["per-message tail", "stalled half the time", "too few"])
def test_no_recurring_stalls_where_the_series_has_none(case):
    rng = np.random.default_rng(5)
    n = 60_000
    values = rng.integers(3_000, 3_300, n)
    if case == "per-message tail":  # 10 % of round trips 13 us late, at random
        values = values + np.where(rng.random(n) < 0.1, 13_000, 0)
    elif case == "stalled half the time":  # every other round trip meets a stall
        values = values + np.where(np.arange(n) % 2 == 0, 13_000, 0)
    else:
        values = values + np.where(np.arange(n) % 1000 == 0, 13_000, 0)
    got = find_recurring_stalls(in_batches(values), round_trips_of(values))
    assert not got.found
    why = {"per-message tail": "where independent draws give", "stalled half the time": "half the time or more",
           "too few": "at least 100"}[case]
    assert why in got.why, got.why


@pytest.fixture(scope="module")
def recurring_campaign(tmp_path_factory):
    """An engine-made 1 B series with recurring stalls of 10-14 us, 10-22 us apart, on one clock
    (a fifth of the round trips meet one), per-message draws of 50-250 ns and detours at 300 Hz."""
    values, trace = _engine_series(TRUTH)
    return write_campaign(tmp_path_factory.mktemp("recurring"), values, trace, "recurring")


def test_model_build_keeps_recurring_stalls_where_per_message_draws_miss(recurring_campaign, tmp_path):
    from cloudnoise.model.build import build_profile

    notes: list[str] = []
    built = build_profile(recurring_campaign, tmp_path / "p.json", say=notes.append)
    assert len(notes) == 1 and "model/recurring_stalls.py" in notes[0]  # built again, with the stalls
    found = built["recurring_stalls"]
    assert found["found"] and found["used"], found
    assert built["latency_split"]["kind"] == "recurring" and built["latency_split"]["used"]
    assert built["closure"]["closes"], built["closure"]["rows"]
    written = json.loads((tmp_path / "p.json").read_text())
    ep = parse_latency_episodes(written["latency_noise"]["stalls"])
    assert ep.recurring and ep.shared and ep.max_bytes is None
    assert ep.stall.mean() == pytest.approx(12_000, rel=0.05) and ep.mean_cycle_ns() == pytest.approx(28_000, rel=0.03)
    assert "recurring" in written["closure"]["stall_model"], written["closure"]["stall_model"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "p.os_noise.trace"]


def test_as_paper_leaves_the_recurring_stalls_out(recurring_campaign, tmp_path):
    from cloudnoise.model.build import build_profile

    built = build_profile(recurring_campaign, tmp_path / "p.json", as_paper=True)
    assert built["recurring_stalls"] is None
    assert "stalls" not in json.loads((tmp_path / "p.json").read_text())["latency_noise"]


def test_model_build_says_it_builds_again_with_recurring_stalls(recurring_campaign, tmp_path, run_cli):
    out = run_cli("model", "build", str(recurring_campaign), "-o", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    assert "with its long round trips as stalls that recur on one clock" in out.stderr
    assert "recurring stalls: in time, on one clock for every host:" in out.stdout, out.stdout
    doc = run_cli("model", "build", str(recurring_campaign), "-o", str(tmp_path / "q.json"), "--json")
    assert doc.returncode == 0
    got = json.loads(doc.stdout)["recurring_stalls"]
    assert got["found"] and got["used"] and got["followed"] < 0.02


def test_recurring_stalls_beside_shared_levels_give_both_back(tmp_path):
    """The Daint March reading: shared levels (0 or 600 ns per message, holding 100 us) and
    recurring stalls (10-14 us, 20-40 us apart) on one clock. Built with both, the profile
    carries both, its per-message draws come from the body less the upper level's gap, and its
    replay gives back the series' tail and its sums of 20 (which per-message draws do not: two
    draws in one round trip put its p99.9 at 27.8 us against 18.3)."""
    from cloudnoise.model.build import _build
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.model.latency_levels import parse_latency_levels
    from cloudnoise.model.stall_choice import IN_TIME
    from cloudnoise.simulation.noise import NoiseSetup

    trace = os_trace(np.random.default_rng(11), rate_hz=300.0)
    truth = NoiseSetup(
        os_trace=trace, latency=parse_distribution("uniform:low=50,high=250"),
        latency_stalls=parse_latency_episodes("stall=uniform(low=10us,high=14us),gap=uniform(low=20us,high=40us),shared=1"),
        latency_stalls_shared=True,
        latency_levels=parse_latency_levels("hold=100us,level=mixture(0.5*constant(value=0)+0.5*constant(value=600)),"
                                            "shared=1"))
    campaign = write_campaign(tmp_path / "c", series(truth, 120_000, 9), trace, "both")
    built = _build(campaign, tmp_path / "p.json", None, None, None, False, "auto", "auto", False, 0, IN_TIME,
                   shared_levels=True, recurring=True)
    assert built["shared_levels"]["used"] and built["recurring_stalls"]["used"]
    assert built["shared_levels"]["upper_ns"] - built["shared_levels"]["lower_ns"] == pytest.approx(1_200, abs=120)
    lat = json.loads((tmp_path / "p.json").read_text())["latency_noise"]
    ep = parse_latency_episodes(lat["stalls"])
    assert ep.recurring and ep.stall.mean() == pytest.approx(12_000, rel=0.05)
    assert ep.mean_cycle_ns() == pytest.approx(42_000, rel=0.03)
    assert "stalls in time: recurring" in lat["note"] and "levels in time" in lat["note"]
    rows = {r["statistic"]: r for r in built["closure"]["rows"]}
    assert built["closure"]["closes"], rows
    assert all(rows[s]["within"] for s in ("p99.9", "sums of 20 p90 - p50", "sums of 20 p99 - p50")), rows


def test_stalls_the_model_cannot_hold_are_not_found(monkeypatch):
    """Where the engine's model refuses the shapes read (their means are the series' within a
    histogram bucket, so a stall a hair under its gap may not be under it there), the series reads
    as no recurring stalls, with the model's reason, and model build goes on without them."""
    import cloudnoise.model.recurring_stalls as recurring

    values, _ = _engine_series(TRUTH, 20_000)

    def refused(self):
        raise CloudnoiseError("latency episodes: recurring stalls stall a host half the time or more")

    monkeypatch.setattr(recurring.RecurringStalls, "episodes", refused)
    got = find_recurring_stalls(in_batches(values), round_trips_of(values))
    assert not got.found and got.why.startswith("no model of them: latency episodes"), got.why
