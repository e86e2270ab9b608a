"""Host-by-host processing in time windows (src/engine/windowed_events.hpp)
gives LogGOPSim's results bit for bit: every run here is compared with the
same run through the single global event queue (`sequential=True`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.params import LogGOPS
from loggops_model import to_goal
from random_schedules import random_schedule


def table(values_ns: list[float], probabilities: list[float] | None = None) -> _engine.QuantileTable:
    p = np.linspace(0.0, 1.0, len(values_ns)) if probabilities is None else np.array(probabilities)
    return _engine.QuantileTable(np.ascontiguousarray(p, dtype=np.float64), np.array(values_ns, dtype=np.float64) * 1000.0)


def continuous_latency() -> _engine.QuantileTable:
    # A lognormal-like spread over 0-20 us: ties between times are rare.
    p = np.linspace(0.0, 1.0, 257)
    return table(list(np.expm1(4.0 * p) * 400.0), list(p))


def stepped_latency() -> _engine.QuantileTable:
    # Three exact values: many messages share a latency, so times tie, and
    # their order is settled by following the pushers back (stamp_order.hpp).
    return table([100, 100, 350, 350, 1200, 1200], [0.0, 0.4, 0.4001, 0.8, 0.8001, 1.0])


def noise_model(latency, *, bandwidth=True, os_noise=True) -> _engine.NoiseModel:
    model = _engine.NoiseModel()
    if latency is not None:
        model.latency_excess_ps = latency
    if bandwidth:
        model.bandwidth_fraction = table([0.2, 0.7, 1.0])
    if os_noise:
        starts = np.arange(0, 2 * 10**9, 997_000, dtype=np.int64)  # ps
        model.os = _engine.OsNoiseTrace(starts, np.full(starts.size, 41_000, dtype=np.int64))
    return model


def both_ways(sched, params: LogGOPS, noise, reps: int, seed: int = 5, **kw):
    windowed = _engine.run(sched, params.to_engine(), noise, seed=seed, count=reps, threads=2, **kw)
    sequential = _engine.run(sched, params.to_engine(), noise, seed=seed, count=reps, sequential=True, **kw)
    assert sequential["windowed"] == 0
    assert windowed["max_end_ps"].tolist() == sequential["max_end_ps"].tolist()
    assert windowed["host_end_ps"].tolist() == sequential["host_end_ps"].tolist()
    assert (windowed["events"], windowed["messages"]) == (sequential["events"], sequential["messages"])
    return windowed


@pytest.mark.parametrize("seed", range(40))
def test_random_eager_schedules_match_the_global_order(seed):
    rng = random.Random(7000 + seed)
    P = rng.choice([2, 3, 5, 8, 13])
    S = 65535
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 80), S, sizes=[0, 1, 8, 100, 5000, S], cpus=1)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(
        L=rng.choice(["300", "2500"]), o=rng.choice(["10", "1500"]), g=rng.choice(["6", "1000"]),
        G=rng.choice(["0", "0.5", "6"]), O=rng.choice(["0", "1"]), S=str(S),
    )
    latency = stepped_latency() if seed % 2 else continuous_latency()
    both_ways(sched, params, noise_model(latency, os_noise=seed % 3 != 0), reps=12, seed=seed,
              program_order=seed % 4 == 0)


def test_random_schedules_mostly_run_in_windows():
    # Under continuous latency noise few ties are left unsettled. (Big
    # O-costs make hosts queue messages at one busy time, pushed by hosts
    # that sent in lockstep: such runs go back to the global order.)
    windowed = 0
    for seed in range(12):
        rng = random.Random(9000 + seed)
        ranks, requires, irequires = random_schedule(rng, 6, 60, 65535, sizes=[8, 100, 5000], cpus=1)
        sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
        params = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.5", O="0", S="65535")
        windowed += both_ways(sched, params, noise_model(continuous_latency()), reps=4, seed=seed)["windowed"]
    assert windowed >= 40


@pytest.mark.parametrize(
    "pattern,ranks,size",
    [("dissemination", 1024, 16), ("allreduce_ring", 48, 65536), ("binomialtreebcast", 300, 1024),
     ("linear_alltoall", 24, 64)],
)
def test_collectives_match_the_global_order(pattern, ranks, size):
    sched = generate(CollectiveSpec(pattern, ranks, size))
    params = LogGOPS.parse(L="1200", o="150", g="150", G="0.085", O="0", S="1000000")
    # general=True: the windows are the general loop's; a collective the exchange loop takes
    # (allreduce_ring's 94 sends a rank) is compared with it in test_specialised_loops.py
    out = both_ways(sched, params, noise_model(continuous_latency()), reps=6, program_order=pattern != "dissemination",
                    general=True)
    assert out["windowed"] == 6


def test_events_far_beyond_the_window_ring_match_the_global_order():
    # Calcs of 5-20 ms between messages, windows of ~0.5 us: events land
    # thousands of windows ahead (held apart, then pulled in), and the
    # windows run dry while a calc is pending (a jump to the next event).
    lines = ["num_ranks 4"]
    for r in range(4):
        lines.append(f"rank {r} {{")
        prev = None
        for k in range(6):
            peer = (r + 1 + k) % 4 if (r + 1 + k) % 4 != r else (r + 2) % 4
            lines += [f"s{k}: send 8b to {peer} tag {k}", f"c{k}: calc {(5 + 3 * k) * 10**6}", f"c{k} requires s{k}"]
            if prev:
                lines.append(f"s{k} requires {prev}")
            prev = f"c{k}"
        for k in range(6):
            src = [q for q in range(4) if q != r and ((q + 1 + k) % 4 if (q + 1 + k) % 4 != q else (q + 2) % 4) == r]
            for q in src:
                lines.append(f"r{k}_{q}: recv 8b from {q} tag {k}")
        lines.append("}")
    sched = _engine.parse_goal(("\n".join(lines) + "\n").encode())
    params = LogGOPS.parse(L="500", o="100", g="50", G="0.1", O="0", S="65535")
    out = both_ways(sched, params, noise_model(continuous_latency()), reps=8)
    assert out["windowed"] == 8


def test_stepped_latencies_settle_every_tie():
    # Stepped latencies on a dissemination: many ties, some only settled
    # by following pushers several levels back; none is left unsettled.
    sched = generate(CollectiveSpec("dissemination", 256, 16))
    params = LogGOPS.parse(L="1000", o="200", g="100", G="0", O="0", S="65535")
    out = both_ways(sched, params, noise_model(stepped_latency(), bandwidth=False, os_noise=False), reps=24)
    assert out["windowed"] == 24


def test_unsettled_ties_run_again_in_the_global_order():
    # With only 512 stamps' pushers remembered (a repetition gives 6144),
    # ties between events whose own stamps or pushers lie further back
    # cannot be followed: those repetitions run again in the global order,
    # and the results still agree. (An event's pusher is read from these
    # records, not carried in the event, so at 16 no repetition settles.)
    sched = generate(CollectiveSpec("dissemination", 256, 16))
    params = LogGOPS.parse(L="1000", o="200", g="100", G="0", O="0", S="65535")
    noise = noise_model(stepped_latency(), bandwidth=False, os_noise=False)
    out = both_ways(sched, params, noise, reps=24, stamp_record_bits=9)
    assert 0 < out["windowed"] < 24


def dense_os_noise(seed: int, rate_per_us: float = 0.05) -> _engine.NoiseModel:
    # Detours of 0.05-8 us at random starts: most activities are quiet, and
    # the hosts hit by a detour shift whole waves of others in lockstep.
    rng = np.random.default_rng(seed)
    span_ps = 2 * 10**9
    starts = np.sort(rng.integers(0, span_ps, int(span_ps / 1e6 * rate_per_us)))
    durations = rng.integers(50_000, 8_000_000, starts.size)
    model = _engine.NoiseModel()
    model.os = _engine.OsNoiseTrace(np.ascontiguousarray(starts, dtype=np.int64),
                                    np.ascontiguousarray(durations, dtype=np.int64))
    return model


@pytest.mark.parametrize(
    "pattern,ranks,size",
    [("dissemination", 4096, 16), ("nwaydissemination", 1024, 16), ("allreduce_ring", 48, 65536),
     ("binomialtreebcast", 300, 1024), ("linear_alltoall", 24, 64), ("allreduce_recdoub", 64, 8)],
)
def test_os_noise_alone_runs_in_windows_with_the_global_order(pattern, ranks, size):
    # Without latency noise unperturbed hosts tie everywhere; the ties are
    # settled by following pushers back, a dozen levels at times.
    sched = generate(CollectiveSpec(pattern, ranks, size))
    params = LogGOPS.parse(L="1200", o="150", g="150", G="0.085", O="0", S="1000000")
    out = both_ways(sched, params, dense_os_noise(ranks), reps=6, program_order="dissemination" not in pattern,
                    general=True)  # the general loop's windows (as above)
    assert out["windowed"] == 6


@pytest.mark.parametrize("seed", range(20))
def test_random_schedules_under_os_noise_alone_match_the_global_order(seed):
    rng = random.Random(11000 + seed)
    P = rng.choice([3, 5, 8, 13])
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 80), 65535, sizes=[0, 1, 8, 5000], cpus=1)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(L=rng.choice(["300", "2500"]), o=rng.choice(["10", "1500"]), g="1000",
                           G=rng.choice(["0", "6"]), O="0", S="65535")
    out = both_ways(sched, params, dense_os_noise(seed, rate_per_us=rng.choice([0.02, 0.2])), reps=8, seed=seed,
                    program_order=seed % 4 == 0)
    assert out["windowed"] == 8


def test_window_edge_is_the_lookahead():
    # o + L + the least excess is exactly 2^12 ps: a message can land on the
    # first picosecond of the next window.
    sched = generate(CollectiveSpec("dissemination", 64, 8))
    params = LogGOPS.parse(L="3.096", o="1", g="0.5", G="0", O="0", S="65535")
    latency = table([0.0, 0.0, 0.001, 0.002, 0.003], [0.0, 0.5, 0.6, 0.8, 1.0])
    both_ways(sched, params, noise_model(latency, bandwidth=False, os_noise=False), reps=30)


def test_runs_without_a_usable_lookahead_or_with_rendezvous_use_the_global_order():
    sched = generate(CollectiveSpec("dissemination", 32, 100_000))
    params = LogGOPS.parse(L="1000", o="100", g="100", G="0.1", O="0", S="65535")
    out = both_ways(sched, params, noise_model(continuous_latency()), reps=4)
    assert out["windowed"] == 0  # 100 kB messages are rendezvous: no lookahead
    # A latency excess down to -L - o leaves no lookahead either.
    eager = generate(CollectiveSpec("dissemination", 32, 8))
    out = both_ways(eager, params, noise_model(table([-1100.0, 0.0, 50.0]), bandwidth=False), reps=4)
    assert out["windowed"] == 0
    # A second CPU can start an op before the event that released it.
    rng = random.Random(3)
    ranks, requires, irequires = random_schedule(rng, 4, 40, 65535, sizes=[8], cpus=2)
    two_cpus = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    out = both_ways(two_cpus, params, noise_model(continuous_latency()), reps=4)
    assert out["windowed"] == 0
    # Without any noise every host runs in lockstep: the windows are not tried.
    out = both_ways(eager, params, _engine.NoiseModel(), reps=2)
    assert out["windowed"] == 0


# Rendezvous in windows (rendezvous_windows=True; Auto keeps such schedules in
# the global queue, where they measured faster): a receiver's match completes
# its sender's send as an event of the sender (windowed_events.hpp).


def random_rendezvous_case(seed: int):
    """A random schedule with eager and rendezvous messages, and parameters."""
    rng = random.Random(11000 + seed)
    P = rng.choice([2, 3, 5, 8, 13])
    S = rng.choice([64, 4096])
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 80), S, sizes=[0, 8, 100, 5000, 70000], cpus=1)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(
        L=rng.choice(["300", "2500"]), o=rng.choice(["10", "1500"]), g=rng.choice(["6", "1000"]),
        G=rng.choice(["0", "0.5", "6"]), O=rng.choice(["0", "1"]), S=str(S),
    )
    return sched, params


@pytest.mark.parametrize("seed", range(40))
def test_random_rendezvous_schedules_match_the_global_order(seed):
    sched, params = random_rendezvous_case(seed)
    latency = stepped_latency() if seed % 2 else continuous_latency()
    both_ways(sched, params, noise_model(latency, os_noise=seed % 3 != 0), reps=12, seed=seed,
              program_order=seed % 4 == 0, rendezvous_windows=True)


@pytest.mark.parametrize("seed", [71, 150, 219, 1, 2, 3])
def test_tied_descendants_of_a_match_settle_as_the_global_order(seed):
    # Stepped latencies tie children of a match's two parts (the receiver's
    # and the completed sender's ops), whose order the reference gave by
    # host: the windows cannot tell it and run such repetitions again. On
    # seeds 71, 150 and 219 (found by a sweep of 400) ordering them by
    # provisional stamp instead gives other results.
    sched, params = random_rendezvous_case(seed)
    both_ways(sched, params, noise_model(stepped_latency(), os_noise=seed % 3 != 0), reps=12, seed=seed,
              program_order=seed % 4 == 0, rendezvous_windows=True)


def test_random_rendezvous_schedules_mostly_run_in_windows():
    windowed = total = 0
    for seed in range(12):
        rng = random.Random(12000 + seed)
        ranks, requires, irequires = random_schedule(rng, 6, 60, 4096, sizes=[8, 100, 70000], cpus=1)
        sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
        params = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.5", O="0", S="4096")
        windowed += both_ways(sched, params, noise_model(continuous_latency()), reps=4, seed=seed,
                              rendezvous_windows=True)["windowed"]
        total += 4
    assert windowed >= total // 2


@pytest.mark.parametrize(
    "pattern,ranks,size",
    [("allreduce_ring", 48, 6_553_600), ("binomialtreebcast", 300, 102_400), ("pipelinedring", 64, 8 << 20)],
)
def test_rendezvous_collectives_run_in_windows_with_the_global_order(pattern, ranks, size):
    sched = generate(CollectiveSpec(pattern, ranks, size, segmentsize=512 << 10))
    params = LogGOPS.parse(L="1000", o="100", g="100", G="0.1", O="0", S="65535")
    out = both_ways(sched, params, noise_model(continuous_latency()), reps=6, program_order=True,
                    rendezvous_windows=True)
    assert out["windowed"] == 6
    # Auto keeps them in the global queue (faster there).
    auto = _engine.run(sched, params.to_engine(), noise_model(continuous_latency()), count=2, program_order=True)
    assert auto["windowed"] == 0


def test_completions_the_windows_cannot_place_run_again_in_the_global_order():
    # Dissemination's last round pairs ranks that complete each other's
    # sends in one window: some repetitions cannot be placed, and run again.
    sched = generate(CollectiveSpec("dissemination", 32, 100_000))
    params = LogGOPS.parse(L="1000", o="100", g="100", G="0.1", O="0", S="65535")
    out = both_ways(sched, params, noise_model(continuous_latency()), reps=12, rendezvous_windows=True)
    assert 0 < out["windowed"] < 12


def switch_draws(per_switch: int) -> _engine.NoiseModel:
    # Near and far sample sets in ps (L) and fs per byte (G), as the authors'.
    rng = np.random.default_rng(3)
    model = _engine.NoiseModel()
    model.switch_draws = _engine.SwitchDraws(
        np.ascontiguousarray(rng.integers(900_000, 1_400_000, 64), dtype=np.int64),
        np.ascontiguousarray(rng.integers(90_000, 130_000, 64), dtype=np.int64),
        np.ascontiguousarray(rng.integers(1_500_000, 3_000_000, 64), dtype=np.int64),
        np.ascontiguousarray(rng.integers(100_000, 200_000, 64), dtype=np.int64),
        per_switch,
    )
    return model


@pytest.mark.parametrize("pattern,size", [("pipelinedring", 40 << 20), ("dissemination", 16)])
def test_switch_draws_run_in_windows_with_the_global_order(pattern, size):
    # Messages of several 16 MiB blocks (each its own G draw) and eager ones.
    sched = generate(CollectiveSpec(pattern, 48, size, segmentsize=20 << 20))
    params = LogGOPS.parse(L="1000", o="100", g="100", G="0.1", O="0", S="65535")
    out = both_ways(sched, params, switch_draws(8), reps=6, program_order=True, rendezvous_windows=True)
    assert out["windowed"] == 6
