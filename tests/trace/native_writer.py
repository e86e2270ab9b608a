"""Writes native trace files from Python, for tests: small programs with
known answers, and damaged files (not a test module).

Each rank is a list of (name, t_entry_ns, t_exit_ns, payload) where the
payload is the call's fields in its layout's order (native_format.LAYOUTS),
and, for layouts with a counted tail, the tail values.
"""

from __future__ import annotations

import struct
from pathlib import Path

from cloudnoise.trace import native_format as fmt

NUMBER = {name: num for num, (name, _) in fmt.CALLS.items()}


def record(name: str, t0: int, t1: int, *fields, tail: bytes = b"") -> bytes:
    num = NUMBER[name]
    layout = fmt.CALLS[num][1]
    body = fmt.LAYOUTS[layout].pack(*fields) + tail
    return fmt.PREFIX.pack(num, 0, 16 + len(body), t0, t1) + body


def header(rank: int, world: int) -> bytes:
    return fmt.HEADER.pack(fmt.MAGIC, fmt.VERSION, rank, world, 0, -1000, 0, b"testhost")


def end(count: int) -> bytes:
    return record("CN_END", 0, 0, count)


# Convenience builders for the common calls (comm 0 = MPI_COMM_WORLD).
def init() -> bytes:
    return record("MPI_Init", -1000, 0)


def finalize(t: int) -> bytes:
    return record("MPI_Finalize", t, t)


def send(t0: int, t1: int, peer: int, nbytes: int, tag: int = 0, comm: int = 0, name: str = "MPI_Send", req: int = 0) -> bytes:
    return record(name, t0, t1, peer, tag, comm, 0, nbytes, req)


def recv(t0: int, t1: int, peer: int, nbytes: int, tag: int = 0, comm: int = 0, status: tuple | None = None) -> bytes:
    src, stag, sbytes = status if status else (peer, tag, nbytes)
    return record("MPI_Recv", t0, t1, peer, tag, comm, 0, nbytes, 0, src, stag, sbytes)


def irecv(t0: int, t1: int, peer: int, nbytes: int, req: int, tag: int = 0, comm: int = 0) -> bytes:
    return record("MPI_Irecv", t0, t1, peer, tag, comm, 0, nbytes, req)


def waitall(t0: int, t1: int, done: list[tuple[int, int, int, int]], name: str = "MPI_Waitall") -> bytes:
    tail = b"".join(fmt.ENTRY.pack(*d) for d in done)
    return record(name, t0, t1, len(done), len(done), tail=tail)


def coll(name: str, t0: int, t1: int, nbytes: int, root: int = -1, comm: int = 0, req: int = 0,
         vec: tuple[int, ...] = ()) -> bytes:
    tail = struct.pack(f"<{len(vec)}Q", *vec) if vec else b""
    return record(name, t0, t1, comm, root, nbytes, nbytes, req, len(vec), 0, tail=tail)


def cart(t0: int, t1: int, cid: int, size: int, rank: int, dims: tuple[int, ...], periods: tuple[int, ...]) -> bytes:
    tail = struct.pack(f"<{2 * len(dims)}i", *dims, *periods)
    return record("MPI_Cart_create", t0, t1, 0, cid, 0, cid, size, rank, len(dims), 1 | 2, tail=tail)


def write_trace(folder: Path, ranks: list[list[bytes]], *, with_end: bool = True) -> Path:
    """One file per rank: header, init, the records, and the end record."""
    folder.mkdir(parents=True, exist_ok=True)
    world = len(ranks)
    for r, recs in enumerate(ranks):
        data = header(r, world) + init() + b"".join(recs)
        if with_end:
            data += end(len(recs) + 1)
        (folder / f"rank-{r:06d}.cntr").write_bytes(data)
    return folder


def requests_record(name: str, t0: int, t1: int, *reqs: int) -> bytes:
    """A START-layout record: MPI_Start(all), MPI_Request_free, MPI_Cancel."""
    return record(name, t0, t1, len(reqs), 0, tail=struct.pack(f"<{len(reqs)}Q", *reqs))


def cancel(t0: int, t1: int, req: int) -> bytes:
    return requests_record("MPI_Cancel", t0, t1, req)


def request_free(t0: int, t1: int, req: int) -> bytes:
    return requests_record("MPI_Request_free", t0, t1, req)


def failed_test(t0: int, t1: int, count: int = 1, name: str = "MPI_Test") -> bytes:
    """A test of `count` requests that completed nothing (as the recorder writes it unfolded)."""
    return record(name, t0, t1, count, 0)


def iprobe_nothing(t0: int, t1: int, peer: int = -1, tag: int = -1, comm: int = 0) -> bytes:
    """An MPI_Iprobe that found nothing (unfolded)."""
    return record("MPI_Iprobe", t0, t1, peer, tag, comm, 0, 0, 0, -2, -1, 0)


def poll(name: str, t0: int, t1: int, calls: int, reqs: tuple[int, ...] = (), inside_ns: int = 0, peer: int = 0,
         tag: int = 0, comm: int = 0) -> bytes:
    """A CN_POLL record: `calls` unsuccessful calls of `name` from t0 (first entry) to t1 (last exit)."""
    return record("CN_POLL", t0, t1, NUMBER[name], len(reqs), calls, inside_ns, peer, tag, comm, 0,
                  tail=struct.pack(f"<{len(reqs)}Q", *reqs))
