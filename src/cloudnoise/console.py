"""Where commands print: tables on stdout, notes and progress on stderr (docs/reference/conventions.md).

Rich sizes its output to the terminal and, when stdout is a pipe or a file,
to 80 columns, which folds or truncates wide tables. A table piped to
`less`, `grep` or a file must keep every column whole, so off a terminal the
console is as wide as the widest line needs. `write_csv` prints the same rows
as CSV for `--csv`.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console

# Wide enough for any table we print; rich tables do not stretch to the width.
PIPE_WIDTH = 1000


def stdout_console() -> Console:
    """A console for results: the terminal's width on a terminal, unlimited when piped."""
    if sys.stdout.isatty():
        return Console()
    return Console(width=PIPE_WIDTH, soft_wrap=False)


def stderr_console(quiet: bool = False) -> Console:
    """A console for notes and progress; `quiet` silences it."""
    return Console(stderr=True, quiet=quiet)


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]], stream: Any = None) -> None:
    """`rows` as CSV with a header line, on stdout unless `stream` is given.

    None is written as an empty field; floats keep full precision."""
    out = stream or sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
