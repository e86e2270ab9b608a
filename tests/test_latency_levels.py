"""Latency levels that persist in time (noise/latency_levels.hpp, noise/level_process.hpp): a
sending host's latency stands at a drawn level for an exponential hold, then at another; each
message gets its sender's level at the send added to its latency, which stays at least -o.
Known answers: a constant level v adds v to every message (2 v to a round trip); levels held
longer than a chain hold for the whole chain; holds far shorter than a round trip leave round
trips uncorrelated, holds of ~10 round trips correlate them by exp(-rtt / hold); repetitions are
independent draws; windows, the global order and the general loop agree; critical paths add up."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.model.closure import pingpong_goal
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.params import LogGOPS
from test_critical_path import PART, every_loop, recorded
from test_specialised_loops import switch_draws

L_PS, O_PS = 2_500_000, 1_500_000
PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
US = 1_000_000  # ps


def constant_ps(value_ps: float) -> _engine.QuantileTable:
    return _engine.QuantileTable(np.array([0.0, 1.0]), np.array([value_ps, value_ps]))


def two_values_ps(low_ps: float, high_ps: float) -> _engine.QuantileTable:
    """low and high, each with probability 1/2 (no u of 53 bits falls strictly between 1/2 and its next double)."""
    half = 0.5
    return _engine.QuantileTable(np.array([0.0, half, np.nextafter(half, 1.0), 1.0]),
                                 np.array([low_ps, low_ps, high_ps, high_ps]))


def uniform_ps(low_ps: float, high_ps: float) -> _engine.QuantileTable:
    return _engine.QuantileTable(np.array([0.0, 1.0]), np.array([low_ps, high_ps]))


def levels(mean_hold_ps: float, table: _engine.QuantileTable, period_ps: int = 10**12) -> _engine.NoiseModel:
    m = _engine.NoiseModel()
    m.level_process = _engine.LevelProcess(mean_hold_ps, table, period_ps)
    return m


_CHAINS: dict[int, _engine.Schedule] = {}


def chain(round_trips: int) -> _engine.Schedule:
    """A ping-pong chain of `round_trips` round trips (one more ping than round trips)."""
    if round_trips not in _CHAINS:
        _CHAINS[round_trips] = _engine.parse_goal(pingpong_goal(round_trips + 1, 8), "<ping-pong>")
    return _CHAINS[round_trips]


def round_trips_ps(round_trips: int, model: _engine.NoiseModel, seed: int = 0, rep: int = 0) -> np.ndarray:
    """Repetition `rep`'s round trips (ps): the gaps between rank 0's successive pings."""
    out = _engine.run(chain(round_trips), PARAMS.to_engine(), model, seed=seed, first=rep, count=1,
                      departures=True)
    pings = out["departures_ps"][0:2 * (round_trips + 1):2]
    assert np.all(pings >= 0)
    return np.diff(pings)


BASE_RT = None


def base_rt_ps() -> int:
    global BASE_RT
    if BASE_RT is None:
        rt = round_trips_ps(3, _engine.NoiseModel())
        assert np.all(rt == rt[0])
        BASE_RT = int(rt[0])
    return BASE_RT


ONE_WAY = b"num_ranks 2\nrank 0 {\ns: send 8b to 1 tag 0\n}\nrank 1 {\nr: recv 8b from 0 tag 0\n}\n"


def one_way_end_ps(model: _engine.NoiseModel) -> int:
    sched = _engine.parse_goal(ONE_WAY, "<one message>")
    return int(_engine.run(sched, PARAMS.to_engine(), model, seed=5)["max_end_ps"][0])


@pytest.mark.parametrize("level_ps", [700_000, -1_000_000])
def test_a_constant_level_adds_itself_to_every_message(level_ps):
    model = levels(1e9, constant_ps(level_ps))
    rt = round_trips_ps(20, model, seed=3)
    assert rt.tolist() == [base_rt_ps() + 2 * level_ps] * 20
    assert one_way_end_ps(model) == one_way_end_ps(_engine.NoiseModel()) + level_ps


def test_a_level_below_minus_L_and_o_leaves_a_message_arriving_when_its_send_starts():
    # latency clamped at -o: each message reaches its receiver when its send starts, so a round
    # trip loses o + L per message against the noiseless one, and no more
    model = levels(1e9, constant_ps(-10 * US))
    assert round_trips_ps(20, model).tolist() == [base_rt_ps() - 2 * (O_PS + L_PS)] * 20
    assert one_way_end_ps(model) == one_way_end_ps(_engine.NoiseModel()) - (O_PS + L_PS)


def test_levels_held_longer_than_the_chain_hold_through_it_and_average_to_the_table_mean():
    # 0 or 5 us each, held 100 s on average: a 20-round-trip chain (~0.2 ms) sees one level per
    # host; each round trip's excess is host 0's level plus host 1's, 5 us on average
    model = levels(1e14, two_values_ps(0, 5 * US))
    reps = 400
    excess = np.empty(reps)
    for rep in range(reps):
        rt = round_trips_ps(20, model, seed=11, rep=rep) - base_rt_ps()
        assert np.all(rt == rt[0]), rep
        assert rt[0] in (0, 5 * US, 10 * US)
        excess[rep] = rt[0]
    assert set(excess.tolist()) == {0, 5 * US, 10 * US}  # the two hosts hold levels of their own
    # per repetition: sd sqrt(2) x 2.5 us = 3.5 us; over 400 the mean's is 0.18 us
    assert excess.mean() == pytest.approx(5 * US, abs=0.75 * US)
    # a run of the 400 repetitions gives the same chains' ends (21 pings and their pongs)
    out = _engine.run(chain(20), PARAMS.to_engine(), model, seed=11, count=reps)
    noiseless = _engine.run(chain(20), PARAMS.to_engine(), _engine.NoiseModel())["max_end_ps"][0]
    assert (out["max_end_ps"] - noiseless).tolist() == (21 * excess).astype(np.int64).tolist()


def test_shared_levels_are_one_clock_that_both_messages_of_a_round_trip_carry():
    """latency_levels_shared: every host reads one offset, so both hosts stand at the same level and
    a round trip's excess is 0 or 2 x 5 us, never 5 us (one host at each level)."""
    model = levels(1e14, two_values_ps(0, 5 * US))
    model.latency_levels_shared = True
    seen = set()
    for rep in range(200):
        rt = round_trips_ps(20, model, seed=11, rep=rep) - base_rt_ps()
        assert np.all(rt == rt[0]), rep
        seen.add(int(rt[0]))
    assert seen == {0, 10 * US}
    # short holds: the level changes within the chain, and a round trip whose two messages meet
    # different levels is the only way to 5 us
    model = levels(4 * base_rt_ps(), two_values_ps(0, 5 * US))
    model.latency_levels_shared = True
    rt = round_trips_ps(2000, model, seed=3) - base_rt_ps()
    values, counts = np.unique(rt, return_counts=True)
    assert {0, 10 * US} <= set(values.tolist())
    assert counts[values == 5 * US].sum() < 0.2 * rt.size


