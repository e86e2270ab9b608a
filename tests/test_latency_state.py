"""A latency noise state per sending host (NoiseModel.latency_state_process and
latency_state_weight; Engine::latency_draw_ps): a Gaussian copula in time. Each host h has a
standard normal state Z_h(t), piecewise constant (a LevelProcess of micro normal scores), and a
message h sends at t draws its latency excess at u = Phi(sqrt(w) Z_h(t) + sqrt(1 - w) Phi^-1(u0)),
u0 its own uniform. Known answers: every message's excess keeps the table's distribution; a
host's successive messages under one state have normal scores correlated by w, and round trips
are correlated while the states hold, not across holds far shorter than a round trip;
repetitions are independent draws; windows, the global order and the general loop agree;
critical paths add up and count the drawn excess; without a state nothing changes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cloudnoise import _engine
from test_critical_path import PART, every_loop, recorded
from test_latency_levels import ONE_WAY, PARAMS, US, base_rt_ps, chain, levels, round_trips_ps, uniform_ps
from cloudnoise.schedules.patterns import CollectiveSpec, generate

EXCESS_HI = 4 * US  # the per-message excess: uniform on [0, 4 us], so u = excess / 4 us


def normal_scores() -> _engine.QuantileTable:
    """The standard normal's quantiles times 10^6 (micro normal scores), its tails cut at +-8."""
    tail = np.logspace(-15, -2, 131)
    p = np.concatenate([[0.0], tail, np.linspace(0.01, 0.99, 981)[1:-1], 1.0 - tail[::-1], [1.0]])
    p = np.unique(p)
    v = stats.norm.ppf(p) * 1e6
    v[0], v[-1] = -8e6, 8e6
    return _engine.QuantileTable(p, v)



def with_state(model: _engine.NoiseModel | None, hold_ps: float, weight: float,
               period_ps: int = 10**12) -> _engine.NoiseModel:
    m = model if model is not None else _engine.NoiseModel()
    if m.latency_excess_ps is None:
        m.latency_excess_ps = uniform_ps(0, EXCESS_HI)
    m.latency_state_process = _engine.LevelProcess(hold_ps, normal_scores(), period_ps)
    m.latency_state_weight = weight
    return m


def plain_excess() -> _engine.NoiseModel:
    m = _engine.NoiseModel()
    m.latency_excess_ps = uniform_ps(0, EXCESS_HI)
    return m


def test_normal_cdf_and_quantile_match_scipy():
    p = np.concatenate([np.logspace(-300, -1, 2000), np.linspace(0.01, 0.99, 5001), 1 - np.logspace(-16, -1, 2000)])
    q, ref = _engine.normal_quantile(p), stats.norm.ppf(p)
    assert np.all(np.abs(q - ref) <= 2e-15 * np.maximum(np.abs(ref), 1.0))
    body = np.linspace(-5, 5, 4001)
    assert np.allclose(_engine.normal_cdf(body), stats.norm.cdf(body), rtol=5e-15, atol=0)
    # the lower tail to erfc's underflow: relative error as the argument's rounding allows
    tail = np.linspace(-37, -5, 3000)
    assert np.allclose(_engine.normal_cdf(tail), stats.norm.cdf(tail), rtol=1e-12, atol=0)
    ends = _engine.normal_quantile(np.array([0.0, 1.0, 0.5, -0.5, 1.5, np.nan]))
    assert ends[0] == -np.inf and ends[1] == np.inf and ends[2] == 0.0 and np.all(np.isnan(ends[3:]))
    assert _engine.normal_quantile(np.array([2.0**-54]))[0] == pytest.approx(stats.norm.ppf(2.0**-54), rel=1e-15)


def one_message_ends_ps(model: _engine.NoiseModel, reps: int, seed: int = 3) -> np.ndarray:
    sched = _engine.parse_goal(ONE_WAY, "<one message>")
    return _engine.run(sched, PARAMS.to_engine(), model, seed=seed, count=reps)["max_end_ps"]


def with_tail_state(model: _engine.NoiseModel, hold_ps: float, weight: float, period_ps: int = 10**13) -> None:
    """The tail's own state for part 'both'."""
    model.latency_state_tail_process = _engine.LevelProcess(hold_ps, normal_scores(), period_ps)
    model.latency_state_tail_weight = weight


