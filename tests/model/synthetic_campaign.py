"""A synthetic campaign with known noise: a ping-pong series the engine makes from a known OS
trace and known network noise, written as a Netgauge run (the paper's format) and imported as
a user imports one. `model build` must give the known network noise back."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "measurement"))

from netgauge_synthetic import RUN, loggp_table, osnoise_text, pingpong_text, write_run  # noqa: E402

# the system: LogGP in us (Netgauge's table), one o
L_US, O_US, G_US_PER_B = 1.0, 0.3, 0.0001
TRACE_S = 20.0


def in_batches(values: np.ndarray, chunk: int = 7_000):
    """A series as model build reads it: start times, round trips, one stretch, in chunks
    (a callable that yields them, once per pass)."""
    starts = np.concatenate(([0], np.cumsum(values)[:-1])).astype(np.int64)

    def batches():
        for i in range(0, values.size, chunk):
            yield starts[i:i + chunk], values[i:i + chunk].astype(np.int64), np.zeros(min(chunk, values.size - i), np.int64)

    return batches


def round_trips_of(values: np.ndarray):
    """The series' round trips counted by value (model/round_trips.py)."""
    from cloudnoise.model.round_trips import RoundTrips

    v, c = np.unique(values.astype(np.int64), return_counts=True)
    return RoundTrips(v, c)


def os_trace(rng: np.random.Generator, rate_hz: float = 1000.0):
    """Detours of 5-9 us at `rate_hz` (a timer tick's size), over TRACE_S seconds."""
    from cloudnoise.model.os_noise import OSNoiseTrace

    n = rng.poisson(rate_hz * TRACE_S)
    starts = np.sort(rng.uniform(0, TRACE_S * 1e9 - 20_000, n)).astype(np.int64)
    durations = rng.uniform(5_000, 9_000, n).astype(np.int64)
    keep = np.concatenate(([True], np.diff(starts) > 10_000))  # no overlapping detours
    return OSNoiseTrace(starts[keep], durations[keep])


def alps_like(rate_hz: float, stall_low_us: int, stall_high_us: int):
    """An Alps-like truth: one clock for both hosts, episodes of 0.4-1.2 ms starting at `rate_hz`
    per second of quiet time, in which a stall of `stall_low_us`-`stall_high_us` recurs 15 us after
    the previous one ends; a body of 50-250 ns per message besides; detours at 300 Hz. Returns the
    OS trace and the noise."""
    from cloudnoise.model.distributions import parse_distribution
    from cloudnoise.model.latency_episodes import parse_latency_episodes
    from cloudnoise.simulation.noise import NoiseSetup

    trace = os_trace(np.random.default_rng(11), rate_hz=300.0)
    stalls = parse_latency_episodes(f"rate={rate_hz},duration=uniform(low=400us,high=1200us),"
                                    f"stall=uniform(low={stall_low_us}us,high={stall_high_us}us),gap=15us,shared=1")
    return trace, NoiseSetup(os_trace=trace, latency=parse_distribution("uniform:low=50,high=250"),
                             latency_stalls=stalls, latency_stalls_shared=True)


def params():
    from cloudnoise.simulation.params import LogGOPS

    return LogGOPS.parse(L=f"{L_US}us", o=f"{O_US}us", g="0.5us", G=f"{G_US_PER_B * 1e3}ns", O="0", S="8192")


def series(noise, count: int, seed: int) -> np.ndarray:
    """`count` back-to-back 1 B round trips (ns) through the engine with `noise` (both variants)."""
    from cloudnoise.model.closure import replay_round_trips

    return replay_round_trips(params(), noise, "both", 1, count, seed)


def large_series(noise, count: int, seed: int) -> np.ndarray:
    """`count` back-to-back round trips of BANDWIDTH_SIZE bytes (ns) through the engine with `noise`."""
    from cloudnoise.model.closure import replay_round_trips

    return replay_round_trips(params(), noise, "both", BANDWIDTH_SIZE, count, seed)


BANDWIDTH_SIZE = 16_777_216  # Netgauge's bandwidth series' size


def write_campaign(folder: Path, round_trips_ns: np.ndarray, trace, label: str,
                   bandwidth_ns: np.ndarray | None = None, g_us: float = 0.5) -> Path:
    """The series as a Netgauge run (RTT/2 in us, calls of 1000 whose first 21 are dropped on import),
    with the trace as its selfish-detour file and the LogGP table of the known parameters; imported.
    `bandwidth_ns`: its bandwidth series (BANDWIDTH_SIZE round trips), else a few flat calls; `g_us`:
    the table's g (the system's is 0.5 us)."""
    from cloudnoise.measurement.imports.netgauge import import_netgauge

    run = write_run(folder / "2022_05_05_17_00_11")
    calls = round_trips_ns.size // RUN
    (run / "ng_netnoise_mpi_lat.out").write_text(
        pingpong_text([1], calls, lambda r, i: round_trips_ns[r * RUN + i] / 2e3))
    if bandwidth_ns is not None:
        (run / "ng_netnoise_mpi_bw.out").write_text(
            pingpong_text([BANDWIDTH_SIZE], bandwidth_ns.size // RUN, lambda r, i: bandwidth_ns[r * RUN + i] / 2e3))
    detours = list(zip(trace.starts.tolist(), trace.durations.tolist()))
    (run / "ng_osnoise.out").write_text(osnoise_text([detours], period_s=TRACE_S))
    (run / "ng_loggp.out").write_text(loggp_table(L=L_US, o_s=O_US, o_r=O_US, g=g_us, G=G_US_PER_B, S=8192))
    return import_netgauge(run, folder / "campaign", {"system": label}).campaign
