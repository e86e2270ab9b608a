"""Reader of liballprof traces (the PMPI tracer that ships with LogGOPSim,
read by Schedgen): one text file per rank, e.g. pmpi-trace-rank-3.txt.

The format, as its tracer writes it: `#` lines are a header (tracer
version, date, host, clock differences); then one line per MPI call,
fields separated by `:`,

    NAME:T_START:ARG:ARG:...:T_END

with times in microseconds (`-` for MPI_Init's start and MPI_Finalize's
end), and the call's arguments in the order of its C prototype, each
printed by type: a pointer (buffers, statuses, requests, request arrays)
as its address; an int as itself; a datatype as `ID,SIZE,EXTENT`; a
communicator as `HANDLE,RANK,SIZE`; a count array (sendcounts, recvcounts,
displs, sdispls, rdispls) as two fields, its address and then
`C0,C1,...`; an MPI_Op as its id. A request is named by the address of the
application's MPI_Request variable; MPI_Waitall gives the address of the
array, so its requests are at BASE + i * sizeof(MPI_Request) (4 bytes in
MPICH, 8 in Open MPI: the reader takes the size that names pending
requests).

What it cannot say, and what the reader does about it: which rank an
MPI_ANY_SOURCE receive matched (refused when it matters), which requests a
Test completed (Test* count as compute), and who is in a communicator:
only communicators of every rank are converted (as MPI_COMM_WORLD).
Lines of calls the reader does not know are reported as unsupported.
"""

from __future__ import annotations

import math

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import Call

RANK_FILE = re.compile(r"^(.*?)(\d+)\.(txt|dat)$")

# Arguments of each call in prototype order: p pointer, i int, d datatype,
# c communicator, v count array (two fields), o op. Names matter below.
SIGNATURES: dict[str, str] = {
    "MPI_Init": "p:argc p:argv",
    "MPI_Init_thread": "p:argc p:argv i:required p:provided",
    "MPI_Finalize": "",
    "MPI_Send": "p:buf i:count d:type i:peer i:tag c:comm",
    "MPI_Bsend": "p:buf i:count d:type i:peer i:tag c:comm",
    "MPI_Ssend": "p:buf i:count d:type i:peer i:tag c:comm",
    "MPI_Rsend": "p:buf i:count d:type i:peer i:tag c:comm",
    "MPI_Recv": "p:buf i:count d:type i:peer i:tag c:comm p:status",
    "MPI_Isend": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Ibsend": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Issend": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Irsend": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Irecv": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Wait": "p:request p:status",
    "MPI_Waitall": "i:count p:requests p:statuses",
    "MPI_Sendrecv": "p:sbuf i:count d:type i:peer i:tag p:rbuf i:rcount d:rtype i:rpeer i:rtag c:comm p:status",
    "MPI_Barrier": "c:comm",
    "MPI_Bcast": "p:buf i:count d:type i:root c:comm",
    "MPI_Reduce": "p:sbuf p:rbuf i:count d:type o:op i:root c:comm",
    "MPI_Allreduce": "p:sbuf p:rbuf i:count d:type o:op c:comm",
    "MPI_Scan": "p:sbuf p:rbuf i:count d:type o:op c:comm",
    "MPI_Exscan": "p:sbuf p:rbuf i:count d:type o:op c:comm",
    "MPI_Gather": "p:sbuf i:count d:type p:rbuf i:rcount d:rtype i:root c:comm",
    "MPI_Scatter": "p:sbuf i:count d:type p:rbuf i:rcount d:rtype i:root c:comm",
    "MPI_Allgather": "p:sbuf i:count d:type p:rbuf i:rcount d:rtype c:comm",
    "MPI_Alltoall": "p:sbuf i:count d:type p:rbuf i:rcount d:rtype c:comm",
    "MPI_Gatherv": "p:sbuf i:count d:type p:rbuf v:rcounts v:displs d:rtype i:root c:comm",
    "MPI_Allgatherv": "p:sbuf i:count d:type p:rbuf v:rcounts v:displs d:rtype c:comm",
    "MPI_Scatterv": "p:sbuf v:scounts v:displs d:type p:rbuf i:rcount d:rtype i:root c:comm",
    "MPI_Alltoallv": "p:sbuf v:scounts v:sdispls d:type p:rbuf v:rcounts v:rdispls d:rtype c:comm",
    "MPI_Reduce_scatter": "p:sbuf p:rbuf v:rcounts d:type o:op c:comm",
}
# Calls with no communication: their time is compute (liballprof does not
# say what a Test completed, so Test* count here too, as in Schedgen).
LOCAL = {
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Get_count", "MPI_Iprobe", "MPI_Probe", "MPI_Test", "MPI_Testall",
    "MPI_Testany", "MPI_Testsome", "MPI_Wtime", "MPI_Type_commit", "MPI_Type_free", "MPI_Type_contiguous",
    "MPI_Type_vector", "MPI_Type_size", "MPI_Type_extent", "MPI_Comm_group", "MPI_Group_free", "MPI_Get_processor_name",
    "MPI_Initialized", "MPI_Finalized", "MPI_Abort", "MPI_Errhandler_set", "MPI_Comm_set_errhandler",
    "MPI_Pcontrol", "MPI_Get_elements", "MPI_Dims_create", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_shift",
    "MPI_Cart_get", "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_free", "MPI_Cart_create", "MPI_Comm_create",
    "MPI_Op_create", "MPI_Op_free", "MPI_Buffer_attach", "MPI_Buffer_detach",
}
KIND = {
    "MPI_Init": "init", "MPI_Init_thread": "init", "MPI_Finalize": "finalize",
    "MPI_Send": "send", "MPI_Bsend": "send", "MPI_Ssend": "send", "MPI_Rsend": "send", "MPI_Recv": "recv",
    "MPI_Isend": "isend", "MPI_Ibsend": "isend", "MPI_Issend": "isend", "MPI_Irsend": "isend", "MPI_Irecv": "irecv",
    "MPI_Wait": "complete", "MPI_Waitall": "complete", "MPI_Sendrecv": "sendrecv",
}
PARSED = {name: [tuple(a.split(":")) for a in sig.split()] for name, sig in SIGNATURES.items()}