@pytest.mark.parametrize("part", ["all", "body", "tail", "both"])
def test_each_message_keeps_the_tables_distribution(part):
    # one message a repetition: its excess is the end less the noiseless end; under a strong state
    # held far longer than the run, it is still uniform on [0, 4 us], as without the state,
    # whichever part of the distribution the state moves
    reps = 4000
    base = int(one_message_ends_ps(_engine.NoiseModel(), 1)[0])
    plain = one_message_ends_ps(plain_excess(), reps) - base
    model = with_state(None, 1e14, 0.9)
    model.latency_state_part, model.latency_state_split = part, 0.8
    if part == "both":
        with_tail_state(model, 1e14, 0.7)
    state = one_message_ends_ps(model, reps) - base
    assert plain.min() >= 0 and state.min() >= 0 and plain.max() <= EXCESS_HI and state.max() <= EXCESS_HI
    assert not np.array_equal(plain, state)
    assert stats.kstest(state / EXCESS_HI, "uniform").pvalue > 1e-3
    assert stats.ks_2samp(state, plain).pvalue > 1e-3


def spearman_pairs(series: list[np.ndarray]) -> float:
    """The rank correlation of successive values, pooled over independent series."""
    a = np.concatenate([s[:-1] for s in series])
    b = np.concatenate([s[1:] for s in series])
    return float(stats.spearmanr(a, b).statistic)


def test_round_trips_are_correlated_while_the_states_hold():
    # each round trip's excess is host 0's ping's plus host 1's pong's; a state held 100 s (far
    # longer than a 10-round-trip chain) at w = 0.9 makes successive ones alike; pooled over
    # repetitions (each its own states), the rank correlation is ~0.85
    model = with_state(None, 1e14, 0.9)
    series = [round_trips_ps(10, model, seed=5, rep=r).astype(np.float64) for r in range(300)]
    assert spearman_pairs(series) > 0.5
    plain = [round_trips_ps(10, plain_excess(), seed=5, rep=r).astype(np.float64) for r in range(300)]
    assert abs(spearman_pairs(plain)) < 0.1


def test_holds_far_shorter_than_a_round_trip_leave_round_trips_uncorrelated():
    # states of 1 ns mean holds against a ~14 us round trip: each message meets a fresh state
    model = with_state(None, 1e3, 0.9, period_ps=10**9)
    rt = round_trips_ps(20_000, model, seed=2).astype(np.float64) - base_rt_ps()
    assert rt.min() >= 0 and rt.max() <= 2 * EXCESS_HI
    assert abs(stats.spearmanr(rt[:-1], rt[1:]).statistic) < 0.05  # its sd over 20,000: 0.007


def flight_draws(out: dict, reps: int) -> np.ndarray:
    """Per repetition, the latency_draw of each message on the chain's critical path, in order."""
    flight = _engine.PATH_LINKS.index("flight")
    rows = []
    for r in range(reps):
        path = out["paths"][r]
        rows.append(path["parts"][path["link"] == flight, PART["latency_draw"]])
    return np.array(rows)


@pytest.mark.parametrize("weight", [0.3, 0.9])
def test_one_hosts_successive_normal_scores_are_correlated_by_the_weight(weight):
    # a 5-round-trip chain's critical path runs through its 12 messages; host 0's 6 pings share
    # its state (held 10 ms against pings ~14 us apart), so the normal scores Phi^-1(excess / 4 us)
    # of successive ones are correlated by w (pooled over 2,000 repetitions: sd 0.012 at w = 0.3,
    # 0.003 at 0.9). The table spans 10 s, ~1,000 holds: the two hosts, reading it from their own
    # offsets, rarely read the same state (with a table of a few holds they would, as for the
    # latency levels: all hosts of a repetition read one table).
    reps = 2000
    out = recorded(chain(5), PARAMS, with_state(None, 1e10, weight, period_ps=10**13), reps=reps, seed=8)
    draws = flight_draws(out, reps)
    assert draws.shape == (reps, 12)
    pings = draws[:, 0::2].astype(np.float64)
    scores = stats.norm.ppf(np.clip(pings / EXCESS_HI, 1e-9, 1 - 1e-9))
    a, b = scores[:, :-1].ravel(), scores[:, 1:].ravel()
    assert np.corrcoef(a, b)[0, 1] == pytest.approx(weight, abs=0.04)
    # hosts hold states of their own: a ping and its pong are independent
    pongs = stats.norm.ppf(np.clip(draws[:, 1::2] / EXCESS_HI, 1e-9, 1 - 1e-9))
    assert abs(np.corrcoef(scores.ravel(), pongs.ravel())[0, 1]) < 0.1


