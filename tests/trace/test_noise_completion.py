"""A correct MPI program's schedule completes under any noise: every real
trace (tests/trace/data, and ../shared/traces where it is), at its own rank
count and extrapolated, under every noise kind for many repetitions.

Latency drawn per message once let a message overtake one sent earlier to
the same rank and take its receive (a 4-byte receive taking a 90 KB
rendezvous message never completed it; the extrapolated LAMMPS schedule
deadlocked at 1,024 ranks in some repetitions). A trace's schedule keeps
MPI's order (Schedule.in_order): whether it completes cannot depend on
the noise drawn.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.reader import open_trace
from cloudnoise.trace.replicate import ReplicatedTrace

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("CLOUDNOISE_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "traces"


def _otf2() -> bool:
    try:
        import otf2  # noqa: F401
    except ImportError:
        return False
    return True


def real_traces() -> list[tuple[Path, int]]:
    """(trace, ranks to extrapolate to) for every real trace at hand."""
    out = [(DATA / "lammps-melt-2", 8), (DATA / "lammps-melt-4", 16), (DATA / "sweep3d-2x2", 8), (DATA / "hpcc-4", 8)]
    if SHARED.is_dir():
        for folder in sorted(p for p in SHARED.iterdir() if p.is_dir()):
            if folder.name.startswith("pingpong-otf2") and not _otf2():
                continue
            out.append((folder, 16 if folder.name.startswith(("lammps", "sweep3d")) else 4))
    return out


@pytest.mark.parametrize(("trace", "ranks"), real_traces(), ids=lambda x: x.name if isinstance(x, Path) else str(x))
def test_every_real_trace_completes_under_every_noise(trace: Path, ranks: int) -> None:
    base = open_trace(trace)
    schedules = [to_schedule(base)[0], to_schedule(extrapolated(base, ranks))[0]]
    if ranks % base.num_ranks == 0:  # replicated too (copies of the traced ranks)
        schedules.append(to_schedule(ReplicatedTrace(base, ranks, "test"))[0])
    for schedule in schedules:
        assert schedule.in_order
        for noise in ("none", "os", "network", "both"):
            r = simulate(schedule, profile="aws-hpc-metal", noise=noise, reps=20, threads=1)
            assert len(r.runtime_ns) == 20 and (r.runtime_ns > 0).all()


@pytest.mark.skipif(not (SHARED / "lammps-melt-4").is_dir(), reason="../shared/traces not found (set CLOUDNOISE_SHARED)")
def test_the_replicated_lammps_schedule_that_deadlocked_completes() -> None:
    # 16 ranks as 4 copies: under aws-hpc-metal's network noise repetition 88 deadlocked
    # (a 4-byte receive took a 51,720-byte rendezvous message that overtook it)
    schedule, _ = to_schedule(ReplicatedTrace(open_trace(SHARED / "lammps-melt-4"), 16, "test"))
    r = simulate(schedule, profile="aws-hpc-metal", noise="network", reps=100, threads=1)
    assert len(r.runtime_ns) == 100
