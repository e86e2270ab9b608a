"""The simulator inputs the paper's authors made from a Netgauge run, as
their `simulations/simulate.py` made them (read for the facts, not copied):

* latency and bandwidth samples (`convert_noise`): the rows of
  `ng_netnoise_mpi_lat.out` / `_bw.out` whose position in the file's data
  rows, modulo 1000, is above 20 (each run's 20 warm-up rows and one more);
  the round trip in microseconds times 10^6, truncated to whole picoseconds;
  for bandwidth that divided by the message size, truncated (ps per byte).
  Scaling to the median L or G happens when a simulation picks its
  parameters (model/switch_draws.py).
* the OS-noise trace: every non-comment row of `ng_osnoise.out`, start and
  duration in ns times 1000, truncated to picoseconds. The file holds
  several selfish-detour runs one after the other, each starting again near
  0; the authors' simulator searches the concatenation as if it were sorted
  and takes the last row's start as the trace's length. `effective_trace`
  gives what that search actually reads, as one sorted trace.

The readers take the file's bytes (read from the run's .tar.xz without
unpacking it to disk) and hold numbers in NumPy arrays only.
"""

from __future__ import annotations

import io
import lzma
import tarfile
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown

WARMUP = 20  # Netgauge's warm-up rows per run of 1000
PER_RUN = 1000
LATENCY_FILE = "ng_netnoise_mpi_lat.out"
BANDWIDTH_FILE = "ng_netnoise_mpi_bw.out"
OS_NOISE_FILE = "ng_osnoise.out"


def read_members(archive: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    """The named files of a run archive (by base name), read in one pass over the stream."""
    out: dict[str, bytes] = {}
    try:
        with tarfile.open(archive, mode="r|xz") as tar:
            for member in tar:
                base = member.name.rsplit("/", 1)[-1]
                if member.isfile() and base in names and base not in out:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        out[base] = fh.read()
                if len(out) == len(names):
                    break
    except (OSError, tarfile.TarError, lzma.LZMAError, EOFError) as err:
        raise CloudnoiseError(f"{shown(archive)}: not a readable run archive (.tar.xz): {err}") from None
    missing = [n for n in names if n not in out]
    if missing:
        raise CloudnoiseError(f"{shown(archive)}: the run has no {', '.join(missing)}")
    return out


def _table(data: bytes, where: str, columns: int) -> np.ndarray:
    try:
        rows = np.loadtxt(io.BytesIO(data), comments="#", delimiter="\t", ndmin=2, dtype=np.float64)
    except ValueError as err:
        raise CloudnoiseError(f"{where}: not a table of {columns} tab-separated numbers: {err}") from None
    if rows.shape[0] == 0 or rows.shape[1] != columns:
        raise CloudnoiseError(f"{where}: expected rows of {columns} tab-separated numbers")
    return rows


def _kept(rows: np.ndarray, where: str) -> np.ndarray:
    """The authors' rows: position modulo 1000 above 20, no NaN, positive round trips."""
    keep = (np.arange(rows.shape[0]) % PER_RUN) > WARMUP
    kept = rows[keep]
    kept = kept[~np.isnan(kept).any(axis=1)]
    if kept.shape[0] == 0:
        raise CloudnoiseError(f"{where}: no sample left after dropping the warm-up rows")
    if (kept[:, 1] <= 0).any() or (kept[:, 0] <= 0).any():
        raise CloudnoiseError(f"{where}: sizes and round trips must be positive")
    return kept


def latency_ps(data: bytes, where: str = LATENCY_FILE) -> np.ndarray:
    """Round trips in whole ps (the authors' latency samples before scaling)."""
    kept = _kept(_table(data, where, 2), where)
    return (kept[:, 1] * 1000000).astype(np.int64)


def gap_ps_per_byte(data: bytes, where: str = BANDWIDTH_FILE) -> np.ndarray:
    """Round trip over size in whole ps per byte (the authors' bandwidth samples before scaling)."""
    kept = _kept(_table(data, where, 2), where)
    return ((kept[:, 1] * 1000000).astype(np.int64) / kept[:, 0]).astype(np.int64)


def os_trace_ps(data: bytes, where: str = OS_NOISE_FILE) -> tuple[np.ndarray, np.ndarray]:
    """Every detour row in file order: (starts, durations) in whole ps."""
    rows = _table(data, where, 2)
    if np.isnan(rows).any() or (rows < 0).any():
        raise CloudnoiseError(f"{where}: detour starts and durations must be numbers >= 0")
    return (rows[:, 0] * 1000).astype(np.int64), (rows[:, 1] * 1000).astype(np.int64)


def effective_trace(starts: np.ndarray, durations: np.ndarray, where: str = OS_NOISE_FILE
                    ) -> tuple[np.ndarray, np.ndarray]:
    """What the authors' simulator reads of a concatenated trace, as one sorted trace.

    Its length is the last row's start, T. When the first run is sorted,
    holds the middle row (the binary search's first probe) and that row
    starts after T, every search stays in the first run, and an activity
    (which ends before T) never walks past it: the trace read is the first
    run's detours that start before T. A zero-length detour at T keeps the
    length (cloudnoise's trace is as long as its last start)."""
    n = starts.size
    if n < 2:
        raise CloudnoiseError(f"{where}: a trace needs at least two detours")
    T = int(starts[-1])
    falls = np.flatnonzero(np.diff(starts) < 0)
    first_run = n if falls.size == 0 else int(falls[0]) + 1
    if first_run == n:
        return starts.copy(), durations.copy()
    mid = (n - 1) // 2
    if not (mid < first_run and starts[mid] > T):
        raise CloudnoiseError(
            f"{where}: the runs are concatenated so that the authors' search could leave the first run; "
            "no single sorted trace reproduces it"
        )
    keep = starts[:first_run] < T
    return (np.append(starts[:first_run][keep], T).astype(np.int64),
            np.append(durations[:first_run][keep], 0).astype(np.int64))
