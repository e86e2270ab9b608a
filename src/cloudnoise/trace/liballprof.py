"""Reader of liballprof traces (the PMPI tracer that ships with LogGOPSim,
read by Schedgen): one text file per rank, e.g. pmpi-trace-rank-3.txt.

The format, as the tracer's generator (liballprof's gencode.py) writes it:
`#` lines are a header, in one of two variants,

    # collprof 0.9 output file              # htor's PMPI Tracer 1 Output File
    # Sat Mar 21 16:07:26 2009               # time: ...
    # host: odin071.cs.indiana.edu          # hostname: ... / # uname: ...
    # Init clockdiff: 0.000000              # clockdiff: 0.000012 s (relative to rank 0)

then one line per MPI call, fields separated by `:`,

    NAME:T_START:ARG:ARG:...:T_END

with times in microseconds of MPI_Wtime (real tracers stamp absolute
wall-clock times, ~1.2e15 us; files written by hand often start near 0),
`-` for MPI_Init's start and MPI_Finalize's end, and every argument of the
call's C prototype printed by type: a pointer (buffers, statuses, output
arguments such as a new communicator, request variables and arrays) as its
address; an int as itself; a datatype as `ID,SIZE,EXTENT`; a communicator
as `HANDLE,RANK,SIZE` (the caller's rank in it and its size); a count array
(sendcounts, recvcounts, displs, sdispls, rdispls) as two fields, its
address and then `C0,C1,...`; an MPI_Op, group, info or errhandler as its
handle. A request is named by the address of the application's MPI_Request
variable; MPI_Waitall gives the address of the array, so its requests are
at BASE + i * sizeof(MPI_Request) (4 bytes in MPICH and Fortran, 8 in Open
MPI's C binding: the reader takes the size that names pending requests).

Time: every rank's clock is corrected by its header's clockdiff, read as
the reading that aligns the ranks' MPI_Init exits (seconds, microseconds or
none: `liballprof_clock`, since a tracer labelled microseconds `s`), and the
run's origin is the earliest corrected MPI_Init exit, so times are
nanoseconds from that origin; a rank that left MPI_Init later starts that
much later (the difference is its first calc). Where no reading aligns the
ranks, each starts at its own MPI_Init exit, with a warning.

Calls: point-to-point, wait and collective calls are parsed by their
prototype; communicator constructors (MPI_Comm_dup/split/create,
MPI_Cart_create/sub) are resolved across ranks by `liballprof_comms`; calls
that move no data (MPI_Comm_rank, MPI_Wtime, MPI_Type_*, MPI_Errhandler_*,
MPI_Attr_*, Test*, Probe, ...) are local work; any other MPI call is named
as unsupported (counted, and counted as compute with --allow-unsupported).
What the format cannot say: which rank an MPI_ANY_SOURCE receive matched
(the converter posts it as an any-source receive), which requests a Test, Waitany or Waitsome
completed (Test* are compute; Waitany completes the oldest pending request
of its array, Waitsome all of them), whether an MPI_Cancel succeeded (the
converter takes a cancelled request as cancelled).
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import ANY, PROC_NULL, Call, CommInfo
from cloudnoise.trace.liballprof_clock import ClockChoice, HeaderClock, choose, header_clock, own_init
from cloudnoise.trace.liballprof_comms import CREATORS, LOCAL_CREATORS, CommError, CommTable, scan_communicators

RANK_FILE = re.compile(r"^(.*?)(\d+)\.(txt|dat)(\.gz)?$")
# MPICH's handle of MPI_COMM_WORLD (C and Fortran): MPICH swaps Open MPI's
# values of MPI_ANY_SOURCE (-2 there) and MPI_PROC_NULL (-1 there).
MPICH_WORLD = 0x44000000
# Times further than this from the run's origin (over three years) are damage.
MAX_US = 1e14
# An MPI_Init exit further than this from the epoch (about 3,000 years) is no clock's reading.
MAX_CLOCK_US = 1e17

# Arguments of each call in prototype order: p pointer, i int, d datatype,
# c communicator, v count array (two fields), o op/handle. Names matter below.
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
    "MPI_Send_init": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Bsend_init": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Ssend_init": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Rsend_init": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Recv_init": "p:buf i:count d:type i:peer i:tag c:comm p:request",
    "MPI_Start": "p:request",
    "MPI_Startall": "i:count p:requests",
    "MPI_Request_free": "p:request",
    "MPI_Cancel": "p:request",
    "MPI_Wait": "p:request p:status",
    "MPI_Waitall": "i:count p:requests p:statuses",
    "MPI_Waitany": "i:count p:requests p:index p:status",
    "MPI_Waitsome": "i:count p:requests p:outcount p:indices p:statuses",
    "MPI_Sendrecv": "p:sbuf i:count d:type i:peer i:tag p:rbuf i:rcount d:rtype i:rpeer i:rtag c:comm p:status",
    "MPI_Sendrecv_replace": "p:buf i:count d:type i:peer i:tag i:rpeer i:rtag c:comm p:status",
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
    **CREATORS,
}
# Calls that move no data: their time is compute (liballprof does not say
# what a Test completed, so Test* count here too, as in Schedgen).
LOCAL_PREFIXES = (
    "MPI_Type_", "MPI_Group_", "MPI_Errhandler_", "MPI_Attr_", "MPI_Keyval_", "MPI_Info_", "MPI_Op_",
    "MPI_Error_", "MPI_Buffer_", "MPI_Pack", "MPI_Unpack", "MPI_Test", "MPI_Cart", "MPI_Graph",
    "MPI_Topo_", "MPI_Add_error", "MPI_Comm_get_", "MPI_Comm_set_", "MPI_Comm_create_errhandler",
    "MPI_Comm_create_keyval", "MPI_Comm_free", "MPI_Comm_delete_attr", "MPI_Comm_compare",
    "MPI_Comm_test_inter", "MPI_Comm_remote_", "MPI_Register_datarep", "MPI_Status_set_",
    "MPI_Request_get_status", "MPI_Grequest_", "MPI_Win_create_keyval", "MPI_Win_free_keyval",
)
LOCAL = {
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group", "MPI_Iprobe", "MPI_Probe", "MPI_Wtime", "MPI_Wtick",
    "MPI_Initialized", "MPI_Finalized", "MPI_Abort", "MPI_Pcontrol", "MPI_Dims_create", "MPI_Address",
    "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Get_count", "MPI_Get_elements",
    "MPI_Get_elements_x", "MPI_Get_processor_name", "MPI_Get_version", "MPI_Get_library_version", "MPI_Get_address",
} | LOCAL_CREATORS
KIND = {
    "MPI_Init": "init", "MPI_Init_thread": "init", "MPI_Finalize": "finalize",
    "MPI_Send": "send", "MPI_Bsend": "send", "MPI_Ssend": "send", "MPI_Rsend": "send", "MPI_Recv": "recv",
    "MPI_Isend": "isend", "MPI_Ibsend": "isend", "MPI_Issend": "isend", "MPI_Irsend": "isend", "MPI_Irecv": "irecv",
    "MPI_Send_init": "send_init", "MPI_Bsend_init": "send_init", "MPI_Ssend_init": "send_init",
    "MPI_Rsend_init": "send_init", "MPI_Recv_init": "recv_init", "MPI_Start": "start", "MPI_Startall": "start",
    "MPI_Wait": "complete", "MPI_Waitall": "complete", "MPI_Waitany": "complete", "MPI_Waitsome": "complete",
    "MPI_Sendrecv": "sendrecv", "MPI_Sendrecv_replace": "sendrecv", "MPI_Request_free": "request_free",
    "MPI_Cancel": "cancel",
    **{name: "comm_create" for name in CREATORS},
}
# name -> {argument: field index}, and the number of fields of its line
POSITIONS: dict[str, dict[str, int]] = {}
NFIELDS: dict[str, int] = {}
TYPES: dict[str, list[tuple[str, str, int]]] = {}
for _name, _sig in SIGNATURES.items():
    _pos, _types, _k = {}, [], 2
    for _a in _sig.split():
        _t, _n = _a.split(":")
        if _t == "v":
            _k += 1  # the array's address, then its values
        _pos[_n] = _k
        _types.append((_t, _n, _k))
        _k += 1
    POSITIONS[_name], TYPES[_name], NFIELDS[_name] = _pos, _types, _k + 1
# where each call that names a communicator has it (the local calls' first argument)
COMM_FIELD: dict[str, int] = {name: pos["comm"] for name, pos in POSITIONS.items() if "comm" in pos}
COMM_FIELD.update({name: 2 for name in (
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group", "MPI_Comm_get_attr", "MPI_Comm_set_attr", "MPI_Attr_get",
    "MPI_Attr_put", "MPI_Attr_delete", "MPI_Comm_set_errhandler", "MPI_Comm_get_errhandler", "MPI_Errhandler_set",
    "MPI_Errhandler_get", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_shift", "MPI_Cart_get", "MPI_Cartdim_get",
    "MPI_Topo_test", "MPI_Comm_get_name", "MPI_Comm_set_name", "MPI_Comm_test_inter", "MPI_Cart_map",
)})


# The point-to-point calls read on the fast path: (fields, kind, count, type, peer, tag, comm, request or 0)
P2P_FIELDS: dict[str, tuple[int, str, int, int, int, int, int, int]] = {
    name: (NFIELDS[name], KIND[name], POSITIONS[name]["count"], POSITIONS[name]["type"], POSITIONS[name]["peer"],
           POSITIONS[name]["tag"], POSITIONS[name]["comm"], POSITIONS[name].get("request", 0))
    for name in SIGNATURES if KIND.get(name) in ("send", "recv", "isend", "irecv")
}
WAITALL_FIELDS, WAITALL_COUNT, WAITALL_REQUESTS = NFIELDS["MPI_Waitall"], POSITIONS["MPI_Waitall"]["count"], POSITIONS["MPI_Waitall"]["requests"]
UNKNOWN_STATUS = (ANY, ANY, 0)  # liballprof does not record what arrived: the posted values are used


def is_local(name: str) -> bool:
    """A call that moves no data (its time is compute)."""
    return name in LOCAL or (name not in SIGNATURES and name.startswith(LOCAL_PREFIXES))


def find_rank_files(folder: Path) -> dict[int, Path]:
    """{rank: file} for the liballprof files in `folder` (one common prefix)."""
    groups: dict[str, dict[int, Path]] = {}
    for p in folder.iterdir():
        m = RANK_FILE.match(p.name)
        if m and p.is_file():
            groups.setdefault(m.group(1) + "|" + m.group(3), {})[int(m.group(2))] = p
    for files in sorted(groups.values(), key=len, reverse=True):
        if 0 in files:
            try:
                with _open(files[0]) as f:
                    head = f.read(200)
            except (OSError, EOFError, zlib.error):
                continue
            if head.startswith("#") or ":" in head:
                return files
    return {}


def _open(path: Path) -> IO[str]:
    """A rank file as text (gzip-compressed when it ends in .gz)."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", errors="replace")
    return path.open("r", errors="replace")


