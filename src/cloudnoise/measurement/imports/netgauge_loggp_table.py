"""Netgauge's LogGP benchmark table: ``ng_loggp.out``.

Format (Netgauge 2.4.6 ``-x loggp``, MPI): three ``#`` lines, then per
message size s (1 B, then 1025 B in steps of 1 KiB up to 127 KiB):

    s  n  PRTT(1,0,s)  PRTT(n,0,s)  PRTT(n,PRTT(1,0,s),s)  L  o_s  o_r  g  G  lsqu(g,G)

in us (G in us per byte), n = 10. The three PRTTs are Netgauge's
parametrised round trips (Hoefler, Lichei, Rehm 2009: n messages d apart
and a reply); ``o_s`` is Netgauge's send overhead at size s,
(PRTT(n,d,s) - PRTT(1,0,s)) / (n - 1) - d with d = PRTT(1,0,s), ``o_r`` its
receive overhead at size s (timed on the receiver after the message has
arrived), ``L`` = PRTT(1,0,1) / 2 on every row, and ``g``, ``G`` the least
squares line (PRTT(n,0,s) - PRTT(1,0,s)) / (n - 1) = g + (s - 1) G over the
sizes up to s (so NaN on the first row, and the last row's over all sizes),
``lsqu`` its residual. Where that residual is large Netgauge writes the size's
row again with the line refitted (same round trips; seen in the artifact's
Daint runs of March): the last row of a size stands.

Netgauge's own parameters, as this module reports them: L of the table, o_s
and o_r of the 1-byte row (LogGP's o is a per-message cost), g and G of the
last row (the fit over every size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_lines import batches
from cloudnoise.measurement.samples import (
    KIND_ISEND_CALL,
    KIND_RECV_EARLY,
    KIND_RECV_LATE,
    KIND_RTT,
    KIND_TRAIN,
    KIND_TRAIN_DELAYED,
    RECORD,
)

COLUMNS = ("size", "n", "prtt1", "prttn", "prttnd", "L", "o_s", "o_r", "g", "G", "lsqu")
MAX_ROWS = 100_000


@dataclass
class LogGPTable:
    """The table's columns (us, sizes in B) and its header lines."""

    columns: dict[str, np.ndarray]
    header: list[str]

    @property
    def sizes(self) -> np.ndarray:
        return self.columns["size"].astype(np.int64)

    @property
    def n(self) -> int:
        return int(self.columns["n"][0])

    def records(self) -> np.ndarray:
        return _records_of(self)

    def netgauge_parameters(self) -> dict[str, Any]:
        """Netgauge's own L, o_s, o_r (1 B row), g, G (last row), in ns and ns/B."""
        c = self.columns
        last = len(c["size"]) - 1
        g, G = float(c["g"][last]), float(c["G"][last])
        return {
            "L": float(c["L"][0]) * 1e3,
            "o_s": float(c["o_s"][0]) * 1e3,
            "o_r": float(c["o_r"][0]) * 1e3,
            "g": g * 1e3 if np.isfinite(g) else None,
            "G": G * 1e3 if np.isfinite(G) else None,
            "sizes_bytes": [int(self.sizes[0]), int(self.sizes[-1])],
            "train_length": self.n,
            "how": "L of the table (PRTT(1,0,1)/2); o_s, o_r of its 1-byte row; g, G of its last row "
                   "(Netgauge's least-squares line over every size)",
        }


def _records_of(table: "LogGPTable") -> np.ndarray:
    """The table as the loggp probe's raw records (one round, ns), so that the measure
    stage's fit (measurement.loggp) reads it as its own: per size a ping-pong
    (PRTT(1,0,s)), a train (PRTT(n,0,s), param n), a delayed train (PRTT(n,d,s),
    param d = PRTT(1,0,s)), the send overhead o_s(s) as the send call, and o_r(s) as
    both the early and the late receive (Netgauge times one receive, after its
    message arrived; LogGOPS has one o_r)."""
    c = table.columns
    ns = lambda col: np.rint(c[col] * 1e3).astype(np.int64)  # noqa: E731
    size = table.sizes
    kinds = [(KIND_RTT, ns("prtt1"), 0), (KIND_TRAIN, ns("prttn"), table.n),
             (KIND_TRAIN_DELAYED, ns("prttnd"), ns("prtt1")), (KIND_ISEND_CALL, ns("o_s"), 0),
             (KIND_RECV_EARLY, ns("o_r"), 0), (KIND_RECV_LATE, ns("o_r"), 0)]
    out = np.zeros(len(size) * len(kinds), RECORD)
    for k, (kind, value, param) in enumerate(kinds):
        rows = out[k * len(size):(k + 1) * len(size)]
        rows["kind"], rows["size_bytes"], rows["param"], rows["value_ns"] = kind, size, param, value
        rows["t_ns"] = np.arange(len(size)) + k * len(size)
    return out


def read(stream: IO[bytes], where: str) -> LogGPTable:
    """The whole table (a few hundred rows at most), checked."""
    rows: list[np.ndarray] = []
    header: list[str] = []
    lines: list[np.ndarray] = []
    for batch in batches(stream, where, len(COLUMNS), nan_ok=(8, 9, 10)):
        header += [t for _, t in batch.comments]
        rows.append(batch.values)
        lines.append(batch.lines)
        if sum(len(r) for r in rows) > MAX_ROWS:
            raise CloudnoiseError(f"{where}: more than {MAX_ROWS} rows; not a Netgauge LogGP table")
    values = np.concatenate(rows) if rows else np.empty((0, len(COLUMNS)))
    at = np.concatenate(lines) if lines else np.empty(0, np.int64)
    if len(values) == 0:
        raise CloudnoiseError(f"{where}: no rows (an empty file, or headers only); the LogGP benchmark did not run")
    if not any("PRTT" in h for h in header):
        raise CloudnoiseError(f"{where}: no '# size n PRTT(1,0,s) ...' header; not a Netgauge LogGP table")
    size, n = values[:, 0], values[:, 1]
    checks = [
        ((size < 1) | (size > 2.0**40) | (size != np.floor(size)), "size is not a whole number of bytes up to 1 TiB"),
        (np.concatenate([[False], np.diff(size) < 0]), "sizes go down"),
        ((n < 2) | (n != np.floor(n)) | (n != n[0]), "n is not the same whole number >= 2 on every row"),
        ((values[:, 2:5] <= 0).any(axis=1), "a round trip time is not positive"),
        ((np.abs(values[:, 2:8]) > 1e9).any(axis=1), "a round trip or overhead over 1000 s"),
        ((n > 1e6), "n over a million messages"),
    ]
    for bad, what in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise CloudnoiseError(f"{where}: line {at[i]}: {what}; the table is damaged")
    # Netgauge writes a size again when its least-squares residual was large (the same
    # round trips, the line refitted): the last row of each size stands
    last = np.append(size[1:] != size[:-1], True)
    values = values[last]
    return LogGPTable({name: values[:, k] for k, name in enumerate(COLUMNS)}, header)
