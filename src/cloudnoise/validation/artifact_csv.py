"""Reader of the paper artifact's collective runs: one CSV per run, named
`PATTERN[_nocompute][_nbsend|_test]_NODES_SIZE.csv`, as the MPI programs that
the authors generated from GOAL schedules (their `goal2mpi.py`) print them:

    #MessageSize Rank0Time(us) Rank1Time(us) ... Rank{NODES-1}Time(us)
    16 4.291534 4.053116 7.867813 5.483627
    ...

one row per measured repetition (the programs drop their 10 warm-up
repetitions themselves), each rank's time in microseconds from its own exit
from the barrier that starts the repetition to the completion of its last
operation. A repetition's runtime is its slowest rank's time, as the authors
take it (their `plots/plot_sim.py`).

The reader streams: a file is read line by line and only one number per
repetition is kept. Anything that is not such a file is refused with a
one-line `FILE:LINE: what is wrong` (`MeasuredFileError`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from cloudnoise.errors import CloudnoiseError

# Bounds of what a file may hold: far above the artifact's (32 ranks, 10,000
# repetitions, lines of ~350 characters), low enough to bound memory.
MAX_RANKS = 1 << 16
MAX_REPETITIONS = 10_000_000
MAX_LINE_CHARS = 32 * MAX_RANKS
# The variant suffixes goal2mpi's driver (convert_all.sh) appends, in its order.
COMPUTE_SUFFIX = "nocompute"
MPI_SUFFIXES = ("nbsend", "test")

_NAME = re.compile(r"^(?P<stem>[A-Za-z][A-Za-z0-9_]*?)_(?P<nodes>[0-9]+)_(?P<size>[0-9]+)\.csv$")
_RANK_COLUMN = re.compile(r"^Rank([0-9]+)Time\(us\)$")


class MeasuredFileError(CloudnoiseError):
    """A measured file that cannot be read; its message names the file (and line)."""


@dataclass(frozen=True)
class RunName:
    """What a file's name says it holds: the Schedgen pattern the program was
    generated from, how it was generated (`nocompute`: calcs left out;
    `nbsend`: non-blocking sends; `test`: MPI_Test polling instead of the
    first wait of each block), and the node count and message size."""

    pattern: str
    nocompute: bool
    mpi_variant: str  # "" (blocking send, waits), "nbsend" or "test"
    nodes: int
    size: int

    @property
    def variant(self) -> str:
        """The suffix as the file name writes it: '', 'nocompute', 'nocompute_test', 'nbsend', ..."""
        return "_".join(([COMPUTE_SUFFIX] if self.nocompute else []) + ([self.mpi_variant] if self.mpi_variant else []))

    @property
    def program(self) -> str:
        """The artifact's program name: PATTERN[_VARIANT]."""
        return self.pattern + (f"_{self.variant}" if self.variant else "")


def parse_name(name: str) -> RunName:
    """Split a file name into pattern, variant, nodes and size; refuses any
    other name (MeasuredFileError)."""
    m = _NAME.match(name)
    if m is None:
        raise MeasuredFileError(f"{name}: not a collective run's name (PATTERN[_nocompute][_nbsend|_test]_NODES_SIZE.csv)")
    stem, nodes, size = m.group("stem"), int(m.group("nodes")), int(m.group("size"))
    mpi_variant = ""
    for suffix in MPI_SUFFIXES:
        if stem.endswith(f"_{suffix}"):
            stem, mpi_variant = stem[: -len(suffix) - 1], suffix
            break
    nocompute = stem.endswith(f"_{COMPUTE_SUFFIX}")
    if nocompute:
        stem = stem[: -len(COMPUTE_SUFFIX) - 1]
    if not 1 <= nodes <= MAX_RANKS:
        raise MeasuredFileError(f"{name}: {nodes} nodes is outside 1 to {MAX_RANKS}")
    return RunName(stem, nocompute, mpi_variant, nodes, size)


def read_runtimes(lines: Iterable[str], where: str, nodes: int, size: int) -> np.ndarray:
    """Every repetition's runtime in ns (the slowest rank's time) from a
    file's lines. ``where`` names the file in errors; ``nodes`` and ``size``
    are what its name says, and the header and rows must agree."""
    runtimes = np.empty(1024, dtype=np.float64)
    count = 0
    header_seen = False
    lineno = 0
    for lineno, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_CHARS:
            raise MeasuredFileError(f"{where}:{lineno}: a line of over {MAX_LINE_CHARS} characters; not a collective run")
        fields = line.split()
        if not fields:
            continue
        if not header_seen:
            _check_header(fields, where, lineno, nodes)
            header_seen = True
            continue
        if len(fields) != nodes + 1:
            raise MeasuredFileError(
                f"{where}:{lineno}: {len(fields)} columns where the header has {nodes + 1} "
                "(message size and one time per rank); the file is cut or damaged")
        if fields[0] != str(size):
            raise MeasuredFileError(f"{where}:{lineno}: message size {fields[0]!r}, the file's name says {size}")
        try:
            times = [float(f) for f in fields[1:]]
        except ValueError:
            raise MeasuredFileError(f"{where}:{lineno}: a rank time that is not a number") from None
        slowest = max(times)
        if not all(math.isfinite(t) and t >= 0 for t in times):
            raise MeasuredFileError(f"{where}:{lineno}: a rank time that is negative, NaN or infinite")
        if count == MAX_REPETITIONS:
            raise MeasuredFileError(f"{where}: more than {MAX_REPETITIONS} repetitions; not a collective run")
        if count == len(runtimes):
            runtimes = np.resize(runtimes, 2 * len(runtimes))
        runtimes[count] = slowest * 1000.0  # us -> ns
        count += 1
    if not header_seen:
        raise MeasuredFileError(f"{where}: empty (no '#MessageSize Rank0Time(us) ...' header)")
    if count == 0:
        raise MeasuredFileError(f"{where}:{lineno}: a header and no repetition")
    return runtimes[:count].copy()


def _check_header(fields: list[str], where: str, lineno: int, nodes: int) -> None:
    """The header names the message size and Rank0..Rank{nodes-1} in order."""
    if fields[0] != "#MessageSize":
        raise MeasuredFileError(f"{where}:{lineno}: the header does not start with '#MessageSize'")
    ranks = []
    for f in fields[1:]:
        m = _RANK_COLUMN.match(f)
        if m is None:
            raise MeasuredFileError(f"{where}:{lineno}: header column {f!r} is not RankNTime(us)")
        ranks.append(int(m.group(1)))
    if ranks != list(range(len(ranks))):
        raise MeasuredFileError(f"{where}:{lineno}: the header's rank columns are not Rank0, Rank1, ... in order")
    if len(ranks) != nodes:
        raise MeasuredFileError(f"{where}:{lineno}: the header has {len(ranks)} ranks, the file's name says {nodes}")