def find_rank_files(folder: Path) -> dict[int, Path]:
    """{rank: file} for the liballprof files in `folder` (one common prefix)."""
    groups: dict[str, dict[int, Path]] = {}
    for p in folder.iterdir():
        m = RANK_FILE.match(p.name)
        if m and p.is_file():
            groups.setdefault(m.group(1) + "|" + m.group(3), {})[int(m.group(2))] = p
    for files in sorted(groups.values(), key=len, reverse=True):
        if 0 in files:
            head = files[0].open("rb").read(200)
            if head.startswith(b"#") or b":" in head:
                return files
    return {}


def _us(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CloudnoiseError(f"{where}: time {text!r} is not a number; the file is not a liballprof trace or is damaged") from None
    # 'nan' and 'inf' are floats to Python, never times (and 10^14 us is over three years)
    if not (math.isfinite(value) and abs(value) <= 1e14):
        raise CloudnoiseError(f"{where}: time {text!r} is not a finite time in microseconds; the file is damaged")
    return value


class LiballprofTrace:
    """A folder of liballprof rank files."""

    format = "liballprof"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.files = find_rank_files(self.path)
        if not self.files:
            raise CloudnoiseError(f"{self.path}: no liballprof rank files (NAME-rank-N.txt)")
        self.num_ranks = max(self.files) + 1
        missing = [r for r in range(self.num_ranks) if r not in self.files]
        if missing:
            raise CloudnoiseError(
                f"{self.path}: rank {missing[0]}'s file is missing ({len(missing)} of {self.num_ranks} ranks); copy every rank's file"
            )

    def describe(self) -> dict[str, Any]:
        header = []
        with self.files[0].open("r", errors="replace") as f:
            for line in f:
                if not line.startswith("#"):
                    break
                header.append(line[1:].strip())
        return {"format": self.format, "path": str(self.path), "ranks": self.num_ranks, "header": header}

    def calls(self, rank: int) -> Iterator[Call]:
        path = self.files[rank]
        origin: float | None = None
        pending: set[int] = set()
        index = 0
        finalized = False
        with path.open("r", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                where = f"{path}:{lineno}: rank {rank}, call {index}"
                fields = line.split(":")
                name = fields[0]
                if len(fields) < 3 or not name.startswith("MPI_"):
                    raise CloudnoiseError(f"{where}: not a liballprof call line; the file is damaged or not a liballprof trace")
                t0s, t1s = fields[1], fields[-1]
                args = fields[2:-1]
                if name in ("MPI_Init", "MPI_Init_thread"):
                    origin = _us(t1s, where)
                    yield Call(index, name, "init", 0, 0)
                    index += 1
                    continue
                if origin is None:
                    raise CloudnoiseError(f"{where}: {name} before MPI_Init; the file is damaged")
                t0 = round((_us(t0s, where) - origin) * 1000)
                t1 = t0 if t1s == "-" else round((_us(t1s, where) - origin) * 1000)
                if name == "MPI_Finalize":
                    finalized = True
                    yield Call(index, name, "finalize", t0, t0)
                    index += 1
                    continue
                if name in LOCAL:
                    yield Call(index, name, "local", t0, t1)
                elif name in PARSED:
                    yield self._call(name, index, t0, t1, args, where, pending)
                else:
                    yield Call(index, name, "unsupported", t0, t1)
                index += 1
        if not finalized:
            raise CloudnoiseError(
                f"{path}: rank {rank}: the trace ends after call {index - 1} without MPI_Finalize (the application stopped "
                "early or the file was cut short); trace the run again"
            )

    def _call(self, name: str, index: int, t0: int, t1: int, args: list[str], where: str, pending: set[int]) -> Call:
        spec = PARSED[name]
        want = sum(2 if t == "v" else 1 for t, _ in spec)
        if len(args) != want:
            raise CloudnoiseError(f"{where}: {name} has {len(args)} arguments, liballprof writes {want}; the file is damaged")
        vals: dict[str, Any] = {}
        size: dict[str, int] = {}
        k = 0
        try:
            for typ, arg in spec:
                text = args[k]
                if typ in ("p", "i", "o"):
                    vals[arg] = int(text)
                elif typ == "d":
                    parts = text.split(",")
                    size[arg] = int(parts[1]) if len(parts) > 1 else 0
                elif typ == "c":
                    handle, crank, csize = (int(x) for x in text.split(","))
                    vals[arg] = csize
                elif typ == "v":
                    k += 1
                    vals[arg] = tuple(int(x) for x in args[k].split(",") if x != "")
                k += 1
        except (ValueError, IndexError):
            raise CloudnoiseError(f"{where}: {name}: argument {k + 1} ({args[k] if k < len(args) else ''!r}) is malformed; the file is damaged") from None
        if vals.get("comm", self.num_ranks) != self.num_ranks:
            raise CloudnoiseError(
                f"{where}: {name} on a communicator of {vals['comm']} ranks: liballprof does not record who is in a "
                "communicator, so only calls on communicators of every rank can be converted"
            )
        kind = KIND.get(name, "coll")
        c = Call(index, name, kind, t0, t1, comm=0)
        tsize = size.get("type", 0)
        if kind in ("send", "recv", "isend", "irecv", "sendrecv"):
            c.peer, c.tag, c.bytes = vals["peer"], vals["tag"], vals["count"] * tsize
            if kind == "sendrecv":
                c.recv_peer, c.recv_tag, c.recv_bytes = vals["rpeer"], vals["rtag"], vals["rcount"] * size.get("rtype", 0)
            if kind in ("recv", "sendrecv"):
                c.status = (-1, -1, 0)  # liballprof does not record what arrived: the posted values are used
            if kind in ("isend", "irecv"):
                c.request = vals["request"]
                pending.add(c.request)
        elif kind == "complete":
            if name == "MPI_Wait":
                reqs = [vals["request"]] if vals["request"] in pending else []
            else:
                count, base = vals["count"], vals["requests"]
                best: list[int] = []
                for step in (4, 8):
                    cand = [base + i * step for i in range(count) if base + i * step in pending]
                    if len(cand) > len(best):
                        best = cand
                reqs = best
            for r in reqs:
                pending.discard(r)
            c.completions = [(r, -1, -1, 0) for r in reqs]
        else:
            c.root = vals.get("root", -1)
            if "count" in vals:
                c.bytes = vals["count"] * tsize
            c.recv_bytes = vals.get("rcount", 0) * size.get("rtype", 0) or c.bytes
            if "rcounts" in vals and "scounts" in vals:
                c.vec = tuple(x * tsize for x in vals["scounts"]) + tuple(x * size.get("rtype", 0) for x in vals["rcounts"])
            elif "rcounts" in vals:
                c.vec = tuple(x * size.get("rtype", size.get("type", 0)) for x in vals["rcounts"])
            elif "scounts" in vals:
                c.vec = tuple(x * tsize for x in vals["scounts"])
            if c.vec is not None and not any(c.vec):
                c.vec = None
        return c
