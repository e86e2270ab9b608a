"""Write samples measured elsewhere as cloudnoise's probes write theirs.

An importer hands its samples to the measure stage in the probes' own
formats, so the stage's conversion (``measurement.stream``: Parquet,
streaming summaries) and ``measurement.runner.finalize`` (summaries,
Table II, OS-noise traces, the LogGP fit) run unchanged:

* ``ChunkWriter``: the ping-pong and detour probes' chunk files
  (``measurement.chunks``, ``src/probes/cn_chunks.h``), a block per run of
  samples that share kind, size and parameter and number on consecutively;
* ``write_records``: the loggp probe's 48-byte raw records (``measurement.samples``);
* ``write_info``: a rank's ``key=value`` info file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cloudnoise.measurement.chunks import HEADER, MAGIC, NARROW, WIDE, chunk_path
from cloudnoise.measurement.samples import RECORD

U32 = 0xFFFFFFFF
CHUNK_SAMPLES = 1 << 18  # samples per chunk file: what one conversion holds in memory (the probes cut 1 << 20)


def write_info(prefix: Path, rank: int, facts: dict[str, object]) -> None:
    """PREFIX.rankR.info with one ``key=value`` line per fact."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{k}={v}\n" for k, v in facts.items())
    (prefix.parent / f"{prefix.name}.rank{rank}.info").write_text(text)


def write_records(prefix: Path, rank: int, records: np.ndarray) -> None:
    """PREFIX.rankR.bin: the loggp probe's raw records."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    (prefix.parent / f"{prefix.name}.rank{rank}.bin").write_bytes(np.asarray(records, RECORD).tobytes())


class ChunkWriter:
    """Samples of one rank of one launch, into chunk files of at most CHUNK_SAMPLES."""

    def __init__(self, prefix: Path, rank: int = 0) -> None:
        self.prefix = prefix
        self.rank = rank
        self.chunk = 0
        self.in_chunk = 0
        self.samples = 0
        prefix.parent.mkdir(parents=True, exist_ok=True)

    def add(self, kind: int, size: np.ndarray, t_ns: np.ndarray, value_ns: np.ndarray, seq: np.ndarray,
            param: int = 0, stream: int = 0) -> None:
        """Samples in time order: per sample its size, start (ns, monotonic), value (ns)
        and index within its size's sequence."""
        n = len(t_ns)
        if n == 0:
            return
        # a block ends where the size changes or the sequence skips; a value over 32 bits
        # is a block of its own in wide records
        cut = np.zeros(n, bool)
        cut[0] = True
        cut[1:] = (size[1:] != size[:-1]) | (seq[1:] != seq[:-1] + 1) | (np.diff(t_ns) > U32) | (np.diff(t_ns) < 0)
        wide = value_ns > U32
        cut |= wide
        cut[1:] |= wide[:-1]
        starts = np.flatnonzero(cut)
        ends = np.append(starts[1:], n)
        for a, z in zip(starts, ends):
            self._block(kind, stream, int(size[a]), param, t_ns[a:z], value_ns[a:z], int(seq[a]), bool(wide[a]))

    def _block(self, kind: int, stream: int, size: int, param: int, t: np.ndarray, v: np.ndarray,
               seq0: int, wide: bool) -> None:
        done = 0
        while done < len(t):
            if self.in_chunk >= CHUNK_SAMPLES:
                self.chunk += 1
                self.in_chunk = 0
            take = min(len(t) - done, CHUNK_SAMPLES - self.in_chunk)
            tt, vv = t[done:done + take], v[done:done + take]
            head = np.zeros(1, HEADER)
            head["magic"], head["rec_bytes"], head["kind"], head["count"] = MAGIC, 16 if wide else 8, kind, take
            head["stream"], head["size_bytes"], head["param"] = stream, size, param
            head["t0_ns"], head["seq0"] = int(tt[0]), seq0 + done
            rec = np.zeros(take, WIDE if wide else NARROW)
            rec["dt"][1:] = np.diff(tt)
            rec["value"] = vv
            with open(chunk_path(self.prefix, self.rank, self.chunk), "ab") as out:
                out.write(head.tobytes())
                out.write(rec.tobytes())
            done += take
            self.in_chunk += take
            self.samples += take
