"""Which stall model `model build` keeps (model/stall_choice.py): the rule on closures and
refutations with known verdicts, the refutation on known shares, and end to end on synthetic
campaigns whose latency series shows stalls in time (100-300 us, about a fifth of the time) and
whose bandwidth series the engine makes with those stalls in time (kept) or with stalls that hit
a message as often as the 1 B series shows them per round trip (refuted: per-message draws)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synthetic_campaign import alps_like, large_series, series, write_campaign


def _profile(closes: bool, refuted: bool = False, bandwidth: bool = True) -> dict:
    rows = [{"statistic": "p99", "measured": 30_000.0, "replay": 30_000.0 if closes else 40_000.0, "judged": True,
             "within": closes}]
    refutation = {"slower_by": 0.02, "series_share": 0.064, "replay_share": 0.25, "least_share": 0.243,
                  "parts": 20, "size_bytes": 16_777_216}
    return {"closure": {"closes": closes, "rows": rows}, "bandwidth_closure": {"closes": True} if bandwidth else None,
            "stall_refutation": refutation if refuted else None}


def test_stalls_in_time_stay_unless_they_miss_their_closure_or_the_bandwidth_series_refutes_them():
    from cloudnoise.model.stall_choice import (IN_TIME, PER_MESSAGE, SMALL, choose_stall_model, needs_per_message,
                                               needs_small)

    # closes and not refuted: nothing else is built
    kept = _profile(True)
    assert not needs_per_message(kept, True) and not needs_small(kept, None, True)
    got = choose_stall_model(kept)
    assert got.chosen == IN_TIME and "does not refute them" in got.why and got.per_message_closes is None
    assert "refute" not in choose_stall_model(_profile(True, bandwidth=False)).why
    # refuted, closes: stalls that hold small messages only, with the figures
    refuted = _profile(True, refuted=True)
    assert not needs_per_message(refuted, True) and needs_small(refuted, None, True)
    got = choose_stall_model(refuted, None, _profile(True), 65535)
    assert got.chosen == SMALL and "25% of the 16777216 B round trips are more than 2 % slower" in got.why
    assert "at least 24.3%" in got.why and "holds 6.4%" in got.why and "up to 65535 B" in got.why
    assert got.refutation["replay_share"] == 0.25
    # refuted where the bandwidth series' messages are small (no smaller scope to try): per-message draws
    assert needs_per_message(refuted, False) and not needs_small(refuted, None, False)
    assert choose_stall_model(refuted, _profile(True)).chosen == PER_MESSAGE
    assert choose_stall_model(refuted, _profile(False)).chosen == IN_TIME  # unless they miss their closure
    # stalls in time miss their own closure, per-message draws close it: per-message, refuted or not
    assert needs_per_message(_profile(False), True)
    got = choose_stall_model(_profile(False), _profile(True))
    assert got.chosen == PER_MESSAGE and "a profile must close first" in got.why and "misses" not in got.why
    assert not needs_small(_profile(False, refuted=True), _profile(True), True)
    assert choose_stall_model(_profile(False, refuted=True), _profile(True)).chosen == PER_MESSAGE
    # neither closes: refuted, the small messages' stalls; else the series' order
    assert needs_small(_profile(False, refuted=True), _profile(False), True)
    assert choose_stall_model(_profile(False, refuted=True), _profile(False), _profile(False), 65535).chosen == SMALL
    got = choose_stall_model(_profile(False), _profile(False))
    assert got.chosen == IN_TIME and "neither gives the latency series back" in got.why


def test_the_refutation_needs_every_part_of_the_replay_above_the_series_and_beyond_the_tolerance():
    from cloudnoise.model.round_trips import RoundTrips
    from cloudnoise.model.stall_choice import PARTS, refutation

    rng = np.random.default_rng(3)
    median = 1_000_000.0
    # a series with 5 % of its round trips 3 % slow
    values = np.where(rng.random(20_000) < 0.05, 1.03 * median, median + rng.uniform(-100, 100, 20_000))
    v, c = np.unique(np.round(values), return_counts=True)
    trips = RoundTrips(v, c)
    # a replay that slows 25 % of them by 3 %: refuted at 2 %
    slow = np.where(rng.random(20 * PARTS * 50) < 0.25, 0.03 * median, 0.0)
    got = refutation(slow, trips, median, 16)
    assert got is not None and got.slower_by == 0.02 and got.replay_share == pytest.approx(0.25, abs=0.02)
    assert got.series_share == pytest.approx(0.05, abs=0.005) and got.least_share <= got.replay_share
    # 5.5 %: within the closure's tolerance, not refuted; fewer than the series: a shortfall proves nothing
    assert refutation(np.where(rng.random(20_000) < 0.055, 0.03 * median, 0.0), trips, median, 16) is None
    assert refutation(np.zeros(20_000), trips, median, 16) is None
    # one part of the replay at or below the series' share: not refuted (a short replay varies that much)
    parts = np.where(rng.random(20_000) < 0.25, 0.03 * median, 0.0)
    parts[:20_000 // PARTS] = 0.0
    assert refutation(parts, trips, median, 16) is None


@pytest.fixture(scope="module")
def stalled(tmp_path_factory):
    """A 1 B series with stalls in time (Alps-like episodes of 100-300 us stalls), its OS trace, the truth."""
    trace, truth = alps_like(300, 100, 300)
    return trace, truth, series(truth, 120_000, 9)


def _fraction():
    """Each 16 MiB message at 0.95-0.99 of the peak bandwidth."""
    from cloudnoise.model.distributions import parse_distribution

    return parse_distribution("uniform:low=0.95,high=0.99")


def _campaign(folder, stalled, bandwidth_ns: np.ndarray):
    trace, _, latency_ns = stalled
    return write_campaign(folder, latency_ns, trace, "stalls", bandwidth_ns=bandwidth_ns)


def test_a_bandwidth_series_slowed_by_the_stalls_in_time_keeps_them(stalled, tmp_path):
    from cloudnoise.model.build import build_profile

    trace, truth, _ = stalled
    from dataclasses import replace

    camp = _campaign(tmp_path, stalled, large_series(replace(truth, bandwidth=_fraction()), 3_000, 8))
    notes: list[str] = []
    built = build_profile(camp, tmp_path / "p.json", say=notes.append)
    assert notes == []  # built once
    # about a fifth of the 16 MiB round trips start inside a stall: as many as the stalls in time give
    choice = built["stall_choice"]
    assert choice["chosen"] == "time" and choice["refutation"] is None and choice["in_time_closes"], choice
    assert choice["per_message_closes"] is None  # nothing else built
    written = json.loads((tmp_path / "p.json").read_text())
    assert "stalls" in written["latency_noise"] and "does not refute them" in written["closure"]["stall_model"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("p.")) == ["p.json", "p.os_noise.trace"]


def test_a_bandwidth_series_the_stalls_do_not_slow_keeps_them_for_small_messages_only(stalled, tmp_path, run_cli):
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.simulation.noise import NoiseSetup

    trace, _, latency_ns = stalled
    # stalls of the same lengths, hitting a message as often as the 1 B series shows them per round
    # trip (two messages each)
    hit = float(np.mean(latency_ns > np.median(latency_ns) + 15_000)) / 2.0
    per_message = parse_distribution(
        f"mixture:{1 - hit:.6f}*uniform(low=50,high=250)+{hit:.6f}*uniform(low=100us,high=300us)")
    camp = _campaign(tmp_path, stalled, large_series(NoiseSetup(os_trace=trace, latency=per_message,
                                                                        bandwidth=_fraction()), 3_000, 8))
    out = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"), "--json")
    assert out.returncode == 0, out.stderr
    assert "building the profile again" not in out.stderr  # no notes with --json
    doc = json.loads(out.stdout)
    written = json.loads((tmp_path / "p.json").read_text())
    stall_model = written["closure"]["stall_model"]
    assert "the bandwidth series refutes stalls that hold every message" in stall_model, stall_model
    choice = doc["stall_choice"]
    assert choice["chosen"] == "small" and choice["in_time_closes"], choice
    # stalls that hold every message would slow about a fifth of the 16 MiB round trips; the series
    # holds under 1 %
    assert choice["refutation"]["replay_share"] > 0.1 > 0.01 > choice["refutation"]["series_share"], choice
    # the stalls kept, for messages up to the eager limit S: the 1 B series keeps its closure, the
    # 16 MiB replay waits for none of them and closes too
    from cloudnoise.model.latency_episodes import parse_latency_episodes

    eager = written["loggops"]["S"]
    assert 1 < eager < 16_777_216 and parse_latency_episodes(written["latency_noise"]["stalls"]).max_bytes == eager
    assert stall_model.startswith(f"stalls in time that block the host's sends of messages up to {eager} B")
    assert doc["closure"]["closes"] and doc["bandwidth_closure"]["closes"], doc["bandwidth_closure"]["rows"]
    # no temporary folder left beside it
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    # --latency-model stalls keeps them without the choice
    forced = run_cli("model", "build", str(camp), "-o", str(tmp_path / "s.json"), "--latency-model", "stalls", "--json")
    assert forced.returncode == 0, forced.stderr
    assert "stall_choice" not in json.loads(forced.stdout)
    assert "stalls" in json.loads((tmp_path / "s.json").read_text())["latency_noise"]
