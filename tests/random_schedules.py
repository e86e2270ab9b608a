"""Random deadlock-free GOAL schedules for differential tests."""

from __future__ import annotations

import random


def random_schedule(
    rng: random.Random, P: int, n_msgs: int, S: int, sizes: list[int] | None = None, cpus: int = 3
):
    """A deadlock-free schedule of `n_msgs` messages among P ranks: several
    CPUs (`cpus` per rank) and NICs, wildcards that cannot steal another's message, requires
    and irequires edges to earlier ops, calcs; message sizes from `sizes`
    (default: around the eager limit S, 0 bytes and rendezvous sizes)."""
    if sizes is None:
        sizes = [0, 1, 8, 100, S, S + 1, 5000, 70000]
    ranks: list[list[dict]] = [[] for _ in range(P)]
    position: list[list[int]] = [[] for _ in range(P)]  # global step of each op
    pairs_count: dict[tuple[int, int], int] = {}
    messages = []
    for k in range(n_msgs):
        src, dst = rng.randrange(P), rng.randrange(P)
        if src == dst:
            dst = (dst + 1) % P
        pairs_count[(src, dst)] = pairs_count.get((src, dst), 0) + 1
        messages.append((k, src, dst))
    step = 0
    for k, src, dst in messages:
        size = rng.choice(sizes)
        cpu, nic = rng.randrange(cpus), rng.randrange(2)
        ranks[src].append(dict(kind="send", amount=size, peer=dst, tag=k, cpu=cpu, nic=nic))
        position[src].append(step)
        # Wildcards only where they cannot steal another message.
        peer = -1 if rng.random() < 0.3 else src
        tag = -1 if (pairs_count[(src, dst)] == 1 and rng.random() < 0.3) else k
        if peer == -1 and tag == -1:
            tag = k
        ranks[dst].append(dict(kind="recv", amount=size, peer=peer, tag=tag, cpu=rng.randrange(cpus), nic=rng.randrange(2)))
        position[dst].append(step)
        step += 1
        if rng.random() < 0.3:
            h = rng.randrange(P)
            ranks[h].append(dict(kind="calc", amount=rng.choice([0, 10, 500, 3000]), peer=0, tag=0, cpu=rng.randrange(cpus), nic=0))
            position[h].append(step)
            step += 1
    requires: list[list[tuple[int, int]]] = [[] for _ in range(P)]
    irequires: list[list[tuple[int, int]]] = [[] for _ in range(P)]
    for h in range(P):
        n = len(ranks[h])
        for a in range(1, n):
            # Edges only to earlier ops of the rank, which belong to earlier
            # global steps: no deadlock. Every op but a few gets one, so at
            # most a handful of ops become ready at once: the model's stable
            # sort agrees with LogGOPSim's std::sort only up to 16 ops.
            for _ in range(1 if rng.random() < 0.9 else rng.choice([0, 2])):
                b = rng.randrange(max(0, a - 4), a)
                assert position[h][b] < position[h][a]
                (irequires if rng.random() < 0.25 else requires)[h].append((a, b))
    return ranks, requires, irequires
