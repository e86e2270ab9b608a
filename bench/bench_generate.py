"""How big and how fast are materialized Schedgen collectives?

Prints, per case: ops, edges, bytes sent, the Schedule's memory (as held,
vector capacity included), and the time to count, to build the Schedule,
and to stream the GOAL text to /dev/null.
These are the figures behind the decision to stream regular collectives
lazily at 16K ranks (`--big` adds the 16384-rank 512 MiB allreduce_ring,
counted only: it does not fit in memory materialized).

    PYTHONPATH=src python3 bench/bench_generate.py [--big]
"""

from __future__ import annotations

import argparse
import time

from cloudnoise.schedules import patterns as pt

CASES = [
    pt.CollectiveSpec("allreduce_ring", 1024, 16 * 2**20),
    pt.CollectiveSpec("dissemination", 16384, 16),
]
BIG = pt.CollectiveSpec("allreduce_ring", 16384, 512 * 2**20)



def timed(func, *args):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = func(*args)
    return out, time.perf_counter() - t0


def report(spec: pt.CollectiveSpec, materialize: bool, bytes_per_op: float | None = None) -> float:
    """Prints the figures; returns the materialized Schedule's bytes per op (for extrapolation)."""
    counts, t_count = timed(pt.count, spec)
    edges = counts["requires"] + counts["irequires"]
    print(f"{spec.pattern} P={spec.ranks} size={spec.size} B")
    print(f"  ops {counts['ops']:,} (sends {counts['sends']:,}, recvs {counts['recvs']:,}, calcs {counts['calcs']:,})")
    print(f"  edges {edges:,}   bytes sent {counts['bytes_sent']:,}   largest rank {counts['max_rank_ops']:,} ops")
    print(f"  count only        {t_count:8.3f} s")
    if not materialize:
        if bytes_per_op:
            print(f"  materialized it would hold about {counts['ops'] * bytes_per_op / 2**30:,.1f} GiB "
                  f"({bytes_per_op:.1f} B/op, measured on the smaller case)")
        return bytes_per_op or 0.0
    sched, t_gen = timed(pt.generate, spec)
    print(f"  build Schedule    {t_gen:8.3f} s   ({counts['ops'] / t_gen / 1e6:,.1f} M ops/s), "
          f"held {sched.memory_bytes / 2**20:,.1f} MiB ({sched.memory_bytes / counts['ops']:.1f} B/op)")
    per_op = sched.memory_bytes / counts["ops"]
    del sched
    _, t_txt = timed(pt.write_goal, spec, "/dev/null")
    print(f"  GOAL text stream  {t_txt:8.3f} s")
    return per_op


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also count the 16384-rank 512 MiB allreduce_ring")
    args = parser.parse_args()
    ring_per_op = 0.0
    for spec in CASES:
        per_op = report(spec, materialize=True)
        if spec.pattern == BIG.pattern:
            ring_per_op = per_op
    if args.big:
        report(BIG, materialize=False, bytes_per_op=ring_per_op)


if __name__ == "__main__":
    main()