def test_the_levels_spec_takes_shared():
    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.model.latency_levels import parse_latency_levels

    assert parse_latency_levels("hold=10us,level=uniform(low=0,high=100),shared=1").shared
    assert not parse_latency_levels("hold=10us,level=uniform(low=0,high=100)").shared
    with pytest.raises(CloudnoiseError, match="shared='2' must be 0 or 1"):
        parse_latency_levels("hold=10us,level=uniform(low=0,high=100),shared=2")


def lag1(x: np.ndarray) -> float:
    x = x - x.mean()
    return float(np.dot(x[:-1], x[1:]) / np.dot(x, x))


def test_holds_far_shorter_than_a_round_trip_leave_round_trips_uncorrelated():
    model = levels(1e6, uniform_ps(-300, 2000 * 1000), period_ps=10**12)  # 1 us holds, rtt ~12 us
    excess = round_trips_ps(20_000, model, seed=2).astype(np.float64) - base_rt_ps()
    assert excess.min() >= -600 and excess.max() <= 4 * US
    assert excess.mean() == pytest.approx(2 * (2000 * 1000 - 300) / 2, rel=0.02)
    assert abs(lag1(excess)) < 0.05  # its sd over 20,000 independent ones: 0.007


def test_holds_of_ten_round_trips_correlate_successive_round_trips_by_exp_minus_rtt_over_hold():
    # levels of 0..1 us, small against the ~12 us round trip: each host's level at its next send
    # is the same one with probability exp(-rtt / hold), an independent draw otherwise
    rtt = base_rt_ps() + 1 * US  # the mean round trip
    hold = 10 * rtt
    model = levels(float(hold), uniform_ps(0, 1 * US), period_ps=10**13)
    excess = round_trips_ps(20_000, model, seed=4).astype(np.float64) - base_rt_ps()
    assert lag1(excess) == pytest.approx(np.exp(-0.1), abs=0.03)


