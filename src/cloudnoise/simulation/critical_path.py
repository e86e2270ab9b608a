"""The critical paths the engine records (src/engine/critical_path.hpp), as numpy arrays.

Each repetition's path is the chain of activities from time 0 to the last rank's
end in which each started the moment the one before it ended. The engine splits
its time into parts (PARTS: the LogGOPS terms, then each kind of noise) that add up
to the runtime to the picosecond, counts the LogGOPS terms on it (COUNTS: how many
L, o, g, and bytes charged G and O), and sums the noise on it by the host it came
from. Times are picoseconds here, as the engine keeps them: every sum is exact.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError

PARTS: tuple[str, ...] = tuple(_engine.PATH_PARTS)
COUNTS: tuple[str, ...] = tuple(_engine.PATH_COUNTS)
LINKS: tuple[str, ...] = tuple(_engine.PATH_LINKS)
NOISE_PARTS: tuple[str, ...] = PARTS[PARTS.index("os_detour"):]
KINDS = {1: "send", 2: "recv", 3: "calc", 4: "message"}


@dataclass
class PathSegments:
    """One repetition's path, or a repetition's activities: a table of columns.

    `op` the op (a message: its send op), `message` whether it is a message taken at
    its receiver, `link` (LINKS: which part of the activity lies on the path: its CPU
    part, its NIC's gap, its flight...), `kind` (KINDS), `dependency` (the next
    activity waited for it as a dependency, not only for the resource it held),
    `host` where it ran (a flight: the sender), `peer` a message's other end,
    `bytes` (a calc: its length in ps), `start_ps`, `end_ps`, `parts` (n x PARTS)."""

    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.columns["op"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @classmethod
    def from_engine(cls, table: dict[str, Any]) -> PathSegments:
        return cls({k: np.asarray(v) for k, v in table.items()})


@dataclass
class CriticalPaths:
    """Every repetition's critical path of one run, summed up.

    `parts_ps` (reps x PARTS) adds up to each repetition's runtime; `counts` (reps x
    COUNTS); `last_host` the rank that finished last; `noise` rows of (repetition
    index, host, part index, ps): each noise part on the path by the host it came
    from; `segments` the whole path of the repetitions asked for, by repetition."""


    parts_ps: np.ndarray
    counts: np.ndarray
    last_host: np.ndarray
    noise: np.ndarray
    segments: dict[int, PathSegments] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, out: dict[str, Any]) -> CriticalPaths:
        return cls(
            parts_ps=np.asarray(out["path_parts"]),
            counts=np.asarray(out["path_counts"]),
            last_host=np.asarray(out["path_last_host"]),
            noise=np.asarray(out["path_noise"]).reshape(-1, 4),
            segments={int(rep): PathSegments.from_engine(t) for rep, t in out["paths"].items()},
        )

    def part(self, name: str) -> np.ndarray:
        """One part's time on every repetition's path (ps)."""
        return self.parts_ps[:, PARTS.index(name)]

    def count(self, name: str) -> np.ndarray:
        """One count on every repetition's path."""
        return self.counts[:, COUNTS.index(name)]


# What a thread's recorder keeps per operation of the schedule: a 24-byte log entry per queued
# event, room for one and a half per operation reserved at once (critical_path.hpp).
BYTES_PER_OP = 40


def check_memory(ops: int, threads: int) -> None:
    """A one-line error before a run whose recorders would not fit in the memory free now."""
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not on Linux: nothing to check against
        return
    need = ops * BYTES_PER_OP * threads
    if need > 0.8 * free:
        raise CloudnoiseError(
            f"recording the critical path of {ops:,} operations on {threads} threads needs about "
            f"{need / 2**30:.1f} GiB, and {free / 2**30:.1f} GiB are free: give fewer --threads (each records "
            "its own) or a smaller run")
