"""`cloudnoise validate --trace DIR`: the recorded runtime of a traced run
against the simulation of its trace under a profile.

The runtime is the application's: first MPI_Init exit to last MPI_Finalize
entry. The error splits cleanly: the compute between MPI calls is replayed
as recorded (times --compute-scale), so on each rank simulated end =
compute + simulated communication and recorded end = compute + time in MPI;
the table shows both for the rank that finished last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cloudnoise.simulation.statistics import summarize


def compare_extrapolated(recorded_dir: Any, source_dir: Any, scaling: str | None, grid: str | None, params: Any,
                         noise: Any, variants: list[str], reps: int, seed: int, ready_order: str, *,
                         algorithms: str | None, compute_scale: float) -> dict[str, Any]:
    """The application recorded at its size (`recorded_dir`) against a trace of
    it on fewer ranks (`source_dir`) extrapolated to that size: runtimes, and
    messages, peers and bytes per rank (cloudnoise.trace.structure)."""
    from cloudnoise.schedules.trace import open_for, trace_schedule
    from cloudnoise.trace.convert import ConvertOptions, convert
    from cloudnoise.trace.reader import open_trace
    from cloudnoise.trace.structure import compare as compare_structure
    from cloudnoise.trace.structure import structure

    recorded = open_trace(recorded_dir)
    ranks = recorded.num_ranks

    class _Nothing:
        def add_rank(self, *args: Any) -> None:
            pass

    recorded_conv = convert(recorded, _Nothing(), ConvertOptions(compute_scale=1.0))
    ts = trace_schedule(source_dir, ranks=ranks, algorithms=algorithms, compute_scale=compute_scale, scaling=scaling,
                        grid=grid)
    ext = open_for(source_dir, ranks, scaling=scaling, grid=grid)
    result = compare(ts, params, noise, variants, reps, seed, ready_order, recorded_ns=recorded_conv.recorded_runtime_ns)
    result.update(source=str(recorded_dir), extrapolated_from=str(source_dir), extrapolation=getattr(ext, "label", ""),
                  structure=compare_structure(structure(recorded), structure(ext)), split=None)
    return result


def compare(ts: Any, params: Any, noise: Any, variants: list[str], reps: int, seed: int,
            ready_order: str, recorded_ns: float | None = None) -> dict[str, Any]:
    """Simulates the trace's schedule per variant and compares with the recording
    (`recorded_ns`: another run's recorded runtime, for an extrapolated schedule)."""
    from cloudnoise.simulation.api import simulate

    conv = ts.conversion
    recorded = float(conv.recorded_runtime_ns if recorded_ns is None else recorded_ns)
    rows: dict[str, Any] = {}
    first_hosts = None
    for v in variants:
        r = simulate(ts.schedule, params=params, noise=noise, variant=v, reps=reps, seed=seed, ready_order=ready_order)
        sim = np.asarray(r.runtime_ns, dtype=np.float64)
        s = summarize(sim)
        if first_hosts is None:
            first_hosts = np.asarray(r.host_end_ns, dtype=np.float64)
        rows[v] = {
            "simulated_runtime_ns": s.to_dict(),
            "simulated_median_ns": s.median,
            "relative_error_median": abs(s.median - recorded) / recorded if recorded else None,
            "signed_error_median": (s.median - recorded) / recorded if recorded else None,
        }
    primary = variants[0]
    slow = int(np.argmax(conv.finalize_ns))
    sim_slow = float(first_hosts[slow]) if first_hosts is not None else float("nan")
    split = {
        "rank": slow,
        "compute_ns": conv.compute_ns[slow],
        "recorded_mpi_ns": conv.mpi_ns[slow],
        "recorded_end_ns": conv.finalize_ns[slow],
        "simulated_end_ns": sim_slow,
        "simulated_communication_ns": sim_slow - conv.compute_ns[slow],
        "compute_fraction_of_recorded": conv.compute_ns[slow] / conv.finalize_ns[slow] if conv.finalize_ns[slow] else None,
    }
    return {
        "source": ts.source,
        "ranks": conv.ranks,
        "recorded_runtime_ns": recorded,
        "noise": primary,
        "noise_variants": variants,
        "reps": reps,
        "seed": seed,
        "simulated_median_ns": rows[primary]["simulated_median_ns"],
        "relative_error_median": rows[primary]["relative_error_median"],
        "signed_error_median": rows[primary]["signed_error_median"],
        "variants": rows,
        "split": split,
        "conversion": conv.to_dict(),
    }
