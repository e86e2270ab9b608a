"""What the engine's event queue alone costs per event, at the number of pending events the
paper's rings hold: the floor under any event loop that keeps LogGOPSim's global (time,
stamp) order, as every cloudnoise loop must to give the general loop's results bit for bit.

    python bench/bench_queue_floor.py                       # 1,024 to 32,768 pending, 2 M events each
    python bench/bench_queue_floor.py --pending 16384 --events 4000000

The model is the classic "hold" benchmark of priority queues: `--pending` events are queued,
then every pop is followed by one push at the popped time plus a delay (the rings' traffic:
each rank has about one event pending, each processed event queues the next one a segment
time or a latency later). Delays are drawn around the 512 MiB ring's: one segment's
transfer (16,384 nodes: 32 KiB at Daint's 0.14 ns/B, 4.6 us; 1,024 nodes: 512 KiB, 73 us)
times a factor in [0.5, 1.5), so nearly every time is distinct, as under network noise.
The sequence (built with heapq, not timed) is replayed through `_engine.replay_event_queue`,
the engine's own `EventQueue` (src/engine/event_queue.hpp) as the loops use it, three passes
after one warm-up, and the best pass is kept: ns per event (one pop and one push).

The ring's events per repetition (`cloudnoise simulate ... --json`'s `events`): 1,024 nodes
3.1 M, 4,096 nodes 50.3 M, 16,384 nodes 805 M. Multiplied by the cost per event here,
that is the queue's share alone; the target for the 16,384-node ring is 20 s a
repetition for everything.
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import time

import numpy as np

from cloudnoise import _engine

# Events per repetition of the paper's 512 MiB ring under network noise (Daint across racks),
# as `cloudnoise simulate --json` reports them: three per message, n * n messages (1,024 and
# 4,096 nodes measured so; 16,384 nodes taken as the same three per message).
RING_EVENTS = {n: 3 * n * n for n in (1024, 4096, 16384)}
SEGMENT_PS = {1024: 73_400_000, 4096: 18_350_000, 16384: 4_590_000}


def hold_sequence(pending: int, events: int, mean_delay_ps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Times (-1: a pop) and stamps of `pending` pushes, then `events` pop-push pairs."""
    rng = random.Random(seed)
    heap: list[tuple[int, int]] = []
    times = np.empty(pending + 2 * events, dtype=np.int64)
    stamps = np.zeros(pending + 2 * events, dtype=np.int64)
    stamp = 0
    for i in range(pending):
        t = rng.randrange(mean_delay_ps)
        heapq.heappush(heap, (t, stamp))
        times[i], stamps[i] = t, stamp
        stamp += 1
    i = pending
    for _ in range(events):
        now, _ = heapq.heappop(heap)
        times[i] = -1
        i += 1
        t = now + int(mean_delay_ps * (0.5 + rng.random()))
        heapq.heappush(heap, (t, stamp))
        times[i], stamps[i] = t, stamp
        stamp += 1
        i += 1
    return times, stamps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pending", default="1024,4096,16384,32768", help="events pending at once (comma list)")
    ap.add_argument("--events", type=int, default=2_000_000, help="pop-push pairs replayed per pass")
    opts = ap.parse_args()
    try:
        pendings = [int(v) for v in opts.pending.split(",")]
    except ValueError:
        ap.error(f"--pending takes whole numbers separated by commas, got {opts.pending!r}")
    if not pendings or min(pendings) < 1 or opts.events < 1:
        ap.error("--pending values and --events must be at least 1")
    print(f"the engine's event queue, hold model, {opts.events:,} pop-push pairs a pass, best of 3 passes "
          f"(load {os.getloadavg()[0]:.1f})")
    print(f"  {'pending':>8} {'ns/event':>9}   queue alone for the ring of as many nodes")
    for pending in pendings:
        nodes = min(RING_EVENTS, key=lambda n: abs(n - pending))
        times, stamps = hold_sequence(pending, opts.events, SEGMENT_PS[nodes], seed=pending)
        _engine.replay_event_queue(times, stamps, passes=1)  # warm-up: buffers grown, width learned
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            _engine.replay_event_queue(times, stamps, passes=1)
            best = min(best, time.perf_counter() - t0)
        ns = best / (opts.events + pending) * 1e9
        share = ""
        if nodes == pending:
            share = f"{nodes:,} nodes: {RING_EVENTS[nodes]:,} events x {ns:.1f} ns = {RING_EVENTS[nodes] * ns / 1e9:.2f} s"
        print(f"  {pending:8,} {ns:9.1f}   {share}")


if __name__ == "__main__":
    main()