def _us(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CloudnoiseError(f"{where}: time {text!r} is not a number; the file is not a liballprof trace or is damaged") from None
    if not math.isfinite(value):  # 'nan' and 'inf' are floats to Python, never times
        raise CloudnoiseError(f"{where}: time {text!r} is not a finite time in microseconds; the file is damaged")
    return value


class LiballprofTrace:
    """A folder of liballprof rank files."""

    format = "liballprof"
    records_status = False  # liballprof does not record what a receive got, nor whether a cancel succeeded

    def __init__(self, path: Path, *, align_clocks: bool = True) -> None:
        """`align_clocks=False` starts every rank at its own MPI_Init exit, ignoring
        the clockdiff (Schedgen's time base; for comparisons only)."""
        self.path = Path(path)
        self.align_clocks = align_clocks
        self.files = find_rank_files(self.path)
        if not self.files:
            raise CloudnoiseError(f"{self.path}: no liballprof rank files (NAME-rank-N.txt)")
        self.num_ranks = max(self.files) + 1
        missing = [r for r in range(self.num_ranks) if r not in self.files]
        if missing:
            raise CloudnoiseError(
                f"{self.path}: rank {missing[0]}'s file is missing ({len(missing)} of {self.num_ranks} ranks); copy every rank's file"
            )
        starts = [self._start(r) for r in range(self.num_ranks)]
        self.init_end_us = [t for _, t in starts]
        self.clock: ClockChoice = (choose(str(self.path), [c for c, _ in starts], self.init_end_us, self._last_time_us)
                                   if align_clocks else own_init(self.init_end_us))
        self.offset_us = self.clock.offset_us  # subtracted from a rank's times: us from the run's origin
        self.clockdiff_us = self.clock.diff_us
        self.origin_us = self.offset_us[0] + self.clockdiff_us[0]  # time 0 in rank 0's clock
        self.warnings: list[str] = [self.clock.warning] if self.clock.warning else []
        self._comms: CommTable | None = None

    def _start(self, rank: int) -> tuple[HeaderClock, float]:
        """Reads rank's header up to its MPI_Init line: (its clock difference, MPI_Init's exit time)."""
        path = self.files[rank]
        try:
            return self._init_exit(path, rank)
        except (OSError, EOFError, zlib.error) as err:
            raise CloudnoiseError(f"{path}: rank {rank}: cannot read its header ({err}); the file is damaged") from None

    def _init_exit(self, path: Path, rank: int) -> tuple[HeaderClock, float]:
        clock = HeaderClock()
        with _open(path) as f:
            for lineno, line in enumerate(f, 1):
                if line.startswith("#"):
                    stated = header_clock(line)
                    if stated is not None:
                        clock = stated
                    continue
                line = line.strip()
                if not line:
                    continue
                fields = line.split(":")
                where = f"{path}:{lineno}: rank {rank}, call 0"
                if fields[0] not in ("MPI_Init", "MPI_Init_thread") or len(fields) < 3:
                    raise CloudnoiseError(f"{where}: the first call is {fields[0][:40]!r}, not MPI_Init; the file is damaged "
                                          "or not a liballprof trace")
                exit_us = _us(fields[-1], where)
                if abs(exit_us) > MAX_CLOCK_US:
                    self._bad_times(fields, where)
                return clock, exit_us
        raise CloudnoiseError(f"{path}: rank {rank}: no MPI_Init line; the file is empty, damaged or not a liballprof trace")

    def _last_time_us(self, rank: int) -> float | None:
        """The latest time of the rank's last call line, in its own clock (None: unreadable; the
        conversion names the damage). Plain files are read from their end, gzip ones through."""
        path = self.files[rank]
        try:
            if path.name.endswith(".gz"):
                last = ""
                with _open(path) as f:
                    for line in f:
                        if line[:1] != "#" and line.strip():
                            last = line
            else:
                with path.open("rb") as raw:
                    size = raw.seek(0, 2)
                    raw.seek(max(0, size - (1 << 16)))
                    tail = raw.read().decode("ascii", errors="replace").splitlines()
                    if size > 1 << 16:
                        tail = tail[1:]  # (its first line may begin before the block)
                last = next((x for x in reversed(tail) if x[:1] != "#" and x.strip()), "")
        except (OSError, EOFError, zlib.error):
            return None
        fields = last.strip().split(":")
        times = []
        for text in (fields[1], fields[-1]) if len(fields) >= 3 else ():
            try:
                value = float(text)
            except ValueError:
                continue
            if math.isfinite(value):
                times.append(value)
        return max(times) if times else None

    @property
    def comms(self) -> CommTable:
        """The communicators of the run, resolved across ranks (read once, on first use)."""
        if self._comms is None:
            self._comms = scan_communicators(self, COMM_FIELD)
        return self._comms

    def describe(self) -> dict[str, Any]:
        header = []
        with _open(self.files[0]) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                header.append(line[1:].strip())
        return {"format": self.format, "path": str(self.path), "ranks": self.num_ranks, "header": header,
                "origin_us": self.origin_us, "clock": self.clock.describe()}

    def lines(self, rank: int) -> Iterator[tuple[int, int, str]]:
        """(line number, call index, stripped line) of each call line of a rank, in order
        (the caller splits only the lines it needs)."""
        path = self.files[rank]
        index = 0
        lineno = 0
        try:
            with _open(path) as f:
                for lineno, line in enumerate(f, 1):
                    if line[:1] == "#":
                        continue
                    line = line.strip()
                    if not line:
                        continue
                    yield lineno, index, line
                    index += 1
        except (OSError, EOFError, zlib.error) as err:
            raise CloudnoiseError(f"{path}: rank {rank}: cannot read after line {lineno} ({err}); the file is damaged "
                                  "or cut short") from None

    def calls(self, rank: int) -> Iterator[Call]:
        path = self.files[rank]
        rank_comms = self.comms.for_rank(rank)
        mpich = self.comms.mpich
        offset = self.offset_us[rank]
        pending: set[int] = set()
        finalized = False
        index = -1
        lineno = 0
        dtype: dict[str, int] = {}
        comm_id = rank_comms.id_of
        kinds = KIND
        fast = P2P_FIELDS
        limit = MAX_US * 1000
        comm_cache = rank_comms.cache  # text -> id, as id_of fills it (cleared, never replaced)
        next_at = rank_comms.next_at  # the call index of the next communicator binding
        other_kind: dict[str, str] = {}  # name -> kind of calls off the fast path, as below
        f = _open(path)
        try:
            for line in f:
                lineno += 1
                line = line.rstrip()
                if not line or line[0] == "#":
                    continue
                index += 1
                fields = line.split(":")
                name = fields[0]
                if index == next_at:
                    rank_comms.at(index)
                    next_at = rank_comms.next_at
                try:
                    t0 = round((float(fields[1]) - offset) * 1000)
                    end = fields[-1]
                    t1 = t0 if end == "-" else round((float(end) - offset) * 1000)
                    if not (-limit < t0 <= t1 < limit):
                        raise ValueError
                except (ValueError, OverflowError, IndexError):
                    if index == 0 and len(fields) > 2:
                        # MPI_Init's start may be unreadable ('-'); its end must be a time of the run
                        init_ps = (_us(fields[-1], _where(path, lineno, rank, index)) - offset) * 1000
                        if not -limit < init_ps < limit:
                            self._bad_times(fields, _where(path, lineno, rank, index))
                        t0 = t1 = round(init_ps)
                    else:
                        self._bad_times(fields, _where(path, lineno, rank, index))
                if index == 0:
                    if name not in ("MPI_Init", "MPI_Init_thread"):
                        raise CloudnoiseError(f"{_where(path, lineno, rank, index)}: {name[:40]} before MPI_Init; the file is damaged")
                    yield Call(0, name, "init", t1, t1)
                    continue
                pos = fast.get(name)
                if pos is not None and len(fields) == pos[0]:
                    # the bulk of a trace: point-to-point calls on the fast path
                    _, kind, icount, itype, ipeer, itag, icomm, ireq = pos
                    size = dtype.get(fields[itype])
                    if size is None:
                        size = _size(fields[itype], dtype)
                    peer = int(fields[ipeer])
                    if mpich and peer < 0:
                        peer = _peer(peer, True)
                    cid = comm_cache.get(fields[icomm])
                    if cid is None:
                        cid = comm_id(fields[icomm], name)
                    c = Call(index, name, kind, t0, t1, cid, peer, int(fields[itag]), int(fields[icount]) * size)
                    if ireq:
                        c.request = req = int(fields[ireq])
                        pending.add(req)
                    elif kind == "recv":
                        c.status = UNKNOWN_STATUS
                    yield c
                    continue
                if name == "MPI_Waitall" and len(fields) == WAITALL_FIELDS:
                    # the other bulk of a trace, as decode_call reads it
                    reqs = _array(int(fields[WAITALL_REQUESTS]), int(fields[WAITALL_COUNT]), pending)
                    pending.difference_update(reqs)
                    c = Call(index, name, "complete", t0, t1)
                    c.completions = [(r, -1, -1, 0) for r in reqs]
                    yield c
                    continue
                if len(fields) < 3 or not name.startswith("MPI_"):
                    raise CloudnoiseError(f"{_where(path, lineno, rank, index)}: not a liballprof call line; the file is "
                                          "damaged or not a liballprof trace")
                if name == "MPI_Finalize":
                    finalized = True
                    yield Call(index, name, "finalize", t0, t0)
                    continue
                what = other_kind.get(name)
                if what is None:
                    what = kinds.get(name) or ("coll" if name in SIGNATURES else "local" if is_local(name) else "unsupported")
                    if len(other_kind) < 4096:  # (a damaged file may name any number of calls)
                        other_kind[name] = what
                if what == "local" or what == "unsupported":
                    yield Call(index, name, what, t0, t1)
                    continue
                if len(fields) != NFIELDS[name]:
                    raise CloudnoiseError(f"{_where(path, lineno, rank, index)}: {name} has {len(fields) - 3} arguments, "
                                          f"liballprof writes {NFIELDS[name] - 3}; the file is damaged")
                yield self.decode_call(name, what, index, t0, t1, fields, pending, rank_comms, dtype, mpich)
        except (ValueError, IndexError):
            raise CloudnoiseError(f"{_where(path, lineno, rank, index)}: {fields[0][:40]}: an argument is malformed "
                                  f"({':'.join(fields[2:-1])[:80]!r}); the file is damaged") from None
        except CommError as err:
            why = rank_comms.origin(index) if err.handle is not None else ""
            raise CloudnoiseError(f"{_where(path, lineno, rank, index)}: {err}{why}") from None
        except (OSError, EOFError, zlib.error) as err:
            raise CloudnoiseError(f"{path}: rank {rank}: cannot read after line {lineno} ({err}); the file is damaged "
                                  "or cut short") from None
        finally:
            f.close()
        if not finalized:
            raise CloudnoiseError(
                f"{path}: rank {rank}: the trace ends after call {index} without MPI_Finalize (the application stopped "
                "early or the file was cut short); trace the run again"
            )

    @staticmethod
    def _bad_times(fields: list[str], where: str) -> None:
        if len(fields) < 3:
            raise CloudnoiseError(f"{where}: not a liballprof call line; the file is damaged or not a liballprof trace")
        for text in (fields[1], fields[-1]):
            if text != "-":
                _us(text, where)
        raise CloudnoiseError(
            f"{where}: times {fields[1]!r} to {fields[-1]!r} are not a call of this run (more than three years "
            "from its start, or ending before they begin); the file is damaged"
        )

    def decode_call(self, name: str, kind: str, index: int, t0: int, t1: int, f: list[str], pending: set[int],
                    comms: Any, dtype: dict[str, int], mpich: bool) -> Call:
        """The Call of one line's fields `f` (name `name`, kind `kind`, times t0/t1 in ns
        from the origin), its communicators read through `comms` (a rank's RankComms);
        requests it starts or completes are added to or taken from `pending`."""
        pos = POSITIONS[name]
        c = Call(index, name, kind, t0, t1)
        if "comm" in pos:
            c.comm = comms.id_of(f[pos["comm"]], name)
        if kind == "comm_create":
            c.comm_info = comms.created(index)
            return c
        if kind in ("send", "recv", "isend", "irecv", "sendrecv", "send_init", "recv_init"):
            c.peer = _peer(int(f[pos["peer"]]), mpich)
            c.tag = int(f[pos["tag"]])
            c.bytes = int(f[pos["count"]]) * _size(f[pos["type"]], dtype)
            if kind == "sendrecv":
                c.recv_peer = _peer(int(f[pos["rpeer"]]), mpich)
                c.recv_tag = int(f[pos["rtag"]])
                c.recv_bytes = int(f[pos["rcount"]]) * _size(f[pos["rtype"]], dtype) if "rcount" in pos else c.bytes
            if kind in ("recv", "sendrecv"):
                c.status = (ANY, ANY, 0)  # liballprof does not record what arrived: the posted values are used
            elif kind != "send":  # non-blocking, or persistent (its MPI_Start names the same variable)
                c.request = int(f[pos["request"]])
                pending.add(c.request)
            return c
        if kind == "start":
            c.requests = _array(int(f[pos["requests"]]), int(f[pos["count"]]), pending) if "count" in pos else [int(f[pos["request"]])]
            pending.update(c.requests)
            return c
        if kind == "cancel":  # the request stays pending until it completes (the format does not say whether it was cancelled)
            c.requests = [int(f[pos["request"]])]
            return c
        if kind == "request_free":  # the request's operation goes on; its handle may be reused at once
            c.requests = [int(f[pos["request"]])]
            pending.discard(c.requests[0])
            return c
        if kind == "complete":
            if name == "MPI_Wait":
                reqs = [int(f[pos["request"]])]
                reqs = reqs if reqs[0] in pending else []
            else:
                reqs = _array(int(f[pos["requests"]]), int(f[pos["count"]]), pending)
                if name == "MPI_Waitany":
                    reqs = reqs[:1]
            for r in reqs:
                pending.discard(r)
            c.completions = [(r, -1, -1, 0) for r in reqs]
            return c
        # a collective
        c.kind = "coll"
        if "root" in pos:
            c.root = int(f[pos["root"]])
        tsize = _size(f[pos["type"]], dtype) if "type" in pos else 0
        rsize = _size(f[pos["rtype"]], dtype) if "rtype" in pos else tsize
        if "count" in pos:
            c.bytes = int(f[pos["count"]]) * tsize
        c.recv_bytes = (int(f[pos["rcount"]]) * rsize if "rcount" in pos else 0) or c.bytes
        scounts = _counts(f[pos["scounts"]]) if "scounts" in pos else None
        rcounts = _counts(f[pos["rcounts"]]) if "rcounts" in pos else None
        if scounts is not None and rcounts is not None:
            c.vec = tuple(x * tsize for x in scounts) + tuple(x * rsize for x in rcounts)
        elif rcounts is not None:
            c.vec = tuple(x * rsize for x in rcounts)
        elif scounts is not None:
            c.vec = tuple(x * tsize for x in scounts)
        if c.vec is not None and not any(c.vec):
            c.vec = None
        return c


def _where(path: Path, lineno: int, rank: int, index: int) -> str:
    return f"{path}:{lineno}: rank {rank}, call {index}"


def _peer(value: int, mpich: bool) -> int:
    """A source/destination in the events' convention (ANY -1, PROC_NULL -2)."""
    if mpich and value in (-1, -2):
        return PROC_NULL if value == -1 else ANY
    return value


def _size(field: str, cache: dict[str, int]) -> int:
    """A datatype's size in bytes from its `ID,SIZE,EXTENT` field."""
    size = cache.get(field)
    if size is None:
        parts = field.split(",")
        size = int(parts[1]) if len(parts) > 1 else 0
        if size < 0:
            raise ValueError(field)
        cache[field] = size
    return size


def _counts(field: str) -> tuple[int, ...]:
    return tuple(int(x) for x in field.split(",") if x != "")


def _array(base: int, count: int, pending: set[int] | None) -> list[int]:
    """The request addresses of an array of `count` requests at `base`: the
    element size (4 or 8 bytes) that names the most pending requests."""
    if count < 0 or count > 1 << 24:
        raise ValueError(count)
    if pending is None:
        return [base + i * 4 for i in range(count)]
    best: list[int] = [base + i * 4 for i in range(count) if base + i * 4 in pending]
    if len(best) == count:
        return best  # every 4-byte slot names a pending request: 8 bytes cannot name more
    for step in (8,):
        cand = [base + i * step for i in range(count) if base + i * step in pending]
        if len(cand) > len(best):
            best = cand
    return best


__all__ = ["LiballprofTrace", "find_rank_files", "CommInfo", "PROC_NULL"]
