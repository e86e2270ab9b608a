"""liballprof ranks converted by the engine's C++ converter.

The Python reader and converter (liballprof.py, rank_converter.py) spend about 7 us
a call; the bulk of a real trace (point-to-point calls, waits, calls that
move no data) is read and converted in C++ instead
(src/engine/traces/liballprof_rank.cpp), into a RankOps store whose older
chunks wait in a temporary file, so memory stays flat in a rank's length.

Python keeps what needs the whole run, through hooks the C++ side calls:
the call tables (`plan`, from liballprof.py's), communicators (the
cross-rank `CommTable`, the converter's CommInfo and tag codes), communicator
constructors and collectives (the Python converter's own code, on a
per-rank staging `Matching`), through RankConverter's public interface
for such a converter. MPI_ANY_SOURCE receives (every rank of a real
application may have them) stay in C++: any-source receives, counted per tag
for the run's matching, with the Python converter's warning. The result is
the Python converter's, op for op: a rank the C++ side does not finish
(damage, any other warning, a rare call such as a persistent request or an
MPI_ANY_TAG receive) is converted again by the Python converter, so every
error and warning is the reference's own.
Nothing is merged into the run's counts until the rank is complete.
"""

from __future__ import annotations

from array import array
from typing import Any

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.limits import MAX_SIZE_BYTES
from cloudnoise.trace import liballprof as lap
from cloudnoise.trace.conversion import Conversion, ConvertOptions
from cloudnoise.trace.liballprof_comms import CommError
from cloudnoise.trace.matching import Matching
from cloudnoise.trace.rank_converter import RankConverter, any_source_warning

# CallPlan classes and sub-kinds (liballprof_rank.hpp)
FALLBACK, P2P, WAIT, LOCAL, UNSUPPORTED, COLLECTIVE, COMM_CREATE = range(7)
P2P_SUB = {"send": 0, "recv": 1, "isend": 2, "irecv": 3}
WAIT_SUB = {"MPI_Waitall": 0, "MPI_Waitany": 1, "MPI_Waitsome": 2, "MPI_Wait": 3}


def usable(trace: Any) -> bool:
    """Whether the C++ converter can take this trace's ranks."""
    return isinstance(trace, lap.LiballprofTrace) and hasattr(_engine, "convert_liballprof_rank")


def plan(name: str) -> tuple[int, ...]:
    """How the C++ converter reads a call: (class, sub-kind, fields, positions of count,
    datatype, peer, tag, communicator, request), as liballprof.py's reader classifies it."""
    if not name.startswith("MPI_"):
        return (FALLBACK,) + (0,) * 8
    kind = lap.KIND.get(name)
    if kind is None:
        kind = "coll" if name in lap.SIGNATURES else "local" if lap.is_local(name) else "unsupported"
    if kind == "local":
        return (LOCAL,) + (0,) * 8
    if kind == "unsupported":
        return (UNSUPPORTED,) + (0,) * 8
    nfields = lap.NFIELDS[name]
    pos = lap.POSITIONS[name]
    if kind in P2P_SUB:
        return (P2P, P2P_SUB[kind], nfields, pos["count"], pos["type"], pos["peer"], pos["tag"], pos["comm"],
                pos.get("request", 0))
    if kind == "complete" and name in WAIT_SUB:
        return (WAIT, WAIT_SUB[name], nfields, pos.get("count", 0), 0, 0, 0, 0, pos.get("requests", pos.get("request", 0)))
    if kind == "coll":
        return (COLLECTIVE, 0, nfields, 0, 0, 0, 0, 0, 0)
    if kind == "comm_create":
        return (COMM_CREATE, 0, nfields, 0, 0, 0, 0, 0, 0)
    return (FALLBACK,) + (0,) * 8


