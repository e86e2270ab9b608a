"""The small files of a Netgauge run: DGEMM rates, the hoverboard test, the
timer resolution and the ``.cmdout`` logs (command lines, Netgauge version).

Formats (the paper's ``benchmarks/run.sh``):

* ``gemm_N.dat``: ``#N<TAB>TIME(s)<TAB>GFLOPs/s<TAB>THEO_PEAK`` and rows of
  those four numbers (DGEMM on N x N matrices; some runs hold the header only);
* ``hoverboard_reps_R.out``: ``# Hoverboard test (...)``, ``# time(ns),sleep_time(ns),repetitions``
  and comma-separated rows: a 1 MiB message's time after the ranks slept;
* ``wtime_res.out``: ``MPI_Wtime resolution is X nanoseconds.``;
* ``*.cmdout``: what Netgauge printed, each call opening with
  ``# Info:   (0): Netgauge v2.4.6 MPI enabled (P=2, ...) (COMMAND LINE )``.
"""

from __future__ import annotations

import re
from typing import IO, Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_lines import batches

MAX_TEXT_BYTES = 64 << 20  # a .cmdout of a day-long run is a few MB
_VERSION = re.compile(r"Netgauge v([0-9][0-9A-Za-z.\-]*)")
_COMMAND = re.compile(r"Netgauge v\S+ (.*?) \((.*)\)\s*$")
_WTIME = re.compile(r"resolution is\s+([0-9.eE+\-]+)\s*nanoseconds")


def read_gemm(stream: IO[bytes], where: str) -> list[dict[str, float]]:
    """Rows of a gemm_N.dat ([] when it holds the header only)."""
    out = []
    for batch in batches(stream, where, 4):
        for n, t, gflops, peak in batch.values:
            out.append({"n": int(n), "time_s": float(t), "gflops": float(gflops), "peak_gflops": float(peak)})
    return out


def read_hoverboard(stream: IO[bytes], where: str) -> dict[str, Any]:
    """Per sleep time: how many rows and the median time of the message after it (ns)."""
    rows = [b.values for b in batches(stream, where, 3, sep=b",")]
    values = np.concatenate(rows) if rows else np.empty((0, 3))
    out = []
    for sleep in np.unique(values[:, 1]) if len(values) else []:
        mine = values[values[:, 1] == sleep, 0]
        out.append({"sleep_ns": int(sleep), "rows": int(len(mine)), "median_time_ns": float(np.median(mine))})
    return {"rows": int(len(values)), "by_sleep": out}


def _text(stream: IO[bytes], where: str) -> str:
    data = stream.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise CloudnoiseError(f"{where}: over {MAX_TEXT_BYTES >> 20} MB; not a Netgauge log")
    return data.decode("utf-8", "replace")


def read_wtime(stream: IO[bytes], where: str) -> float | None:
    """The MPI_Wtime resolution in ns (None when the file does not say it)."""
    match = _WTIME.search(_text(stream, where))
    return float(match.group(1)) if match else None


def read_cmdout(stream: IO[bytes], where: str) -> dict[str, Any]:
    """Netgauge versions, distinct command lines (with how often each ran) and MPI settings."""
    versions: set[str] = set()
    commands: dict[str, int] = {}
    setups: set[str] = set()
    for line in _text(stream, where).splitlines():
        if "Netgauge v" not in line:
            continue
        version = _VERSION.search(line)
        if version:
            versions.add(version.group(1))
        command = _COMMAND.search(line)
        if command:
            setups.add(command.group(1))
            commands[command.group(2).strip()] = commands.get(command.group(2).strip(), 0) + 1
    return {"versions": sorted(versions), "setups": sorted(setups),
            "commands": [{"command": c, "calls": k} for c, k in sorted(commands.items())]}
