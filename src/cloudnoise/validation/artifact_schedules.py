"""The schedule each of the paper artifact's collective programs ran.

The authors generated every program (`benchmarks/collectives/*.c` of their
repository) from a GOAL schedule of their own modified Schedgen
(`simulations/schedgen`, cloudnoise's `schedgen="paper"`) with
`simulations/goal2mpi/goal2mpi.py`, driven by `convert_all.sh`: `schedgen -s
NODES -p PATTERN -d SIZE`, with `--segmentsize SIZE/NODES` for
`pipelinedring` (their closed ring, one segment per rank) and Schedgen's
defaults otherwise (one peer per round for `nwaydissemination`). Per rank and
repetition a program waits `usleep(1)`, enters `MPI_Barrier`, reads
`MPI_Wtime`, runs its ops and reads the time again after its last one:

* every receive is an `MPI_Irecv`, posted first where it depends on nothing
  (`--prioritize_receive`); an op that `requires` another is issued after an
  `MPI_Wait` on it;
* plain: sends are blocking `MPI_Send`; a `calc N` is a busy wait of N ns;
* `nocompute` (`--skip_compute`): calcs are left out, their dependencies kept:
  the schedule with every calc 0 ns, as the authors' `simulate.py` simulated
  it;
* `nbsend` (`--nb_send`): sends are `MPI_Isend`, waited for where an op
  depends on them or at the end;
* `test` (`--use_tests`): the first wait of each block of dependent ops is an
  `MPI_Test` polled in a loop.

`nbsend` and `test` change how MPI progresses the same operations, not the
operations: they run the same schedule (the authors simulated the three with
one schedule too), so the simulator's answer is the same for all three and
their measured difference is what the LogGOPS model does not see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.validation.artifact_csv import RunName

_CALC = re.compile(rb"^(\s*l[0-9]+:\s*calc\s+)[0-9]+", re.MULTILINE)


class UnmappedRun(CloudnoiseError):
    """A run whose program cloudnoise cannot reproduce as a schedule."""


@dataclass(frozen=True)
class RunSchedule:
    """The schedule a run's program executed and how it was derived."""

    pattern: str
    ranks: int
    size: int
    segmentsize: int
    zero_calcs: bool
    schedule: Any

    def describe(self) -> str:
        extra = f", segment {self.segmentsize} B" if self.pattern.startswith("pipelinedring") else ""
        calc = ", calcs 0 ns" if self.zero_calcs else ""
        return f"the authors' schedgen {self.pattern} {self.ranks} ranks {self.size} B{extra}{calc}"


def segment_size(run: RunName) -> int:
    """Schedgen's --segmentsize for the run (convert_all.sh: SIZE/NODES for the
    pipelined rings, Schedgen's default 1 otherwise)."""
    if run.pattern.startswith("pipelinedring"):
        return run.size // run.nodes
    return 1


def run_schedule(run: RunName) -> RunSchedule:
    """The engine schedule of a run; UnmappedRun where cloudnoise does not
    generate the pattern or the authors' recipe gives no schedule."""
    from cloudnoise import _engine
    from cloudnoise.schedules.patterns import CollectiveSpec, generate, goal_text, pattern_names

    if run.pattern not in pattern_names():
        raise UnmappedRun(f"pattern {run.pattern!r} is not one cloudnoise generates (`cloudnoise schedule list`)")
    segment = segment_size(run)
    if segment < 1:
        # convert_all.sh would pass --segmentsize 0, and simulate.py skips such runs
        raise UnmappedRun(f"{run.size} B over {run.nodes} nodes is a segment of 0 B: the authors' recipe gives no schedule")
    spec = CollectiveSpec(pattern=run.pattern, ranks=run.nodes, size=run.size, segmentsize=segment, schedgen="paper")
    if run.nocompute:
        text = _CALC.sub(rb"\g<1>0", goal_text(spec).encode())
        schedule = _engine.parse_goal(text, f"{run.program}_{run.nodes}_{run.size}")
    else:
        schedule = generate(spec)
    return RunSchedule(run.pattern, run.nodes, run.size, segment, run.nocompute, schedule)
