"""Reader of OTF2 archives (Score-P and other tools), through the `otf2`
package (the optional extra: `pip install 'cloudnoise[otf2]'`).

An OTF2 archive holds global definitions (regions, locations, groups,
communicators, the clock) and one event stream per location. Each MPI rank
is a location group; its MPI calls are on its first thread (the location
listed for it in the MPI COMM_LOCATIONS group). A rank's calls are read
from that location's stream in batches (bounded memory) and mapped onto
`events.Call`:

- an MPI call is an Enter/Leave pair of an MPI region (paradigm MPI or a
  name starting with MPI_); its name is the region's; the MPI records
  between the Enter and the Leave say what it did: MpiSend (send), MpiRecv
  (receive; what arrived), both (sendrecv), MpiIsend (isend), MpiIrecvRequest
  (irecv), MpiIsendComplete / MpiIrecv / NonBlockingCollectiveComplete (a
  Wait or Test that completed requests; MpiRequestCancelled there: a
  request it found cancelled), MpiCollectiveBegin/End (a
  collective: operation, communicator, root, bytes),
  NonBlockingCollectiveRequest (a non-blocking collective); a call with none
  of these is local (its time is compute), or recorded by name only when
  it is one-sided, a neighbourhood collective, Alltoallw, matched probes or
  collective I/O;
- MPI_Init's Leave is time 0 (the earliest over the ranks: the application
  runtime is first MPI_Init exit to last MPI_Finalize entry); MPI_Finalize's
  Enter ends the rank;
- OTF2 says where an MPI_Irecv's message came from only when it completes,
  and a non-blocking collective's operation and size only at its
  completion: those calls are held (with the calls after them, in order)
  until their completion is read, then given the source, tag, size and
  communicator that arrived, like the native recorder's completed
  receives. The look-ahead is bounded (`LOOKAHEAD` calls).

Collective sizes: OTF2 records the bytes a rank sent and received in total
(Score-P's convention: an Allreduce of B bytes on N ranks records N x B
sent and received, a Bcast N x B at the root and B elsewhere, in-place
calls one block less); the converter wants each rank's buffer size, which
is recovered by dividing by the ranks the convention multiplied by.
v-collectives record totals only: their per-rank counts become equal
shares.

Damaged archives are one-line errors naming the rank and the event: the
OTF2 library's own messages are kept off stderr, and each rank's events are
counted against the number the definitions announce (a cut-short file).

Communicators come from the Comm definitions (members in world ranks,
MPI_COMM_WORLD recognised as the parentless communicator of every rank);
Cartesian topologies from the CartTopology definitions.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import ANY, CANCELLED, Call, CommInfo

# A held MPI_Irecv / non-blocking collective waits this many calls for its
# completion before it is let go with what is known (the converter then
# takes the source from the completion).
LOOKAHEAD = 1 << 16
BATCH = 4096
UNDEFINED_U32 = 0xFFFFFFFF
WORLD_ID, SELF_ID = 0, 1

# OTF2 collective operation number -> MPI function (blocking form).
COLLECTIVE_OPS = {
    0: "MPI_Barrier", 1: "MPI_Bcast", 2: "MPI_Gather", 3: "MPI_Gatherv", 4: "MPI_Scatter",
    5: "MPI_Scatterv", 6: "MPI_Allgather", 7: "MPI_Allgatherv", 8: "MPI_Alltoall", 9: "MPI_Alltoallv",
    10: "MPI_Alltoallw", 11: "MPI_Allreduce", 12: "MPI_Reduce", 13: "MPI_Reduce_scatter", 14: "MPI_Scan",
    15: "MPI_Exscan", 16: "MPI_Reduce_scatter_block",
}
ALLTOALLW = 10
ROOTED_OPS = (1, 2, 3, 4, 5, 12)
# 17..22: communicator and window creation and destruction (their time is compute).
HANDLE_OPS = range(17, 23)
# A non-blocking collective's name until its completion says which it was.
PENDING_COLLECTIVE = "MPI_I(collective)"
# The call that brings a communicator the archive defines to the converter (not an MPI call of the trace).
COMM_DEFINITION = "(OTF2 communicator definition)"

# Calls the converter cannot turn into messages: recorded by name only.
UNSUPPORTED_PREFIXES = ("MPI_Win_", "MPI_Neighbor_", "MPI_Ineighbor_", "MPI_Intercomm_")
UNSUPPORTED_NAMES = {
    "MPI_Put", "MPI_Rput", "MPI_Get", "MPI_Rget", "MPI_Accumulate", "MPI_Raccumulate", "MPI_Get_accumulate",
    "MPI_Rget_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap", "MPI_Alltoallw", "MPI_Ialltoallw",
    "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Comm_idup", "MPI_Graph_create",
    "MPI_Dist_graph_create_adjacent",
}
INIT_NAMES = ("MPI_Init", "MPI_Init_thread")


_QUIET: list[Any] = []  # the C error handler installed by _quiet_errors (kept alive here)
_LAST_ERROR: list[str] = []


def _import_otf2() -> tuple[Any, Any]:
    try:
        import _otf2
        import otf2
    except ImportError:
        raise CloudnoiseError(
            "this is an OTF2 archive; reading OTF2 needs the otf2 package: install with pip install 'cloudnoise[otf2]'"
        ) from None
    _quiet_errors(_otf2)
    return otf2, _otf2


def _open_reader(otf2_mod: Any, _otf2: Any, anchor: str) -> Any:
    """otf2.reader.Reader(anchor), closing the library's reader handle when reading the
    definitions fails: the package leaves it open (about 4 MB per damaged archive)."""

    class ClosingReader(otf2_mod.reader.Reader):  # type: ignore[misc, name-defined]
        def __init__(self, path: str) -> None:
            try:
                super().__init__(path)
            except BaseException:
                handle = getattr(self, "_handle", None)
                if handle is not None:
                    try:
                        _otf2.Reader_Close(handle)
                    except Exception:  # noqa: BLE001 - closing what is already damaged
                        pass
                    self._handle = None
                raise

    return ClosingReader(anchor)


def _quiet_errors(_otf2: Any) -> None:
    """The OTF2 library prints every error it meets to stderr ([OTF2] ...
    lines); cloudnoise reports one line of its own instead, so the library's
    messages are kept (the latest in _LAST_ERROR) rather than printed."""
    if _QUIET:
        return
    import ctypes

    try:
        lib = _otf2.Config.conf.lib
        proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p,
                                 ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)

        def handler(_user: Any, _file: Any, _line: Any, _function: Any, code: int, fmt: bytes | None, _va: Any) -> int:
            text = (fmt or b"").decode("utf-8", "replace").split("%")[0].strip(" :")
            _LAST_ERROR[:] = [text] if text else []
            return code

        callback = proto(handler)
        register = lib.OTF2_Error_RegisterCallback
        register.argtypes = [proto, ctypes.c_void_p]
        register.restype = ctypes.c_void_p
        register(callback, None)
        _QUIET.append(callback)
    except (AttributeError, TypeError, OSError):  # a binding without the symbol: its messages stay on stderr
        _QUIET.append(None)


def _why(err: BaseException) -> str:
    """What the OTF2 library said about its latest error, in a few words."""
    said = _LAST_ERROR[0] if _LAST_ERROR else ""
    desc = getattr(err, "description", "") or _one_line(err)
    if desc.lower().startswith("unknown error"):
        desc = ""
    if said and said not in desc:
        return f"{desc}: {said}" if desc else said
    return desc or "unreadable"


def find_anchor(folder: Path) -> Path | None:
    """The archive's anchor file (NAME.otf2) in `folder`, None when there is none."""
    anchors = sorted(p for p in folder.glob("*.otf2") if p.is_file())
    if len(anchors) > 1:
        raise CloudnoiseError(
            f"{folder}: {len(anchors)} OTF2 archives ({', '.join(p.name for p in anchors[:4])}); give the .otf2 file to read"
        )
    return anchors[0] if anchors else None


