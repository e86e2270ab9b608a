"""Noise in time drawn per repetition (noise/stall_process.hpp,
noise/episode_process.hpp, simulation/noise.py): each repetition's table of
stalls or drops is a function of (seed, repetition) alone, with the model's
known shares; the repetitions of a run are independent draws, so runs with
different seeds agree, and `sweep` and `simulate` give one distribution."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cloudnoise import _engine, simulate
from cloudnoise.model.bandwidth_episodes import parse_bandwidth_episodes
from cloudnoise.model.latency_episodes import parse_latency_episodes
from cloudnoise.model.profile import load_profile
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
from cloudnoise.simulation.params import LogGOPS

DATA = Path(__file__).resolve().parents[1] / "src" / "cloudnoise" / "profiles" / "data"
# The stalls `model build` found in a 2-core VM measured while it was busy
# (../shared/profiles/busy-demo): heavy-tailed episodes (sigma 2.5), stalls
# and gaps; one table shared by a run's repetitions made its medians range
# from 1.8 ms to 106 ms over seeds 0-7.
BUSY = ("rate=493.07021409484867,duration=mixture(0.665603951504*constant(value=0)+0.334396048496*lognormal("
        "median=51007,sigma=2.5004747816)),stall=lognormal(median=3575,sigma=2.78518024289),gap=lognormal("
        "median=5595,sigma=2.97961476569)")
PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")


def constant_ps(value_ps: float) -> _engine.QuantileTable:
    return _engine.QuantileTable(np.array([0.0, 1.0]), np.array([value_ps, value_ps]))


def test_a_repetitions_stalls_depend_on_seed_and_repetition_alone():
    p = _engine.StallProcess.bursty(1e9, 1.21e9, constant_ps(2e8), constant_ps(1e7), constant_ps(4e7), 10**13)
    a, again = p.draw(3, 5), p.draw(3, 5)
    assert np.array_equal(a.starts_ps, again.starts_ps) and np.array_equal(a.ends_ps, again.ends_ps)
    assert not np.array_equal(a.starts_ps[:5], p.draw(3, 6).starts_ps[:5])
    assert not np.array_equal(a.starts_ps[:5], p.draw(4, 5).starts_ps[:5])


def test_bursty_stalls_known_answers():
    # episodes of 200 us after quiet times of 1 ms (mean), each a train of 10 us
    # stalls 50 us apart starting at 0, 50, ..., 200 us: 5 stalls, 210 us
    period = 10**13  # 10 s: ~8,300 episodes
    p = _engine.StallProcess.bursty(1e9, 1.21e9, constant_ps(2e8), constant_ps(1e7), constant_ps(4e7), period)
    t = p.draw(1, 0)
    starts, ends = t.starts_ps, t.ends_ps
    assert np.all(ends - starts == 10**7) and np.all(starts[1:] >= ends[:-1]) and ends[-1] <= period
    step = np.diff(starts)
    inside = step == 5 * 10**7
    # every episode is 5 stalls: 4 steps of 50 us between episodes' quiet times
    runs = np.diff(np.flatnonzero(np.concatenate(([True], ~inside, [True]))))
    assert set(runs[:-1].tolist()) == {5}  # the last may end with the period
    episodes = len(starts) / 5
    expected = period / (1e9 + 2.1e8 + 1e3)
    assert episodes == pytest.approx(expected, rel=0.05)
    # from an episode's last stall's end, 1 ns and an exponential quiet time to the next one's start
    quiet = step[~inside] - 10**7 - 1000
    assert quiet.mean() == pytest.approx(1e9, rel=0.05) and quiet.min() >= 0
    assert np.median(quiet) == pytest.approx(1e9 * np.log(2), rel=0.05)


def test_periodic_stalls_and_episodes_known_answers():
    p = _engine.StallProcess.periodic(10**9, constant_ps(1.2e7), 10**9)
    t = p.draw(0, 0)
    assert (t.starts_ps.tolist(), t.ends_ps.tolist(), t.period_ps) == ([0], [12_000_000], 10**9)
    e = _engine.EpisodeProcess(9e9, 1e10, constant_ps(1e9), _engine.QuantileTable(np.array([0.0, 1.0]),
                                                                             np.array([0.5, 0.5])), 10**14)
    d = e.draw(2, 7)
    assert np.all(d.ends_ps - d.starts_ps == 10**9) and np.all(d.fractions == 0.5)
    share = float((d.ends_ps - d.starts_ps).sum()) / d.period_ps
    assert share == pytest.approx(0.1, rel=0.05)  # 1 ms in every 10 ms
    assert not np.array_equal(d.starts_ps[:3], e.draw(2, 8).starts_ps[:3])


def test_tables_grow_with_the_hosts_that_read_them():
    """4 mean cycles per host, never below the model's period nor above 10^5 s: the
    hosts of a repetition read fresh episodes, not the same few (its longest stalls
    would then bound the slowest host however many there are)."""
    p = _engine.StallProcess.bursty(1e9, 1.21e9, constant_ps(2e8), constant_ps(1e7), constant_ps(4e7), 10**12)
    assert (p.period_ps(1), p.period_ps(1000), p.period_ps(10**9)) == (10**12, 484 * 10**10, 10**17)
    assert p.draw(1, 0, 1000).period_ps == 484 * 10**10 and len(p.draw(1, 0, 1000)) > 4 * len(p.draw(1, 0, 1))
    e = _engine.EpisodeProcess(9e9, 1e10, constant_ps(1e9), constant_ps(1e3), 10**12)
    assert (e.period_ps(1), e.period_ps(1000)) == (10**12, 4 * 10**13)


def test_a_draw_without_a_stall_is_a_quiet_table():
    # a stall as long as the table, starting after its start, ends past it: none is kept
    p = _engine.StallProcess.bursty(1e3, 1e3, constant_ps(0), constant_ps(2e12), constant_ps(1e3), 10**12)
    t = p.draw(0, 0)
    assert len(t) == 0 and t.delay_at(5) == 0


def test_profiles_give_the_engine_processes_and_tables_stay_tables(tmp_path):
    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["latency_noise"]["stalls"] = BUSY
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    setup = noise_from_profile(load_profile(str(path)), seed=1)
    m = setup.engine_model("network")
    assert m.stall_process is not None and m.latency_stalls is None
    assert m.episode_process is not None and m.bandwidth_episodes is None
    assert m.stall_process.period_ps() == parse_latency_episodes(BUSY).representative_period_ns() * 1000
    given = NoiseSetup(bandwidth_episodes=parse_bandwidth_episodes("rate=1,duration=1ms,fraction=0.5").table(
        np.random.default_rng(0))).engine_model("network")
    assert given.bandwidth_episodes is not None and given.episode_process is None


def test_repetition_r_alone_equals_r_in_a_long_run_on_any_threads():
    sched = generate(CollectiveSpec("dissemination", 16, 16))
    noise = NoiseSetup(latency_stalls=parse_latency_episodes(BUSY))
    many = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=40, seed=5, threads=2)
    one_thread = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=40, seed=5, threads=1)
    alone = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=1, seed=5, first_rep=29)
    assert np.array_equal(many.runtime_ns, one_thread.runtime_ns)
    assert many.runtime_ns[29] == alone.runtime_ns[0]


@pytest.mark.parametrize("seed", range(3))
def test_drawn_tables_keep_the_loops_and_threads_alike(seed):
    """Windowed and sequential processing, 1 and 2 threads: the same results, bit for bit,
    with stalls and drops drawn per repetition."""
    sched = generate(CollectiveSpec("dissemination", 32, 20000))
    stalls = parse_latency_episodes("rate=2000,duration=lognormal(median=20us,sigma=1),stall=5us,gap=3us"
                                    + (",shared=1" if seed == 1 else ""))
    episodes = parse_bandwidth_episodes("rate=500,duration=lognormal(median=100us,sigma=1),fraction=0.3")
    model = NoiseSetup(latency_stalls=stalls, bandwidth_episodes=episodes,
                       latency_stalls_shared=stalls.shared).engine_model("network")
    params = PARAMS.to_engine()
    windowed = _engine.run(sched, params, model, seed=seed, count=12, threads=2)
    sequential = _engine.run(sched, params, model, seed=seed, count=12, sequential=True)
    one_thread = _engine.run(sched, params, model, seed=seed, count=12, threads=1)
    for key in ("host_end_ps", "max_end_ps"):
        assert windowed[key].tolist() == sequential[key].tolist() == one_thread[key].tolist()
    assert len(set(windowed["max_end_ps"].tolist())) > 1


def test_seeds_agree_within_their_intervals():
    """The busy machine's stalls, 100 repetitions of a 16-rank dissemination, 8
    seeds: the medians' 95% intervals (order statistics) overlap, all of them,
    and a Kruskal-Wallis test cannot tell the seeds' runs apart. With one table
    per run, the medians ranged over 60x and no two seeds' runs were alike."""
    from scipy.stats import kruskal

    from cloudnoise.simulation.statistics import summarize

    sched = generate(CollectiveSpec("dissemination", 16, 16))
    noise = NoiseSetup(latency_stalls=parse_latency_episodes(BUSY))
    runs = [simulate(sched, params=PARAMS, noise=noise, variant="network", reps=100, seed=s, threads=1).runtime_ns
            for s in range(8)]
    summaries = [summarize(r) for r in runs]
    assert max(s.median_ci_low for s in summaries) <= min(s.median_ci_high for s in summaries)
    assert kruskal(*runs).pvalue > 0.01


