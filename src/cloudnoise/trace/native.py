"""Reader of cloudnoise's own traces (the recorder, cn_trace.c): one binary
file per rank, rank-NNNNNN.cntr (or rank-NNNNNN.cntr.gz, gzip-compressed
for keeping), streamed in 1 MiB chunks.

A trace folder may come from someone else: every length and count is
checked against the file before it is used, and anything that does not add
up is a one-line error naming the file, the rank and the call index.
"""

from __future__ import annotations

import gzip
import json
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from cloudnoise.errors import CloudnoiseError
from cloudnoise.limits import MAX_RANKS
from cloudnoise.trace import native_format as fmt
from cloudnoise.trace.events import Call, CommInfo

CHUNK = 1 << 20
RANK_FILE = re.compile(r"rank-(\d{6})\.cntr(\.gz)?$")
# A record longer than this is not believed (a corrupt length field).
MAX_RECORD = 1 << 30
# A polling record standing for more calls than this is damaged (a call a nanosecond for a hundred days).
MAX_POLLS = 1 << 53


def rank_file(folder: Path, rank: int) -> Path:
    return folder / f"rank-{rank:06d}.cntr"


def _open(path: Path) -> BinaryIO:
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")  # type: ignore[return-value]


class _Chunks:
    """A forward-only window on a file: `need(n)` makes n bytes available at `pos`."""

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.buf = b""
        self.pos = 0

    def need(self, n: int) -> bool:
        if len(self.buf) - self.pos >= n:
            return True
        rest = self.buf[self.pos:]
        parts = [rest]
        have = len(rest)
        while have < n:
            more = self.f.read(max(CHUNK, n - have))
            if not more:
                break
            parts.append(more)
            have += len(more)
        self.buf = b"".join(parts)
        self.pos = 0
        return have >= n


class NativeTrace:
    """A folder written by `cloudnoise trace record`."""

    format = "native"
    warnings: tuple[str, ...] = ()
    records_status = True  # completions carry MPI's status: an empty one means no message arrived

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.files: dict[int, Path] = {}
        for p in self.path.iterdir():
            if m := RANK_FILE.match(p.name):
                rank = int(m.group(1))
                if rank in self.files:
                    raise CloudnoiseError(f"{self.path}: rank {rank} has two files ({self.files[rank].name} and "
                                          f"{p.name}); keep one")
                self.files[rank] = p
        files = self.files
        if not files:
            raise CloudnoiseError(f"{self.path}: no rank-*.cntr files; give the folder `cloudnoise trace record --out` wrote")
        header = self.header(min(files))
        self.num_ranks = header["world_size"]
        if not 1 <= self.num_ranks <= MAX_RANKS:
            raise CloudnoiseError(f"{self.path}: rank {min(files)}'s header says {self.num_ranks} ranks, outside "
                                  f"[1, {MAX_RANKS}]; the file is damaged: record the run again")
        present = sum(1 for r in files if r < self.num_ranks)
        if present < self.num_ranks:
            # the first missing rank, found without listing every rank of a large run
            first = next(r for r in range(self.num_ranks) if r not in files)
            raise CloudnoiseError(
                f"{self.path}: rank {first}'s file {rank_file(self.path, first).name} is missing "
                f"({self.num_ranks - present} of {self.num_ranks} ranks missing); copy every rank's file, or record "
                "the run again"
            )
        extra = [r for r in files if r >= self.num_ranks]
        if extra:
            raise CloudnoiseError(
                f"{self.path}: rank {extra[0]}'s file is there but the run had {self.num_ranks} ranks; "
                "the folder mixes two runs: record into an empty folder"
            )

    def header(self, rank: int) -> dict[str, Any]:
        path = self.files.get(rank, rank_file(self.path, rank))
        try:
            with _open(path) as f:
                raw = f.read(fmt.HEADER.size)
        except (OSError, EOFError, zlib.error) as err:
            raise CloudnoiseError(f"{path}: cannot read ({getattr(err, 'strerror', None) or err})") from None
        if len(raw) < fmt.HEADER.size or raw[:8] != fmt.MAGIC:
            raise CloudnoiseError(f"{path}: rank {rank}: not a cloudnoise trace file (bad header); record the run again")
        magic, version, file_rank, world, _flags, entry, exit_, host = fmt.HEADER.unpack(raw)
        if version != fmt.VERSION:
            raise CloudnoiseError(f"{path}: trace format version {version}, this cloudnoise reads {fmt.VERSION}; convert it with the cloudnoise that recorded it")
        if file_rank != rank or world < 1 or file_rank >= world:
            raise CloudnoiseError(f"{path}: rank {rank}: the header says rank {file_rank} of {world}; the file was renamed or damaged")
        return {
            "rank": file_rank,
            "world_size": world,
            "init_entry_ns": entry,
            "init_exit_ns": exit_,
            "host": host.split(b"\0", 1)[0].decode("utf-8", "replace"),
        }

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": self.format, "path": str(self.path), "ranks": self.num_ranks}
        out["host"] = self.header(0)["host"]
        meta = self.path / "trace.json"
        if meta.is_file():
            try:
                data = json.loads(meta.read_text())
            except (OSError, ValueError) as err:
                data = err
            if isinstance(data, dict):
                out["recorded"] = data
            else:  # the run's description only: the ranks' files still read
                why = f"not readable ({data})" if isinstance(data, Exception) else "not a JSON object"
                out["recorded_unreadable"] = f"{meta}: {why}; the recorded run's description is left out"
        return out

    def calls(self, rank: int) -> Iterator[Call]:
        path = self.files.get(rank, rank_file(self.path, rank))
        self.header(rank)
        try:
            f = _open(path)
        except OSError as err:
            raise CloudnoiseError(f"{path}: cannot read ({err.strerror})") from None
        with f:
            try:
                f.read(fmt.HEADER.size)
                yield from _records(_Chunks(f), path, rank)
            except (OSError, EOFError, zlib.error) as err:
                raise CloudnoiseError(f"{path}: rank {rank}: cannot read ({err}); the file is damaged or cut short: "
                                      "copy it again, or record the run again") from None


