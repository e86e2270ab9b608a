"""The one small interface every trace format implements, and `open_trace`,
which recognises the format of a folder (or file) and opens it.

A reader streams each rank's calls in program order (never the whole trace
in memory) and says how many ranks there are and what it knows about the
run. Formats: `native` (cloudnoise's recorder), `liballprof` (LogGOPSim's
tracer) and `otf2` (Score-P and other tools, with the optional `otf2`
package).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import Call


class TraceReader(Protocol):
    """A recorded run: `num_ranks` ranks, each a stream of `Call`s."""

    format: str
    path: Path
    num_ranks: int
    # what the reader found wrong and worked around (one line each; the conversion's warnings)
    warnings: Sequence[str]
    # whether completions carry the status MPI returned (native, OTF2): an empty status then
    # means no message arrived; False where the format does not record it (liballprof)
    records_status: bool

    def calls(self, rank: int) -> Iterator[Call]:
        """Rank `rank`'s calls in program order, streamed from disk."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the trace says about the run (format, ranks, host, command...)."""
        ...


def open_trace(path: str | Path) -> TraceReader:
    """The reader for `path`: a native trace folder (rank-*.cntr), a folder
    of liballprof files (*-rank-N.txt / pmpi-trace-rank-*.txt), or an OTF2
    archive (its NAME.otf2 anchor file, or the folder holding it)."""
    p = Path(path)
    if not p.exists():
        raise CloudnoiseError(f"{p}: no such trace folder; give the folder `cloudnoise trace record --out` wrote")
    if p.is_dir():
        if any(p.glob("rank-*.cntr")) or any(p.glob("rank-*.cntr.gz")):
            from cloudnoise.trace.native import NativeTrace

            return NativeTrace(p)
        from cloudnoise.trace.otf2 import OTF2Trace, find_anchor

        anchor = find_anchor(p)
        if anchor is not None:
            return OTF2Trace(anchor)
        from cloudnoise.trace.liballprof import LiballprofTrace, find_rank_files

        if find_rank_files(p):
            return LiballprofTrace(p)
        raise CloudnoiseError(
            f"{p}: no trace found (expected rank-*.cntr from `cloudnoise trace record`, liballprof's "
            "*-rank-N.txt files, or an OTF2 archive's .otf2 file)"
        )
    if p.suffix == ".otf2":
        from cloudnoise.trace.otf2 import OTF2Trace

        return OTF2Trace(p)
    raise CloudnoiseError(f"{p}: not a trace folder; give the folder holding the per-rank files")