def unsupported(name: str) -> bool:
    if name in UNSUPPORTED_NAMES or name.startswith(UNSUPPORTED_PREFIXES):
        return True
    return name.startswith("MPI_File_") and ("_all" in name or "_ordered" in name)


def block_bytes(total: int, ranks: int, extra: int = 0) -> int:
    """One rank's block from a total that counted `ranks` blocks (+ `extra`),
    or one block less (an in-place call): the exact division when there is one."""
    for k in (ranks + extra, ranks + extra - 1):
        if k > 0 and total % k == 0:
            return total // k
    return round(total / max(1, ranks + extra))


def collective_sizes(op: int, size: int, rank: int, root: int, sent: int, received: int) -> tuple[int, int]:
    """(bytes, recv_bytes) of one rank's collective call, as the native
    recorder gives them (count x datatype size of its buffers), from the
    totals OTF2 records (Score-P's convention; see the module docstring)."""
    n = max(1, size)
    if op == 0:  # barrier
        return 0, 0
    if op in (1, 4, 5):  # bcast, scatter(v): the root sends n blocks, the others receive one
        b = block_bytes(sent, n) if rank == root else received
        return b, b
    if op in (2, 3, 12):  # gather(v), reduce: the root receives n blocks, the others send one
        b = (sent or block_bytes(received, n)) if rank == root else sent
        return b, b
    if op == 14:  # scan: (n - rank) blocks sent, rank + 1 received: n + 1 in all
        return (b := block_bytes(sent + received, n, 1)), b
    if op == 15:  # exscan: (n - 1 - rank) sent, rank received: n - 1 in all
        return (b := block_bytes(sent + received, n - 1)), b
    # allreduce, allgather(v), alltoall(v), reduce_scatter(_block): n blocks each way
    b = block_bytes(max(sent, received), n)
    return b, b


