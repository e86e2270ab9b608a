"""How big and how fast are materialized Schedgen collectives?

Prints, per case: ops, edges, bytes sent, the Schedule's memory (as held,
vector capacity included, and the minimum its arrays need), and the time to
count, to build the Schedule, and to stream the GOAL text to /dev/null.
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

OP_BYTES = 24  # sizeof(Op)
INDEX_BYTES = 4  # one uint32 per edge, per CSR offset, per rank offset


def min_bytes(c: dict[str, int]) -> int:
    """What the Schedule's arrays need with no slack: ops, two CSR offset arrays, edges, rank offsets."""
    edges = c["requires"] + c["irequires"]
    return c["ops"] * OP_BYTES + 2 * (c["ops"] + 1) * INDEX_BYTES + edges * INDEX_BYTES + (c["ranks"] + 1) * INDEX_BYTES


def timed(func, *args):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = func(*args)
    return out, time.perf_counter() - t0


def report(spec: pt.CollectiveSpec, materialize: bool) -> None:
    counts, t_count = timed(pt.count, spec)
    edges = counts["requires"] + counts["irequires"]
    print(f"{spec.pattern} P={spec.ranks} size={spec.size} B")
    print(f"  ops {counts['ops']:,} (sends {counts['sends']:,}, recvs {counts['recvs']:,}, calcs {counts['calcs']:,})")
    print(f"  edges {edges:,}   bytes sent {counts['bytes_sent']:,}   largest rank {counts['max_rank_ops']:,} ops")
    print(f"  minimum Schedule arrays {min_bytes(counts) / 2**20:,.1f} MiB")
    print(f"  count only        {t_count:8.3f} s")
    if not materialize:
        return
    sched, t_gen = timed(pt.generate, spec)
    print(f"  build Schedule    {t_gen:8.3f} s   ({counts['ops'] / t_gen / 1e6:,.1f} M ops/s), "
          f"held {sched.memory_bytes / 2**20:,.1f} MiB")
    del sched
    _, t_txt = timed(pt.write_goal, spec, "/dev/null")
    print(f"  GOAL text stream  {t_txt:8.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also count the 16384-rank 512 MiB allreduce_ring")
    args = parser.parse_args()
    for spec in CASES:
        report(spec, materialize=True)
    if args.big:
        report(BIG, materialize=False)


if __name__ == "__main__":
    main()
