"""CPU seconds per repetition of the specialised exchange loop against the general loop
(`_engine.run(general=True)`), one thread, on these cases: public Schedgen's
1,024-node 512 MiB pipelined chain in 32 KiB segments, the paper's 1,024-node 512 MiB ring,
and the 16,384-rank binomial trees, under network noise with the built-in Daint profile
across racks.

    python bench/bench_specialised_loops.py                # every case
    python bench/bench_specialised_loops.py --case public-ring --reps 2

Both loops give the same results bit for bit (tests/test_specialised_loops.py); the script
checks the end times agree and prints which loop ran (`auto` is what `simulate` runs: for
eager trees under noise that is the general loop's windows, Engine::choose_loop). CPU time
(process_time), so other processes' load moves it less than wall time, but it still does
on this shared 2-core VM: compare runs taken in turn.

Measured (docs/explanation/engine.md): public chain 8.7 CPU s/rep specialised,
12.6 general (its rank 0 queues all 16,384 sends at once, and each waiting send is popped
again at every NIC-free time, in both loops: ~134 M pops); 16K-rank 1 MiB binomial
broadcast 4.9 ms against 6.3 ms.
"""

from __future__ import annotations

import argparse
import time

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

CASES = {
    "paper-ring": (CollectiveSpec("pipelinedring", 1024, 512 << 20, segmentsize="size/ranks", schedgen="paper"), 5),
    "public-ring": (CollectiveSpec("pipelinedring", 1024, 512 << 20, segmentsize=32 << 10), 2),
    "bcast-8B": (CollectiveSpec("binomialtreebcast", 16384, 8), 200),
    "bcast": (CollectiveSpec("binomialtreebcast", 16384, 1 << 20), 200),
    "bcast-paper": (CollectiveSpec("binomialtreebcast", 16384, 1 << 20, schedgen="paper"), 200),
    "reduce": (CollectiveSpec("binomialtreereduce", 16384, 1 << 20), 200),
}


def per_repetition(sched, params, noise, reps: int, general: bool) -> tuple[float, dict]:
    _engine.run(sched, params, noise, seed=1, count=1, threads=1, general=general)  # first-run allocations
    start = time.process_time()
    out = _engine.run(sched, params, noise, seed=1, count=reps, threads=1, general=general)
    return (time.process_time() - start) / reps, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), action="append", help="a case (default: all)")
    ap.add_argument("--reps", type=int, help="repetitions per loop (default: per case)")
    args = ap.parse_args()
    system = load_system("daint").at("different-racks")
    params = resolve_params(system, {}).to_engine()
    noise = resolve_noise(system, 0).engine_model("network")
    print("CPU s per repetition, one thread, Daint across racks, network noise")
    for name in args.case or list(CASES):
        spec, reps = CASES[name]
        reps = args.reps or reps
        sched = generate(spec)
        auto, a = per_repetition(sched, params, noise, reps, general=False)
        general, g = per_repetition(sched, params, noise, reps, general=True)
        if a["max_end_ps"].tolist() != g["max_end_ps"].tolist():
            raise SystemExit(f"{name}: the loops disagree (a bug: report it)")
        ran = "exchange loop" if a["specialised"] else ("windows" if a["windowed"] else "general loop")
        print(f"  {name:12s} auto ({ran}): {auto:9.4f}   general: {general:9.4f}   ratio {auto / general:.2f}"
              f"   ({reps} reps, {a['events']:,} events)")


if __name__ == "__main__":
    main()