class _Definitions:
    """What the reader needs from the global definitions, as plain values."""

    def __init__(self, otf2: Any, reader: Any, path: Path) -> None:
        defs = reader.definitions
        mpi = otf2.Paradigm.MPI
        comm_locations = None
        for g in defs.groups:
            if g.group_type == otf2.GroupType.COMM_LOCATIONS and (comm_locations is None or g.paradigm == mpi):
                comm_locations = g
        if comm_locations is not None and comm_locations.members:
            self.locations = [loc._ref for loc in comm_locations.members]
        else:  # no MPI group: one rank per process, its first thread
            first: dict[int, int] = {}
            for loc in defs.locations:
                if loc.type == otf2.LocationType.CPU_THREAD:
                    first.setdefault(loc.group._ref, loc._ref)
            self.locations = [first[k] for k in sorted(first)]
        if not self.locations:
            raise CloudnoiseError(f"{path}: the OTF2 archive defines no MPI ranks (no locations); it is not an MPI trace")
        self.rank_of_location = {loc: r for r, loc in enumerate(self.locations)}
        self.events_of_location = {loc._ref: int(loc.number_of_events) for loc in defs.locations}
        n = len(self.locations)
        self.regions: dict[int, tuple[str, bool]] = {}
        for reg in defs.regions:
            name = reg.name or ""
            self.regions[reg._ref] = (name, reg.paradigm == mpi or name.startswith("MPI_"))
        clock = defs.clock_properties
        self.resolution = int(clock.timer_resolution)
        if self.resolution <= 0:
            raise CloudnoiseError(f"{path}: the OTF2 clock has resolution {self.resolution}; the archive is damaged")
        self.global_offset = int(clock.global_offset)
        self.trace_length = int(clock.trace_length)
        # communicators: world ranks of members, and which one is MPI_COMM_WORLD
        self.comms: dict[int, tuple[str, tuple[int, ...] | None, int | None, bool]] = {}
        for comm in defs.comms:
            group = getattr(comm, "group", None)
            if group is None:  # an inter-communicator: calls on it are refused by the converter
                continue
            if group.group_type == otf2.GroupType.COMM_SELF:
                self.comms[comm._ref] = ("self", None, None, False)
                continue
            members = tuple(self.rank_of_location.get(loc._ref, -1) for loc in group.members)
            if -1 in members:
                continue
            parent = comm.parent._ref if comm.parent is not None else None
            whole = members == tuple(range(n))
            self.comms[comm._ref] = (comm.name or "", None if whole else members, parent, whole)
        candidates = [ref for ref, (name, members, parent, whole) in self.comms.items() if whole and parent is None]
        named = [ref for ref in candidates if self.comms[ref][0] == "MPI_COMM_WORLD"]
        self.world = (named or candidates or [None])[0]
        self.grids: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for topo in getattr(defs, "cart_topologies", []):
            comm = getattr(topo, "communicator", None)
            if comm is None:
                continue
            dims = tuple(int(d.size) for d in topo.dimensions)
            periods = tuple(int(bool(getattr(d, "cart_periodicity", False))) for d in topo.dimensions)
            self.grids[comm._ref] = (dims, periods)


