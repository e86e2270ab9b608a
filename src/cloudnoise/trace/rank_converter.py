"""One rank of a trace becomes GOAL ops: the Python converter, the reference.

Per rank, in program order (the rank's `cur` op is where its program is):

- the time between two MPI calls becomes a `calc` (times `compute_scale`,
  the traced machine's compute time over the target's), which waits for
  `cur` and becomes `cur`; calls that do not communicate (probes, queries,
  communicator set-up, calls recorded by name only when allowed) count as
  compute: their time stays in the next `calc`;
- a blocking send/receive is a send/recv op after `cur`, and becomes `cur`;
  a receive takes the source, tag and size that actually arrived (so
  MPI_ANY_SOURCE receives replay the recorded match);
- a non-blocking send is a send op after `cur` that `cur` does not wait
  for; a non-blocking receive is emitted when it completes (with what
  arrived), after the op that was `cur` when it was posted; a Wait/Test
  that completes requests is a `calc 0` joining `cur` and their ops;
  persistent requests do the same at each MPI_Start;
- a cancelled request (MPI_Cancel, then a completion that says it was
  cancelled) is no message: a receive matches nothing, a send's op becomes
  a `calc 0` and its message is taken back from the matching; a cancel that
  came too late (the completion names what arrived) leaves the request as
  it was. Where the format cannot say (liballprof), or the request is
  freed or never completed, a cancelled request is taken as cancelled. A
  receive that completes with MPI's empty status in a format that records
  statuses received nothing (a cancelled receive);
- a polling run (unsuccessful tests and probes folded into one record by
  the recorder) is compute, exactly as the calls it stands for;
- a collective is expanded by the algorithm `collectives` picks, on the
  communicator's ranks mapped to world ranks; its first ops wait for `cur`,
  and a join of its last ops becomes `cur` (non-blocking: at its Wait).

Message tags keep communicators apart: a point-to-point tag is the user's
tag (low 24 bits) with the communicator's code above it; collective
instance k on a communicator gets its own tag, so messages of different
calls can never match. Every tag stays below 2^31 (LogGOPSim reads it).

Matching is checked across ranks while converting: a send without its
receive, or ranks that disagree on a communicator's collectives, is a
one-line error naming the rank and call index, not a deadlock later.
Memory: one rank's ops at a time (the output is streamed to the GOAL
writer or the schedule builder), plus a counter per (sender, receiver,
tag) and per communicator.
"""

from __future__ import annotations

from collections import Counter

from cloudnoise.errors import CloudnoiseError
from cloudnoise.limits import MAX_SIZE_BYTES
from cloudnoise.trace.collectives import CALC, RECV, SEND, collective_of, rank_ops
from cloudnoise.trace.conversion import Conversion, ConvertOptions
from cloudnoise.trace.events import ANY, CANCELLED, EMPTY_STATUS, PROC_NULL, Call, CommInfo
from cloudnoise.trace.goal_tags import ANY_PEER, COLL_FLAG, TAG_BITS, TAG_MASK, comm_code
from cloudnoise.trace.matching import Matching
from cloudnoise.trace.op_columns import OpColumns
from cloudnoise.trace.reader import TraceReader

FAST_KINDS = frozenset(("send", "recv", "isend", "irecv", "complete"))  # the inlined paths of RankConverter.run


def any_source_warning(rank: int, index: int) -> str:
    """The warning of a rank whose first MPI_ANY_SOURCE receive of unknown sender is call `index`."""
    return (f"rank {rank}: receives from MPI_ANY_SOURCE whose sender the trace does not name (first at call "
            f"{index}) are simulated as any-source receives")