def test_repetition_r_of_a_run_equals_it_run_alone_and_repetitions_differ():
    model = levels(3e7, uniform_ps(-300, 2 * US))
    sched = generate(CollectiveSpec("dissemination", 16, 8))
    run = _engine.run(sched, PARAMS.to_engine(), model, seed=9, count=6)["max_end_ps"]
    alone = [int(_engine.run(sched, PARAMS.to_engine(), model, seed=9, first=r)["max_end_ps"][0]) for r in range(6)]
    assert run.tolist() == alone
    assert len(set(alone)) == 6
    threads = _engine.run(sched, PARAMS.to_engine(), model, seed=9, count=6, threads=2)["max_end_ps"]
    assert threads.tolist() == alone


def test_a_drawn_table_depends_on_seed_repetition_and_hosts_alone():
    p = _engine.LevelProcess(1e6, uniform_ps(-300, 2 * US), 10**9)
    a, again = p.draw(3, 5), p.draw(3, 5)
    assert np.array_equal(a.starts_ps, again.starts_ps) and np.array_equal(a.values_ps, again.values_ps)
    assert not np.array_equal(a.values_ps[:5], p.draw(3, 6).values_ps[:5])
    assert not np.array_equal(a.values_ps[:5], p.draw(4, 5).values_ps[:5])
    assert p.draw(3, 5, 1000).period_ps == 4 * 10**9 != a.period_ps


def test_a_drawn_tables_holds_levels_and_period_known_answers():
    p = _engine.LevelProcess(1e6, uniform_ps(-300, 2 * US), 10**10)  # 1 us holds over 10 ms: ~10,000
    assert (p.min_level_ps, p.max_level_ps) == (-300, 2 * US)
    # the period: the model's, or 4 mean holds per host, at most 10^5 s
    assert (p.period_ps(), p.period_ps(2500), p.period_ps(10_000)) == (10**10, 10**10, 4 * 10**10)
    assert _engine.LevelProcess(1e16, constant_ps(0), 10).period_ps(10**6) == 10**17
    t = p.draw(1, 0)
    starts, values = t.starts_ps, t.values_ps
    assert t.period_ps == 10**10 and starts[0] == 0 and starts[-1] < t.period_ps and len(t) == len(starts)
    holds = np.diff(starts)
    assert holds.min() >= 1000 and len(t) == pytest.approx(10**4, rel=0.05)
    assert holds.mean() == pytest.approx(1e6, rel=0.03) and np.median(holds) == pytest.approx(1e6 * np.log(2), rel=0.05)
    assert values.min() >= -300 and values.max() <= 2 * US
    assert values.mean() == pytest.approx((2 * US - 300) / 2, rel=0.02)
    assert [t.value_at(int(s)) for s in starts[:50]] == values[:50].tolist()
    assert t.value_at(int(starts[1]) - 1) == values[0] and t.value_at(t.period_ps + int(starts[2])) == values[2]
    # holds under 1 ns are 1 ns
    short = _engine.LevelProcess(10.0, constant_ps(5), 10**6).draw(0, 0)
    assert np.all(np.diff(short.starts_ps) == 1000) and len(short) == 1000


