"""The native binary trace format (src/probes/cn_trace_format.h), seen
from Python: header and record layouts, and the table of recorded calls.

The table mirrors the header's CN_TRACE_CALLS list (number -> MPI name and
payload layout); tests/trace/test_native_format.py parses the header and
checks that the two agree, so the recorder and the reader cannot drift.
"""

from __future__ import annotations

import struct

MAGIC = b"CNTRACE1"
VERSION = 1
HEADER = struct.Struct("<8sIIII qq 24s")  # magic, version, rank, world_size, flags, init entry/exit, host
PREFIX = struct.Struct("<HHIqq")  # call, flags, length (after the first 8 bytes), t_entry, t_exit
COMM_NULL = 0xFFFFFFFF
END_CALL = 201
NAMES_CALL = 200
POLL_CALL = 202
# the calls a POLL record may stand for (unsuccessful polls)
POLLED = frozenset(("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Iprobe"))

# Fixed part of each layout's payload (what follows is counted by it).
LAYOUTS = {
    "plain": struct.Struct("<"),
    "p2p": struct.Struct("<iiIIQQ"),            # peer, tag, comm, flags, bytes, request
    "recv": struct.Struct("<iiIIQQiiQ"),        # + status source, tag, bytes
    "sendrecv": struct.Struct("<iiQiiQIIiiQ"),  # dest, stag, sbytes, source, rtag, rbytes, comm, flags, status
    "complete": struct.Struct("<II"),           # count, done; then done x ENTRY
    "start": struct.Struct("<II"),              # count, 0; then count x uint64
    "coll": struct.Struct("<IiQQQII"),          # comm, root, sbytes, rbytes, request, nvec, 0; then nvec x uint64
    "comm": struct.Struct("<IIIIIIII"),         # parent, comm, root_world, root_seq, size, rank, ndims, flags
    "commfree": struct.Struct("<II"),
    "shift": struct.Struct("<IiiiiI"),          # comm, direction, disp, source, dest, 0
    "names": struct.Struct("<II"),              # count, length; then length bytes
    "end": struct.Struct("<Q"),
    "poll": struct.Struct("<IIQqiiII"),         # polled call, nreq, calls, ns inside, peer, tag, comm, 0; then nreq x uint64
}
ENTRY = struct.Struct("<QiiQ")  # completed request, status source, tag, bytes