def _successive_pings(part: str, weight: float, split: float, reps: int = 2000,
                      tail_weight: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Host 0's successive pings of 5-round-trip chains under one state (held 10 ms), as uniforms
    u = excess / 4 us: (earlier, later) pairs pooled over repetitions."""
    model = with_state(None, 1e10, weight, period_ps=10**13)
    model.latency_state_part, model.latency_state_split = part, split
    if part == "both":
        with_tail_state(model, 1e10, tail_weight)
    out = recorded(chain(5), PARAMS, model, reps=reps, seed=8)
    u = flight_draws(out, reps)[:, 0::2].astype(np.float64) / EXCESS_HI
    return u[:, :-1].ravel(), u[:, 1:].ravel()


def test_a_state_of_the_body_moves_the_body_and_leaves_the_tail_alone():
    # part=body, split 0.8, w = 0.9: whether a ping lands in the tail (u > 0.8) is its own draw,
    # independent of the last ping's; within the body, successive pings' scores Phi^-1(u / 0.8)
    # are correlated by w (pairs both in the body: ~0.64 x 8,000)
    a, b = _successive_pings("body", 0.9, 0.8)
    ta, tb = a > 0.8, b > 0.8
    assert ta.mean() == pytest.approx(0.2, abs=0.01) and tb.mean() == pytest.approx(0.2, abs=0.01)
    assert abs(np.corrcoef(ta, tb)[0, 1]) < 0.04
    both = ~ta & ~tb
    sa, sb = stats.norm.ppf(np.clip(a[both] / 0.8, 1e-9, 1 - 1e-9)), stats.norm.ppf(np.clip(b[both] / 0.8, 1e-9, 1 - 1e-9))
    assert np.corrcoef(sa, sb)[0, 1] == pytest.approx(0.9, abs=0.03)


def test_a_state_of_the_tail_moves_how_often_messages_land_in_it():
    # part=tail, split 0.8, w = 0.6: a ping lands in the tail when sqrt(w) Z + sqrt(1 - w) X >
    # Phi^-1(0.8); two pings under one state, with latent scores correlated by w, both land there
    # with the bivariate normal's orthant probability; where in the body or the tail is each
    # ping's own draw (uniform, uncorrelated)
    a, b = _successive_pings("tail", 0.6, 0.8)
    ta, tb = a > 0.8, b > 0.8
    c = stats.norm.ppf(0.8)
    both_tail = 1.0 - 2 * 0.8 + stats.multivariate_normal(mean=[0, 0], cov=[[1, 0.6], [0.6, 1]]).cdf([c, c])
    assert ta.mean() == pytest.approx(0.2, abs=0.01)
    assert np.mean(ta & tb) == pytest.approx(both_tail, abs=0.01)  # 0.098 (0.04 if independent)
    body = ~ta & ~tb
    assert abs(np.corrcoef(a[body], b[body])[0, 1]) < 0.04
    assert stats.kstest(a[~ta] / 0.8, "uniform").pvalue > 1e-3


def test_states_of_the_body_and_of_the_tail_at_once_move_each_its_part():
    # part=both, split 0.8: the body's state (w 0.9) correlates successive pings' body scores as
    # for part=body, the tail's own (w 0.6) how often both land in the tail as for part=tail
    a, b = _successive_pings("both", 0.9, 0.8, tail_weight=0.6)
    ta, tb = a > 0.8, b > 0.8
    c = stats.norm.ppf(0.8)
    both_tail = 1.0 - 2 * 0.8 + stats.multivariate_normal(mean=[0, 0], cov=[[1, 0.6], [0.6, 1]]).cdf([c, c])
    assert ta.mean() == pytest.approx(0.2, abs=0.01)
    # pairs of one repetition share its states: ~2,000 independent draws, sd ~0.007
    assert np.mean(ta & tb) == pytest.approx(both_tail, abs=0.02)  # 0.099 (0.04 if independent)
    body = ~ta & ~tb
    sa = stats.norm.ppf(np.clip(a[body] / 0.8, 1e-9, 1 - 1e-9))
    sb = stats.norm.ppf(np.clip(b[body] / 0.8, 1e-9, 1 - 1e-9))
    assert np.corrcoef(sa, sb)[0, 1] == pytest.approx(0.9, abs=0.03)


def test_both_parts_need_the_tails_own_state():
    model = with_state(None, 1e6, 0.5)
    model.latency_state_part = "both"
    with pytest.raises(ValueError, match="tail's own process"):
        one_message_ends_ps(model, 1)


@pytest.mark.parametrize("split", [0.0, 1.0, float("nan")])
def test_a_split_outside_0_1_is_refused_and_so_is_an_unknown_part(split):
    model = with_state(None, 1e6, 0.5)
    model.latency_state_part, model.latency_state_split = "tail", split
    with pytest.raises(ValueError, match="split between body and tail"):
        one_message_ends_ps(model, 1)
    with pytest.raises(ValueError, match="all, body, tail or both"):
        model.latency_state_part = "middle"


def test_the_path_counts_the_drawn_excess_of_every_message():
    # the chain's path passes every message: each round trip's excess over the noiseless one is
    # its ping's latency_draw plus its pong's, as the path counts them
    model = with_state(None, 3e7, 0.8)
    reps = 3
    out = recorded(chain(20), PARAMS, model, reps=reps, seed=4)
    draws = flight_draws(out, reps)
    for r in range(reps):
        rt = round_trips_ps(20, model, seed=4, rep=r) - base_rt_ps()
        assert (draws[r, 0:40:2] + draws[r, 1:41:2]).tolist() == rt.tolist()
        assert out["path_parts"][r, PART["latency_draw"]] == draws[r].sum()


def test_repetition_r_of_a_run_equals_it_run_alone_also_with_threads():
    model = with_state(None, 3e6, 0.7)
    sched = generate(CollectiveSpec("dissemination", 16, 8))
    run = _engine.run(sched, PARAMS.to_engine(), model, seed=9, count=6)["max_end_ps"]
    alone = [int(_engine.run(sched, PARAMS.to_engine(), model, seed=9, first=r)["max_end_ps"][0]) for r in range(6)]
    assert run.tolist() == alone
    assert len(set(alone)) == 6
    threads = _engine.run(sched, PARAMS.to_engine(), model, seed=9, count=6, threads=2)["max_end_ps"]
    assert threads.tolist() == alone
    # the state changes the runs
    plain = _engine.run(sched, PARAMS.to_engine(), plain_excess(), seed=9, count=6)["max_end_ps"]
    assert plain.tolist() != alone


@pytest.mark.parametrize("with_levels", [False, True], ids=["state", "state+levels"])
@pytest.mark.parametrize("pattern", ["dissemination", "allreduce_recdoub", "pipelinedring", "linear_alltoall"])
def test_windows_the_global_order_and_the_general_loop_agree(pattern, with_levels):
    model = levels(4e6, uniform_ps(-800_000, 2 * US)) if with_levels else _engine.NoiseModel()
    model.latency_excess_ps = uniform_ps(-200_000, 600_000)
    with_state(model, 4e6, 0.7)  # holds of 4 us: states change within a run
    sched = generate(CollectiveSpec(pattern, 16, 1024))
    runs = {kw: _engine.run(sched, PARAMS.to_engine(), model, seed=7, count=4, **dict(kw))
            for kw in ((), (("sequential", True),), (("general", True),),
                       (("general", True), ("sequential", True)))}
    first = runs[()]
    for out in runs.values():
        for key in ("max_end_ps", "host_end_ps"):
            assert out[key].tolist() == first[key].tolist()
        assert (out["events"], out["messages"]) == (first["events"], first["messages"])
    assert runs[(("general", True),)]["windowed"] > 0
    assert runs[(("sequential", True),)]["windowed"] == 0


@pytest.mark.parametrize("pattern", ["dissemination", "allreduce_ring"])
def test_critical_paths_add_up_in_every_loop(pattern):
    model = with_state(levels(4e6, uniform_ps(-800_000, 2 * US)), 4e6, 0.6)
    every_loop(generate(CollectiveSpec(pattern, 8, 4096)), PARAMS, model, reps=3)


def test_in_order_delivery_applies_under_a_state():
    n = 50
    r0 = "".join(f"s{i}: send {8 + 64 * i}b to 1 tag 0\n" + (f"s{i} requires s{i - 1}\n" if i else "") for i in range(n))
    r1 = "".join(f"r{i}: recv {8 + 64 * i}b from 0 tag 0\n" for i in range(n))
    text = f"num_ranks 2\nrank 0 {{\n{r0}}}\nrank 1 {{\n{r1}}}\n".encode()
    model = with_state(None, 3e6, 0.5)
    model.latency_excess_ps = uniform_ps(0, 9 * US)  # successive messages can overtake
    for in_order in (False, True):
        sched = _engine.parse_goal(text, "<stream>")
        sched.in_order = in_order
        a = _engine.run(sched, PARAMS.to_engine(), model, seed=1, count=10)
        b = _engine.run(sched, PARAMS.to_engine(), model, seed=1, count=10, general=True, sequential=True)
        assert a["max_end_ps"].tolist() == b["max_end_ps"].tolist()


@pytest.mark.parametrize("weight,message", [
    (1.5, "weight must be in \\[0, 1\\)"),
    (1.0, "weight must be in \\[0, 1\\)"),
    (-0.1, "weight must be in \\[0, 1\\)"),
    (float("nan"), "weight must be in \\[0, 1\\)"),
])
def test_bad_weights_are_refused(weight, message):
    model = with_state(None, 1e6, 0.5)
    model.latency_state_weight = weight
    with pytest.raises(ValueError, match=message):
        one_message_ends_ps(model, 1)


def test_a_state_needs_a_latency_excess_and_excludes_switch_draws():
    model = _engine.NoiseModel()
    model.latency_state_process = _engine.LevelProcess(1e6, normal_scores(), 10**9)
    model.latency_state_weight = 0.5
    with pytest.raises(ValueError, match="needs latency_excess_ps"):
        one_message_ends_ps(model, 1)
    from test_specialised_loops import switch_draws
    model = with_state(None, 1e6, 0.5)
    model.switch_draws = switch_draws()
    with pytest.raises(ValueError, match="a latency state"):
        _engine.run(generate(CollectiveSpec("dissemination", 4, 8)), PARAMS.to_engine(), model)


def test_weight_zero_or_no_process_changes_nothing():
    sched = generate(CollectiveSpec("dissemination", 16, 1024))

    def base() -> _engine.NoiseModel:
        m = levels(4e6, uniform_ps(-800_000, 2 * US))
        m.latency_excess_ps = uniform_ps(-200_000, 600_000)
        return m

    assert _engine.NoiseModel().latency_state_process is None and _engine.NoiseModel().latency_state_weight == 0.0
    ref = _engine.run(sched, PARAMS.to_engine(), base(), seed=3, count=4)
    zero = with_state(base(), 4e6, 0.0)
    no_process = base()
    no_process.latency_state_weight = 0.5
    # weight 0 with no latency excess at all is no state either: not refused
    alone = _engine.NoiseModel()
    alone.latency_state_process = _engine.LevelProcess(1e6, normal_scores(), 10**9)
    one_message_ends_ps(alone, 1)
    for model in (zero, no_process):
        out = _engine.run(sched, PARAMS.to_engine(), model, seed=3, count=4)
        for key in ("max_end_ps", "host_end_ps", "events", "windowed"):
            assert np.array_equal(out[key], ref[key]), key
    rt = round_trips_ps(30, with_state(None, 1e9, 0.0), seed=6)
    assert rt.tolist() == round_trips_ps(30, plain_excess(), seed=6).tolist()

