/* cn_trace_format.h: the binary record format of cloudnoise's MPI traces.
 *
 * One file per rank, DIR/rank-NNNNNN.cntr, all integers little-endian
 * (the byte order of the machines MPI runs on; the reader checks the magic):
 *
 *   header (64 bytes)
 *     char     magic[8]        "CNTRACE1"
 *     uint32   version         CN_TRACE_VERSION
 *     uint32   rank            rank in MPI_COMM_WORLD
 *     uint32   world_size
 *     uint32   flags           0
 *     int64    init_entry_ns   CLOCK_MONOTONIC_RAW when MPI_Init was entered
 *     int64    init_exit_ns    ... when it returned (after a barrier the
 *                              recorder adds, so every rank's time 0 is the
 *                              same moment to within the barrier's skew)
 *     char     host[24]        hostname, NUL padded
 *
 *   records, each:
 *     uint16   call            a CN_CALL_* number (the table below)
 *     uint16   flags           0
 *     uint32   length          bytes after these first 8 (16 + payload)
 *     int64    t_entry_ns      relative to init_exit_ns
 *     int64    t_exit_ns       relative to init_exit_ns
 *     ...      payload         by the call's layout (CN_LAYOUT_*), below
 *
 *   the last record is CN_CALL_END (its payload: uint64 records written
 *   before it); a file without it was cut short (a crash, a full disk).
 *
 * Payloads (sizes in bytes; "bytes" are counts times the datatype's size):
 *   PLAIN      nothing
 *   P2P        int32 peer, int32 tag, uint32 comm, uint32 flags,
 *              uint64 bytes, uint64 request                          (32)
 *              peer: rank in comm, -1 MPI_ANY_SOURCE, -2 MPI_PROC_NULL;
 *              tag: -1 MPI_ANY_TAG; request: the MPI_Request handle's
 *              value (0 for blocking calls)
 *   RECV       P2P, then the status: int32 source, int32 tag,
 *              uint64 bytes received                                  (48)
 *   SENDRECV   int32 dest, int32 sendtag, uint64 sendbytes,
 *              int32 source, int32 recvtag, uint64 recvbytes,
 *              uint32 comm, uint32 flags, int32 status source,
 *              int32 status tag, uint64 status bytes                  (56)
 *   COMPLETE   uint32 count (requests passed), uint32 done (entries
 *              following), then per completed request: uint64 request,
 *              int32 source, int32 tag, uint64 bytes (status; meaningful
 *              for receives; source -3: the request was cancelled, as
 *              MPI_Test_cancelled says, and tag -1, bytes 0)     (8 + 24 n)
 *   START      uint32 count, uint32 0, then count x uint64 request     (8 + 8 n)
 *              (MPI_Start(all), MPI_Request_free, MPI_Cancel)
 *   COLL       uint32 comm, int32 root (-1 none), uint64 sendbytes,
 *              uint64 recvbytes, uint64 request (0: blocking),
 *              uint32 nvec, uint32 0, then nvec x uint64 bytes   (40 + 8 n)
 *              nvec: 0, or the comm size (per-rank byte counts of the
 *              v-variants: recvcounts of Gatherv/Allgatherv/
 *              Reduce_scatter, sendcounts of Scatterv), or twice it for
 *              Alltoallv (sendcounts, then recvcounts)
 *   COMM       uint32 parent, uint32 comm (new id; 0xFFFFFFFF:
 *              MPI_COMM_NULL), uint32 root_world (world rank of the new
 *              comm's rank 0), uint32 root_seq (that rank's creation
 *              counter: (root_world, root_seq) names the communicator on
 *              every member), uint32 size, uint32 rank, uint32 ndims,
 *              uint32 flags (bit 0: members are MPI_COMM_WORLD's ranks in
 *              order and are not listed; bit 1: periods follow dims),
 *              then size x int32 world ranks (unless bit 0),
 *              ndims x int32 dims, ndims x int32 periods       (32 + ...)
 *   COMMFREE   uint32 comm, uint32 0                                   (8)
 *   SHIFT      uint32 comm, int32 direction, int32 disp,
 *              int32 source, int32 dest, uint32 0                     (24)
 *   NAMES      uint32 count, uint32 length, then `length` bytes: count
 *              NUL-terminated names (the MPI functions the application
 *              imports that the recorder does not wrap)        (8 + length)
 *   POLL       uint32 call (the polled call's number: MPI_Test,
 *              MPI_Testall, MPI_Testany, MPI_Testsome or MPI_Iprobe),
 *              uint32 nreq (requests passed), uint64 calls (how many
 *              unsuccessful calls this record stands for), int64 time
 *              inside them (ns, summed), int32 peer, int32 tag, uint32
 *              comm (MPI_Iprobe's arguments; 0 for tests), uint32 0, then
 *              nreq x uint64 request                            (40 + 8 n)
 *              A run of unsuccessful polls (a test that completed nothing,
 *              an Iprobe that found nothing) on the same requests or the
 *              same source, tag and communicator, with no other recorded
 *              call between them: t_entry is the first call's entry,
 *              t_exit the last call's exit. Up to CN_POLL_SETS such runs
 *              interleave (a loop testing a receive and a send); each is
 *              written, in the order it began, before the next other
 *              record. Polls move no data: converted, they are compute.
 *   END        uint64 records before this one                          (8)
 *
 * Communicator ids are per rank: 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, then
 * 2, 3, ... in creation order on that rank.
 *
 * The Python reader (cloudnoise/trace/native_format.py) mirrors this table;
 * tests/trace/test_native_format.py checks that the two agree.
 */