class RankConverter:
    """Converts one rank's call stream (see the module docstring)."""

    def __init__(self, trace: TraceReader, rank: int, options: ConvertOptions, matching: Matching,
                 result: Conversion) -> None:
        self.trace, self.rank, self.opt, self.match, self.result = trace, rank, options, matching, result
        self.ops = OpColumns()
        self.cur: int | None = None
        self.last_exit = 0
        self.compute_ns = 0
        self.mpi_ns = 0
        self.finalize_ns: int | None = None
        world = CommInfo(0, ("world",), trace.num_ranks, rank)
        self.comms: dict[int, CommInfo] = {0: world, 1: CommInfo(1, ("self", rank), 1, 0, (rank,))}
        self.coll_seq: Counter = Counter()
        # request handle -> its pending instances, oldest first (MPICH hands
        # out one built-in handle for every request to MPI_PROC_NULL):
        # ("op", send op or None), ("coll", exit op or None), ("recv", op before it, the posted Call)
        self.pending: dict[int, list[tuple]] = {}
        self.cancelling: set[int] = set()  # requests MPI_Cancel named, until they complete
        # whether completions say what arrived (an empty status then means nothing did)
        self.records_status = bool(getattr(trace, "records_status", False))
        self.persistent: dict[int, Call] = {}
        self.call: Call | None = None
        self.folded_tags = False
        self.tag_base: dict[tuple, int] = {}  # communicator key -> its code in a message tag
        self.wildcards = 0

    # -- errors
    def fail(self, what: str, todo: str) -> CloudnoiseError:
        c = self.call
        where = f"rank {self.rank}, call {c.index} ({c.name})" if c else f"rank {self.rank}"
        return CloudnoiseError(f"{self.trace.path}: {where}: {what}; {todo}")

    # -- helpers
    def comm(self, cid: int) -> CommInfo:
        info = self.comms.get(cid)
        if info is None:
            raise self.fail(
                f"communicator {cid} was never created in the trace",
                "it came from a call the recorder does not wrap (MPI_Comm_idup, intercommunicators, ...); "
                "such programs cannot be converted",
            )
        return info

    def world_peer(self, info: CommInfo, peer: int) -> int:
        if peer < 0 or peer >= info.size:
            raise self.fail(f"peer rank {peer} is outside its communicator of {info.size} ranks", "the trace is damaged: record the run again")
        return info.world_rank(peer)

    def p2p_tag(self, info: CommInfo, tag: int) -> int:
        if tag < 0:
            raise self.fail(f"message tag {tag}", "the trace is damaged: record the run again")
        if tag >= 1 << TAG_BITS and not self.folded_tags:
            self.folded_tags = True
            self.result.warnings.append(
                f"rank {self.rank}: message tags above {1 << TAG_BITS} are folded to their low 24 bits; "
                "messages whose tags differ only above that could match each other in the simulation"
            )
        return self.tag_base_of(info) | (tag & TAG_MASK)

    def tag_base_of(self, info: CommInfo) -> int:
        """The communicator's code in a message tag (code << 24), cached per communicator."""
        base = self.tag_base.get(info.key)
        if base is None:
            base = self.tag_base[info.key] = comm_code(info.key) << TAG_BITS
        return base

    def compute_until(self, t_ns: int) -> None:
        gap = t_ns - self.last_exit
        if gap > 0:
            ns = round(gap * self.opt.compute_scale) or 1
            ops = self.ops
            ops.kinds.append(CALC)
            ops.amounts.append(ns * 1000)
            ops.peers.append(0)
            ops.tags.append(0)
            c = len(ops.kinds) - 1
            if self.cur is not None:
                ops.efrom.append(c)
                ops.eto.append(self.cur)
                ops.estart.append(0)
            self.cur = c
            self.compute_ns += ns

    def join(self, ops: list[int]) -> None:
        """cur = a calc 0 waiting for cur and `ops` (nothing when `ops` is empty)."""
        if not ops:
            return
        j = self.ops.op(CALC, 0, 0, 0)
        self.ops.wait(j, self.cur)
        for o in ops:
            self.ops.wait(j, o)
        self.cur = j

    def send(self, info: CommInfo, peer: int, tag: int, nbytes: int, after: int | None) -> int | None:
        if peer == PROC_NULL:
            return None
        dst = self.world_peer(info, peer)
        goal_tag = self.p2p_tag(info, tag)
        s = self.ops.op(SEND, nbytes, dst, goal_tag)
        self.ops.wait(s, after)
        self.match.message(self.rank, dst, goal_tag, +1, self.rank, self.call.index, self.call.name)
        return s

    def recv(self, info: CommInfo, status: tuple[int, int, int], posted: tuple[int, int, int], after: int | None) -> int | None:
        """A receive of what arrived (status), falling back to what was posted."""
        src, tag, nbytes = status
        psrc, ptag, pbytes = posted
        if psrc == PROC_NULL or src == PROC_NULL:
            return None
        if src < 0:
            src = psrc
        if tag < 0:
            tag = ptag
        if tag < 0:
            raise self.fail("a receive with a wildcard tag whose message the trace does not name",
                            "its match is unknown: the trace cannot be converted")
        if nbytes <= 0 and pbytes > 0 and status == (ANY, ANY, 0):
            nbytes = pbytes
        if src < 0:
            # MPI_ANY_SOURCE, and the trace does not say whose message came (liballprof):
            # an any-source receive, as posted, matched by the simulation
            goal_tag = self.p2p_tag(info, tag)
            r = self.ops.op(RECV, nbytes, ANY_PEER, goal_tag)
            self.ops.wait(r, after)
            self.match.wildcard(self.rank, goal_tag, self.rank, self.call.index)
            if not self.wildcards:
                self.result.warnings.append(any_source_warning(self.rank, self.call.index))
            self.wildcards += 1
            return r
        world_src = self.world_peer(info, src)
        goal_tag = self.p2p_tag(info, tag)
        r = self.ops.op(RECV, nbytes, world_src, goal_tag)
        self.ops.wait(r, after)
        self.match.message(world_src, self.rank, goal_tag, -1, self.rank, self.call.index, self.call.name)
        return r

    def recv_as_posted(self, comm: int, psrc: int, ptag: int, pbytes: int, after: int | None) -> int | None:
        """recv(comm, (ANY, ANY, 0), (psrc, ptag, pbytes), after): a receive whose
        status the trace does not record, inlined for the bulk of them (a named
        source in a communicator ordered as the world, a tag already coded)."""
        info = self.comms.get(comm)
        base = self.tag_base.get(info.key) if info is not None and 0 <= ptag < 1 << TAG_BITS else None
        if info is None or base is None or info.members is not None or not 0 <= psrc < info.size:
            return self.recv(self.comm(comm), (ANY, ANY, 0), (psrc, ptag, pbytes), after)
        ops = self.ops
        r = len(ops.kinds)
        goal_tag = base | ptag
        ops.kinds.append(RECV)
        ops.amounts.append(pbytes)
        ops.peers.append(psrc)
        ops.tags.append(goal_tag)
        if after is not None:
            ops.efrom.append(r)
            ops.eto.append(after)
            ops.estart.append(0)
        entry = self.match.channels.get((psrc, self.rank, goal_tag))
        if entry is None:
            entry = self.match.channels[(psrc, self.rank, goal_tag)] = [0, -1, -1, -1, -1]
        entry[0] -= 1
        entry[3], entry[4] = self.rank, self.call.index if self.call is not None else -1
        return r

    def collective(self, c: Call, after: int | None) -> int | None:
        """Emits a collective's ops on this rank; returns its exit handle."""
        return self._collective(c, after, self.ops)

    def _collective(self, c: Call, after: int | None, ops: OpColumns) -> int | None:
        info = self.comm(c.comm)
        coll = collective_of(c.name)
        self.match.collective(info.key, info.members, info.size, self.rank, c.index)
        seq = self.coll_seq[info.key]
        self.coll_seq[info.key] += 1
        tag = COLL_FLAG | (comm_code(info.key) << TAG_BITS) | (seq & TAG_MASK)
        size = max(c.bytes, c.recv_bytes)
        algo = self.opt.algorithms.pick(coll, size, info.size)
        if c.root >= info.size or (c.root < 0 and coll in ("bcast", "reduce", "gather", "scatter", "gatherv", "scatterv")):
            raise self.fail(f"root {c.root} is not a rank of the communicator", "the trace is damaged: record the run again")
        kinds, amounts, peers, edges = rank_ops(coll, algo, ranks=info.size, rank=info.rank, root=c.root,
                                                sbytes=c.bytes, rbytes=c.recv_bytes, vec=c.vec)
        if not kinds:
            return after
        base = ops.base + len(ops.kinds)
        has_in = [False] * len(kinds)
        has_out = [False] * len(kinds)
        for a, b, start in edges:
            has_in[a] = True
            if not start:
                has_out[b] = True
        for k, amount, peer in zip(kinds, amounts, peers):
            ops.op(k, amount, ANY_PEER if peer == ANY_PEER else info.world_rank(peer), tag)
        for a, b, start in edges:
            ops.wait(base + a, base + b, start)
        for i in range(len(kinds)):
            if not has_in[i]:
                ops.wait(base + i, after)
        exits = [base + i for i in range(len(kinds)) if not has_out[i]]
        if len(exits) == 1:
            return exits[0]
        j = ops.op(CALC, 0, 0, 0)
        for x in exits:
            ops.wait(j, x)
        return j

    # -- for a converter that does a rank's bulk elsewhere (liballprof_native) and
    # asks this one for what needs the run's other ranks
    def communicator(self, cid: int) -> CommInfo | None:
        """The communicator `cid` as this rank knows it so far (None: not created yet)."""
        return self.comms.get(cid)

    def created(self, c: Call) -> None:
        """A communicator constructor's call: its communicator is known from here on."""
        if c.comm_info is not None:
            self.comms[c.comm_info.id] = c.comm_info

    def collective_alone(self, c: Call, after: int | None, base: int) -> tuple[int | None, OpColumns]:
        """One collective's ops by themselves, numbered from `base`, after op `after`,
        and its exit op; counted in the matching as run() counts it."""
        ops = OpColumns(base)
        self.call = c
        return self._collective(c, after, ops), ops

    # -- requests
    def start_request(self, c: Call, req: int) -> None:
        """An Isend/Irecv (or a started persistent request) is now pending."""
        if c.kind in ("isend", "send_init"):
            s = self.send(self.comm(c.comm), c.peer, c.tag, c.bytes, self.cur)
            self.pending.setdefault(req, []).append(("op", s))
        else:
            self.comm(c.comm)
            self.pending.setdefault(req, []).append(("recv", self.cur, c))

    def complete(self, req: int, src: int, tag: int, nbytes: int) -> int | None:
        queue = self.pending.get(req)
        entry = queue.pop(0) if queue else None
        if queue is not None and not queue:
            del self.pending[req]
        asked = req in self.cancelling
        self.cancelling.discard(req)
        if entry is None:
            if req in self.persistent:
                return None  # an inactive persistent request completes at once
            raise self.fail(
                f"request {req:#x} completes but was never started in the trace",
                "it came from a call the recorder does not wrap; such programs cannot be converted",
            )
        if self.was_cancelled(entry, (src, tag, nbytes), asked):
            return self.withdraw(entry)
        if entry[0] != "recv":
            return entry[1]
        _, after, posted = entry
        return self.recv(self.comm(posted.comm), (src, tag, nbytes), (posted.peer, posted.tag, posted.bytes), after)

    def was_cancelled(self, entry: tuple, status: tuple[int, int, int], asked: bool) -> bool:
        """Whether a request completing with `status` was cancelled (`asked`: MPI_Cancel named it)."""
        if status[0] == CANCELLED:
            return True
        if entry[0] == "recv":
            # MPI's empty status on a receive: nothing arrived (liballprof's is "not recorded": cancelled if asked)
            return status == EMPTY_STATUS and (asked or self.records_status)
        return asked and not self.records_status  # a send whose outcome the format does not say

    def withdraw(self, entry: tuple) -> int | None:
        """A pending request that was cancelled: a receive matches nothing (no op);
        a send's op becomes a calc 0 and its message leaves the matching."""
        if entry[0] == "recv":
            return None
        if entry[0] == "coll":
            raise self.fail("a non-blocking collective completes as cancelled (MPI cannot cancel collectives)",
                            "the trace is damaged: record the run again")
        s = entry[1]
        if s is None:
            return None  # a send to MPI_PROC_NULL
        ops, i = self.ops, s - self.ops.base
        self.match.withdraw(self.rank, ops.peers[i], ops.tags[i])
        ops.kinds[i], ops.amounts[i], ops.peers[i], ops.tags[i] = CALC, 0, 0, 0
        return s

    def cancel(self, req: int) -> None:
        """MPI_Cancel of `req`: what it did is known when the request completes."""
        queue = self.pending.get(req)
        if not queue:
            raise self.fail(f"MPI_Cancel of request {req:#x}, which is not pending (no call in the trace started it, "
                            "or it completed already)", "the trace is damaged: record the run again")
        if queue[-1][0] == "coll":
            raise self.fail("MPI_Cancel of a non-blocking collective's request (MPI cannot cancel collectives)",
                            "the trace is damaged: record the run again")
        self.cancelling.add(req)

    def free_receive(self, posted: Call, after: int) -> bool:
        """A receive nobody waits for, as it was posted; False (left out) for a wildcard one."""
        if posted.peer >= 0 and posted.tag >= 0:
            self.recv(self.comm(posted.comm), (ANY, ANY, 0), (posted.peer, posted.tag, posted.bytes), after)
            return True
        return False

    # -- the loop
    def run(self) -> None:
        result = self.result
        n = 0
        # The bulk of a trace is Isend/Irecv/Wait*: they take the inlined fast
        # paths below (the same ops as compute_until/send/start_request/complete/
        # join); anything unusual (errors, warnings, wildcards) goes to those methods.
        rops = self.ops
        add_kind, add_amount, add_peer, add_tag = rops.kinds.append, rops.amounts.append, rops.peers.append, rops.tags.append
        add_from, add_to, add_start = rops.efrom.append, rops.eto.append, rops.estart.append
        kinds_arr = rops.kinds
        scale = self.opt.compute_scale
        comms_get = self.comms.get
        tag_base_get = self.tag_base.get
        channels = self.match.channels
        pending = self.pending
        cancelling = self.cancelling
        records_status = self.records_status
        rank = self.rank
        tag_limit = 1 << TAG_BITS
        by_name = result.calls_by_name
        max_bytes = MAX_SIZE_BYTES
        for c in self.trace.calls(self.rank):
            n += 1
            if self.finalize_ns is not None:
                continue  # nothing after MPI_Finalize counts; the stream is read to its end record
            self.call = c
            if not (0 <= c.bytes <= max_bytes and 0 <= c.recv_bytes <= max_bytes) or (
                    c.vec is not None and not all(0 <= v <= MAX_SIZE_BYTES for v in c.vec)):
                # (a damaged count: the generators and the engine take at most 2^53 bytes a message)
                raise self.fail("a byte count is negative or larger than 2^53 (the limit of one message)",
                                "the trace is damaged; record it again")
            by_name[c.name] += 1
            kind = c.kind
            if kind in FAST_KINDS and c.peer != PROC_NULL:
                t_entry = c.t_entry_ns
                if kind == "complete":
                    done = c.completions
                    if not done:
                        continue  # a Test that found nothing: its time is compute (polling)
                cur = self.cur  # (a local in the fast path: no method called below reads self.cur)
                gap = t_entry - self.last_exit
                if gap > 0:  # compute_until
                    ns = round(gap * scale) or 1
                    add_kind(CALC)
                    add_amount(ns * 1000)
                    add_peer(0)
                    add_tag(0)
                    op = len(kinds_arr) - 1
                    if cur is not None:
                        add_from(op)
                        add_to(cur)
                        add_start(0)
                    cur = op
                    self.compute_ns += ns
                if kind == "isend" or kind == "send":
                    info = comms_get(c.comm) or self.comm(c.comm)
                    peer = c.peer
                    dst = peer if info.members is None and 0 <= peer < info.size else self.world_peer(info, peer)
                    tag = c.tag
                    base = tag_base_get(info.key) if 0 <= tag < tag_limit else None
                    goal_tag = base | tag if base is not None else self.p2p_tag(info, tag)
                    sop = len(kinds_arr)
                    add_kind(SEND)
                    add_amount(c.bytes)
                    add_peer(dst)
                    add_tag(goal_tag)
                    if cur is not None:
                        add_from(sop)
                        add_to(cur)
                        add_start(0)
                    chan = channels.get((rank, dst, goal_tag))
                    if chan is None:
                        chan = channels[(rank, dst, goal_tag)] = [0, -1, -1, -1, -1]
                    chan[0] += 1
                    chan[1], chan[2] = rank, c.index
                    if kind == "send":
                        cur = sop
                    else:
                        queue = pending.get(c.request)
                        if queue is None:
                            pending[c.request] = [("op", sop)]
                        else:
                            queue.append(("op", sop))
                elif kind == "recv":
                    st = c.status
                    if st is None or st == (ANY, ANY, 0):
                        if c.comm not in self.comms:
                            self.comm(c.comm)
                        rop = self.recv_as_posted(c.comm, c.peer, c.tag, c.bytes, cur)
                    else:
                        rop = self.recv(self.comm(c.comm), st, (c.peer, c.tag, c.bytes), cur)
                    if rop is not None:
                        cur = rop
                elif kind == "irecv":
                    if c.comm not in self.comms:
                        self.comm(c.comm)
                    queue = pending.get(c.request)
                    if queue is None:
                        pending[c.request] = [("recv", cur, c)]
                    else:
                        queue.append(("recv", cur, c))
                else:
                    joined = []
                    for req, src, tag, nb in c.completions or ():
                        queue = pending.get(req)
                        if queue and src != CANCELLED and req not in cancelling:
                            waiting = queue.pop(0)
                            if not queue:
                                del pending[req]
                            if waiting[0] != "recv":
                                o = waiting[1]
                            else:
                                posted = waiting[2]
                                if src == ANY and tag == ANY and nb == 0:
                                    # MPI's empty status: nothing arrived (a cancelled receive), where the
                                    # format records statuses; liballprof's "not recorded": as posted
                                    o = None if records_status else self.recv_as_posted(
                                        posted.comm, posted.peer, posted.tag, posted.bytes, waiting[1])
                                else:
                                    o = self.recv(self.comm(posted.comm), (src, tag, nb), (posted.peer, posted.tag, posted.bytes),
                                                  waiting[1])
                        else:
                            o = self.complete(req, src, tag, nb)
                        if o is not None:
                            joined.append(o)
                    if joined:  # join
                        j = len(kinds_arr)
                        add_kind(CALC)
                        add_amount(0)
                        add_peer(0)
                        add_tag(0)
                        if cur is not None:
                            add_from(j)
                            add_to(cur)
                            add_start(0)
                        for o in joined:
                            add_from(j)
                            add_to(o)
                            add_start(0)
                        cur = j
                self.cur = cur
                t_exit = c.t_exit_ns
                if t_exit > t_entry:
                    self.mpi_ns += t_exit - t_entry
                if t_exit > self.last_exit:
                    self.last_exit = t_exit
                continue
            if kind == "poll":  # unsuccessful polls folded by the recorder: compute, as each of them is
                by_name[c.name] += c.repeat - 1
                n += c.repeat - 1
                continue
            if kind == "cancel":  # its time is compute; what it did shows when the request completes
                for req in c.requests or []:
                    self.cancel(req)
                continue
            if kind == "init":
                continue
            if kind == "finalize":
                self.compute_until(c.t_entry_ns)
                self.finalize_ns = c.t_entry_ns
                continue
            if kind in ("local", "cart_shift", "comm_free"):
                continue
            if kind == "names":
                if self.rank == 0 and c.names:
                    result.warnings.append(
                        "the application imports MPI functions the recorder does not wrap: "
                        + ", ".join(c.names[:12]) + (" ..." if len(c.names) > 12 else "")
                        + "; any time spent in them counts as compute"
                    )
                continue
            if kind == "comm_create":
                self.created(c)
                continue
            if kind == "unsupported":
                result.unsupported[c.name] += 1
                if not self.opt.allow_unsupported:
                    raise self.fail(
                        f"{c.name} was recorded but cannot be converted",
                        "pass --allow-unsupported to count its time as compute (the simulation then misses its communication)",
                    )
                continue
            if kind == "complete":
                done = c.completions or []
                if not done:
                    continue  # a Test that found nothing: its time is compute (polling)
                self.compute_until(c.t_entry_ns)
                ops = [o for (req, src, tag, nb) in done if (o := self.complete(req, src, tag, nb)) is not None]
                self.join(ops)
            elif kind in ("send", "recv", "isend", "irecv") and c.peer == PROC_NULL:
                # No communication, in MPI or in the model: the library's local work for it is
                # replayed as compute (like MPI_Cart_shift), not lost from the simulated runtime.
                if kind in ("isend", "irecv"):
                    self.start_request(c, c.request)  # its completion, later, is a no-op
                continue
            elif kind == "send":
                self.compute_until(c.t_entry_ns)
                s = self.send(self.comm(c.comm), c.peer, c.tag, c.bytes, self.cur)
                if s is not None:
                    self.cur = s
            elif kind == "recv":
                self.compute_until(c.t_entry_ns)
                r = self.recv(self.comm(c.comm), c.status or (ANY, ANY, 0), (c.peer, c.tag, c.bytes), self.cur)
                if r is not None:
                    self.cur = r
            elif kind in ("isend", "irecv"):
                self.compute_until(c.t_entry_ns)
                self.start_request(c, c.request)
            elif kind in ("send_init", "recv_init"):
                self.persistent[c.request] = c
                continue
            elif kind == "start":
                self.compute_until(c.t_entry_ns)
                for req in c.requests or []:
                    template = self.persistent.get(req)
                    if template is None:
                        raise self.fail(f"MPI_Start of request {req:#x}, which no *_init call created", "the trace is damaged: record the run again")
                    self.start_request(template, req)
            elif kind == "request_free":
                # MPI_Request_free: the operation still happens, nobody waits for it, and
                # the handle may come back from the next Isend: its entry leaves now. A
                # freed receive is simulated as posted (liballprof does not say what came);
                # a freed request MPI_Cancel named is taken as cancelled (nobody learns otherwise).
                for req in c.requests or []:
                    self.persistent.pop(req, None)
                    asked = req in self.cancelling
                    self.cancelling.discard(req)
                    for entry in self.pending.pop(req, []):
                        if asked:
                            self.withdraw(entry)
                        elif entry[0] == "recv":
                            self.free_receive(entry[2], entry[1])
                continue
            elif kind == "sendrecv":
                self.compute_until(c.t_entry_ns)
                info = self.comm(c.comm)
                before = self.cur
                s = self.send(info, c.peer, c.tag, c.bytes, before)
                r = self.recv(info, c.status or (ANY, ANY, 0), (c.recv_peer, c.recv_tag, c.recv_bytes), before)
                self.join([o for o in (s, r) if o is not None])
            elif kind == "coll":
                self.compute_until(c.t_entry_ns)
                exit_op = self.collective(c, self.cur)
                if c.request:
                    self.pending.setdefault(c.request, []).append(("coll", exit_op if exit_op != self.cur else None))
                elif exit_op is not None:
                    self.cur = exit_op
            else:
                raise self.fail(f"unknown call kind {kind!r}", "this is a bug in the reader: report it")
            if c.t_exit_ns > c.t_entry_ns:
                self.mpi_ns += c.t_exit_ns - c.t_entry_ns
            if c.t_exit_ns > self.last_exit:
                self.last_exit = c.t_exit_ns
        self.call = None
        if self.finalize_ns is None:
            raise self.fail("the trace has no MPI_Finalize", "the application did not finish: record a run that reaches MPI_Finalize")
        for req, queue in self.pending.items():
            if req in self.cancelling:  # cancelled and never completed: taken as cancelled
                for entry in queue:
                    self.withdraw(entry)
                continue
            for entry in queue:
                if entry[0] != "recv":
                    continue
                posted = entry[2]
                self.call = posted
                if self.free_receive(posted, entry[1]):
                    result.warnings.append(f"rank {self.rank}: a receive posted at call {posted.index} never completed; "
                                           "simulated as the posted receive")
                else:
                    result.warnings.append(f"rank {self.rank}: a wildcard receive posted at call {posted.index} never "
                                           "completed; left out")
        self.call = None
        result.calls += n
