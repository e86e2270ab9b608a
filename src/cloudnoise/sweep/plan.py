"""A sweep's grid, its seeds and its tasks.

The grid is systems x node counts x noise variants x repetitions. Every
(system, nodes) configuration gets its own seed, derived from the sweep's
seed, the system's name and the node count with a stable hash (BLAKE2b, not
Python's salted `hash()`), so a configuration's results do not depend on
which other configurations are in the sweep, on the order they run in, or on
the machine. All noise variants of a configuration share its seed (common
random numbers). Since repetition r of a simulation depends only on
(seed, r), a task -- a run of consecutive repetitions of one (system, nodes,
variant) -- gives the same numbers however the repetitions are chunked and
wherever the chunk runs.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass

SEED_DOMAIN = b"cloudnoise-sweep/1"

# A task should simulate about this many operations (all repetitions
# together): a second or so of engine time, long enough that scheduling and
# building the noise model per task are small, short enough that a lost
# worker costs little and progress moves.
TARGET_OPS_PER_TASK = 5_000_000
# What one repetition costs beyond its operations (setup, result), in ops.
REP_OVERHEAD_OPS = 2_000


def config_seed(seed: int, system: str, nodes: int) -> int:
    """The seed of configuration (system, nodes): a 64-bit stable hash of
    (sweep seed, system name, nodes)."""
    h = hashlib.blake2b(digest_size=8, person=b"cn-sweep-seed")
    h.update(SEED_DOMAIN + b"\0" + str(int(seed)).encode() + b"\0" + system.encode("utf-8") + b"\0" + str(int(nodes)).encode())
    return int.from_bytes(h.digest(), "little")


@dataclass(frozen=True)
class Task:
    """Repetitions [first_rep, first_rep + reps) of one (system, nodes, variant)."""

    system: str
    nodes: int
    variant: str
    first_rep: int
    reps: int

    @property
    def key(self) -> str:
        """A name unique within a sweep; also the part file's stem."""
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.system)
        return f"{safe}-n{self.nodes}-{self.variant}-r{self.first_rep}-{self.first_rep + self.reps - 1}"


# A noisy repetition costs about this many noiseless ones per operation
# (measured: 2-7x on the paper's cases, bench/bench_campaign.py --cases).
NOISY_COST = 3.0


def task_cost(ops_per_rep: int, task: Task, alike: bool) -> float:
    """A task's work in noiseless-equivalent simulated operations (for the order
    of a campaign's tasks, estimates and ETAs): a noisy repetition weighs
    NOISY_COST noiseless ones; a cell whose repetitions are alike is simulated once."""
    reps = 1 if alike else task.reps
    return float(ops_per_rep + REP_OVERHEAD_OPS) * reps * (1.0 if task.variant == "none" else NOISY_COST)


def chunk_size(ops_per_rep: int, reps: int, target_ops: int = TARGET_OPS_PER_TASK) -> int:
    """Repetitions per task: about `target_ops` operations, at least 1, at most
    `reps`, evened out so the last chunk is not a sliver."""
    per_rep = max(1, ops_per_rep) + REP_OVERHEAD_OPS
    size = max(1, min(reps, target_ops // per_rep))
    chunks = math.ceil(reps / size)
    return math.ceil(reps / chunks)


def missing_ranges(done: Iterable[int], reps: int) -> list[tuple[int, int]]:
    """Maximal runs [start, stop) of repetitions in range(reps) not in `done`
    (in O(len(done)), whatever `reps`)."""
    out: list[tuple[int, int]] = []
    start = 0
    for r in sorted({int(d) for d in done if 0 <= d < reps}):
        if r > start:
            out.append((start, r))
        start = r + 1
    if start < reps:
        out.append((start, reps))
    return out


def tasks_for(
    system: str, nodes: int, variant: str, reps: int, chunk: int, done: Iterable[int] = ()
) -> list[Task]:
    """Tasks covering the repetitions of one (system, nodes, variant) not yet done,
    `chunk` repetitions at most each (chunks start at multiples of `chunk`
    where nothing was done, so a fresh sweep is chunked the same every time)."""
    tasks = []
    for start, stop in missing_ranges(done, reps):
        first = start
        while first < stop:
            end = min(stop, (first // chunk + 1) * chunk)
            tasks.append(Task(system, nodes, variant, first, end - first))
            first = end
    return tasks