def test_a_given_table_reads_as_a_step_function():
    t = _engine.LatencyLevels(np.array([0, 100, 250], np.int64), np.array([-7, 0, 12], np.int64), 400)
    assert [t.value_at(s) for s in (0, 99, 100, 249, 250, 399, 400, 500, 650)] == [-7, -7, 0, 0, 12, 12, -7, 0, 12]
    assert (t.starts_ps.tolist(), t.values_ps.tolist(), t.period_ps, len(t)) == ([0, 100, 250], [-7, 0, 12], 400, 3)


@pytest.mark.parametrize("starts,values,period,message", [
    ([0, 5], [1], 10, "differ in length"),
    ([], [], 10, "none given"),
    ([1, 5], [1, 2], 10, "first level must start at 0"),
    ([0, 5, 5], [1, 2, 3], 10, "strictly ascending"),
    ([0, 7, 5], [1, 2, 3], 10, "strictly ascending"),
    ([0, 10], [1, 2], 10, "within the period"),
    ([0], [10**12 + 1], 10, "within \\+-10\\^12 ps"),
    ([0], [-(10**12) - 1], 10, "within \\+-10\\^12 ps"),
    ([0], [1], 0, "the period must be in"),
    ([0], [1], 10**17 + 1, "the period must be in"),
])
def test_bad_tables_are_refused(starts, values, period, message):
    with pytest.raises(ValueError, match=message):
        _engine.LatencyLevels(np.array(starts, np.int64), np.array(values, np.int64), period)


@pytest.mark.parametrize("hold,table,period,message", [
    (0.0, lambda: constant_ps(1), 10**9, "mean hold must be in"),
    (-1.0, lambda: constant_ps(1), 10**9, "mean hold must be in"),
    (float("nan"), lambda: constant_ps(1), 10**9, "mean hold must be in"),
    (1.1e17, lambda: constant_ps(1), 10**9, "mean hold must be in"),
    (1e6, lambda: constant_ps(1), 0, "the period must be in"),
    (1e6, lambda: constant_ps(1), 10**17 + 1, "the period must be in"),
    (1e6, lambda: uniform_ps(0, 1.5e12), 10**9, "within \\+-10\\^12 ps"),
    (1e6, lambda: uniform_ps(-1.5e12, 0), 10**9, "within \\+-10\\^12 ps"),
])
def test_bad_processes_are_refused(hold, table, period, message):
    with pytest.raises(ValueError, match=message):
        _engine.LevelProcess(hold, table(), period)


def test_switch_draws_exclude_latency_levels():
    model = levels(1e6, constant_ps(0))
    model.switch_draws = switch_draws()
    with pytest.raises(ValueError, match="or latency levels"):
        _engine.run(generate(CollectiveSpec("dissemination", 4, 8)), PARAMS.to_engine(), model)


def test_levels_count_as_noise():
    # a noiseless run takes the exchange loop; levels alone take windows like any noise
    sched = generate(CollectiveSpec("dissemination", 16, 8))
    assert _engine.NoiseModel().level_process is None
    plain = _engine.run(sched, PARAMS.to_engine(), _engine.NoiseModel(), count=2)
    leveled = _engine.run(sched, PARAMS.to_engine(), levels(1e7, uniform_ps(0, 1000)), count=2)
    assert plain["windowed"] == 0 and leveled["windowed"] == 2


# level bounds (ps), made into tables in each test: engine objects held by a parametrize list
# live until the interpreter exits, where nanobind reports them as leaks
NEGATIVE = [("negative", (-800_000, 2 * US)),  # lookahead o + L - 0.8 us: windows
            ("clamped", (-20 * US, 2 * US))]  # below -(o + L): latency clamped, no windows


