"""The engine against an independent Python model of LogGOPSim's rules, on
random deadlock-free schedules with several CPUs and NICs, wildcards,
irequires, eager and rendezvous messages, 0-byte messages and calcs."""

from __future__ import annotations

import random

import pytest

from cloudnoise import _engine, simulate
from cloudnoise.simulation.params import LogGOPS
from loggops_model import simulate as model_simulate
from loggops_model import to_goal
from random_schedules import random_schedule


@pytest.mark.parametrize("seed", range(60))
def test_engine_matches_model(seed):
    rng = random.Random(seed)
    P = rng.choice([2, 3, 5, 8])
    S = rng.choice([0, 64, 4096, 65535])
    ranks, requires, irequires = random_schedule(rng, P, rng.randrange(5, 60), S)
    L, o, g, G, O = rng.choice([0, 1000, 2500]), rng.choice([10, 200, 1500]), rng.choice([6, 500, 1000]), rng.choice([0, 1, 6]), rng.choice([0, 1])
    expected = model_simulate(ranks, requires, irequires, L, o, g, G, O, S)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(L=str(L), o=str(o), g=str(g), G=str(G), O=str(O), S=str(S))
    assert simulate(sched, params=params).host_end_ns.tolist() == expected


def queue_heavy_schedule(rng: random.Random, P: int, n_msgs: int):
    """Many messages per pair on few tags, receives posted up front (roots),
    some wildcards: long posted and unexpected queues, with runs."""
    ranks: list[list[dict]] = [[] for _ in range(P)]
    requires: list[list[tuple[int, int]]] = [[] for _ in range(P)]
    for _ in range(n_msgs):
        src = rng.randrange(P)
        dst = (src + rng.randrange(1, P)) % P
        tag = rng.randrange(2)
        size = rng.choice([1, 8, 70000])
        ranks[src].append(dict(kind="send", amount=size, peer=dst, tag=tag, cpu=0, nic=0))
        # Same size on both sides; any-source/any-tag only with one sender
        # and one tag per receiver, so no receive can steal another's message.
        ranks[dst].append(dict(kind="recv", amount=size, peer=src, tag=tag, cpu=0, nic=0))
    for h in range(P):
        sends = [i for i, op in enumerate(ranks[h]) if op["kind"] == "send"]
        for a, b in zip(sends[1:], sends):  # sends in order, one after another
            if rng.random() < 0.5:
                requires[h].append((a, b))
    return ranks, requires, [[] for _ in range(P)]


@pytest.mark.parametrize("seed", range(25))
def test_engine_matches_model_on_long_queues_in_program_order(seed):
    # The model sorts ready ops stably, as --ready-order program does, so
    # any number of ready ops can be compared.
    rng = random.Random(1000 + seed)
    P = rng.choice([2, 3, 4])
    ranks, requires, irequires = queue_heavy_schedule(rng, P, rng.randrange(20, 120))
    L, o, g, G, O, S = 1000, 200, 500, 1, 0, 4096
    expected = model_simulate(ranks, requires, irequires, L, o, g, G, O, S)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(L=str(L), o=str(o), g=str(g), G=str(G), O=str(O), S=str(S))
    assert simulate(sched, params=params, ready_order="program").host_end_ns.tolist() == expected
