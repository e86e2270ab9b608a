"""Bandwidth drops that persist in time (model/bandwidth_episodes.py and the
engine's BandwidthEpisodes): known answers for the shares, the table, the
engine's rule (a message sent inside its sender's episode moves at the lower
of its draw and the episode's fraction), and bit-exact windowed processing."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from cloudnoise import _engine, simulate
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.bandwidth_episodes import BandwidthEpisodes, EpisodeTable, parse_bandwidth_episodes
from cloudnoise.model.distributions import parse_distribution
from cloudnoise.model.profile import load_profile
from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
from cloudnoise.simulation.params import LogGOPS
from loggops_model import to_goal
from random_schedules import random_schedule

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
ONE_MESSAGE = b"num_ranks 2\nrank 0 {\nl1: send 1001b to 1 tag 0\n}\nrank 1 {\nl1: recv 1001b from 0 tag 0\n}\n"
DATA = Path(__file__).resolve().parents[1] / "src" / "cloudnoise" / "profiles" / "data"
SPEC = "rate=0.005,duration=uniform(low=0,high=600ms),fraction=uniform(low=0.75,high=0.85)"


def table(starts, ends, fractions, period) -> EpisodeTable:
    return EpisodeTable(np.array(starts, np.int64), np.array(ends, np.int64), np.array(fractions, float), period)


def test_spec_parses_with_units_and_round_trips():
    e = parse_bandwidth_episodes(SPEC)
    assert e.rate_hz == 0.005
    assert e.duration.support() == (0.0, 6e8)
    assert e.fraction.mean() == pytest.approx(0.8)
    assert parse_bandwidth_episodes(e.spec()) == e


def test_shares_known_answers():
    e = parse_bandwidth_episodes(SPEC)
    # rate 0.005/s x mean 0.3 s: 0.15% of the time in a drop.
    assert e.time_share() == pytest.approx(1.5e-3)
    # Samples come at a rate proportional to the bandwidth: inside, 0.8 of the peak.
    q = 1.5e-3
    assert e.message_share() == pytest.approx(q * 0.8 / (q * 0.8 + (1 - q)))
    assert e.message_share(0.9) == pytest.approx(q * 0.8 / (q * 0.8 + (1 - q) * 0.9))
    # rate_for_share inverts message_share.
    rate = BandwidthEpisodes.rate_for_share(e.message_share(0.9), e.duration, e.fraction, 0.9)
    assert rate == pytest.approx(0.005, rel=1e-12)


def test_marginal_mixes_draws_and_drops_by_sample_share():
    e = parse_bandwidth_episodes(SPEC)
    body = parse_distribution("uniform:low=0.9,high=1")
    m = e.marginal(body)
    w = e.message_share(0.95)
    assert m.mean() == pytest.approx((1 - w) * 0.95 + w * 0.8)
    # Below 0.85 only the drops: their share of the samples.
    assert float(m.cdf(np.array([0.85]))[0]) == pytest.approx(w)


def test_marginal_of_mixtures_lists_every_component_once():
    # Hosts' episode levels as a mixture (how model build writes several hosts' levels) and a
    # mixture body: the marginal is one flat mixture with the same mean and the drops' share.
    e = parse_bandwidth_episodes(
        "rate=0.005,duration=uniform(low=0,high=600ms),"
        "fraction=mixture(0.5*uniform(low=0.6,high=0.7)+0.5*constant(value=0.8))"
    )
    body = parse_distribution("mixture:0.25*constant(value=0.9)+0.75*uniform(low=0.9,high=1)")
    m = e.marginal(body)
    assert len(m.components) == 4 and not any(hasattr(c, "components") for c in m.components)
    body_mean = 0.25 * 0.9 + 0.75 * 0.95
    w = e.message_share(body_mean)
    assert m.mean() == pytest.approx((1 - w) * body_mean + w * (0.5 * 0.65 + 0.5 * 0.8))
    assert float(m.cdf(np.array([0.85]))[0]) == pytest.approx(w)


def test_generated_table_is_sorted_disjoint_and_has_the_time_share():
    e = parse_bandwidth_episodes(SPEC)
    t = e.table(np.random.default_rng(3))
    assert t.period_ns == 10**14  # 500 episodes at 0.005/s: 10^5 s
    assert np.all(t.ends_ns > t.starts_ns) and np.all(t.starts_ns[1:] >= t.ends_ns[:-1])
    assert t.ends_ns[-1] <= t.period_ns and t.starts_ns[0] >= 0
    assert 400 < len(t) < 600
    assert t.time_share() == pytest.approx(1.5e-3, rel=0.15)
    assert np.all((t.fractions >= 0.75) & (t.fractions <= 0.85))
    # Seeded: the same generator gives the same table.
    again = e.table(np.random.default_rng(3))
    assert np.array_equal(t.starts_ns, again.starts_ns) and np.array_equal(t.fractions, again.fractions)


@pytest.mark.parametrize("bad, words", [
    ("rate=0.005,duration=1s", "missing fraction"),
    ("rate=-1,duration=1s,fraction=0.5", "positive"),
    ("rate=1,duration=1s,fraction=0.0001", "[0.001, 1]"),
    ("rate=1,duration=uniform(low=0,high=2s),fraction=0.5", "at most 50%"),
    ("rate=x,duration=1s,fraction=0.5", "not a number"),
    ("rate=1,duration=1s,fraction=0.5,depth=2", "unknown depth"),
])
def test_bad_specs_are_one_line_errors(bad, words):
    with pytest.raises(CloudnoiseError) as err:
        parse_bandwidth_episodes(bad)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_engine_refuses_bad_tables():
    def make(starts, ends, fractions, period):
        return _engine.BandwidthEpisodes(np.array(starts, np.int64), np.array(ends, np.int64),
                                         np.array(fractions, float), period)
    with pytest.raises(ValueError, match="overlap"):
        make([0, 5], [10, 20], [0.5, 0.5], 100)
    with pytest.raises(ValueError, match="within the period"):
        make([0], [200], [0.5], 100)
    with pytest.raises(ValueError, match=r"\[0.001, 1\]"):
        make([0], [10], [0.0], 100)
    e = make([10, 50], [20, 60], [0.5, 0.25], 100)
    assert [e.fraction_at(t) for t in (0, 10, 19, 20, 55, 60, 110, 155)] == [1, 0.5, 0.5, 1, 0.25, 1, 0.5, 0.25]


def test_a_message_inside_an_episode_moves_at_its_fraction():
    # One episode covering the whole period: every message at half the peak,
    # so the 1001-byte message pays 1000 x 12 ns, as with a constant draw of 0.5.
    noise = NoiseSetup(bandwidth_episodes=table([0], [10**12], [0.5], 10**12))
    r = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS, noise=noise, variant="network")
    assert r.host_end_ns.tolist() == [1500, 1500 + 2500 + 1500 + 1000 * 12]
    # The lower of the draw and the episode: a draw of 0.25 wins over 0.5 ...
    noise.bandwidth = parse_distribution("constant:value=0.25")
    r = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS, noise=noise, variant="network")
    assert r.host_end_ns.tolist()[1] == 1500 + 2500 + 1500 + 1000 * 24
    # ... and an episode of 0.1 over a draw of 0.25.
    noise.bandwidth_episodes = table([0], [10**12], [0.1], 10**12)
    r = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS, noise=noise, variant="network")
    assert r.host_end_ns.tolist()[1] == 1500 + 2500 + 1500 + 1000 * 60
    # Not in the noiseless or OS-only variants.
    r = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS, noise=noise, variant="none")
    assert r.host_end_ns.tolist()[1] == 1500 + 2500 + 1500 + 1000 * 6


def test_episodes_persist_over_a_senders_consecutive_messages():
    # A chain of 20 messages 0 -> 1 sent within microseconds: with a drop
    # covering 30% of a long period, each repetition's messages are either
    # all slowed or (almost) all not -- never an even mix as with draws.
    lines = ["num_ranks 2", "rank 0 {"] + [f"s{i}: send 1000b to 1 tag {i}" for i in range(20)]
    lines += [f"s{i} requires s{i - 1}" for i in range(1, 20)] + ["}", "rank 1 {"]
    lines += [f"r{i}: recv 1000b from 0 tag {i}" for i in range(20)] + ["}"]
    sched = _engine.parse_goal(("\n".join(lines) + "\n").encode())
    noise = NoiseSetup(bandwidth_episodes=table([0], [3 * 10**11], [0.2], 10**12))
    r = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=200, seed=4)
    base = simulate(sched, params=PARAMS).runtime_ns[0]
    slow = np.asarray(r.runtime_ns) > base
    assert 0.2 < slow.mean() < 0.4  # 30% of the offsets fall inside the drop
    # A slowed run paid for every message: 20 x 999 x 6 ns x (1/0.2 - 1) at the receiver's G.
    assert np.all(np.asarray(r.runtime_ns)[slow] - base >= 19 * 999 * 24)


@pytest.mark.parametrize("seed", range(12))
def test_windowed_processing_matches_the_global_order(seed):
    rng = random.Random(4200 + seed)
    P = rng.choice([2, 3, 5, 8])
    S = 65535
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 60), S, sizes=[0, 8, 5000, S], cpus=1)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    model = _engine.NoiseModel()
    p = np.linspace(0.0, 1.0, 65)
    model.latency_excess_ps = _engine.QuantileTable(p, np.expm1(4.0 * p) * 400_000.0)
    starts = np.arange(0, 10**9, 7_000_000, dtype=np.int64)
    model.bandwidth_episodes = _engine.BandwidthEpisodes(starts, starts + 3_000_000, np.full(starts.size, 0.3),
                                                         10**9)
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S=str(S)).to_engine()
    windowed = _engine.run(sched, params, model, seed=seed, count=10, threads=2)
    sequential = _engine.run(sched, params, model, seed=seed, count=10, sequential=True)
    assert windowed["host_end_ps"].tolist() == sequential["host_end_ps"].tolist()


def test_profile_with_episodes(tmp_path):
    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "with-episodes"
    data["bandwidth_noise"]["episodes"] = SPEC
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    assert profile.bandwidth_episodes() == parse_bandwidth_episodes(SPEC)
    setup = noise_from_profile(profile, seed=1)
    assert setup.bandwidth_episodes is not None and setup.describe()["bandwidth_episodes"].endswith(SPEC)
    # The samples' distribution counts the drops by their share of samples.
    marginal = profile.bandwidth_sample_distribution()
    assert marginal.mean() < profile.bandwidth_distribution().mean()
    # On latency noise, episodes are a mistake: a one-line error.
    data["latency_noise"]["episodes"] = SPEC
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="bandwidth drops"):
        load_profile(str(path))


def test_calibration_puts_oracles_drops_in_episodes_with_the_sample_share_of_its_prior():
    from cloudnoise.profiles.calibrate import families as fam
    from cloudnoise.paper import model_stats as ms

    p = fam.BandwidthParams(1.2e-3, 0.75, 0.85, 0.6)
    mean = 97.50 / 97.53
    # The per-message draws keep only the body; the drops go to the episodes.
    assert fam.bandwidth_spec(p, mean).startswith("uniform:")
    episodes = parse_bandwidth_episodes(fam.bandwidth_episodes_spec(p, mean))
    assert episodes.duration.support() == (0.0, 6e8)
    body_mean = 0.5 * (1 + fam.solve_body_low(p, mean))
    assert episodes.message_share(body_mean) == pytest.approx(1.2e-3, rel=1e-3)  # 4-digit rate
    # Independent drops (no duration) have no episodes: the per-message draws keep them.
    flat = fam.BandwidthParams(1.2e-3, 0.75, 0.85)
    assert fam.bandwidth_episodes_spec(flat, mean) is None
    assert "0.0012*uniform(low=0.75,high=0.85)" in fam.bandwidth_spec(flat, mean)
    # The built-in profile: episodes up to 0.6 s, and the samples' mean fraction of the
    # max is Table II's (97.50 / 97.53; the max is the authors' G, 80 Gb/s).
    oracle = load_profile(str(DATA / "oracle-hpc-metal.json"))
    assert ms.longest_drop_s(oracle) == pytest.approx(0.6)
    assert ms.max_bandwidth_gbit_s(oracle) == pytest.approx(80.0)
    assert ms.mean_bandwidth_gbit_s(oracle) / ms.max_bandwidth_gbit_s(oracle) == pytest.approx(97.50 / 97.53, rel=1e-4)


def test_profiles_show_names_the_drops_and_the_samples_mean(run_cli):
    res = run_cli("profiles", "show", "oracle-hpc-metal")
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert "bandwidth drops in time" in text and "0.15% of the time" in text
    assert re.search(r"0\.9997\d* with drops", text)  # Table II: 97.50 / 97.53 = 0.99969


def test_cli_option_adds_replaces_or_removes_episodes(run_cli, tmp_path):
    base = ["simulate", "--pattern", "allreduce_ring", "--ranks", "8", "--size", "8MiB", "--reps", "40", "--seed", "2",
            "--noise", "network", "--json"]
    spec = "rate=0.5,duration=uniform(low=50ms,high=150ms),fraction=0.2"

    def runtimes(*extra: str) -> list[float]:
        res = run_cli(*base, *extra)
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)["runtime_ns"]

    # Alone (no profile): a node in a drop 5% of the time at a fifth of the peak slows some runs several times.
    alone = runtimes("--bandwidth-episodes", spec, "--bandwidth-noise", "constant:value=1")
    flat = runtimes("--bandwidth-noise", "constant:value=1")
    assert len(set(flat)) == 1 and max(alone) > 2 * flat[0] and min(alone) == flat[0]
    # With a profile: "none" removes its episodes; the same as the profile written without them.
    oracle = runtimes("--profile", "oracle-hpc-metal", "--bandwidth-episodes", "none")
    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    del data["bandwidth_noise"]["episodes"]
    path = tmp_path / "no-episodes.json"
    path.write_text(json.dumps(data))
    assert runtimes("--profile", str(path)) == oracle
    # A bad spec: one line, exit 2.
    res = run_cli(*base, "--bandwidth-episodes", "rate=1,duration=2s,fraction=0.5")
    assert res.returncode == 2 and res.stderr.count("\n") <= 1 and "--bandwidth-episodes" in res.stderr


def test_python_api_takes_episodes():
    from cloudnoise import simulate as api_simulate

    r = api_simulate(pattern="allreduce_ring", ranks=4, size="4MiB", reps=30, seed=1, noise="network",
                     bandwidth_noise="constant:value=1",
                     bandwidth_episodes="rate=2,duration=uniform(low=50ms,high=150ms),fraction=0.25")
    assert r.statistics.max > 2 * min(r.runtime_ns)