# number -> (MPI function, layout), exactly as CN_TRACE_CALLS.
CALLS: dict[int, tuple[str, str]] = {
    1: ("MPI_Init", "plain"),
    2: ("MPI_Init_thread", "plain"),
    3: ("MPI_Finalize", "plain"),
    4: ("MPI_Send", "p2p"),
    5: ("MPI_Bsend", "p2p"),
    6: ("MPI_Ssend", "p2p"),
    7: ("MPI_Rsend", "p2p"),
    8: ("MPI_Recv", "recv"),
    9: ("MPI_Isend", "p2p"),
    10: ("MPI_Ibsend", "p2p"),
    11: ("MPI_Issend", "p2p"),
    12: ("MPI_Irsend", "p2p"),
    13: ("MPI_Irecv", "p2p"),
    14: ("MPI_Sendrecv", "sendrecv"),
    15: ("MPI_Sendrecv_replace", "sendrecv"),
    16: ("MPI_Send_init", "p2p"),
    17: ("MPI_Bsend_init", "p2p"),
    18: ("MPI_Ssend_init", "p2p"),
    19: ("MPI_Rsend_init", "p2p"),
    20: ("MPI_Recv_init", "p2p"),
    21: ("MPI_Start", "start"),
    22: ("MPI_Startall", "start"),
    23: ("MPI_Request_free", "start"),
    24: ("MPI_Wait", "complete"),
    25: ("MPI_Waitall", "complete"),
    26: ("MPI_Waitany", "complete"),
    27: ("MPI_Waitsome", "complete"),
    28: ("MPI_Test", "complete"),
    29: ("MPI_Testall", "complete"),
    30: ("MPI_Testany", "complete"),
    31: ("MPI_Testsome", "complete"),
    32: ("MPI_Probe", "recv"),
    33: ("MPI_Iprobe", "recv"),
    34: ("MPI_Cancel", "start"),
    35: ("MPI_Test_cancelled", "plain"),
    40: ("MPI_Barrier", "coll"),
    41: ("MPI_Bcast", "coll"),
    42: ("MPI_Reduce", "coll"),
    43: ("MPI_Allreduce", "coll"),
    44: ("MPI_Gather", "coll"),
    45: ("MPI_Gatherv", "coll"),
    46: ("MPI_Scatter", "coll"),
    47: ("MPI_Scatterv", "coll"),
    48: ("MPI_Allgather", "coll"),
    49: ("MPI_Allgatherv", "coll"),
    50: ("MPI_Alltoall", "coll"),
    51: ("MPI_Alltoallv", "coll"),
    52: ("MPI_Reduce_scatter", "coll"),
    53: ("MPI_Reduce_scatter_block", "coll"),
    54: ("MPI_Scan", "coll"),
    55: ("MPI_Exscan", "coll"),
    60: ("MPI_Ibarrier", "coll"),
    61: ("MPI_Ibcast", "coll"),
    62: ("MPI_Ireduce", "coll"),
    63: ("MPI_Iallreduce", "coll"),
    64: ("MPI_Igather", "coll"),
    65: ("MPI_Igatherv", "coll"),
    66: ("MPI_Iscatter", "coll"),
    67: ("MPI_Iscatterv", "coll"),
    68: ("MPI_Iallgather", "coll"),
    69: ("MPI_Iallgatherv", "coll"),
    70: ("MPI_Ialltoall", "coll"),
    71: ("MPI_Ialltoallv", "coll"),
    72: ("MPI_Ireduce_scatter", "coll"),
    73: ("MPI_Ireduce_scatter_block", "coll"),
    74: ("MPI_Iscan", "coll"),
    75: ("MPI_Iexscan", "coll"),
    80: ("MPI_Comm_dup", "comm"),
    81: ("MPI_Comm_split", "comm"),
    82: ("MPI_Comm_split_type", "comm"),
    83: ("MPI_Comm_create", "comm"),
    84: ("MPI_Comm_create_group", "comm"),
    85: ("MPI_Cart_create", "comm"),
    86: ("MPI_Cart_sub", "comm"),
    87: ("MPI_Comm_free", "commfree"),
    88: ("MPI_Cart_shift", "shift"),
    89: ("MPI_Comm_dup_with_info", "comm"),
    100: ("MPI_Alltoallw", "plain"),
    101: ("MPI_Neighbor_allgather", "plain"),
    102: ("MPI_Neighbor_allgatherv", "plain"),
    103: ("MPI_Neighbor_alltoall", "plain"),
    104: ("MPI_Neighbor_alltoallv", "plain"),
    105: ("MPI_Mprobe", "plain"),
    106: ("MPI_Improbe", "plain"),
    107: ("MPI_Mrecv", "plain"),
    108: ("MPI_Imrecv", "plain"),
    109: ("MPI_Comm_idup", "plain"),
    110: ("MPI_Intercomm_create", "plain"),
    111: ("MPI_Intercomm_merge", "plain"),
    112: ("MPI_Graph_create", "plain"),
    113: ("MPI_Dist_graph_create_adjacent", "plain"),
    114: ("MPI_Win_create", "plain"),
    115: ("MPI_Win_allocate", "plain"),
    116: ("MPI_Win_fence", "plain"),
    117: ("MPI_Put", "plain"),
    118: ("MPI_Get", "plain"),
    119: ("MPI_Accumulate", "plain"),
    120: ("MPI_Win_lock", "plain"),
    121: ("MPI_Win_unlock", "plain"),
    122: ("MPI_Win_free", "plain"),
    123: ("MPI_File_open", "plain"),
    124: ("MPI_File_close", "plain"),
    125: ("MPI_File_write_all", "plain"),
    126: ("MPI_File_read_all", "plain"),
    127: ("MPI_File_write_at_all", "plain"),
    128: ("MPI_File_read_at_all", "plain"),
    129: ("MPI_Abort", "plain"),
    200: ("CN_NAMES", "names"),
    201: ("CN_END", "end"),
    202: ("CN_POLL", "poll"),
}

# Layout of a call -> what it means to the converter (events.KINDS).
KIND_OF_NAME = {
    "MPI_Init": "init", "MPI_Init_thread": "init", "MPI_Finalize": "finalize",
    "MPI_Send": "send", "MPI_Bsend": "send", "MPI_Ssend": "send", "MPI_Rsend": "send",
    "MPI_Recv": "recv",
    "MPI_Isend": "isend", "MPI_Ibsend": "isend", "MPI_Issend": "isend", "MPI_Irsend": "isend",
    "MPI_Irecv": "irecv",
    "MPI_Send_init": "send_init", "MPI_Bsend_init": "send_init", "MPI_Ssend_init": "send_init",
    "MPI_Rsend_init": "send_init", "MPI_Recv_init": "recv_init",
    "MPI_Start": "start", "MPI_Startall": "start", "MPI_Request_free": "request_free",
    "MPI_Sendrecv": "sendrecv", "MPI_Sendrecv_replace": "sendrecv",
    "MPI_Probe": "local", "MPI_Iprobe": "local",
    "MPI_Cancel": "cancel", "MPI_Test_cancelled": "local",
    "MPI_Comm_free": "comm_free", "MPI_Cart_shift": "cart_shift",
}


def kind_of(name: str, layout: str) -> str:
    """The converter's kind of a recorded call."""
    if name in KIND_OF_NAME:
        return KIND_OF_NAME[name]
    return {"complete": "complete", "coll": "coll", "comm": "comm_create"}.get(layout, "unsupported")