def _bad(path: Path, rank: int, index: int, what: str) -> CloudnoiseError:
    return CloudnoiseError(f"{path}: rank {rank}, call {index}: {what}; the file is damaged: record the run again")


def _records(ch: _Chunks, path: Path, rank: int) -> Iterator[Call]:
    index = 0
    prefix = fmt.PREFIX
    while True:
        if not ch.need(8):
            if len(ch.buf) - ch.pos == 0:
                raise CloudnoiseError(
                    f"{path}: rank {rank}: the trace ends after call {index - 1} without its end record "
                    "(the application stopped before MPI_Finalize, or the file was cut short); record the run again"
                )
            raise _bad(path, rank, index, "the file ends inside a record")
        call, _flags, length = struct.unpack_from("<HHI", ch.buf, ch.pos)
        if length < 16 or length > MAX_RECORD:
            raise _bad(path, rank, index, f"impossible record length {length}")
        if not ch.need(8 + length):
            raise _bad(path, rank, index, "the file ends inside a record")
        if call not in fmt.CALLS:
            raise _bad(path, rank, index, f"unknown call number {call}")
        name, layout = fmt.CALLS[call]
        _, _, _, t0, t1 = prefix.unpack_from(ch.buf, ch.pos)
        body = ch.pos + prefix.size
        end = ch.pos + 8 + length
        ch.pos = end
        if call == fmt.END_CALL:
            return
        rec = _decode(name, layout, ch.buf, body, end, index, t0, t1)
        if rec is None:
            raise _bad(path, rank, index, f"{name} record has the wrong length")
        if rec.kind == "poll" and rec.name not in fmt.POLLED:
            raise _bad(path, rank, index, f"a polling record of {rec.name}, which is not a test or MPI_Iprobe")
        yield rec
        index += rec.repeat  # (a polling record stands for that many calls: later calls keep their numbers)


