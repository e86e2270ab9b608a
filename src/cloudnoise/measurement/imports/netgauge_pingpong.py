"""Netgauge's ping-pong samples: ``ng_netnoise_mpi_{lat,bw}.out``, ``ng_one_one_*.out``.

Format (Netgauge 2.4.6 ``one_one``, full output ``-f``): a ``#size<TAB>rtt``
header, then one line per timed ping-pong: the message size in bytes (with
N concurrent pairs, N times each pair's size) and **RTT/2** in microseconds
(Netgauge divides the round trip by two before writing it; with several
pairs, half the time from the first pair's start to the last pair's end).
Netgauge itself runs one untimed warm-up before writing. The paper's scripts
call Netgauge again and again (``-c 1000``) and append each call's file, so
a file is runs of ``RUN_LENGTH`` samples, usually each after its own header
(one artifact file has a single header over 161 runs).

Warm-up. The authors' ``convert_noise`` (``simulations/simulate.py``) and
``plots/get_table.py`` read a file with pandas (``comment="#"``, so headers
vanish and the index counts samples over the whole file) and keep the rows
with ``index % 1000 > 20``: the first **21** samples of every 1000 are
dropped (the artifact's README says 20: the ``>`` drops one more). We drop
exactly those (``WARMUP_DROPPED``), counting samples over the whole file as
they do, so an imported campaign holds the very samples the authors
simulated with and its medians match theirs. A size that changes inside a
1000-sample run, or a file whose sample count is not a whole number of runs
(cut short), is refused: the authors' rule would silently mix runs there.

Time. Netgauge writes no timestamps. A sample's start is reconstructed as
back-to-back ping-pongs: the sum of the round trips before it (dropped
warm-ups included) from the run folder's start time. Slices of the day
are therefore approximate (the scripts' pauses between calls are not
counted).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_lines import batches

RUN_LENGTH = 1000  # samples per Netgauge call in the paper's scripts (-c 1000)
WARMUP_DROPPED = 21  # index % 1000 > 20 keeps samples 21..999 of each run
MAX_SIZE = 1 << 40
MAX_HALF_US = 1e9  # a ping-pong of over 1000 s is not a measurement


@dataclass
class PingPongs:
    """One batch of kept samples: size (B), RTT (ns, twice Netgauge's RTT/2),
    start (ns from the file's first sample), and index within its size."""

    size: np.ndarray
    rtt_ns: np.ndarray
    start_ns: np.ndarray
    seq: np.ndarray


@dataclass
class PingPongTotals:
    """What the whole file held, filled in as it is read."""

    samples: int = 0  # timed samples in the file
    kept: int = 0
    runs: int = 0
    headers: int = 0
    sizes: tuple[int, ...] = ()
    span_ns: int = 0


def read(stream: IO[bytes], where: str, totals: PingPongTotals,
         salvaged: list[str] | None = None) -> Iterator[PingPongs]:
    """The kept samples of one file, batch by batch (see the module doc); ``totals``
    is complete once the iterator is exhausted. ``salvaged``: a file cut short is
    read as the authors' pandas read it (every whole line, the same index rule),
    with a note here, instead of refused."""
    index = 0  # samples so far over the whole file, as the authors' pandas index
    clock = 0  # ns: start of the next sample
    run_size = -1  # the current run's size
    run_line = 0
    seen: dict[int, int] = {}  # size -> kept samples so far (the iteration index)
    last_line = 0
    for batch in batches(stream, where, 2, salvaged=salvaged):
        totals.headers += len(batch.comments)
        n = len(batch.lines)
        if n == 0:
            continue
        last_line = int(batch.lines[-1])
        size_f, half_us = batch.values[:, 0], batch.values[:, 1]
        bad_size = (size_f < 1) | (size_f > MAX_SIZE) | (size_f != np.floor(size_f))
        wrong = bad_size | (half_us < 0) | (half_us > MAX_HALF_US)
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            what = "size" if bad_size[i] else "time"
            raise CloudnoiseError(f"{where}: line {batch.lines[i]}: {what} {batch.values[i, 0 if what == 'size' else 1]!r} "
                                  "is not a Netgauge message size in bytes and RTT/2 in us")
        size = size_f.astype(np.int64)
        idx = index + np.arange(n, dtype=np.int64)
        pos = idx % RUN_LENGTH
        # each sample's run size: the size of its run's first sample (carried over batches)
        starts = np.flatnonzero(pos == 0)
        ref = np.empty(n, np.int64)
        first_start = int(starts[0]) if len(starts) else n
        ref[:first_start] = run_size
        for k, s in enumerate(starts):
            end = int(starts[k + 1]) if k + 1 < len(starts) else n
            ref[s:end] = size[s]
        bad = size != ref
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            begins = run_line if i < first_start else int(batch.lines[i - int(pos[i])])
            raise CloudnoiseError(
                f"{where}: line {batch.lines[i]}: size {int(size[i])} inside a run of size {int(ref[i])} "
                f"(the run began on line {begins}; Netgauge writes {RUN_LENGTH} samples of one size per run); "
                "the file is damaged or not from the paper's scripts")
        if len(starts):
            run_size = int(size[starts[-1]])
            run_line = int(batch.lines[starts[-1]])
        rtt = np.rint(half_us * 2000.0).astype(np.int64)
        begin = clock + np.concatenate([[0], np.cumsum(rtt[:-1])])
        clock = int(begin[-1] + rtt[-1])
        keep = pos >= WARMUP_DROPPED
        ks, kr, kb = size[keep], rtt[keep], begin[keep]
        seq = np.empty(len(ks), np.int64)
        for s in np.unique(ks):
            mine = ks == s
            got = seen.get(int(s), 0)
            seq[mine] = got + np.arange(int(mine.sum()))
            seen[int(s)] = got + int(mine.sum())
        index += n
        totals.kept += len(ks)
        if len(ks):
            yield PingPongs(ks, kr, kb, seq)
    totals.samples = index
    totals.runs = index // RUN_LENGTH
    totals.sizes = tuple(sorted(seen))
    totals.span_ns = clock
    if index == 0:
        raise CloudnoiseError(f"{where}: no samples (an empty file, or headers only); the run did not measure this")
    if index % RUN_LENGTH and salvaged is not None:
        salvaged.append(f"{where}: line {last_line}: the file ends {index % RUN_LENGTH} samples into a "
                        f"{RUN_LENGTH}-sample run (cut short); its samples past the warm-up are kept, as the "
                        "authors' scripts read them")
    elif index % RUN_LENGTH:
        raise CloudnoiseError(
            f"{where}: line {last_line}: the file ends {index % RUN_LENGTH} samples into a {RUN_LENGTH}-sample run "
            "(cut short?); use a complete copy of the run")