@pytest.mark.parametrize("name,bounds", NEGATIVE, ids=[n for n, _ in NEGATIVE])
@pytest.mark.parametrize("pattern", ["dissemination", "allreduce_recdoub", "pipelinedring", "linear_alltoall"])
def test_negative_levels_give_one_result_in_windows_the_global_order_and_the_general_loop(name, bounds, pattern):
    model = levels(4e6, uniform_ps(*bounds))  # holds of 4 us: levels change within a run
    model.latency_excess_ps = uniform_ps(-200_000, 600_000)
    sched = generate(CollectiveSpec(pattern, 16, 1024))
    runs = {kw: _engine.run(sched, PARAMS.to_engine(), model, seed=7, count=4, **dict(kw))
            for kw in ((), (("sequential", True),), (("general", True),),
                       (("general", True), ("sequential", True)))}
    first = runs[()]
    for out in runs.values():
        for key in ("max_end_ps", "host_end_ps"):
            assert out[key].tolist() == first[key].tolist()
        assert (out["events"], out["messages"]) == (first["events"], first["messages"])
    windows = runs[(("general", True),)]["windowed"]
    assert windows > 0 if name == "negative" else windows == 0
    assert runs[(("sequential", True),)]["windowed"] == 0


def test_in_order_delivery_applies_under_levels():
    # rank 0 sends 50 messages back to back, 1.5 us apart; a level that drops by up to 9 us between
    # two sends lets the later message overtake the earlier one, unless the schedule asks for
    # in-order delivery: then some repetitions end otherwise, and every loop agrees
    n = 50
    r0 = "".join(f"s{i}: send {8 + 64 * i}b to 1 tag 0\n" + (f"s{i} requires s{i - 1}\n" if i else "") for i in range(n))
    r1 = "".join(f"r{i}: recv {8 + 64 * i}b from 0 tag 0\n" for i in range(n))
    text = f"num_ranks 2\nrank 0 {{\n{r0}}}\nrank 1 {{\n{r1}}}\n".encode()
    model = levels(3e6, uniform_ps(-1 * US, 8 * US))
    ends = {}
    for in_order in (False, True):
        sched = _engine.parse_goal(text, "<stream>")
        sched.in_order = in_order
        a = _engine.run(sched, PARAMS.to_engine(), model, seed=1, count=20)
        b = _engine.run(sched, PARAMS.to_engine(), model, seed=1, count=20, general=True, sequential=True)
        assert a["max_end_ps"].tolist() == b["max_end_ps"].tolist()
        ends[in_order] = a["max_end_ps"]
    assert np.any(ends[True] != ends[False])


def test_critical_paths_add_up_and_count_the_levels_in_latency_draw():
    level = 700_000
    out = recorded(chain(20), PARAMS, levels(1e9, constant_ps(level)), reps=2)
    noiseless = recorded(chain(20), PARAMS, _engine.NoiseModel(), reps=1)
    # the chain's path runs through every one of its 42 messages
    assert out["path_parts"][:, PART["latency_draw"]].tolist() == [42 * level] * 2
    assert (out["path_parts"][0] - noiseless["path_parts"][0]).tolist() == [
        42 * level if k == PART["latency_draw"] else 0 for k in range(len(PART))]
    clamped = recorded(chain(20), PARAMS, levels(1e9, constant_ps(-10 * US)), reps=1)
    assert clamped["path_parts"][0, PART["latency_draw"]] == -42 * (O_PS + L_PS)
    for name, bounds in NEGATIVE:
        model = levels(4e6, uniform_ps(*bounds))
        model.latency_excess_ps = uniform_ps(-200_000, 600_000)
        for pattern in ("dissemination", "allreduce_ring"):
            every_loop(generate(CollectiveSpec(pattern, 8, 4096)), PARAMS, model, reps=3)