def test_sweep_and_simulate_give_one_distribution(tmp_path):
    """1,000 repetitions of a profile with the busy machine's stalls, through `sweep`
    (its own seed per configuration) and `simulate` (another seed): a two-sample
    Kolmogorov-Smirnov test cannot tell them apart."""
    from scipy.stats import ks_2samp

    from cloudnoise.sweep import load_results
    from cloudnoise.sweep.experiment import collective_experiment
    from cloudnoise.sweep.runner import System
    from cloudnoise.sweep.sweeper import SweepRequest, run_sweep

    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "busy-stalls"
    data["latency_noise"]["stalls"] = BUSY
    path = tmp_path / "busy.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    request = SweepRequest(collective_experiment("dissemination:16B"), (System("busy", str(path), profile),), (16,),
                           ("network",), 1000, seed=11)
    run_sweep(request, tmp_path / "sweep", in_process=True)
    swept = np.asarray(load_results(tmp_path / "sweep").column("runtime_ns").to_numpy(), dtype=np.float64)
    simulated = simulate(generate(CollectiveSpec("dissemination", 16, 16)), params=LogGOPS.from_profile(profile),
                         noise=noise_from_profile(profile, 3), variant="network", reps=1000, seed=3).runtime_ns
    assert swept.size == simulated.size == 1000
    assert ks_2samp(swept, simulated).pvalue > 0.01
