"""Monte Carlo speed with noise, beside LogGOPSim's figures and the targets.

    python bench/bench_noise.py                      # the two cases at full size
    python bench/bench_noise.py --scale 0.1          # a tenth of the repetitions

Cases (2 threads, the machine's two cores):

* 16384-rank 16 B dissemination, OS + network noise, 1000 repetitions.
  LogGOPSim with an OS noise trace: 0.6-0.75 s per repetition, so over
  10 minutes. Target: <= 8 s.
* 1024-rank 16 MiB allreduce_ring, network noise, 100 repetitions.
  Target: <= 30 s. (Program order: LogGOPSim's own order deadlocks it.)

Under latency noise the engine processes each repetition host by host in
time windows (src/engine/windowed_events.hpp); the results are those of the
single global event queue, bit for bit (tests/test_windowed_processing.py).

Noise: the built-in `azure-hpc` profile's LogGOPS parameters and latency and
bandwidth models from one calibration, written out below so that the
case stays the same work when the profiles are recalibrated, and a synthetic
OS noise trace of 1000 detours/s of 5 us (Fig. 8's "high frequency" cloud
noise), 10 s long.

Wall-clock figures on a shared machine move from one day to the next (by up to
~2x on the 2-core development VM with the same build). bench_noise_vs_build.py
runs this case against another build in turn, which is the comparison that
holds from one day to the next.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from cloudnoise import simulate
from cloudnoise.model.distributions import LogNormal, Mixture, Pareto, Uniform
from cloudnoise.model.os_noise import parse_os_noise_spec
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS

# azure-hpc's parameters and models from one calibration, fixed (see the top).
PARAMS = LogGOPS(L_ps=1200000, o_ps=150000, g_ps=150000, G_fs=85179, O_fs=0, S=65535)
LATENCY_EXCESS_NS = Mixture(
    weights=(0.999, 0.001),
    components=(LogNormal(mu=4.958639998977875, sigma=0.25), Pareto(scale=1052.0, alpha=1.408, max=186100.0)),
)
BANDWIDTH_FRACTION = Mixture(
    weights=(0.9998, 0.0002), components=(Uniform(low=0.9914, high=1.0), Uniform(low=0.5, high=0.85))
)


def noise_case() -> tuple[LogGOPS, NoiseSetup]:
    """The cases' LogGOPS parameters and noise (bench_instructions.py counts the same)."""
    os_trace = parse_os_noise_spec("periodic:frequency=1000,duration=5us").trace(10 * 10**9, np.random.default_rng(1))
    return PARAMS, NoiseSetup(os_trace=os_trace, latency=LATENCY_EXCESS_NS, bandwidth=BANDWIDTH_FRACTION)


def run(name: str, spec: CollectiveSpec, reps: int, variant: str, order: str, target: str, reference: str) -> None:
    params, noise = noise_case()
    t0 = time.perf_counter()
    sched = generate(spec)
    gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = simulate(sched, params=params, noise=noise, variant=variant, reps=reps, seed=1, threads=2, ready_order=order)
    wall = time.perf_counter() - t0
    events = r.events * reps
    print(f"\n{name}: {reps} repetitions, noise={variant}, {order} order, 2 threads")
    print(f"  generate {gen:.2f} s; simulate {wall:.2f} s = {wall / reps * 1e3:.1f} ms/repetition, "
          f"{events / wall / 1e6:.1f} M events/s over both threads")
    print(f"  completion median {np.median(r.runtime_ns) / 1e3:.1f} us, p99 {np.percentile(r.runtime_ns, 99) / 1e3:.1f} us")
    print(f"  target {target}; reference {reference}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the repetitions to run")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs")
    reps = max(1, round(1000 * args.scale))
    run(
        "16384-rank 16 B dissemination", CollectiveSpec(pattern="dissemination", ranks=16384, size=16),
        reps, "both", "loggopsim", f"1000 reps <= 8 s (this run: {reps})", "LogGOPSim 0.6-0.75 s per repetition",
    )
    reps = max(1, round(100 * args.scale))
    run(
        "1024-rank 16 MiB allreduce_ring", CollectiveSpec(pattern="allreduce_ring", ranks=1024, size=16 * 2**20),
        reps, "network", "program", f"100 reps <= 30 s (this run: {reps})", "LogGOPSim deadlocks on this schedule",
    )


if __name__ == "__main__":
    main()
