"""The liballprof reader on real files: the Sweep3D sample (tests/trace/data,
see its README), as liballprof wrote it in 2009 (absolute wall-clock times,
collprof's header with the clocks' differences)."""

from __future__ import annotations

import gzip
from pathlib import Path

from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.collectives import parse_algorithms
from cloudnoise.trace.convert import ConvertOptions, to_schedule
from cloudnoise.trace.liballprof import LiballprofTrace
from cloudnoise.trace.reader import open_trace

SWEEP3D = Path(__file__).parent / "data" / "sweep3d-2x2"
SCHEDGEN = ConvertOptions(parse_algorithms("barrier=dissemination,allreduce=dissemination,bcast=binomialtreebcast"))
# LogGOPSim (the paper authors' copy) at its defaults on Schedgen's conversion of these files
# (`schedgen -p trace --traces pmpi-trace-rank-0.txt`): each host's end time in ns.
LOGGOPSIM_ON_SCHEDGEN = [42441527748, 42441450916, 42441445916, 42441442416]


def raw_times(rank: int) -> tuple[float, float, float]:
    """(clockdiff, MPI_Init exit, MPI_Finalize entry) of a rank, in us, read straight from its file."""
    diff = init = fin = 0.0
    with gzip.open(SWEEP3D / f"pmpi-trace-rank-{rank}.txt.gz", "rt") as f:
        for line in f:
            if line.startswith("# Init clockdiff:"):
                diff = float(line.split(":")[1])
            elif line.startswith("MPI_Init:"):
                init = float(line.strip().split(":")[-1])
            elif line.startswith("MPI_Finalize:"):
                fin = float(line.split(":")[1])
    return diff, init, fin


def test_reads_the_real_files() -> None:
    t = open_trace(SWEEP3D)
    assert t.format == "liballprof" and t.num_ranks == 4
    _, conv = to_schedule(t, SCHEDGEN)
    raw = [raw_times(r) for r in range(4)]
    origin = min(i + d for d, i, _ in raw)
    # clocks corrected by the header's clockdiff (rank 0's = this rank's + diff), from the earliest MPI_Init exit
    assert conv.finalize_ns == [round((f + d - origin) * 1000) for d, _, f in raw]
    assert abs(conv.recorded_runtime_ns - 42_539_578_500) < 1000
    assert conv.calls == 11_692 and conv.calls_by_name["MPI_Send"] == 5_760 and not conv.unsupported
    # with Schedgen's algorithms, Schedgen's count: 6,052 sends and 6,052 receives among 4 ranks
    text = schedule_goal_text(to_schedule(open_trace(SWEEP3D), SCHEDGEN)[0])
    assert text.count(": send ") == 6_052 and text.count(": recv ") == 6_052
    # the clockdiff brings the ranks together: MPI_Finalize entries within 0.2 ms (2 ms apart without it)
    assert max(conv.finalize_ns) - min(conv.finalize_ns) < 200_000
    assert max(i - f for _, i, f in raw) - min(i - f for _, i, f in raw) > 1_000


def test_simulates_as_loggopsim_does_on_schedgens_conversion(tmp_path: Path) -> None:
    """With Schedgen's time base (every rank from its own MPI_Init exit, the clockdiff ignored), the
    conversion is Schedgen's: the engine reproduces LogGOPSim's end times on Schedgen's GOAL file to the
    nanosecond (Schedgen writes MPI_Barrier's messages as 1 byte, cloudnoise as 0: made 1 here)."""
    schedule, _ = to_schedule(LiballprofTrace(SWEEP3D, align_clocks=False), SCHEDGEN)
    goal = tmp_path / "s.goal"
    goal.write_text(schedule_goal_text(schedule).replace(" 0b ", " 1b "))
    r = simulate(goal, ready_order="loggopsim")
    assert list(r.host_end_ns) == LOGGOPSIM_ON_SCHEDGEN


def test_every_command_runs_on_the_sample(tmp_path: Path, run_cli) -> None:
    for args in (["trace", "show", SWEEP3D],
                 ["trace", "convert", SWEEP3D, "-o", tmp_path / "s.goal.gz"],
                 ["simulate", "--trace", SWEEP3D, "--L", "2.5us", "--json"],
                 ["trace", "extrapolate", SWEEP3D, "--ranks", "16", "-o", tmp_path / "x.goal"]):
        proc = run_cli(*args)
        assert proc.returncode == 0, (args, proc.stderr)
    text = (tmp_path / "x.goal").read_text()
    assert text.startswith("num_ranks 16") and "replication" in proc.stdout
