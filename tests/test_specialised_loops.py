"""The specialised event loops (src/engine/exchange_loop.cpp, chosen by
Engine::choose_loop) give the general loop's results bit for bit: every run
here is compared with the same run forced through the general loop
(`general=True`), over patterns x sizes x rank counts x noise models x
ready orders, and the specialised loop is checked to have run at all."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.params import LogGOPS

S = 8192  # eager up to 8 KiB: the sizes below are on both sides


def table(values_ns, probabilities=None) -> _engine.QuantileTable:
    p = np.linspace(0.0, 1.0, len(values_ns)) if probabilities is None else np.array(probabilities)
    return _engine.QuantileTable(np.ascontiguousarray(p, dtype=np.float64),
                                 np.array(values_ns, dtype=np.float64) * 1000.0)


def os_trace(every_ps: int = 997_000, detour_ps: int = 41_000) -> _engine.OsNoiseTrace:
    starts = np.arange(0, 2 * 10**9, every_ps, dtype=np.int64)
    return _engine.OsNoiseTrace(starts, np.full(starts.size, detour_ps, dtype=np.int64))


def switch_draws() -> _engine.SwitchDraws:
    def ps(v):
        return np.ascontiguousarray(np.round(np.asarray(v, dtype=np.float64) * 1000), dtype=np.int64)

    def fs(v):
        return np.ascontiguousarray(np.round(np.asarray(v, dtype=np.float64) * 1_000_000), dtype=np.int64)

    # Whole-ns latencies from a few values: many ties, settled by stamps.
    return _engine.SwitchDraws(ps([900, 1000, 1000, 1400]), fs([0.1, 0.12, 0.3]), ps([1500, 1700, 2600]),
                               fs([0.15, 0.4]), 2)


def noise(kind: str) -> _engine.NoiseModel:
    m = _engine.NoiseModel()
    if kind in ("os", "os+network"):
        m.os = os_trace()
    if kind == "os-long":  # 20 us detours: some hosts' calcs end far later than others'
        m.os = os_trace(53_000_000, 20_000_000)
    if kind in ("network", "os+network"):
        p = np.linspace(0.0, 1.0, 257)
        m.latency_excess_ps = table(list(np.expm1(4.0 * p) * 400.0), list(p))
        m.bandwidth_fraction = table([0.2, 0.7, 1.0])
    if kind == "stepped":  # three exact latencies: times tie often
        m.latency_excess_ps = table([100, 100, 350, 350, 1200, 1200], [0.0, 0.4, 0.4001, 0.8, 0.8001, 1.0])
    if kind == "episodes":
        starts = np.arange(0, 10**9, 7_000_000, dtype=np.int64)
        m.bandwidth_episodes = _engine.BandwidthEpisodes(starts, starts + 3_000_000, np.full(starts.size, 0.3), 10**9)
        m.bandwidth_fraction = table([0.5, 1.0])
    if kind in ("stalls", "stalls-shared"):
        starts = np.arange(0, 9 * 10**8, 70_000_000, dtype=np.int64)
        m.latency_stalls = _engine.LatencyStalls(starts, starts + 50_000_000, 10**9)
        m.latency_stalls_shared = kind == "stalls-shared"
    if kind == "levels":  # down to -1.2 us: below -(L + o) with some parameters, the latency clamped at -o
        m.level_process = _engine.LevelProcess(2e6, table([-1200, 0, 1000]), 10**9)
    if kind == "switch":
        m.switch_draws = switch_draws()
        m.os = os_trace()
    return m


NOISES = ["none", "os", "os-long", "network", "os+network", "stepped", "episodes", "stalls", "stalls-shared", "levels",
          "switch"]

PARAMS = {
    "plain": LogGOPS.parse(L="1200", o="150", g="150", G="0.085", O="0", S=str(S)),
    # Separate receive overhead, a rendezvous O, and size classes.
    "overheads": LogGOPS.parse(L="800", o="300", g="40", G="0.3", O="0.01", S=str(S), o_r="220",
                               O_rendezvous="0.002"),
    "classes": LogGOPS.parse(L="800", o="300", g="40", G="0.3", O="0", S=str(S),
                             classes=((0, "700", "0.2", "0"), (1000, "900", "0.25", "0.001"),
                                      (20000, "1500", "0.08", "0"))),
}


def both_loops(sched, params: LogGOPS, model, reps: int, seed: int, **kw) -> dict:
    """The same repetitions through the specialised loop and the general one: equal, bit for bit."""
    fast = _engine.run(sched, params.to_engine(), model, seed=seed, count=reps, **kw)
    general = _engine.run(sched, params.to_engine(), model, seed=seed, count=reps, general=True, **kw)
    assert general["specialised"] == 0
    assert fast["max_end_ps"].tolist() == general["max_end_ps"].tolist()
    assert fast["host_end_ps"].tolist() == general["host_end_ps"].tolist()
    assert (fast["events"], fast["messages"]) == (general["events"], general["messages"])
    return fast


def paper_ring(ranks: int, size: int) -> _engine.Schedule:
    return generate(CollectiveSpec("pipelinedring", ranks, size, segmentsize="size/ranks", schedgen="paper"))


def dissemination(ranks: int, size: int) -> _engine.Schedule:
    return generate(CollectiveSpec("dissemination", ranks, size))


def app(collective: str):
    """A compute phase, then the collective (the paper's Fig. 16-17 shape): its
    receives are posted when the calc ends, and messages may arrive before."""
    from cloudnoise.schedules.apps import parse_app, resolve

    def make(ranks: int, size: int) -> _engine.Schedule:
        text = collective.format(size=size)
        return resolve(parse_app(f"compute:3us + {text}"), ranks=ranks, iterations=1).generate()

    return make


def dissemination_nb(ranks: int, size: int) -> _engine.Schedule:
    # Schedgen's --nb: a calc nothing waits for, overlapping the collective.
    return generate(CollectiveSpec("dissemination", ranks, size, nb=2))


def early_messages(ranks: int, size: int) -> _engine.Schedule:
    """Every rank sends at once and posts its receive only after a calc: each
    message arrives before its receive (the unexpected path), and a rendezvous
    send is completed by the late receive, after its sender's own calc."""
    body = "".join(
        f"rank {r} {{\nl1: calc 5000\nl2: send {size}b to {(r + 1) % ranks} tag 3\n"
        f"l3: recv {size}b from {(r - 1) % ranks} tag 3\nl3 requires l1\n}}\n"
        for r in range(ranks))
    return _engine.parse_goal(f"num_ranks {ranks}\n{body}".encode(), "early")


def public_ring(ranks: int, size: int) -> _engine.Schedule:
    """Public Schedgen's chain: rank 0 only sends, the last rank only receives, and
    a rank's receives share one source and tag (matched in posting order). 4096 B
    in 41 eager segments (more than 16 posted at once: LogGOPSim's unstable sort
    posts them out of program order), 96 KiB in 5 rendezvous ones; the last shorter."""
    return generate(CollectiveSpec("pipelinedring", ranks, size, segmentsize=100 if size < S else 20000))


def tree(pattern: str, schedgen: str = "public"):
    def make(ranks: int, size: int) -> _engine.Schedule:
        return generate(CollectiveSpec(pattern, ranks, size, schedgen=schedgen))

    return make


# (schedule maker, sizes): eager, rendezvous, and a ring whose last segment is shorter.
CASES = [
    (paper_ring, [4096, 96 * 1024 + 5]),
    (dissemination, [16, 64 * 1024]),
    (app("dissemination:{size}B"), [16, 64 * 1024]),
    (app("pipelinedring:{size}B:schedgen=paper,segmentsize=size/ranks"), [4096, 96 * 1024 + 5]),
    (dissemination_nb, [16, 64 * 1024]),
    (early_messages, [16, 64 * 1024]),
    (public_ring, [4096, 96 * 1024 + 5]),
    # A receive releasing several sends; the paper's: each send also waits for the one before.
    (tree("binomialtreebcast"), [16, 64 * 1024]),
    (tree("binomialtreebcast", "paper"), [16, 64 * 1024]),
    # A send waiting for several receives (some edges declared twice).
    (tree("binomialtreereduce"), [16, 64 * 1024]),
    (tree("binarytreebcast"), [16, 64 * 1024]),  # a template per rank
    (app("binomialtreereduce:{size}B"), [16, 64 * 1024]),
]


@pytest.mark.parametrize("noise_kind", NOISES)
@pytest.mark.parametrize("make,sizes", CASES,
                         ids=["paper-ring", "dissemination", "compute+dissemination", "compute+paper-ring",
                              "dissemination-nb", "early-messages", "public-ring", "binomial-bcast",
                              "binomial-bcast-paper", "binomial-reduce", "binary-bcast", "compute+reduce"])
@pytest.mark.parametrize("ranks", [1, 2, 7, 64])
def test_exchange_loop_matches_the_general_loop(make, sizes, ranks, noise_kind):
    for size in sizes:
        sched = make(ranks, size)
        for k, (name, params) in enumerate(PARAMS.items()):
            if noise_kind == "switch" and name != "plain":
                continue
            program = (k + len(noise_kind)) % 2 == 0
            # The global order (sequential) in both loops, whatever the noise.
            out = both_loops(sched, params, noise(noise_kind), reps=3, seed=ranks + size, sequential=True,
                             program_order=program)
            assert out["specialised"] == 3


@pytest.mark.parametrize("noise_kind", ["none", "network", "switch"])
@pytest.mark.parametrize("program_order", [False, True])
def test_the_paper_ring_runs_specialised_by_default(noise_kind, program_order):
    # Rendezvous messages keep the general loop out of windows: the
    # exchange loop runs without being asked, as `simulate` runs it.
    sched = paper_ring(48, 48 * 20 * 1024)
    out = both_loops(sched, PARAMS["plain"], noise(noise_kind), reps=4, seed=11, threads=2,
                     program_order=program_order)
    assert out["specialised"] == 4 and out["windowed"] == 0


def test_eager_exchanges_of_few_rounds_under_noise_keep_the_windows():
    # The windows are faster there (Engine::choose_loop), and exact as well.
    out = both_loops(dissemination(256, 16), PARAMS["plain"], noise("os+network"), reps=3, seed=2)
    assert out["specialised"] == 0 and out["windowed"] == 3


def test_eager_rings_under_noise_run_specialised():
    # Many rounds: the exchange loop beats the windows by far (Engine::choose_loop).
    out = both_loops(paper_ring(80, 80 * 1024), PARAMS["plain"], noise("os+network"), reps=3, seed=2)
    assert out["specialised"] == 3 and out["windowed"] == 0


@pytest.mark.parametrize("noise_kind", ["none", "network", "os+network", "switch"])
@pytest.mark.parametrize(
    "spec",
    [CollectiveSpec("nwaydissemination", 9, 64, nway=2),  # calcs between the rounds
     CollectiveSpec("allreduce_ring", 12, 4096),
     CollectiveSpec("allreduce_recdoub", 11, 4096),
     CollectiveSpec("linbarrier", 24, 1),  # a calc waiting for 23 receives, releasing 23 sends
     CollectiveSpec("gather", 20, 64 * 1024),
     CollectiveSpec("scatter", 20, 64 * 1024),
     CollectiveSpec("doublering", 9, 64 * 1024),
     CollectiveSpec("linear_alltoall", 9, 64 * 1024),
     CollectiveSpec("binomialtreebcast", 19, 64 * 1024, nb=3)],
    ids=["nwaydissemination", "allreduce-ring", "allreduce-recdoub", "linbarrier", "gather", "scatter",
         "doublering", "linear-alltoall", "binomial-bcast-nb"],
)
def test_other_generated_collectives_run_specialised(spec, noise_kind):
    for k, (name, params) in enumerate(PARAMS.items()):
        if noise_kind == "switch" and name != "plain":
            continue
        # LogGOPSim's order deadlocks the ring allreduce (engine.hpp, ReadyOrder).
        program = k % 2 == 0 or spec.pattern == "allreduce_ring"
        out = both_loops(generate(spec), params, noise(noise_kind), reps=2, seed=3, sequential=True,
                         program_order=program)
        assert out["specialised"] == 2


@pytest.mark.parametrize("noise_kind", ["none", "network", "switch"])
@pytest.mark.parametrize("spec", [CollectiveSpec("pipelinedring", 48, 48 * 20 * 1024, segmentsize=20 * 1024),
                                  CollectiveSpec("binomialtreebcast", 48, 20 * 1024),
                                  CollectiveSpec("binomialtreereduce", 48, 20 * 1024)],
                         ids=["public-ring", "binomial-bcast", "binomial-reduce"])
def test_rendezvous_chains_and_trees_run_specialised_by_default(spec, noise_kind):
    out = both_loops(generate(spec), PARAMS["plain"], noise(noise_kind), reps=3, seed=11, threads=2)
    assert out["specialised"] == 3 and out["windowed"] == 0


@pytest.mark.parametrize(
    "spec",
    [CollectiveSpec("pipelinedringdep", 16, 4096, segmentsize=512),  # a channel's receives posted late
     CollectiveSpec("chained_dissem", 8, 64)],
    ids=["pipelinedringdep", "chained-dissemination"],
)
def test_other_schedules_take_the_general_loop(spec):
    out = both_loops(generate(spec), PARAMS["plain"], noise("network"), reps=2, seed=3, sequential=True,
                     program_order=True)
    assert out["specialised"] == 0


def test_applications_of_several_iterations_take_the_general_loop():
    # A join between iterations waits for several ops: not an exchange.
    from cloudnoise.schedules.apps import parse_app, resolve

    sched = resolve(parse_app("compute:3us + dissemination:64B"), ranks=8, iterations=2).generate()
    out = both_loops(sched, PARAMS["plain"], noise("network"), reps=2, seed=3, sequential=True)
    assert out["specialised"] == 0


def test_a_goal_file_of_the_same_ring_runs_specialised_with_the_same_results():
    # The loop is chosen by the schedule's shape, not by where it came from.
    from cloudnoise.schedules.patterns import goal_text

    spec = CollectiveSpec("pipelinedring", 6, 6 * 10000, segmentsize="size/ranks", schedgen="paper")
    parsed = _engine.parse_goal(goal_text(spec).encode())
    generated = generate(spec)
    a = both_loops(parsed, PARAMS["plain"], noise("switch"), reps=3, seed=4)
    b = both_loops(generated, PARAMS["plain"], noise("switch"), reps=3, seed=4)
    assert a["max_end_ps"].tolist() == b["max_end_ps"].tolist() and a["specialised"] == 3