#ifndef CN_TRACE_FORMAT_H
#define CN_TRACE_FORMAT_H

#include <stdint.h>

#define CN_TRACE_MAGIC "CNTRACE1"
#define CN_TRACE_VERSION 1
#define CN_TRACE_HEADER_BYTES 64
#define CN_TRACE_PREFIX_BYTES 24 /* call, flags, length, t_entry, t_exit */

#define CN_PEER_ANY (-1)
#define CN_PEER_NULL (-2)
#define CN_PEER_CANCELLED (-3) /* a completion's source: the request was cancelled */
#define CN_TAG_ANY (-1)
#define CN_COMM_NULL 0xFFFFFFFFu
#define CN_POLL_SETS 8   /* polling runs the recorder folds at once */
#define CN_POLL_REQS 64  /* the most requests of one folded test call */

enum cn_layout {
    CN_LAYOUT_PLAIN = 0,
    CN_LAYOUT_P2P = 1,
    CN_LAYOUT_RECV = 2,
    CN_LAYOUT_SENDRECV = 3,
    CN_LAYOUT_COMPLETE = 4,
    CN_LAYOUT_START = 5,
    CN_LAYOUT_COLL = 6,
    CN_LAYOUT_COMM = 7,
    CN_LAYOUT_COMMFREE = 8,
    CN_LAYOUT_SHIFT = 9,
    CN_LAYOUT_NAMES = 10,
    CN_LAYOUT_END = 11,
    CN_LAYOUT_POLL = 20
};

/* X(number, NAME, layout): every call the recorder writes. Numbers are
 * part of the format: never renumber, only append. Calls with the PLAIN
 * layout past MPI_Finalize are wrapped only to be named in the trace: the
 * converter refuses them unless told to count their time as compute. */
