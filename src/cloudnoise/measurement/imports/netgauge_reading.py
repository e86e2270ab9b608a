"""The measure stage's public reading API for Netgauge runs, for the stages after it.

`cloudnoise measure import netgauge` reads a run through `netgauge_source`
(the run folder or its ``.tar.xz``, streamed) and `netgauge_lines` (number
lines a block at a time, damaged lines named). Other stages that read a
Netgauge run's files, such as `cloudnoise profiles build` reading the paper
artifact as the authors' scripts did, use these two functions instead of a
parser of their own, so a run is parsed one way everywhere.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_lines import batches
from cloudnoise.measurement.imports.netgauge_source import members


def run_files(source: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    """The named files (base names) of a run folder or ``.tar.xz``, read in one pass
    that stops once all are found. A name the run lacks is an error naming it."""
    wanted = set(names)
    out: dict[str, bytes] = {}
    for member in members(Path(source), lambda name: name in wanted):
        if member.name in wanted and member.name not in out:
            out[member.name] = member.stream.read()
            if len(out) == len(wanted):
                break  # the generator, dropped here, closes the archive
    missing = [n for n in names if n not in out]
    if missing:
        raise CloudnoiseError(f"{source}: the run has no {', '.join(missing)}")
    return out


def number_rows(data: bytes, where: str, columns: int, nan_ok: tuple[int, ...] = (),
                cut_short_ok: bool = False) -> np.ndarray:
    """A Netgauge file's number lines as one float64 array (rows in file order,
    ``#`` and blank lines skipped). NaN is allowed in the ``nan_ok`` columns; with
    ``cut_short_ok`` a last line without its newline (a run stopped mid-line) is
    dropped instead of refused. Every other damage is a one-line error naming file
    and line (netgauge_lines)."""
    parts = [b.values for b in batches(io.BytesIO(data), where, columns, nan_ok=nan_ok,
                                       salvaged=[] if cut_short_ok else None)]
    return np.concatenate(parts) if parts else np.empty((0, columns))
