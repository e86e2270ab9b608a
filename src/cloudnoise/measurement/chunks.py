"""Read the compact chunk files the ping-pong and detour probes write.

Format (``src/probes/cn_chunks.h``): ``PREFIX.rankR.cKKKKKK.cnk`` holds blocks
of a 48-byte header (magic ``CNB1``, record width, kind, count, stream,
size_bytes, param, t0_ns, seq0) and ``count`` records of 8 bytes (u32 time
since the previous sample's start, u32 value) or, for a lone sample that does
not fit 32 bits, 16 bytes (two int64). A probe killed mid-write leaves a torn
last block: its whole records count, the rest is dropped. Anything else that
does not parse (a wrong magic, an impossible width) ends the file there and
is reported, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError

MAGIC = 0x31424E43  # "CNB1"
HEADER = np.dtype(
    [
        ("magic", "<u4"),
        ("rec_bytes", "<u2"),
        ("kind", "<u2"),
        ("count", "<u4"),
        ("stream", "<u4"),
        ("size_bytes", "<i8"),
        ("param", "<i8"),
        ("t0_ns", "<i8"),
        ("seq0", "<i8"),
    ]
)
assert HEADER.itemsize == 48
NARROW = np.dtype([("dt", "<u4"), ("value", "<u4")])
WIDE = np.dtype([("dt", "<i8"), ("value", "<i8")])

_CHUNK = re.compile(r"\.rank(\d+)\.c(\d{6})\.cnk$")


@dataclass
class ChunkSamples:
    """One chunk's samples in recording order: start time and value per sample, the rest
    per block (a block's samples share kind, stream, size and param, and number on from
    its seq0), so a chunk of a million samples takes 16 MB, not 45."""

    t_ns: np.ndarray  # int64: CLOCK_MONOTONIC_RAW start
    value_ns: np.ndarray  # int64
    blocks: np.ndarray  # BLOCKS: per block, its first sample's index, count and shared fields
    torn: bool = False  # the file ended inside a block (a killed probe)

    def __len__(self) -> int:
        return len(self.t_ns)

    def per_sample(self, field: str, dtype: type = np.int64) -> np.ndarray:
        """A block field (kind, stream, size_bytes, param) repeated for every sample."""
        return np.repeat(self.blocks[field].astype(dtype), self.blocks["count"])

    @property
    def kind(self) -> np.ndarray:
        return self.per_sample("kind", np.int8)

    @property
    def stream(self) -> np.ndarray:
        return self.per_sample("stream", np.int32)

    @property
    def size_bytes(self) -> np.ndarray:
        return self.per_sample("size_bytes")

    @property
    def param(self) -> np.ndarray:
        return self.per_sample("param")

    @property
    def seq(self) -> np.ndarray:
        """Each sample's index within its (unit, stream) sequence."""
        out = np.arange(len(self), dtype=np.int64)
        for b in self.blocks:  # in place, block by block: no second array of every sample
            out[b["first"]:b["first"] + b["count"]] -= b["first"] - b["seq0"]
        return out


BLOCKS = np.dtype([("first", "<i8"), ("count", "<i8"), ("kind", "<i8"), ("stream", "<i8"),
                   ("size_bytes", "<i8"), ("param", "<i8"), ("seq0", "<i8")])


def chunk_path(prefix: Path, rank: int, chunk: int) -> Path:
    return prefix.parent / f"{prefix.name}.rank{rank}.c{chunk:06d}.cnk"


def chunk_files(prefix: Path) -> dict[tuple[int, int], Path]:
    """(rank, chunk) -> file, for the chunks of one launch still on disk."""
    out: dict[tuple[int, int], Path] = {}
    for path in prefix.parent.glob(prefix.name + ".rank*.c*.cnk"):
        m = _CHUNK.search(path.name)
        if m:
            out[(int(m.group(1)), int(m.group(2)))] = path
    return dict(sorted(out.items()))


def read_chunk(path: Path) -> ChunkSamples:
    """Every whole sample of one chunk file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError as err:
        raise CloudnoiseError(f"{path}: cannot read ({err.strerror})") from None
    heads: list[np.void] = []
    bodies: list[np.ndarray] = []
    off, torn = 0, False
    while off + HEADER.itemsize <= len(data):
        h = np.frombuffer(data, HEADER, 1, off)[0]
        width = int(h["rec_bytes"])
        if int(h["magic"]) != MAGIC or width not in (8, 16):
            raise CloudnoiseError(f"{path}: not a cloudnoise chunk at byte {off} (damaged file?)")
        off += HEADER.itemsize
        count = int(h["count"])
        whole = min(count, (len(data) - off) // width)
        torn = torn or whole < count
        rec = np.frombuffer(data, NARROW if width == 8 else WIDE, whole, off)
        off += whole * width
        heads.append(h)
        bodies.append(rec)
    torn = torn or off != len(data)
    lengths = np.array([len(b) for b in bodies], np.int64)
    keep = lengths > 0
    blocks = np.zeros(int(keep.sum()), BLOCKS)
    if len(blocks):
        h = np.array(heads, dtype=HEADER)[keep]
        blocks["count"] = lengths[keep]
        blocks["first"] = np.cumsum(blocks["count"]) - blocks["count"]
        for name in ("kind", "stream", "size_bytes", "param", "seq0"):
            blocks[name] = h[name]
    total = int(lengths.sum())
    out = ChunkSamples(t_ns=np.empty(total, np.int64), value_ns=np.empty(total, np.int64), blocks=blocks, torn=torn)
    at = 0
    for h, rec in zip(heads, bodies):
        n = len(rec)
        if n == 0:
            continue
        w = slice(at, at + n)
        np.cumsum(rec["dt"], dtype=np.int64, out=out.t_ns[w])
        out.t_ns[w] += int(h["t0_ns"])
        out.value_ns[w] = rec["value"]
        at += n
    return out


def count_samples(path: Path) -> int:
    """About how many samples a chunk holds, from its size (for progress)."""
    try:
        return path.stat().st_size // NARROW.itemsize
    except FileNotFoundError:
        return 0