#define CN_TRACE_CALLS(X)                            \
    X(1, MPI_Init, CN_LAYOUT_PLAIN)                  \
    X(2, MPI_Init_thread, CN_LAYOUT_PLAIN)           \
    X(3, MPI_Finalize, CN_LAYOUT_PLAIN)              \
    X(4, MPI_Send, CN_LAYOUT_P2P)                    \
    X(5, MPI_Bsend, CN_LAYOUT_P2P)                   \
    X(6, MPI_Ssend, CN_LAYOUT_P2P)                   \
    X(7, MPI_Rsend, CN_LAYOUT_P2P)                   \
    X(8, MPI_Recv, CN_LAYOUT_RECV)                   \
    X(9, MPI_Isend, CN_LAYOUT_P2P)                   \
    X(10, MPI_Ibsend, CN_LAYOUT_P2P)                 \
    X(11, MPI_Issend, CN_LAYOUT_P2P)                 \
    X(12, MPI_Irsend, CN_LAYOUT_P2P)                 \
    X(13, MPI_Irecv, CN_LAYOUT_P2P)                  \
    X(14, MPI_Sendrecv, CN_LAYOUT_SENDRECV)          \
    X(15, MPI_Sendrecv_replace, CN_LAYOUT_SENDRECV)  \
    X(16, MPI_Send_init, CN_LAYOUT_P2P)              \
    X(17, MPI_Bsend_init, CN_LAYOUT_P2P)             \
    X(18, MPI_Ssend_init, CN_LAYOUT_P2P)             \
    X(19, MPI_Rsend_init, CN_LAYOUT_P2P)             \
    X(20, MPI_Recv_init, CN_LAYOUT_P2P)              \
    X(21, MPI_Start, CN_LAYOUT_START)                \
    X(22, MPI_Startall, CN_LAYOUT_START)             \
    X(23, MPI_Request_free, CN_LAYOUT_START)         \
    X(24, MPI_Wait, CN_LAYOUT_COMPLETE)              \
    X(25, MPI_Waitall, CN_LAYOUT_COMPLETE)           \
    X(26, MPI_Waitany, CN_LAYOUT_COMPLETE)           \
    X(27, MPI_Waitsome, CN_LAYOUT_COMPLETE)          \
    X(28, MPI_Test, CN_LAYOUT_COMPLETE)              \
    X(29, MPI_Testall, CN_LAYOUT_COMPLETE)           \
    X(30, MPI_Testany, CN_LAYOUT_COMPLETE)           \
    X(31, MPI_Testsome, CN_LAYOUT_COMPLETE)          \
    X(32, MPI_Probe, CN_LAYOUT_RECV)                 \
    X(33, MPI_Iprobe, CN_LAYOUT_RECV)                \
    X(34, MPI_Cancel, CN_LAYOUT_START)               \
    X(35, MPI_Test_cancelled, CN_LAYOUT_PLAIN)       \
    X(40, MPI_Barrier, CN_LAYOUT_COLL)               \
    X(41, MPI_Bcast, CN_LAYOUT_COLL)                 \
    X(42, MPI_Reduce, CN_LAYOUT_COLL)                \
    X(43, MPI_Allreduce, CN_LAYOUT_COLL)             \
    X(44, MPI_Gather, CN_LAYOUT_COLL)                \
    X(45, MPI_Gatherv, CN_LAYOUT_COLL)               \
    X(46, MPI_Scatter, CN_LAYOUT_COLL)               \
    X(47, MPI_Scatterv, CN_LAYOUT_COLL)              \
    X(48, MPI_Allgather, CN_LAYOUT_COLL)             \
    X(49, MPI_Allgatherv, CN_LAYOUT_COLL)            \
    X(50, MPI_Alltoall, CN_LAYOUT_COLL)              \
    X(51, MPI_Alltoallv, CN_LAYOUT_COLL)             \
    X(52, MPI_Reduce_scatter, CN_LAYOUT_COLL)        \
    X(53, MPI_Reduce_scatter_block, CN_LAYOUT_COLL)  \
    X(54, MPI_Scan, CN_LAYOUT_COLL)                  \
    X(55, MPI_Exscan, CN_LAYOUT_COLL)                \
    X(60, MPI_Ibarrier, CN_LAYOUT_COLL)              \
    X(61, MPI_Ibcast, CN_LAYOUT_COLL)                \
    X(62, MPI_Ireduce, CN_LAYOUT_COLL)               \
    X(63, MPI_Iallreduce, CN_LAYOUT_COLL)            \
    X(64, MPI_Igather, CN_LAYOUT_COLL)               \
    X(65, MPI_Igatherv, CN_LAYOUT_COLL)              \
    X(66, MPI_Iscatter, CN_LAYOUT_COLL)              \
    X(67, MPI_Iscatterv, CN_LAYOUT_COLL)             \
    X(68, MPI_Iallgather, CN_LAYOUT_COLL)            \
    X(69, MPI_Iallgatherv, CN_LAYOUT_COLL)           \
    X(70, MPI_Ialltoall, CN_LAYOUT_COLL)             \
    X(71, MPI_Ialltoallv, CN_LAYOUT_COLL)            \
    X(72, MPI_Ireduce_scatter, CN_LAYOUT_COLL)       \
    X(73, MPI_Ireduce_scatter_block, CN_LAYOUT_COLL) \
    X(74, MPI_Iscan, CN_LAYOUT_COLL)                 \
    X(75, MPI_Iexscan, CN_LAYOUT_COLL)               \
    X(80, MPI_Comm_dup, CN_LAYOUT_COMM)              \
    X(81, MPI_Comm_split, CN_LAYOUT_COMM)            \
    X(82, MPI_Comm_split_type, CN_LAYOUT_COMM)       \
    X(83, MPI_Comm_create, CN_LAYOUT_COMM)           \
    X(84, MPI_Comm_create_group, CN_LAYOUT_COMM)     \
    X(85, MPI_Cart_create, CN_LAYOUT_COMM)           \
    X(86, MPI_Cart_sub, CN_LAYOUT_COMM)              \
    X(87, MPI_Comm_free, CN_LAYOUT_COMMFREE)         \
    X(88, MPI_Cart_shift, CN_LAYOUT_SHIFT)           \
    X(89, MPI_Comm_dup_with_info, CN_LAYOUT_COMM)    \
    X(100, MPI_Alltoallw, CN_LAYOUT_PLAIN)           \
    X(101, MPI_Neighbor_allgather, CN_LAYOUT_PLAIN)  \
    X(102, MPI_Neighbor_allgatherv, CN_LAYOUT_PLAIN) \
    X(103, MPI_Neighbor_alltoall, CN_LAYOUT_PLAIN)   \
    X(104, MPI_Neighbor_alltoallv, CN_LAYOUT_PLAIN)  \
    X(105, MPI_Mprobe, CN_LAYOUT_PLAIN)              \
    X(106, MPI_Improbe, CN_LAYOUT_PLAIN)             \
    X(107, MPI_Mrecv, CN_LAYOUT_PLAIN)               \
    X(108, MPI_Imrecv, CN_LAYOUT_PLAIN)              \
    X(109, MPI_Comm_idup, CN_LAYOUT_PLAIN)           \
    X(110, MPI_Intercomm_create, CN_LAYOUT_PLAIN)    \
    X(111, MPI_Intercomm_merge, CN_LAYOUT_PLAIN)     \
    X(112, MPI_Graph_create, CN_LAYOUT_PLAIN)        \
    X(113, MPI_Dist_graph_create_adjacent, CN_LAYOUT_PLAIN) \
    X(114, MPI_Win_create, CN_LAYOUT_PLAIN)          \
    X(115, MPI_Win_allocate, CN_LAYOUT_PLAIN)        \
    X(116, MPI_Win_fence, CN_LAYOUT_PLAIN)           \
    X(117, MPI_Put, CN_LAYOUT_PLAIN)                 \
    X(118, MPI_Get, CN_LAYOUT_PLAIN)                 \
    X(119, MPI_Accumulate, CN_LAYOUT_PLAIN)          \
    X(120, MPI_Win_lock, CN_LAYOUT_PLAIN)            \
    X(121, MPI_Win_unlock, CN_LAYOUT_PLAIN)          \
    X(122, MPI_Win_free, CN_LAYOUT_PLAIN)            \
    X(123, MPI_File_open, CN_LAYOUT_PLAIN)           \
    X(124, MPI_File_close, CN_LAYOUT_PLAIN)          \
    X(125, MPI_File_write_all, CN_LAYOUT_PLAIN)      \
    X(126, MPI_File_read_all, CN_LAYOUT_PLAIN)       \
    X(127, MPI_File_write_at_all, CN_LAYOUT_PLAIN)   \
    X(128, MPI_File_read_at_all, CN_LAYOUT_PLAIN)    \
    X(129, MPI_Abort, CN_LAYOUT_PLAIN)               \
    X(200, CN_NAMES, CN_LAYOUT_NAMES)                \
    X(201, CN_END, CN_LAYOUT_END)                    \
    X(202, CN_POLL, CN_LAYOUT_POLL)

enum cn_call {
#define CN_ENUM(num, name, layout) CN_CALL_##name = num,
    CN_TRACE_CALLS(CN_ENUM)
#undef CN_ENUM
    CN_CALL_MAX_
};

#endif
