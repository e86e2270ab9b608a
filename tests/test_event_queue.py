"""The engine's event queue pops in (time, stamp) order, as LogGOPSim's
priority queue does, on the push patterns the engine produces: distinct
times (network noise), large same-time groups (no noise), latency spikes far
beyond the rest, events re-queued with their old stamp, and pushes at a time
already past. Checked against heapq on the same sequence."""

from __future__ import annotations

import heapq
import random

import numpy as np
import pytest

from cloudnoise import _engine


def engine_like_sequence(rng: random.Random, n: int, delay) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Pushes and pops as an engine makes them, and the order heapq pops."""
    times: list[int] = []
    stamps: list[int] = []
    reference: list[tuple[int, int]] = []
    expected: list[int] = []
    popped: list[tuple[int, int]] = []
    now = stamp = 0
    for _ in range(n):
        for _ in range(rng.choice((0, 1, 1, 2)) if reference else 1):
            t = max(0, now + delay(rng))
            if popped and rng.random() < 0.1:
                # Re-queued: an op that found its CPU busy keeps its stamp.
                old_time, old_stamp = popped.pop()
                t, s = max(t, old_time), old_stamp
            else:
                s = stamp
                stamp += 1
            times.append(t)
            stamps.append(s)
            heapq.heappush(reference, (t, s))
        for _ in range(rng.choice((0, 1, 1, 2))):
            if not reference:
                break
            t, s = heapq.heappop(reference)
            times.append(-1)
            stamps.append(0)
            expected.append(s)
            popped.append((t, s))
            now = t
    while reference:
        times.append(-1)
        stamps.append(0)
        expected.append(heapq.heappop(reference)[1])
    return np.array(times, dtype=np.int64), np.array(stamps, dtype=np.int64), expected


DELAYS = {
    # Network noise: nearly every time distinct, ~1.4 us ahead.
    "distinct": lambda rng: 1_350_000 + int(rng.expovariate(1 / 20_000)),
    # No noise: a few fixed delays, so thousands share a time.
    "same_time": lambda rng: rng.choice((0, 150_000, 1_350_000)),
    # Rare latency spikes of milliseconds, far beyond the window.
    "spikes": lambda rng: int(rng.paretovariate(0.8) * 1_000) if rng.random() < 0.02 else rng.randrange(3_000),
    # Every scale at once, and pushes into the past.
    "mixed": lambda rng: -rng.randrange(5_000) if rng.random() < 0.05 else rng.randrange(1 << rng.randrange(45)),
    # Dense distinct times: the slot width narrows.
    "dense": lambda rng: rng.randrange(64),
    # Sparse: the slot width widens.
    "sparse": lambda rng: rng.randrange(1 << 40),
}


@pytest.mark.parametrize("pattern", sorted(DELAYS))
@pytest.mark.parametrize("seed", [1, 2])
def test_event_queue_pops_in_time_then_stamp_order(pattern, seed):
    rng = random.Random(f"{pattern}-{seed}")
    times, stamps, expected = engine_like_sequence(rng, 30_000, DELAYS[pattern])
    # Two passes: the second starts with the slot width the first learned.
    got = _engine.replay_event_queue(times, stamps, passes=2)
    assert got.tolist() == expected


def crowd_sequence(rng: random.Random, crowd: int, span: int, rounds: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Crowds of `crowd` events within `span` ps of each other, as dense traffic makes them
    (thousands of messages of a 16K-rank collective in one calendar slot): each crowd's stamps
    rise in push order but for a tenth queued again with an older stamp, so a slot holds many
    short runs; half of each crowd is popped before the next arrives, so narrow crowds land in
    the slot being served. Returns times (-1: a pop), stamps and heapq's pop order."""
    times: list[int] = []
    stamps: list[int] = []
    heap: list[tuple[int, int]] = []
    expected: list[int] = []
    stamp, now = 0, 0
    old: list[int] = []  # stamps popped and free to come back
    for _ in range(rounds):
        base = now + rng.randrange(1, 4 * span + 2)
        for _ in range(crowd):
            t = base + rng.randrange(span)
            if old and rng.random() < 0.1:
                s = old.pop(rng.randrange(len(old)))
            else:
                s = stamp
                stamp += 1
            times.append(t)
            stamps.append(s)
            heapq.heappush(heap, (t, s))
        for _ in range(len(heap) // 2):
            t, s = heapq.heappop(heap)
            times.append(-1)
            stamps.append(0)
            expected.append(s)
            old.append(s)
            now = t
    while heap:
        times.append(-1)
        stamps.append(0)
        expected.append(heapq.heappop(heap)[1])
    return np.array(times, dtype=np.int64), np.array(stamps, dtype=np.int64), expected


# Spans in ps: within one radix pass (2^11), two (2^22), and beyond, where a slot is sorted outright.
@pytest.mark.parametrize("span", [1, 900, 1_500_000, 40_000_000])
@pytest.mark.parametrize("crowd", [40, 2_000])
def test_dense_crowds_pop_in_time_then_stamp_order(span, crowd):
    rng = random.Random(f"crowd-{span}-{crowd}")
    times, stamps, expected = crowd_sequence(rng, crowd, span, rounds=12)
    got = _engine.replay_event_queue(times, stamps, passes=2)
    assert got.tolist() == expected
