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
unpacking it to disk: measurement.imports.netgauge_reading.run_files) and
parse them with the measure stage's Netgauge reader (number_rows there), so
a run is parsed one way in cloudnoise; they hold numbers in NumPy arrays only.
"""

from __future__ import annotations

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_reading import number_rows

WARMUP = 20  # Netgauge's warm-up rows per run of 1000
PER_RUN = 1000
LATENCY_FILE = "ng_netnoise_mpi_lat.out"
BANDWIDTH_FILE = "ng_netnoise_mpi_bw.out"
OS_NOISE_FILE = "ng_osnoise.out"


def _table(data: bytes, where: str) -> np.ndarray:
    """The file's rows of two numbers, read by the measure stage's Netgauge reader
    (cloudnoise.measurement.imports.netgauge_reading): NaN kept (their script drops
    those rows after counting positions), a last row cut short dropped (pandas reads
    it as a NaN row, after every position that counts)."""
    rows = number_rows(data, where, 2, nan_ok=(0, 1), cut_short_ok=True)
    if rows.shape[0] == 0:
        raise CloudnoiseError(f"{where}: the file holds no rows")
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
    kept = _kept(_table(data, where), where)
    return (kept[:, 1] * 1000000).astype(np.int64)


def gap_ps_per_byte(data: bytes, where: str = BANDWIDTH_FILE) -> np.ndarray:
    """Round trip over size in whole ps per byte (the authors' bandwidth samples before scaling)."""
    kept = _kept(_table(data, where), where)
    return ((kept[:, 1] * 1000000).astype(np.int64) / kept[:, 0]).astype(np.int64)


def os_trace_ps(data: bytes, where: str = OS_NOISE_FILE) -> tuple[np.ndarray, np.ndarray]:
    """Every detour row in file order: (starts, durations) in whole ps."""
    rows = _table(data, where)
    if np.isnan(rows).any() or (rows < 0).any():
        raise CloudnoiseError(f"{where}: detour starts and durations must be numbers >= 0")
    return (rows[:, 0] * 1000).astype(np.int64), (rows[:, 1] * 1000).astype(np.int64)


def _bisect_like_theirs(a: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Where their lookup's binary search stops for each position in `s`
    (all after a[0]): halve [0, n-1] by `s > a[pos]` until it meets a
    value equal to s or the range closes. On a sorted array that is the
    usual search; on a concatenation it may stop in any run."""
    lo = np.zeros(s.size, dtype=np.int64)
    hi = np.full(s.size, a.size - 1, dtype=np.int64)
    pos = np.zeros(s.size, dtype=np.int64)
    active = np.ones(s.size, dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        p = (lo[idx] + hi[idx]) // 2
        pos[idx] = p
        greater = s[idx] > a[p]
        lo[idx] = np.where(greater, p + 1, lo[idx])
        hi[idx] = np.where(greater, hi[idx], p - 1)
        active[idx] = (s[idx] != a[p]) & (lo[idx] < hi[idx])
    return pos


def _settle_like_theirs(a: np.ndarray, bounds: np.ndarray, pos: int, s: int) -> int:
    """Their step from the search's stop to a[q] <= s < a[q+1]: left while
    a[q] > s, else right while a[q+1] <= s, one row at a time (here a run at
    a time: `bounds` are the runs' starts and the array's end)."""
    k = int(np.searchsorted(bounds, pos, side="right")) - 1
    if a[pos] > s:
        hi = pos + 1
        while k >= 0:
            q = bounds[k] + int(np.searchsorted(a[bounds[k]:hi], s, side="right")) - 1
            if q >= bounds[k]:
                return int(q)
            k -= 1
            hi = bounds[k + 1]
        raise CloudnoiseError("OS-noise trace: no row at or before a position after the first row")
    lo = pos
    while True:
        end = bounds[k + 1]
        q = lo + int(np.searchsorted(a[lo:end], s, side="right")) - 1
        if q < end - 1 or end == a.size:
            return int(q)
        k += 1  # the run's last row is <= s, and so is the next run's first: on into it
        lo = bounds[k]


def serving_stretches(starts: np.ndarray, bounds: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each stretch of positions that one run serves starts (x), which
    run serves it, and the row their lookup settles on at x. `bounds`: the
    runs' first rows and the array's end (found from the falls when None)."""
    n = starts.size
    if bounds is None:
        bounds = np.concatenate([[0], np.flatnonzero(np.diff(starts) < 0) + 1, [n]]).astype(np.int64)
    T = int(starts[-1])
    values = np.unique(starts)
    values = values[(values > starts[0]) & (values < T)]
    # Positions where the serving run may change: each row value, and just after it.
    probe = np.unique(np.concatenate([values, values + 1]))
    probe = probe[probe < T]
    stops = _bisect_like_theirs(starts, probe)
    q = np.array([_settle_like_theirs(starts, bounds, int(p), int(x)) for p, x in zip(stops, probe)], dtype=np.int64)
    run = np.searchsorted(bounds, q, side="right") - 1
    first = np.concatenate([[0], np.flatnonzero(np.diff(run)) + 1])
    return probe[first], run[first], q[first]


def effective_trace(starts: np.ndarray, durations: np.ndarray, where: str = OS_NOISE_FILE
                    ) -> tuple[np.ndarray, np.ndarray]:
    """What the authors' simulator reads of a concatenated trace, as one sorted trace.

    Their OS-noise lookup treats the file's rows as one array: its length is
    the last row's start, T; a position s (in [0, T - len) for an activity of
    length len) is looked up by a binary search and a step to a[q] <= s <
    a[q+1], which on a concatenation of runs may land in any run; the
    activity is then charged the rest of detour q and every later detour of
    that run that starts before s + len. Which run serves s is a function of
    s, constant between consecutive row values, computed here exactly; the
    result is, per stretch of positions one run serves, that run's detours in
    the stretch, and at the stretch's start the rest of the detour then in
    progress in it (a detour of its own). Not reproduced: an activity that
    crosses a stretch's end is charged here from the next stretch's run, and
    one that crosses its run's last row walks into the next run from its
    start in theirs (for o-sized activities on traces of ~100 s, about one
    in 10^6 and in 10^8). A zero-length detour at T ends the trace where theirs ends.
    """
    n = starts.size
    if n < 2:
        raise CloudnoiseError(f"{where}: a trace needs at least two detours")
    T = int(starts[-1])
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(starts) < 0) + 1, [n]]).astype(np.int64)
    if bounds.size == 2:
        return starts.astype(np.int64), durations.astype(np.int64)
    x_at, run_at, q_at = serving_stretches(starts, bounds)
    out_s: list[np.ndarray] = [starts[:1].astype(np.int64)]
    out_d: list[np.ndarray] = [durations[:1].astype(np.int64)]
    for j in range(x_at.size):
        x = int(x_at[j])
        y = int(x_at[j + 1]) if j + 1 < x_at.size else T
        k = int(run_at[j])
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        qx = int(q_at[j])
        rest = max(0, int(starts[qx]) + int(durations[qx]) - x)
        sel = np.arange(lo, hi)[(starts[lo:hi] > x) & (starts[lo:hi] < y)]
        out_s += [np.array([x], dtype=np.int64), starts[sel].astype(np.int64)]
        out_d += [np.array([rest], dtype=np.int64), durations[sel].astype(np.int64)]
    out_s.append(np.array([T], dtype=np.int64))
    out_d.append(np.array([0], dtype=np.int64))
    return np.concatenate(out_s), np.concatenate(out_d)