class _Stream:
    """One rank's events, read in batches of BATCH through the location's own
    event reader: (tag, time in ticks, record arguments) tuples."""

    TAGS = (
        ("Enter", "enter"), ("Leave", "leave"), ("MpiSend", "send"), ("MpiIsend", "isend"),
        ("MpiIsendComplete", "isend_done"), ("MpiIrecvRequest", "irecv"), ("MpiRecv", "recv"),
        ("MpiIrecv", "irecv_done"), ("MpiRequestCancelled", "cancel"), ("MpiCollectiveEnd", "coll"),
        ("NonBlockingCollectiveRequest", "icoll"), ("NonBlockingCollectiveComplete", "icoll_done"),
        ("RmaPut", "rma"), ("RmaGet", "rma"), ("RmaAtomic", "rma"),
    )

    def __init__(self, trace: OTF2Trace, rank: int) -> None:
        self.trace, self.rank = trace, rank
        self.location = trace.defs.locations[rank]
        self.expected = trace.defs.events_of_location.get(self.location, 0)
        self.count = 0  # events read so far
        _otf2 = trace._otf2
        handle = trace._handle()
        self.buf: list[tuple] = []
        self.reader = None
        try:
            self.reader = _otf2.Reader_GetEvtReader(handle, self.location)
        except _otf2.Error:
            pass
        if not self.reader:
            self.reader = None
            raise CloudnoiseError(
                f"{trace.path}: rank {rank}, event 0: its event file ({trace.evt_file(self.location)}) is missing or "
                "unreadable; copy the whole archive (the .otf2 file, the .def file and the folder beside them)"
            )
        cbs = _otf2.EvtReaderCallbacks_New()
        # the binding ties each ctypes callback to the Python function: these must live as long as the reader
        self._keep = []
        b = self.buf
        for setter, tag in self.TAGS:
            fn = getattr(_otf2, f"EvtReaderCallbacks_Set{setter}Callback", None)
            if fn is None:
                continue

            def cb(loc: int, time: int, pos: int, user: Any, attrs: Any, *args: Any, _tag: str = tag) -> None:
                b.append((_tag, time, args))

            self._keep.append(cb)
            fn(cbs, cb)
        # events of kinds without a callback are skipped by the library (but counted by GetPos)
        _otf2.Reader_RegisterEvtCallbacks(handle, self.reader, cbs, None)
        _otf2.EvtReaderCallbacks_Delete(cbs)
        self.done = False

    def __iter__(self) -> Iterator[tuple]:
        _otf2 = self.trace._otf2
        handle = self.trace._handle()
        try:
            while not self.done:
                self.buf.clear()
                try:
                    got = _otf2.Reader_ReadLocalEvents(handle, self.reader, BATCH)
                except _otf2.Error as err:
                    raise CloudnoiseError(
                        f"{self.trace.path}: rank {self.rank}, event {self.count + len(self.buf)}: the event file "
                        f"{self.trace.evt_file(self.location)} is damaged ({_why(err)}); the archive cannot be "
                        "read: copy it again from where it was written, or trace the run again"
                    ) from None
                if got < BATCH:
                    self.done = True
                    if self.expected and self.count + got < self.expected:
                        raise CloudnoiseError(
                            f"{self.trace.path}: rank {self.rank}, event {self.count + got}: the event file "
                            f"{self.trace.evt_file(self.location)} ends after {self.count + got} of the "
                            f"{self.expected} events the definitions announce (cut short or damaged); copy the archive "
                            "again, or trace the run again"
                        )
                self.count += got
                yield from self.buf
        finally:
            self.close()

    def close(self) -> None:
        if self.reader is not None:
            try:
                self.trace._otf2.Reader_CloseEvtReader(self.trace._handle(), self.reader)
            except Exception:  # noqa: BLE001 - closing a reader of a damaged archive
                pass
            self.reader = None


