"""Latency stalls that come in time (model/latency_episodes.py and the engine's
LatencyStalls): the spec, the generated table's known shares, the engine's
rule (a message sent inside its sender's stall leaves when the stall ends),
per-host and shared clocks, bit-exact windowed processing and thread counts,
and the profile part."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from cloudnoise import _engine, simulate
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.latency_episodes import LatencyEpisodes, StallTable, parse_latency_episodes
from cloudnoise.model.profile import load_profile
from cloudnoise.simulation.noise import NoiseSetup, noise_from_profile
from cloudnoise.simulation.params import LogGOPS
from loggops_model import to_goal
from random_schedules import random_schedule

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
ONE_MESSAGE = b"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\nrank 1 {\nl1: recv 1b from 0 tag 0\n}\n"
DATA = Path(__file__).resolve().parents[1] / "src" / "cloudnoise" / "profiles" / "data"
BURSTY = "rate=200,duration=1ms,stall=50us,gap=20us"


def stalls(starts, ends, period) -> StallTable:
    return StallTable(np.array(starts, np.int64), np.array(ends, np.int64), period)


def test_specs_parse_with_units_and_round_trip():
    e = parse_latency_episodes(BURSTY)
    assert (e.rate_hz, e.duration.mean(), e.stall.mean(), e.gap.mean()) == (200.0, 1e6, 5e4, 2e4)
    assert not e.periodic and not e.shared
    assert parse_latency_episodes(e.spec()) == e
    p = parse_latency_episodes("period=1ms,stall=12us,shared=1")
    assert p.periodic and p.period_ns == 1e6 and p.stall.mean() == 12_000 and p.shared
    # the spec written without text round-trips too
    bare = LatencyEpisodes(e.stall, e.rate_hz, e.duration, e.gap, shared=True)
    assert parse_latency_episodes(bare.spec()) == LatencyEpisodes(e.stall, e.rate_hz, e.duration, e.gap,
                                                                   shared=True, text=bare.spec())


def test_shares_known_answers():
    e = parse_latency_episodes(BURSTY)
    # a 1 ms episode holds stalls starting at 0, 70, ..., 980 us: 15 stalls, ~1.05 ms long
    assert e.stalls_per_episode() == pytest.approx(1 + 1e6 / 7e4)
    busy = 200 * 1.05e-3
    assert e.time_share() == pytest.approx(busy / (1 + busy))
    assert e.stall_share() == pytest.approx(e.time_share() * 50 / 70)
    p = parse_latency_episodes("period=1ms,stall=12us")
    assert p.time_share() == 1.0 and p.stall_share() == pytest.approx(0.012)


@pytest.mark.parametrize("bad, words", [
    ("rate=200,duration=1ms,stall=50us", "missing gap"),
    ("period=1ms,stall=12us,rate=3", "take no rate"),
    ("period=1ms,stall=600us", "half the time"),
    ("rate=200,duration=1ms,stall=50us,gap=20us,shared=yes", "must be 0 or 1"),
    ("rate=-1,duration=1ms,stall=50us,gap=20us", "positive number"),
    ("rate=5000,duration=10ms,stall=50us,gap=20us", "at most 90%"),
    ("rate=200,duration=1ms,gap=20us", "need stall"),
    ("size=3,stall=1us,period=1ms", "unknown size"),
    ("period=1ms,stall=12us,max_bytes=0", "whole number of bytes"),
    ("period=1ms,stall=12us,max_bytes=1.5", "whole number of bytes"),
])
def test_bad_specs_are_one_line_errors(bad, words):
    with pytest.raises(CloudnoiseError) as err:
        parse_latency_episodes(bad)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_generated_tables_are_sorted_disjoint_and_have_the_shares():
    e = parse_latency_episodes(BURSTY)
    t = e.table(np.random.default_rng(3))
    assert np.all(t.ends_ns > t.starts_ns) and np.all(t.starts_ns[1:] >= t.ends_ns[:-1])
    assert t.starts_ns[0] >= 0 and t.ends_ns[-1] <= t.period_ns
    assert t.time_share() == pytest.approx(e.stall_share(), rel=0.1)
    again = e.table(np.random.default_rng(3))
    assert np.array_equal(t.starts_ns, again.starts_ns) and np.array_equal(t.ends_ns, again.ends_ns)
    p = parse_latency_episodes("period=1ms,stall=12us").table(np.random.default_rng(1))
    assert (len(p), p.period_ns, int(p.ends_ns[0] - p.starts_ns[0])) == (1, 10**6, 12_000)
    # the rule tests and estimates use: the rest of the stall, 0 outside
    s = stalls([10, 50], [20, 60], 100)
    assert s.delay_ns(np.array([0, 10, 15, 20, 55, 110, 155])).tolist() == [0, 10, 5, 0, 5, 10, 5]


def test_engine_refuses_bad_tables():
    def make(starts, ends, period):
        return _engine.LatencyStalls(np.array(starts, np.int64), np.array(ends, np.int64), period)

    with pytest.raises(ValueError, match="overlap"):
        make([0, 5], [10, 20], 100)
    with pytest.raises(ValueError, match="within the period"):
        make([0], [200], 100)
    with pytest.raises(ValueError, match="none given"):
        make([], [], 100)
    s = make([10, 50], [20, 60], 100)
    assert [s.delay_at(t) for t in (0, 10, 19, 20, 55, 60, 110, 155)] == [0, 10, 1, 0, 5, 0, 10, 5]


def test_a_message_sent_inside_a_stall_waits_for_its_end():
    # host 0 stalled for the whole period but its last ns: the message waits the rest of the stall
    period = 10**9
    noise = NoiseSetup(latency_stalls=stalls([0], [period - 1], period))
    base = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS).host_end_ns.tolist()
    assert base == [1500, 1500 + 2500 + 1500]
    # the wait is the rest of the stall at the sender's drawn offset: between 0 and 1 s, drawn per
    # repetition; the sender's CPU is not held, so rank 0 still ends at o
    ends = per_rank(_engine.parse_goal(ONE_MESSAGE), noise, 20, seed=3)
    assert np.all(ends[:, 0] == 1500)
    waits = ends[:, 1] - base[1]
    assert np.all((waits >= 0) & (waits < 1e9)) and len(set(waits.tolist())) == 20
    # a stall covering nothing but [0, 1 ns): no message meets it (to the ns)
    quiet = per_rank(_engine.parse_goal(ONE_MESSAGE), NoiseSetup(latency_stalls=stalls([0], [1], period)), 5, seed=3)
    assert np.all(quiet[:, 1] <= base[1] + 1)
    # not in the noiseless variant
    r = simulate(_engine.parse_goal(ONE_MESSAGE), params=PARAMS, noise=noise, variant="none")
    assert r.host_end_ns.tolist() == base


def test_stalls_that_hold_small_messages_leave_larger_ones_alone():
    # host 0 stalled for the whole period but its last ns, stalls holding messages up to 100 B: a
    # 100 B message waits the rest of the stall, a 101 B one leaves at once (to the ps), per repetition
    period = 10**9
    e = parse_latency_episodes("period=1s,stall=400ms,max_bytes=100")
    assert e.max_bytes == 100 and parse_latency_episodes(e.spec()) == e and "messages up to 100 B" in e.describe()
    assert parse_latency_episodes(LatencyEpisodes(e.stall, period_ns=1e9, max_bytes=100).spec()).max_bytes == 100
    for size, waits in ((100, True), (101, False)):
        goal = ONE_MESSAGE.replace(b"1b", f"{size}b".encode())
        base = simulate(_engine.parse_goal(goal), params=PARAMS).host_end_ns
        noise = NoiseSetup(latency_stalls=stalls([0], [period - 1], period), latency_stalls_max_bytes=100)
        late = per_rank(_engine.parse_goal(goal), noise, 5, seed=3)[:, 1] - base[1]
        assert np.all(late > 1000) if waits else np.all(late == 0), (size, late)


def per_rank(sched, noise: NoiseSetup, reps: int, seed: int) -> np.ndarray:
    """Each repetition's per-rank end times (ns): repetition r run alone, as it runs among others."""
    return np.array([simulate(sched, params=PARAMS, noise=noise, variant="network", reps=1, seed=seed,
                              first_rep=r).host_end_ns for r in range(reps)])


