"""Runs bench_noise's first case from saved tables with whichever `cloudnoise`
comes first on PYTHONPATH, and prints one JSON line: the simulation's wall time
and a digest of its runtimes. bench_noise_vs_build.py starts it once per build.

    PYTHONPATH=BUILD python bench/noise_case_runner.py CASE.npz REPS THREADS

It uses only what every build from the reference build (13a405a) on has
(QuantileTable, OSNoiseTrace, NoiseSetup, LogGOPS, generate, simulate), so an older build runs
the same work: the noise comes as the engine's own tables, not as models an
older build may not parse.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import numpy as np

from cloudnoise import simulate
from cloudnoise.model.distributions import QuantileTable
from cloudnoise.model.os_noise import OSNoiseTrace
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS


def main() -> None:
    case_path, reps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    case = np.load(case_path)
    L_ps, o_ps, g_ps, G_fs, O_fs, S = (int(x) for x in case["params"])
    params = LogGOPS(L_ps=L_ps, o_ps=o_ps, g_ps=g_ps, G_fs=G_fs, O_fs=O_fs, S=S)
    noise = NoiseSetup(
        os_trace=OSNoiseTrace(case["os_starts_ns"], case["os_durations_ns"]),
        latency=QuantileTable(case["latency_p"], case["latency_v"]),
        bandwidth=QuantileTable(case["bandwidth_p"], case["bandwidth_v"]),
    )
    sched = generate(CollectiveSpec(pattern="dissemination", ranks=16384, size=16))
    t0 = time.perf_counter()
    r = simulate(sched, params=params, noise=noise, variant="both", reps=reps, seed=1, threads=threads,
                 ready_order="loggopsim")
    seconds = time.perf_counter() - t0
    # Older builds (the reference build among them) name this field max_end_ns: the same numbers.
    runtimes = r.runtime_ns if hasattr(r, "runtime_ns") else r.max_end_ns
    digest = hashlib.sha1(np.asarray(runtimes).tobytes()).hexdigest()[:12]
    print(json.dumps({"seconds": seconds, "runtimes_sha1": digest}))


if __name__ == "__main__":
    main()