class OTF2Trace:
    """An OTF2 archive (its anchor file, NAME.otf2)."""

    format = "otf2"
    records_status = True  # completions say what arrived, or that the request was cancelled
    warnings: tuple[str, ...] = ()

    def __init__(self, anchor: Path) -> None:
        self.path = Path(anchor)
        self._reader = None
        self._otf2_mod, self._otf2 = _import_otf2()
        if not self.path.is_file():
            raise CloudnoiseError(f"{self.path}: no such OTF2 anchor file; give the NAME.otf2 file of the archive")
        try:
            # The binding prints a traceback of its own for an exception in a definition
            # callback (a damaged .def): captured here, the one line below says it.
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                self._reader = _open_reader(self._otf2_mod, self._otf2, str(self.path))
        except Exception as err:  # noqa: BLE001 - the C library's and the binding's errors alike
            raise CloudnoiseError(f"{self.path}: cannot read the OTF2 archive's definitions ({_why(err)}); "
                                  "give the anchor file (NAME.otf2) of a complete archive") from None
        try:
            self.defs = _Definitions(self._otf2_mod, self._reader, self.path)
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise CloudnoiseError(f"{self.path}: the archive's definitions are inconsistent ({_one_line(err)}); "
                                  "it is damaged or was not written by an MPI tracer") from None
        self.num_ranks = len(self.defs.locations)
        self._open_locations()
        self._origin: int | None = None

    def _open_locations(self) -> None:
        """Selects every rank's location and reads its local definitions
        (mapping tables, clock offsets) once; the event files are opened per
        rank when its calls are read."""
        _otf2, handle = self._otf2, self._handle()
        for loc in self.defs.locations:
            _otf2.Reader_SelectLocation(handle, loc)
        try:
            _otf2.Reader_OpenDefFiles(handle)
        except _otf2.Error:
            pass  # an archive without local definitions
        else:
            for rank, loc in enumerate(self.defs.locations):
                try:
                    dr = _otf2.Reader_GetDefReader(handle, loc)
                    if dr:
                        _otf2.Reader_ReadAllLocalDefinitions(handle, dr)
                        _otf2.Reader_CloseDefReader(handle, dr)
                except _otf2.Error as err:
                    raise CloudnoiseError(
                        f"{self.path}: rank {rank}, event 0: its local definitions are damaged ({_why(err)}); "
                        "copy the archive again, or trace the run again"
                    ) from None
            try:
                _otf2.Reader_CloseDefFiles(handle)
            except _otf2.Error:
                pass
        try:
            _otf2.Reader_OpenEvtFiles(handle)
        except _otf2.Error:
            pass  # POSIX substrate: each location's reader opens its own file

    def evt_file(self, location: int) -> str:
        """Where a location's events are (POSIX substrate), for messages."""
        return f"{self.path.stem}/{location}.evt"

    def _handle(self) -> Any:
        return self._reader.handle

    def close(self) -> None:
        if self._reader is not None:
            try:
                self._reader.close()
            except Exception:  # noqa: BLE001 - closing a damaged archive
                pass
            self._reader = None

    def __del__(self) -> None:
        self.close()

    def describe(self) -> dict[str, Any]:
        d = self.defs
        out: dict[str, Any] = {"format": self.format, "path": str(self.path), "ranks": self.num_ranks,
                               "timer_resolution_hz": d.resolution,
                               "clock_offset_ns": d.global_offset * 1_000_000_000 // d.resolution,
                               "trace_length_ns": d.trace_length * 1_000_000_000 // d.resolution}
        for key, fn in (("creator", "Reader_GetCreator"), ("machine", "Reader_GetMachineName")):
            try:
                value = getattr(self._otf2, fn)(self._handle())
                if value:
                    out[key] = value
            except Exception:  # noqa: BLE001 - optional properties
                pass
        out["notes"] = ["collective sizes are recovered from OTF2's byte totals (Score-P's convention); "
                        "v-collectives get equal shares"]
        return out

    # -- time
    def origin(self) -> int:
        """Timestamp (ticks) of the first MPI_Init exit over all ranks; the
        clock's global offset (the archive's first timestamp) when no rank
        shows an MPI_Init."""
        if self._origin is None:
            exits = [t for t in (self._init_exit(r) for r in range(self.num_ranks)) if t is not None]
            self._origin = min(exits) if exits else self.defs.global_offset
        return self._origin

    def _init_exit(self, rank: int) -> int | None:
        """The time rank `rank` left MPI_Init, None when its stream shows none
        before its first communication."""
        stream = _Stream(self, rank)
        regions = self.defs.regions
        try:
            for tag, t, args in stream:
                if tag == "leave" and regions.get(args[0], ("", False))[0] in INIT_NAMES:
                    return t
                if tag not in ("enter", "leave"):
                    return None
            return None
        finally:
            stream.close()

    # -- calls
    def calls(self, rank: int) -> Iterator[Call]:
        if not 0 <= rank < self.num_ranks:
            raise CloudnoiseError(f"{self.path}: no rank {rank} (the archive has {self.num_ranks})")
        origin = self.origin()
        builder = _RankCalls(self, rank, origin)
        stream = _Stream(self, rank)
        try:
            yield from builder.run(iter(stream))
        finally:
            stream.close()


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[-1] if text else type(err).__name__


class _RankCalls:
    """Turns one location's events into Calls (see the module docstring)."""

    def __init__(self, trace: OTF2Trace, rank: int, origin: int) -> None:
        self.trace, self.rank, self.origin = trace, rank, origin
        self.defs = trace.defs
        self.res = trace.defs.resolution
        self.index = 0
        self.queue: deque[Call] = deque()
        self.waiting: dict[int, Call] = {}  # request -> its held irecv / non-blocking collective
        self.comm_ids: dict[int, int] = {}
        self.declared = False

    def ns(self, t: int) -> int:
        return (t - self.origin) * 1_000_000_000 // self.res

    def where(self) -> str:
        return f"{self.trace.path}: rank {self.rank}, call {self.index}"

    # -- communicators
    def comm(self, ref: int) -> int:
        """The converter's id of OTF2 communicator `ref` (declared by `declare_comms`)."""
        cid = self.comm_ids.get(ref)
        if cid is None:
            raise CloudnoiseError(
                f"{self.where()}: a call on communicator {ref}, which the archive does not define with this rank "
                "as a member (an inter-communicator, or incomplete definitions); such calls cannot be converted"
            )
        return cid

    def declare_comms(self, t: int) -> None:
        """Queues a comm_create call for every communicator this rank is in
        (OTF2 defines them globally; the converter learns them from calls)."""
        self.declared = True
        n = self.trace.num_ranks
        for ref, (name, members, _parent, whole) in sorted(self.defs.comms.items()):
            if ref == self.defs.world:
                self.comm_ids[ref] = WORLD_ID
            elif name == "self":
                self.comm_ids[ref] = SELF_ID
            else:
                world_members = members if members is not None else tuple(range(n))
                if self.rank not in world_members:
                    continue
                cid = ref + 2
                dims, periods = self.defs.grids.get(ref, ((), ()))
                c = Call(self.index, COMM_DEFINITION, "comm_create", t, t)
                # the key is made of ints only: it names the communicator identically in every process
                c.comm_info = CommInfo(cid, (-1, ref), len(world_members), world_members.index(self.rank),
                                       None if whole else tuple(world_members), dims, periods)
                self.comm_ids[ref] = cid
                self._emit(c)

    def comm_shape(self, ref: int) -> tuple[int, int]:
        """(size, this rank's rank) of communicator `ref`."""
        cid = self.comm(ref)
        if cid == WORLD_ID:
            return self.trace.num_ranks, self.rank
        if cid == SELF_ID:
            return 1, 0
        _, members, _, _ = self.defs.comms[ref]
        world_members = members if members is not None else tuple(range(self.trace.num_ranks))
        return len(world_members), world_members.index(self.rank)

    # -- output with look-ahead
    def _emit(self, c: Call) -> None:
        self.queue.append(c)
        self.index += 1

    def _held(self, c: Call) -> bool:
        return c.request != 0 and self.waiting.get(c.request) is c

    def _ready(self) -> Iterator[Call]:
        q = self.queue
        while q:
            if self._held(q[0]):
                if len(q) <= LOOKAHEAD:
                    return
                self._release(q[0])  # its completion is too far ahead: let it go as it is
            yield q.popleft()

    def _release(self, c: Call) -> None:
        """A held call goes out before its completion was read: an irecv keeps
        its wildcard (the converter takes the source from the completion); a
        non-blocking collective whose operation is unknown cannot be converted."""
        if c.kind == "coll" and c.name == PENDING_COLLECTIVE:
            c.kind = "unsupported"

    def _flush_all(self) -> Iterator[Call]:
        while self.queue:
            c = self.queue.popleft()
            if self._held(c):
                self._release(c)
            yield c
        self.waiting.clear()

    # -- the loop
    def run(self, events: Iterator[tuple]) -> Iterator[Call]:
        regions = self.defs.regions
        depth = 0  # nesting of MPI regions
        name, entry = "", 0
        recs: list[tuple] = []
        for tag, t, args in events:
            ns = self.ns(t)
            if tag == "enter":
                rname, is_mpi = regions.get(args[0], ("", False))
                if not is_mpi:
                    continue
                depth += 1
                if depth == 1:
                    name, entry, recs = rname, ns, []
                    if rname == "MPI_Finalize":
                        if not self.declared:
                            self.declare_comms(ns)
                        self._emit(Call(self.index, rname, "finalize", ns, ns))
                        break  # nothing after MPI_Finalize's entry counts
            elif tag == "leave":
                if depth == 0 or not regions.get(args[0], ("", False))[1]:
                    continue
                depth -= 1
                if depth == 0:
                    self._call(name, entry, ns, recs)
                    yield from self._ready()
            elif depth == 0:  # an MPI record outside any MPI region: a call of its own
                self._call("", ns, ns, [(tag, ns, args)])
                yield from self._ready()
            else:
                recs.append((tag, ns, args))
        yield from self._flush_all()

    def _call(self, name: str, t0: int, t1: int, recs: list[tuple]) -> None:
        """Queues the Calls of one MPI region (several when it started several requests)."""
        if name in INIT_NAMES:  # its exit is this rank's start (time 0 is the first rank's)
            self._emit(Call(self.index, name, "init", t1, t1))
            if not self.declared:
                self.declare_comms(t1)
            return
        if not self.declared:
            self.declare_comms(t0)
        spans = iter([(t0, t1)])

        def span() -> tuple[int, int]:
            return next(spans, (t1, t1))  # a region's time is counted once, on its first call

        if any(r[0] == "rma" for r in recs) or (name and unsupported(name)):
            self._emit(Call(self.index, name or "MPI_Put", "unsupported", *span()))
            return
        sends = [r[2] for r in recs if r[0] == "send"]
        recvs = [r[2] for r in recs if r[0] == "recv"]
        if len(sends) == 1 and len(recvs) == 1:
            (dst, sref, stag, slen), (src, rref, rtag, rlen) = sends[0], recvs[0]
            cid = self.comm(sref)
            c = Call(self.index, name or "MPI_Sendrecv", "sendrecv", *span(), comm=cid, peer=dst, tag=stag,
                     bytes=slen, recv_peer=src, recv_tag=rtag, recv_bytes=rlen, status=(src, rtag, rlen))
            self._emit(c)
            recs = [r for r in recs if r[0] not in ("send", "recv")]
        completions: list[tuple[int, int, int, int]] = []
        for tag, _t, args in recs:
            if tag == "send":
                dst, ref, mtag, length = args
                cid = self.comm(ref)
                own = name if "send" in name.lower() else "MPI_Send"
                self._emit(Call(self.index, own, "send", *span(), comm=cid, peer=dst, tag=mtag, bytes=length))
            elif tag == "recv":
                src, ref, mtag, length = args
                cid = self.comm(ref)
                own = name if "recv" in name.lower() else "MPI_Recv"
                self._emit(Call(self.index, own, "recv", *span(), comm=cid, peer=src, tag=mtag, bytes=length,
                                status=(src, mtag, length)))
            elif tag == "isend":
                dst, ref, mtag, length, req = args
                cid = self.comm(ref)
                own = name if name.startswith(("MPI_I", "MPI_Start")) else "MPI_Isend"
                self._emit(Call(self.index, own, "isend", *span(), comm=cid, peer=dst, tag=mtag, bytes=length,
                                request=req + 1))
            elif tag == "irecv":
                own = name if name.startswith(("MPI_I", "MPI_Start")) else "MPI_Irecv"
                c = Call(self.index, own, "irecv", *span(), peer=ANY, tag=ANY, request=args[0] + 1)
                self.waiting[c.request] = c
                self._emit(c)
            elif tag == "icoll":
                c = Call(self.index, PENDING_COLLECTIVE, "coll", *span(), request=args[0] + 1)
                self.waiting[c.request] = c
                self._emit(c)
            elif tag == "coll":
                self._collective(name, args, span)
            elif tag == "isend_done":
                completions.append((args[0] + 1, 0, 0, 0))
            elif tag == "irecv_done":
                src, ref, mtag, length, req = args
                cid = self.comm(ref)
                held = self.waiting.pop(req + 1, None)
                if held is not None:  # the receive now says what it matched
                    held.comm, held.peer, held.tag, held.bytes = cid, src, mtag, length
                completions.append((req + 1, src, mtag, length))
            elif tag == "icoll_done":
                op, ref, root, sent, received, req = args
                held = self.waiting.pop(req + 1, None)
                if held is not None:
                    self._fill_collective(held, int(getattr(op, "value", op)), ref, root, sent, received, True)
                completions.append((req + 1, 0, 0, 0))
            elif tag == "cancel":  # the request was cancelled: the converter drops its receive (or send)
                held = self.waiting.pop(args[0] + 1, None)
                if held is not None and held.kind == "coll":
                    raise CloudnoiseError(f"{self.where()}: a non-blocking collective's request is cancelled (MPI cannot "
                                          "cancel collectives); the archive is damaged")
                completions.append((args[0] + 1, CANCELLED, ANY, 0))
        if completions:
            self._emit(Call(self.index, name or "MPI_Wait", "complete", *span(), bytes=len(completions),
                            completions=completions))
        if next(spans, None) is not None:  # nothing communicated: a local call, its time is compute
            self._emit(Call(self.index, name or "MPI_(unnamed)", "local", t0, t1))

    def _collective(self, name: str, args: tuple, span: Any) -> None:
        op, ref, root, sent, received = args
        op = int(getattr(op, "value", op))
        if op in HANDLE_OPS:  # communicator / window set-up: compute, like the native comm calls
            self._emit(Call(self.index, name or "MPI_Comm_create", "local", *span()))
        elif op not in COLLECTIVE_OPS or op == ALLTOALLW:
            self._emit(Call(self.index, name or COLLECTIVE_OPS.get(op, f"MPI_collective_{op}"), "unsupported", *span()))
        else:
            c = Call(self.index, COLLECTIVE_OPS[op], "coll", *span())
            self._fill_collective(c, op, ref, root, sent, received, False)
            self._emit(c)

    def _fill_collective(self, c: Call, op: int, ref: int, root: int, sent: int, received: int,
                         nonblocking: bool) -> None:
        if op not in COLLECTIVE_OPS or op == ALLTOALLW:
            c.kind = "unsupported"
            return
        size, crank = self.comm_shape(ref)
        c.comm = self.comm(ref)
        c.root = int(root) if op in ROOTED_OPS and root != UNDEFINED_U32 else -1
        c.bytes, c.recv_bytes = collective_sizes(op, size, crank, c.root, int(sent), int(received))
        if nonblocking:
            c.name = "MPI_I" + COLLECTIVE_OPS[op][4:].lower()