def _exchange(ranks: int) -> bytes:
    """Every rank sends one byte to the next at time 0 (a ring shift)."""
    lines = [f"num_ranks {ranks}"]
    for r in range(ranks):
        lines += [f"rank {r} {{", f"s: send 1b to {(r + 1) % ranks} tag 0",
                  f"v: recv 1b from {(r - 1) % ranks} tag 0", "}"]
    return ("\n".join(lines) + "\n").encode()


def test_shared_stalls_put_every_host_on_one_clock():
    # half of each period stalled: per host, each rank's send waits on its own offset; shared, all alike
    period = 10**8
    table = stalls([0], [period // 2], period)
    sched = _engine.parse_goal(_exchange(8))
    base = 1500 + 2500 + 1500  # each rank ends when its predecessor's message has arrived and been received
    own_w = per_rank(sched, NoiseSetup(latency_stalls=table), 40, seed=5) - base
    one_w = per_rank(sched, NoiseSetup(latency_stalls=table, latency_stalls_shared=True), 40, seed=5) - base
    # shared: in each repetition every rank waits the same (one offset); per host they differ
    assert np.all(one_w == one_w[:, :1])
    assert np.any(own_w != own_w[:, :1])
    # about half the repetitions (shared) are stalled at all
    assert 0.25 < np.mean(one_w[:, 0] > 0) < 0.75


@pytest.mark.parametrize("seed", range(8))
def test_windowed_processing_matches_the_global_order(seed):
    rng = random.Random(4800 + seed)
    P = rng.choice([2, 3, 5, 8])
    S = 65535
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 60), S, sizes=[0, 8, 5000, S], cpus=1)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    model = _engine.NoiseModel()
    p = np.linspace(0.0, 1.0, 65)
    model.latency_excess_ps = _engine.QuantileTable(p, np.expm1(4.0 * p) * 400_000.0)
    starts = np.arange(0, 9 * 10**8, 70_000_000, dtype=np.int64)
    model.latency_stalls = _engine.LatencyStalls(starts, starts + 50_000_000, 10**9)
    model.latency_stalls_shared = bool(seed % 2)
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S=str(S)).to_engine()
    windowed = _engine.run(sched, params, model, seed=seed, count=10, threads=2)
    sequential = _engine.run(sched, params, model, seed=seed, count=10, sequential=True)
    one_thread = _engine.run(sched, params, model, seed=seed, count=10, threads=1)
    for key in ("host_end_ps", "max_end_ps"):
        assert windowed[key].tolist() == sequential[key].tolist() == one_thread[key].tolist()