def _decode(name: str, layout: str, buf: bytes, body: int, end: int, index: int, t0: int, t1: int) -> Call | None:
    """One record's Call, or None when its length does not match its counts."""
    s = fmt.LAYOUTS[layout]
    if layout == "graph" and end == body:
        return Call(index, name, "unsupported", t0, t1)  # recorded by name only (an older recorder)
    if end - body < s.size:
        return None
    kind = fmt.kind_of(name, layout)
    c = Call(index, name, kind, t0, t1)
    tail = body + s.size
    if layout == "plain":
        return c if end == tail else None
    if layout == "p2p":
        c.peer, c.tag, c.comm, _, c.bytes, c.request = s.unpack_from(buf, body)
    elif layout == "recv":
        c.peer, c.tag, c.comm, flag, c.bytes, c.request, src, tag, nbytes = s.unpack_from(buf, body)
        c.status = (src, tag, nbytes)
        c.root = flag
    elif layout == "sendrecv":
        (c.peer, c.tag, c.bytes, c.recv_peer, c.recv_tag, c.recv_bytes, c.comm, _, src, tag, nbytes) = s.unpack_from(buf, body)
        c.status = (src, tag, nbytes)
    elif layout == "complete":
        count, done = s.unpack_from(buf, body)
        if end - tail != done * fmt.ENTRY.size or done > count:
            return None
        c.completions = list(fmt.ENTRY.iter_unpack(buf[tail:end])) if done else []
        c.bytes = count
        return c
    elif layout == "start":
        count, _ = s.unpack_from(buf, body)
        if end - tail != 8 * count:
            return None
        c.requests = list(struct.unpack_from(f"<{count}Q", buf, tail))
        return c
    elif layout == "coll":
        c.comm, c.root, c.bytes, c.recv_bytes, c.request, nvec, _ = s.unpack_from(buf, body)
        if end - tail != 8 * nvec:
            return None
        if nvec:
            c.vec = struct.unpack_from(f"<{nvec}Q", buf, tail)
        return c
    elif layout in ("comm", "graph"):
        parent, cid, root_world, root_seq, size, crank, ndims, flags = s.unpack_from(buf, body)
        identity = bool(flags & 1)
        n_members = 0 if identity or cid == fmt.COMM_NULL else size
        grid_end = tail + 4 * n_members + 8 * ndims
        neighbours = None
        if layout == "graph":
            if end - grid_end < 8:
                return None
            nsrc, ndst = struct.unpack_from("<II", buf, grid_end)
            if end - grid_end - 8 != 4 * (nsrc + ndst):
                return None
            ids = struct.unpack_from(f"<{nsrc + ndst}i", buf, grid_end + 8)
            neighbours = (tuple(ids[:nsrc]), tuple(ids[nsrc:]))
        elif end != grid_end:
            return None
        members = struct.unpack_from(f"<{n_members}i", buf, tail) if n_members else None
        grid = struct.unpack_from(f"<{2 * ndims}i", buf, tail + 4 * n_members) if ndims else ()
        c.comm = parent
        if cid != fmt.COMM_NULL:
            if size < 1 or crank >= size:
                return None
            keep = tuple((flags >> (8 + i)) & 1 for i in range(24)) if flags & 8 else ()
            c.comm_info = CommInfo(
                id=cid, key=(root_world, root_seq), size=size, rank=crank, members=members,
                dims=tuple(grid[:ndims]), periods=tuple(grid[ndims:]), reorder=bool(flags & 4),
                keep=keep, neighbours=neighbours,
            )
        return c
    elif layout == "dims":
        nnodes, ndims = s.unpack_from(buf, body)
        if end - tail != 8 * ndims:
            return None
        c.bytes = nnodes
        c.vec = struct.unpack_from(f"<{2 * ndims}i", buf, tail) if ndims else ()
        return c
    elif layout == "cartq":
        c.comm, c.peer, ndims, _ = s.unpack_from(buf, body)
        if end - tail != 4 * ndims:
            return None
        c.vec = struct.unpack_from(f"<{ndims}i", buf, tail) if ndims else ()
        return c
    elif layout == "commfree":
        c.comm, _ = s.unpack_from(buf, body)
    elif layout == "shift":
        c.comm, direction, disp, source, dest, _ = s.unpack_from(buf, body)
        c.root, c.tag, c.recv_peer, c.peer = direction, disp, source, dest
    elif layout == "poll":
        polled, nreq, calls, _inside_ns, c.peer, c.tag, c.comm, _ = s.unpack_from(buf, body)
        if end - tail != 8 * nreq or not 1 <= calls <= MAX_POLLS:
            return None
        c.name = fmt.CALLS.get(polled, (f"call number {polled}", ""))[0]
        c.kind = "poll"
        c.repeat = calls
        c.bytes = nreq
        c.requests = list(struct.unpack_from(f"<{nreq}Q", buf, tail))
        return c
    elif layout == "names":
        count, length = s.unpack_from(buf, body)
        if end - tail != length:
            return None
        c.names = [n.decode("ascii", "replace") for n in buf[tail:end].split(b"\0") if n][:count]
        c.kind = "names"
        return c
    return c if end == tail else None
