"""`simulate --out`: every repetition of a simulation written as a Parquet or CSV file
(the table of `result.repetitions_table`, one row per variant and repetition)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError
from cloudnoise.output_files import atomic_write
from cloudnoise.simulation.result import SimulationResult, repetitions_table

# --out's suffix chooses the format (docs/reference/conventions.md): anything else is an error.
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def check_out(path: Path) -> str:
    """The format `path`'s suffix names, or an error before anything is simulated."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CloudnoiseError(
            f"--out {path}: unknown suffix {path.suffix or '(none)'!r}; name a .parquet or .csv file"
        )
    if path.is_dir():
        raise CloudnoiseError(f"--out {path}: is a directory; name a .parquet or .csv file")
    if not path.parent.is_dir():
        raise CloudnoiseError(f"--out {path}: directory {path.parent} does not exist")
    return fmt


def write_repetitions(path: Path, results: dict[str, SimulationResult]) -> None:
    """Writes Parquet or CSV (by suffix), atomically: an interrupted or failed
    write leaves the file an earlier run wrote as it was."""
    fmt = check_out(path)
    table = repetitions_table(results)
    try:
        if fmt == "csv":
            atomic_write(path, lambda tmp: pacsv.write_csv(table, tmp))
        else:
            atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    except OSError as err:
        raise CloudnoiseError(f"--out {path}: cannot write ({err.strerror or err})") from None