def test_repetition_r_depends_only_on_seed_and_r():
    sched = _engine.parse_goal(_exchange(4))
    noise = NoiseSetup(latency_stalls=stalls([0], [5 * 10**7], 10**8))
    many = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=12, seed=9, threads=2)
    alone = simulate(sched, params=PARAMS, noise=noise, variant="network", reps=1, seed=9, first_rep=7)
    assert many.runtime_ns[7] == alone.runtime_ns[0] and len(set(many.runtime_ns.tolist())) > 1


def test_profile_part(tmp_path):
    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "with-stalls"
    data["latency_noise"]["stalls"] = BURSTY
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    profile = load_profile(str(path))
    assert profile.latency_episodes() == parse_latency_episodes(BURSTY)
    setup = noise_from_profile(profile, seed=1)
    assert setup.latency_stalls is not None and setup.describe()["latency_stalls"].endswith(BURSTY)
    assert setup.draws("network") and not setup.draws("none")
    # a profile without them has none (the built-ins, the paper's semantics)
    assert noise_from_profile(load_profile(str(DATA / "oracle-hpc-metal.json")), seed=1).latency_stalls is None
    # on bandwidth noise, stalls are a mistake: a one-line error
    data["bandwidth_noise"]["stalls"] = BURSTY
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="move them to latency_noise"):
        load_profile(str(path))
    # a bad spec: one line naming the part
    del data["bandwidth_noise"]["stalls"]
    data["latency_noise"]["stalls"] = "rate=200"
    path.write_text(json.dumps(data))
    with pytest.raises(CloudnoiseError, match="stalls") as err:
        load_profile(str(path))
    assert "\n" not in str(err.value)