class _Hooks:
    """What the C++ converter asks of Python while it converts one rank."""

    def __init__(self, trace: Any, rank: int, options: ConvertOptions) -> None:
        self.trace = trace
        self.comms = trace.comms.for_rank(rank)
        self.mpich = trace.comms.mpich
        self.staging = Matching()  # the rank's collectives, merged once the rank is done
        # (and what it might say, too: nothing reaches the run's record before the rank is complete)
        self.scratch = Conversion(trace.num_ranks, str(trace.path), trace.format, "", options.compute_scale)
        self.rc = RankConverter(trace, rank, options, self.staging, self.scratch)
        self.dtype: dict[str, int] = {}

    def comm_id(self, text: str, name: str) -> int:
        try:
            return self.comms.id_of(text, name)
        except (CommError, ValueError, IndexError):
            return -1

    def plan(self, name: str) -> tuple[int, ...]:
        return plan(name)

    def comm_at(self, index: int) -> None:
        self.comms.at(index)

    def comm_desc(self, cid: int) -> tuple[int, bytes, int] | None:
        info = self.rc.communicator(cid)
        if info is None:
            return None
        members = array("I", info.members).tobytes() if info.members is not None else b""
        return info.size, members, self.rc.tag_base_of(info)

    def _call(self, line: str, kind: str, index: int, t0: int, t1: int) -> Any:
        fields = line.split(":")
        try:
            return self.trace.decode_call(fields[0], kind, index, t0, t1, fields, set(), self.comms, self.dtype, self.mpich)
        except (CloudnoiseError, ValueError, IndexError):
            return None

    def comm_create(self, line: str, index: int, t0: int, t1: int) -> bool:
        c = self._call(line, "comm_create", index, t0, t1)
        if c is None:
            return False
        self.rc.created(c)
        return True

    def collective(self, line: str, index: int, t0: int, t1: int, cur: int, base: int) -> tuple | None:
        c = self._call(line, "coll", index, t0, t1)
        if c is None or c.request or not (0 <= c.bytes <= MAX_SIZE_BYTES and 0 <= c.recv_bytes <= MAX_SIZE_BYTES) or (
                c.vec is not None and not all(0 <= v <= MAX_SIZE_BYTES for v in c.vec)):
            return None
        try:
            exit_op, ops = self.rc.collective_alone(c, cur if cur >= 0 else None, base)
        except CloudnoiseError:
            return None
        return (-1 if exit_op is None else exit_op, *ops.column_bytes())


def convert_rank(trace: Any, rank: int, options: ConvertOptions, matching: Matching, result: Conversion,
                 sink: Any) -> bool:
    """Converts `rank` into `sink` in C++ and adds its counts to `result` and
    `matching`; False (nothing added) where the Python converter must do it."""
    if not hasattr(sink, "add_rank_ops"):
        return False
    hooks = _Hooks(trace, rank, options)
    offset = trace.offset_us[rank]
    ops = _engine.RankOps()
    try:
        done, _why, calls, finalize_ns, compute_ns, mpi_ns, by_name, unsupported, channels, wildcards, first_wildcard = (
            _engine.convert_liballprof_rank(
                ops, str(trace.files[rank]), rank, offset, options.compute_scale, hooks.mpich,
                options.allow_unsupported, MAX_SIZE_BYTES, [index for index, _, _ in hooks.comms.binds], hooks))
        if not done:
            return False
        sink.add_rank_ops(rank, ops)
    except ValueError as err:
        raise CloudnoiseError(f"{trace.path}: rank {rank}: {err}") from None
    except _engine.SpillError as err:  # the op store's temporary file: a full or unwritable /tmp
        raise CloudnoiseError(f"{trace.path}: rank {rank}: {err}; free space in /tmp (where a long rank's ops "
                              "wait) and run again") from None
    result.calls += calls
    result.native_ranks += 1
    for name, n in by_name:
        result.calls_by_name[name] += n
    for name, n in unsupported:
        result.unsupported[name] += n
    result.ops += ops.ops
    result.finalize_ns.append(finalize_ns)
    result.compute_ns.append(compute_ns)
    result.mpi_ns.append(mpi_ns)
    matching.merge_channels(rank, channels)
    matching.merge_wildcards(rank, wildcards)
    matching.merge_collectives(hooks.staging)
    result.warnings.extend(hooks.scratch.warnings)
    if first_wildcard >= 0:
        result.warnings.append(any_source_warning(rank, first_wildcard))
    return True
